/* SPDX-License-Identifier: MIT */
/* ktsim: a cycle-stepped, register-accurate simulator of the KohakuAccel control plane.
 *
 * It models the orchestrator window (both bitstream generations), the mesh (XY routing with the
 * clamp, router FIFOs, hold-until-taken links), the compute-unit shell with unit models behind
 * it, and the memory agent with DRAM. It is reached only as a kt_transport, exactly like a card:
 * every host access costs simulated cycles, and nothing in the registers says which bitstream
 * generation is modelled.
 *
 * Extension points for other modules (mover, interlink, host control-program engine) are table
 * rows: an AUX_CFG client (a sub-range of 0x800-0x8FF plus AUX_STAT / AUX_STATW words) and a bus
 * region (an address range on the host bus, e.g. the engine at ORC_BASE), each with a per-cycle
 * tick. A region's logic can master the bus itself (ktsim_bus_write64 / ktsim_bus_read64).
 */
#ifndef NPUKIT_KTSIM_H
#define NPUKIT_KTSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "npukit/export.h"

#include "npukit/kt_board.h"
#include "npukit/kt_flit.h"
#include "npukit/kt_transport.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which orchestrator bitstream is modelled. */
typedef enum ktsim_gen {
    KTSIM_GEN_CURRENT = 0,   /* honours AXI byte strobes */
    KTSIM_GEN_PRESTROBE = 1, /* every beat of a 32-byte bus flit acts: neighbours are zeroed */
} ktsim_gen;
NPUKIT_API const char *ktsim_gen_name(ktsim_gen g);

enum {
    KTSIM_MAX_UNITS = 64,
    KTSIM_MAX_MEM_PORTS = 4,
    KTSIM_NAME_MAX = 32,
    KTSIM_MAX_TIMINGS = 16,   /* unit types with a timing row */
    KTSIM_UNIT_MAX_KEYS = 16, /* a unit type's own settings, and its timing keys */
    KTSIM_KIND_MAX = 16,      /* a unit kind's name with its NUL */
};

/* One key a unit type names itself (ktsim_unit.h): a setting of its preset `unit` line or a key
 * of its `timing` row, its default and its range. A key table ends with a NULL name. */
typedef struct ktsim_unit_key {
    const char *name;
    uint32_t def, min, max;
} ktsim_unit_key;

/* A unit type's timing: how long its model spends beyond what the mesh and the memory port model
 * themselves (preset line `timing KIND key=value ...`). The keys are the type's own (its
 * ksim_unit_ops.timing table; ktsim_unit_timing_keys): value[i] is key i's. The defaults are
 * calibrated against the RTL under Verilator, each type's row naming its source. */
typedef struct ktsim_unit_timing {
    char kind[KTSIM_KIND_MAX]; /* the unit type it applies to ("saxpy") */
    uint32_t value[KTSIM_UNIT_MAX_KEYS];
} ktsim_unit_timing;

/* One compute unit of a machine. The shell's settings are named fields; the unit type's own are
 * setting[], in the order of its ksim_unit_ops.settings table (ktsim_unit_set by name). */
typedef struct ktsim_unit_cfg {
    kt_coord at;
    char kind[KTSIM_KIND_MAX]; /* a unit type: "saxpy", "test", or one registered */
    uint16_t type;             /* CU_CAPS cu_type (0: the type's default) */
    uint8_t version;           /* CU_CAPS cu_version */
    uint8_t n_buffers;
    uint16_t inst_depth;  /* instruction FIFO depth (CU_CAPS inst_depth) */
    uint32_t reply_delay; /* cycles before a CU_CTRL reply may leave (slow replies) */
    uint32_t cdc;         /* the machine's cdc_unit, filled when the machine is built */
    uint32_t setting[KTSIM_UNIT_MAX_KEYS]; /* the type's own settings */
    uint32_t settings_given;               /* bit i: setting[i] was set; the others take the
                                            * type's default when the machine is built */
    ktsim_unit_timing timing;              /* its kind's row, filled when the machine is built */
} ktsim_unit_cfg;

