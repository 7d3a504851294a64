/* SPDX-License-Identifier: MIT */
/* A simulated KohakuTPU card: one to four meshes (each a full ktsim machine) with their memory
 * movers, the interlink joining them, each mesh's staging aperture, and the host control-program
 * engine on the host bus — all behind one kt_transport, like the card's host interface.
 *
 * Host address map, for mesh m (facts §1.9):
 *   control window   cfg.ctrl_base + m * 0x10000
 *   DRAM             (m + 1) << 40 | m << 36          (cfg.mem_base for mesh 0)
 *   staging aperture (m + 1) << 40 | 1 << 39 | m << 36  (2 MiB, byte strobes honoured)
 *   engine           cfg.engine_base (the simulation bench's ORC_BASE; its master reaches every
 *                    control window below 2^32)
 * Every mesh starts with its interlink mesh id equal to its position, as the MESH_ID parameter
 * sets it; the id is a runtime register and a driver may change it.
 */
#ifndef NPUKIT_KTSIM_CARD_H
#define NPUKIT_KTSIM_CARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npukit/kt_transport.h"
#include "npukit/ktsim.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ktsim_card_opts {
    unsigned meshes;           /* 1..4 (0 = 1) */
    bool interlink;            /* build the interlink (always built with more than one mesh) */
    bool engine;               /* the host control-program engine at cfg.engine_base */
    unsigned link_latency;     /* cycles on a link (0 = 24) */
    unsigned link_beat_cycles; /* cycles between beats on a link (0 = 4) */
    unsigned engine_poll_ivl;  /* POLL_IVL (0 = 31) */
} ktsim_card_opts;

typedef struct ktsim_card ktsim_card;

npk_status ktsim_card_create(const ktsim_config *cfg, const ktsim_card_opts *opts,
                             ktsim_card **out);
/* A preset by name or path (see ktsim_preset_load), with the options, and a generation override
 * when `prestrobe` is set. */
npk_status ktsim_card_open_preset(const char *preset, bool prestrobe, const ktsim_card_opts *opts,
                                  ktsim_card **out);
void ktsim_card_destroy(ktsim_card *c);

kt_transport *ktsim_card_transport(ktsim_card *c);
unsigned ktsim_card_meshes(const ktsim_card *c);
ktsim *ktsim_card_mesh(ktsim_card *c, unsigned m);
uint64_t ktsim_card_ctrl_base(const ktsim_card *c, unsigned m);
uint64_t ktsim_card_mem_base(const ktsim_card *c, unsigned m);
uint64_t ktsim_card_stage_base(const ktsim_card *c, unsigned m);
uint64_t ktsim_card_engine_base(const ktsim_card *c); /* meaningful when the engine is built */
bool ktsim_card_has_engine(const ktsim_card *c);
bool ktsim_card_has_interlink(const ktsim_card *c);

/* Advance every mesh by `cycles`. */
void ktsim_card_step(ktsim_card *c, uint64_t cycles);
uint64_t ktsim_card_cycle(const ktsim_card *c);
/* The first thing a model refused to guess, in any mesh or in the card's own models. */
const char *ktsim_card_fault(const ktsim_card *c);

/* Backdoors: a mesh's staging store, and its mover's own transfer counts. */
npk_status ktsim_card_stage_read(ktsim_card *c, unsigned m, uint64_t off, void *buf, size_t len);
void ktsim_card_mover_traffic(const ktsim_card *c, unsigned m, uint64_t *reads, uint64_t *writes);
/* The RV64 control region's db_status word of mesh m (0 without an interlink). */
uint64_t ktsim_card_db_status(const ktsim_card *c, unsigned m);

#ifdef __cplusplus
}
#endif
#endif
