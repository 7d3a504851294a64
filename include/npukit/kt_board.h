/* SPDX-License-Identifier: MIT */
/* A KohakuTPU board description: what a host must know about a card that its registers do not
 * say — the host address map (control windows, DRAM and staging apertures, the engine), the DRAM
 * populated per mesh, STAGE_FLITS, the bitstream generation, the mesh clock and the capabilities
 * built into the bitstream (mover, RV64 control complex).
 *
 * It is read from the same preset files the simulator uses (data/kt/<name>.mesh; the keys are
 * listed in data/kt/README.md): the board's keys are parsed here, the simulator's own keys (grid,
 * units, FIFO depths, timing) by the simulator, which builds its machine from this description. A
 * driver talking to a real card reads the map from it, the simulator lays its buses out by it.
 *
 * Host address map of mesh m (facts §1.9, the card's address-map document, the boards/ JSON files):
 *   control window   ctrl_base + m * KT_BOARD_MESH_STRIDE  (KT_BOARD_MESH_WINDOW bytes)
 *   DRAM             mem_base + m << 40 + m << 36   ((m + 1) << 40 | inside address, whose [37:36]
 *                    carry the mesh, when mem_base is the card's 1 << 40)
 *   staging aperture (m + 1) << 40 | 1 << 39 | m << 36
 */
#ifndef NPUKIT_KT_BOARD_H
#define NPUKIT_KT_BOARD_H

#include "npukit/export.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    KT_BOARD_NAME_MAX = 32,
    KT_BOARD_MAX_MESHES = 4,         /* interlink mesh ids 0..3 (facts §1.11) */
    KT_BOARD_MESH_STRIDE = 0x10000,  /* control windows per mesh on v6.x/v7 boards (facts §1.9) */
    KT_BOARD_MESH_WINDOW = 0x10000,  /* one mesh's control window (only addr[15:0] decoded) */
    KT_BOARD_STAGE_BYTES = 2u << 20, /* staging aperture: 4 banks x 16384 entries x 32 bytes */
    KT_BOARD_STAGE_FLITS_MAX = 204,  /* STAGE_FLITS whose staging RAM fits below 0x3FFF */
    KT_BOARD_CLOCK_MHZ_MAX = 10000,
    KT_BOARD_PRESET_MAX_BYTES = 65535 /* a preset file is text of at most 64 KiB */
};

typedef struct kt_board {
    char name[KT_BOARD_NAME_MAX]; /* letters, digits, '-', '_', '.' */
    /* The bitstream honours AXI byte strobes (generation current); false: the pre-strobe
     * bitstream, whose 32-byte bus flits zero their unsent words (facts §2.1.5). */
    bool bitstream_current;
    unsigned stage_flits; /* STAGE_FLITS: not discoverable from the registers (facts §1.5) */
    uint64_t ctrl_base;   /* mesh 0's control window */
    uint64_t mem_base;    /* mesh 0's DRAM on the host bus (DRAM offset 0) */
    uint64_t engine_base; /* the host control-program engine (the bench's ORC_BASE) */
    uint64_t dram_size;   /* bytes of DRAM each mesh's memory window covers */
    unsigned clock_mhz;   /* the mesh (noc) clock: waits given in time become cycles */
    bool mover;           /* the memory agent carries the mover (AUX_CFG 0x00-0x7F) */
    bool cpu_rv64;        /* the RV64 control complex (a preset's `rv64 X Y` line) */
} kt_board;

/* The simulation bench's board: one mesh, orchestrator at MAG_BASE 0x1000_0000, engine at
 * ORC_BASE 0, DRAM of mesh 0 at 1 << 40 (256 MiB), STAGE_FLITS 128, ship clock 300 MHz. */
NPUKIT_API void kt_board_default(kt_board *b);

/* Read the board's keys from preset text (the other lines are the simulator's and are skipped
 * here; `rv64 X Y` marks the RV64 capability). Each board key once; a bad value is an error
 * naming origin:line, the key, the value and its limit. */
NPUKIT_API npk_status kt_board_parse(const char *text, const char *origin, kt_board *b);
/* A preset by name (<data>/kt/<name>.mesh) or path (anything with '/' or '.'). */
NPUKIT_API npk_status kt_board_load(const char *name_or_path, kt_board *b);
/* Whether `key` (a preset line's first word) is one of the board's keys. */
NPUKIT_API bool kt_board_key(const char *key);

/* The map: mesh `mesh`'s control window, DRAM (offset 0) and staging aperture on the host bus. */
NPUKIT_API uint64_t kt_board_ctrl_base(const kt_board *b, unsigned mesh);
NPUKIT_API uint64_t kt_board_mem_base(const kt_board *b, unsigned mesh);
NPUKIT_API uint64_t kt_board_stage_base(const kt_board *b, unsigned mesh);

#ifdef __cplusplus
}
#endif
#endif