typedef struct ktsim_config {
    char name[KTSIM_NAME_MAX];
    ktsim_gen gen;
    bool stale_lanes;         /* pre-strobe: unstrobed beats carry stale bytes rather than zeros */
    uint16_t flit_width;      /* 288 */
    uint8_t pos_width;        /* 4 */
    uint8_t grid_lo, grid_hi; /* routers at grid_lo..grid_hi on both axes */
    unsigned stage_flits;     /* STAGE_FLITS (128) */
    unsigned tx_depth, rx_depth;
    unsigned router_fifo; /* per router input port */
    unsigned recv_depth;  /* a shell's receive FIFO */
    unsigned mem_queue;   /* a memory port's intake queue */
    /* Entries a synchronous FIFO holds beyond its DEPTH parameter: the RTL's xpm_fifo_sync holds
     * FIFO_WRITE_DEPTH + 2 (facts §1.5, the upstream Verilator shims notes; measured: a 16-deep
     * RX FIFO keeps 18 looped-back flits before RX_STATUS overflow). Applied to the TX and RX
     * FIFOs, every router input port, and each unit's instruction and receive FIFOs; what the
     * registers publish (CU_CAPS inst_depth, and so the credit a driver seeds) stays DEPTH. */
    unsigned sync_fifo_extra;
    kt_coord mem_port[KTSIM_MAX_MEM_PORTS];
    unsigned n_mem_ports; /* port 0 hosts the orchestrator */
    uint64_t ctrl_base;   /* the orchestrator window on the host bus */
    uint64_t mem_base;    /* the host memory window (DRAM offset 0) */
    uint64_t engine_base; /* where a host control-program engine region belongs */
    uint64_t dram_size;
    unsigned host_access_cycles; /* mesh cycles one host transaction takes */
    /* Cycles per 32-byte beat of the host memory window, times 4 (4 = one a beat; the RTL
     * bench's 3.25 = 13), so a fractional rate needs no floating point. */
    unsigned host_mem_cycles_x4;
    /* Cycles the clock-domain crossings (async FIFOs) add on the mailbox path, even on one clock:
     * the orchestrator's TX (the dispatcher's flits too) and RX, and a unit's CU_CTRL request and
     * reply together (calibrated: RTL mailbox round trip to a unit one router away seen 9
     * cycles after the kick, a loopback 4, on the rtl_bench preset). */
    unsigned cdc_tx, cdc_rx, cdc_unit;
    /* The host reaches the orchestrator window through the station bus (default: writes packed
     * into 32-byte flits of four beats, spec §2.7), or, off, straight from an AXI master (the
     * RTL bench: one beat per 64-bit word). */
    bool station_bus;
    unsigned clock_mhz; /* the mesh clock, for waits given in time (--poll-us, a card's sleeps) */
    bool mover;         /* the memory agent carries the mover on AUX_CFG 0x00-0x7F (default) */
    /* Skip quiet cycles at once (default): the same cycles and state, fewer host seconds. Off,
     * every cycle is ticked — the reference the speed benchmark measures against. */
    bool skip_quiet;
    /* A host control-program engine can sit at engine_base (default): `engine 0` for a top
     * built without one (a card, the generated saxpy mesh), which then never announces one. */
    bool engine;
    ktsim_unit_cfg units[KTSIM_MAX_UNITS];
    unsigned n_units;
    ktsim_unit_timing timing[KTSIM_MAX_TIMINGS]; /* one row per unit kind that has timing */
    unsigned n_timing;
    /* CPU_RV64 = 1: the RV64 control complex sits at rv64_at, which must be (0,0), the system
     * node's coordinate (no compute-unit shell; its mailbox is a client of the memory ports),
     * and its load window at ctrl_base + 0x8000, which the orchestrator window then stops short
     * of. rv64_cost[k] overrides the core's cycle cost of instruction class k (0 keeps the
     * default; the classes are listed in data/kt/README.md). */
    bool cpu_rv64;
    kt_coord rv64_at;
    uint32_t rv64_cost[16];
} ktsim_config;

/* The reference defaults (no units; every unit kind's calibrated timing row). */
NPUKIT_API void ktsim_config_default(ktsim_config *cfg);
/* The board description in a configuration: its name, generation, STAGE_FLITS, address map,
 * DRAM size, clock and mover copied in (the machine is laid out by them), or read back. */
NPUKIT_API void ktsim_config_set_board(ktsim_config *cfg, const kt_board *b);
NPUKIT_API void ktsim_config_board(const ktsim_config *cfg, kt_board *b);
/* The timing row of a unit kind, or NULL when the kind has none (the test unit: its cycles are
 * the instruction's or the unit's `latency`). */
NPUKIT_API const ktsim_unit_timing *ktsim_timing_find(const ktsim_config *cfg, const char *kind);
/* The keys of a unit kind's timing row (NULL-terminated), or NULL when the kind has none or is
 * not in the unit-type table. */
NPUKIT_API const ktsim_unit_key *ktsim_unit_timing_keys(const char *kind);
/* The value of timing key `key` of kind's row in cfg; false when the kind has no row or no such
 * key. */
NPUKIT_API bool ktsim_timing_get(const ktsim_config *cfg, const char *kind, const char *key,
                                 uint32_t *value);
/* Set unit setting `key` (the shell's or the unit type's own) as a preset's `key=value` would:
 * refused naming the key and its range when the unit's kind has no such setting or the value is
 * outside it. */
NPUKIT_API npk_status ktsim_unit_set(ktsim_unit_cfg *u, const char *key, uint64_t value);
/* Load a preset: a name resolves to <data>/kt/<name>.mesh, anything with '/' or '.' is a path. */
NPUKIT_API npk_status ktsim_preset_load(const char *name_or_path, ktsim_config *cfg);
/* Parse preset text (the file format and the bundled presets are described in data/kt/README.md).
 */
NPUKIT_API npk_status ktsim_preset_parse(const char *text, const char *origin, ktsim_config *cfg);
/* Names of the bundled presets, NULL-terminated. */
NPUKIT_API const char *const *ktsim_preset_names(void);

typedef struct ktsim ktsim;

NPUKIT_API npk_status ktsim_create(const ktsim_config *cfg, ktsim **out);
NPUKIT_API void ktsim_destroy(ktsim *s);
NPUKIT_API const ktsim_config *ktsim_get_config(const ktsim *s);

/* The simulator as a transport (bulk = true). Owned by the simulator. */
NPUKIT_API kt_transport *ktsim_transport(ktsim *s);

/* Advance the clock. */
NPUKIT_API void ktsim_step(ktsim *s, uint64_t cycles);
NPUKIT_API uint64_t ktsim_cycle(const ktsim *s);
/* Assert resetn: orchestrator registers, FIFOs, dispatcher, mesh and units return to reset;
 * NODE_STATUS (initialised only with the bitstream) and DRAM keep their contents. */
NPUKIT_API void ktsim_reset(ktsim *s);

/* The first thing the model refused to guess (NULL when none), e.g. a dispatch reading past
 * the staging RAM, a mesh read of never-written DRAM. Sticky until ktsim_clear_fault. */
NPUKIT_API const char *ktsim_fault(const ktsim *s);
NPUKIT_API void ktsim_clear_fault(ktsim *s);

/* Cycles since any flit last moved anywhere while work was outstanding (a stalled mesh grows
 * this without bound; an idle one keeps it at 0). */
NPUKIT_API uint64_t ktsim_stalled_cycles(const ktsim *s);

/* DRAM backdoor (local offsets, no granule effects), as the Verilator backdoor offers. */
NPUKIT_API npk_status ktsim_dram_write(ktsim *s, uint64_t offset, const void *buf, size_t len);
NPUKIT_API npk_status ktsim_dram_read(ktsim *s, uint64_t offset, void *buf, size_t len);

/* Test backdoors: the mirror's bitstream-init contents, and a unit's counters. */
NPUKIT_API void ktsim_poke_node_status(ktsim *s, kt_coord at, uint64_t value);
NPUKIT_API npk_status ktsim_poke_unit_counters(ktsim *s, kt_coord at, uint32_t retired,
                                               uint32_t busy_cycles);
/* The RV64 complex (NULL without CPU_RV64), for tests that look inside it. */
struct ksim_rv64c;
NPUKIT_API struct ksim_rv64c *ktsim_rv64(ktsim *s);
/* Interlink writes the complex stored in a cycle the host also pulsed the interlink: lost. */
NPUKIT_API uint64_t ktsim_rv64_ilink_lost(const ktsim *s);
/* Host AUX_CFG mover writes pulsed in a cycle the complex stored to its mover window: lost, the
 * processor's write wins the mover's one config port (whatever register each addressed). */
NPUKIT_API uint64_t ktsim_rv64_mover_host_lost(const ktsim *s);

/* Flits that reached an edge position with nobody there, and were dropped. */
NPUKIT_API uint64_t ktsim_dropped_flits(const ktsim *s);

/* ---- extension rows ---- */

/* An AUX_CFG client: the mover owns client offsets 0x00-0x7F, the interlink 0x80-0xFF. Each
 * pulse is (client offset, 64-bit value); how many pulses a host write produces, and at which
 * offsets, is the generation's business, not the client's. */
typedef struct ktsim_aux_client {
    const char *name;
    uint8_t lo, hi;                                         /* inclusive client offsets */
    void (*cfg)(void *ctx, uint8_t offset, uint64_t value); /* one cfg pulse */
    uint64_t (*stat)(void *ctx);                  /* AUX_STAT bits [63:40] and [7:0], or NULL */
    uint64_t (*statw)(void *ctx, unsigned index); /* AUX_STATW[index], or NULL */
    void (*tick)(void *ctx);                      /* once per cycle, or NULL */
    void *ctx;
} ktsim_aux_client;
NPUKIT_API npk_status ktsim_add_aux_client(ktsim *s, const ktsim_aux_client *c);

/* A host-bus region (another AXI slave beside the orchestrator window and memory window). */
typedef struct ktsim_region {
    const char *name;
    uint64_t base, size;
    npk_status (*read64)(void *ctx, uint64_t offset, uint64_t *value);
    npk_status (*write64)(void *ctx, uint64_t offset, uint64_t value, uint8_t strobes);
    void (*tick)(void *ctx);
    void *ctx;
} ktsim_region;
NPUKIT_API npk_status ktsim_add_region(ktsim *s, const ktsim_region *r);

/* Optional, for skipping quiet cycles, on the AUX_CFG client or ticking region named `name`:
 * quiet(ctx) says how many of its next ticks would only count down (UINT64_MAX: they do nothing),
 * skip(ctx, n) applies n such ticks at once (NULL: nothing to count). While any ticking client or
 * region has no quiet hook the simulator ticks every cycle. */
NPUKIT_API npk_status ktsim_set_quiet(ktsim *s, const char *name, uint64_t (*quiet)(void *ctx),
                                      void (*skip)(void *ctx, uint64_t cycles));

/* Bus-master access from inside the machine (e.g. an engine's AXI master): one single-beat
 * transaction with all strobes, straight to the slave — no host station bus, no access cost. */
NPUKIT_API npk_status ktsim_bus_write64(ktsim *s, uint64_t addr, uint64_t value);
NPUKIT_API npk_status ktsim_bus_read64(ktsim *s, uint64_t addr, uint64_t *value);

/* Memory-agent traffic counters (AXI transactions, summed across ports; 16-bit, free-running). */
NPUKIT_API void ktsim_mem_traffic(const ktsim *s, uint16_t *reads, uint16_t *writes);
/* Add the AXI transactions of a plugged memory-agent master (the mover) to those counters. */
NPUKIT_API void ktsim_count_mem_traffic(ktsim *s, unsigned reads, unsigned writes);

/* The interlink's reach into the mesh (spec §4): a flit arriving at a memory port with rsvd[2]
 * set (KT_RSVD_REMOTE) goes to take(user, flit) instead of the agent (false: the port holds it
 * this cycle); ktsim_inject_flit sends a flit from another mesh into this one from the memory
 * port on its destination's row (port 0 when none is), after the agent's and the control
 * complex's own outbound (false: that port's queue is full this cycle). */
NPUKIT_API void ktsim_set_remote_flits(ktsim *s, bool (*take)(void *user, const kt_flit *f),
                                       void *user);
NPUKIT_API bool ktsim_inject_flit(ktsim *s, const kt_flit *f);

#ifdef __cplusplus
}
#endif
#endif
