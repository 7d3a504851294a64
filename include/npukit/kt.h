/* SPDX-License-Identifier: MIT */
/* KohakuTPU host driver core: find and check the orchestrator window, enumerate the mesh over
 * the mailbox, stage programs, dispatch with credit, wait for completions, raw mailbox flits.
 *
 * Everything goes through a kt_transport; the driver never knows what is behind it. Every poll
 * has a budget (counted in reads) and a budget that runs out is an error naming what was seen.
 * Nothing in the registers tells a driver which bitstream generation it faces, so every
 * sequence here is the one that is correct on both, unless the caller states the bitstream is
 * current (kt_options.bitstream_current), which only unlocks the SIG_DONE wait.
 */
#ifndef NPUKIT_KT_H
#define NPUKIT_KT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "npukit/export.h"

#include "npukit/kt_flit.h"
#include "npukit/kt_regs.h"
#include "npukit/kt_transport.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kt_options {
    unsigned stage_flits;   /* STAGE_FLITS of the bitstream (not discoverable; 0 = 128) */
    uint32_t reply_budget;  /* reads spent waiting for one CU_CTRL reply (0 = 256) */
    uint32_t poll_budget;   /* reads without progress before a wait gives up (0 = 20000) */
    kt_coord reply_to;      /* src of mailbox requests; replies come back here ({0,0}: the
                               edge cell (0, GRID_LO), not (0,0), the processor's own) */
    bool bitstream_current; /* the caller knows the bitstream honours strobes */
    uint8_t expect_version; /* refuse units of another cu_version (0 = the first unit's) */
    /* Pacing of the waits (kt_wait, and the waits kt_dispatch makes): pause(user, cycles) lets
     * that many mesh cycles pass with no host transaction — the simulator steps its clock, a
     * line peer is told to advance, a real host sleeps. NULL: poll back to back (the budget still
     * counts reads). With a pause, a wait first lets the ticket's expected work pass, then polls
     * at an interval that starts at an eighth of it (at least KT_POLL_MIN_CYCLES) and doubles up
     * to the expected work; poll_cycles != 0 polls at that fixed interval instead. */
    void (*pause)(void *user, uint64_t cycles);
    void *pause_user;
    uint64_t poll_cycles;
} kt_options;

enum { KT_POLL_MIN_CYCLES = 32 };

/* What the waits cost: a status read either finds what it waits for (a check: every wait needs
 * one) or comes too early (a poll). */
typedef struct kt_wait_stats {
    uint64_t checks, polls;
    uint64_t pauses, paused_cycles;
} kt_wait_stats;

enum {
    KT_MAX_PENDING = 32,
    KT_STAGE_SHADOW_WORDS = 1024 /* the dispatcher's 10-bit word pointer */
};

/* A dispatched program whose credit-returning completions may still be arriving. */
typedef struct kt_pending {
    kt_coord dst;
    uint16_t until;         /* NODE_STATUS count after its last INST_COMPLETE: baseline + n - 1 */
    uint64_t expect_cycles; /* its ticket's estimate of the work */
    uint64_t paused_at;     /* kt_wait_stats.paused_cycles at its dispatch */
} kt_pending;

typedef struct kt_dev {
    kt_transport *t;
    uint64_t base; /* the orchestrator window */
    kt_options opt;
    kt_agent_caps caps;
    unsigned flit_words; /* ceil(FLIT_WIDTH / 64), derived from CAPS */
    uint8_t next_txn;
    unsigned stale_drained; /* mailbox flits found and dropped at open */
    kt_pending pending[KT_MAX_PENDING];
    unsigned n_pending;
    /* The most recent dispatch and the credit it seeded: credit is refilled only by
     * INST_COMPLETE, so once that program is done PROG_CRED tells whether every non-final
     * instruction completed without a fault, even one no NODE_STATUS poll happened to see. */
    bool have_last;
    kt_coord last_dst;
    uint16_t last_baseline, last_n, last_seed;
    /* What this session wrote into the staging RAM (write-only, so only the writer knows): a
     * staging block is padded out to whole 32-byte bus flits with these words, because a
     * pre-strobe bitstream zeroes every unsent word of a flit the block touches — the last words
     * of the slot below, the first of the slot above. Unknown words are never used as padding. */
    uint64_t stage_shadow[KT_STAGE_SHADOW_WORDS];
    uint8_t stage_known[KT_STAGE_SHADOW_WORDS / 8];
    /* What this session knows without a read (only it dispatches): the dispatcher is idle once a
     * read showed run == 0 or every signal of its last program arrived, until the next KICK; a
     * node's NODE_STATUS count once a wait saw it reach its target, until the next dispatch to
     * it. Each saves a read per dispatch. */
    bool stream_idle;
    uint16_t known_count[256];
    uint8_t count_known[256 / 8];
    /* The NODE_STATUS word a settle read at a program's final count (no FAULT in it): the wait
     * for that program uses it instead of reading again. 0: none. */
    uint64_t known_status[256];
    kt_wait_stats waits;
    /* Pacing learnt from the waits: estimates are scaled by expect_scale / 16 once a wait found
     * its work took longer than estimated (estimates leave out what the caller cannot know). */
    uint32_t expect_scale;
    uint64_t last_expect, last_paused_at; /* the most recent dispatch's estimate */
    /* Coordinates (kt_coord_pack bits) the last kt_enumerate asked that gave no answer within
     * the reply budget, even late: empty, or a unit slower than the budget. */
    uint8_t silent[256 / 8];
} kt_dev;

/* One wait's pacing on a device (its pause, --poll-us interval, learnt scale and statistics), for
 * any wait of the session — kt_wait's, kt_dispatch's, or a wait on another register such as the
 * control-program engine's CTRL. kt_pace_start pauses for what is left of `expect` cycles of work
 * since the device's paused total was `paused_at`; call kt_pace_read after every status read with
 * whether it found what it waited for (a check) or not (a poll, followed by a growing pause). */
typedef struct kt_pacer {
    kt_dev *d;
    uint64_t next, cap, expect, start;
    bool missed;
} kt_pacer;
NPUKIT_API kt_pacer kt_pace_start(kt_dev *d, uint64_t expect, uint64_t paused_at);
NPUKIT_API void kt_pace_read(kt_pacer *p, bool reached);

/* Forget what the session knows without a read (the dispatcher idle, nodes' counts, settled
 * status words): call it when something other than this kt_dev dispatched on the machine — an
 * engine program started with kt_hp_go on the transport, another client of a shared card — or a
 * later wait would trust a count that has moved. */
NPUKIT_API void kt_forget_known(kt_dev *d);

/* Find and check the window: CAPS must say a 288-bit flit with 0 < POS_WIDTH <= 8, STATUS must
 * show mesh_ready; then drain stale mailbox traffic. `opt` may be NULL. */
NPUKIT_API npk_status kt_open(kt_dev *d, kt_transport *t, uint64_t base, const kt_options *opt);

/* kt_open into a kt_dev allocated here (for bindings, which should not size the struct);
 * kt_dev_destroy frees it (NULL is fine). The transport stays the caller's. */
NPUKIT_API npk_status kt_dev_create(kt_transport *t, uint64_t base, const kt_options *opt,
                                    kt_dev **out);
NPUKIT_API void kt_dev_destroy(kt_dev *d);

/* Register access relative to the window. */
NPUKIT_API npk_status kt_reg_read(kt_dev *d, uint32_t off, uint64_t *v);
NPUKIT_API npk_status kt_reg_write(kt_dev *d, uint32_t off, uint64_t v);

/* ---- mailbox ---- */
/* Send one flit verbatim (the mailbox stamps nothing). Waits, within the budget, for
 * PROG_STAT.run == 0 and tx_full == 0, since a kick is silently ignored otherwise. */
NPUKIT_API npk_status kt_mailbox_send(kt_dev *d, const kt_flit *f);
/* Receive the head flit if there is one (*got false when empty); pops it. */
NPUKIT_API npk_status kt_mailbox_recv(kt_dev *d, kt_flit *f, bool *got);
/* Pop everything queued, at most `limit` flits. */
NPUKIT_API npk_status kt_mailbox_drain(kt_dev *d, unsigned limit, unsigned *drained);

/* ---- CU_CTRL and enumeration ---- */
/* One CU_CTRL read of `index` at `at`. Polls for the reply within the reply budget and accepts
 * only op 0x02 with the index, txn and source asked for. *present is false when nothing (or
 * only a memory port's looped-back request) answered. */
NPUKIT_API npk_status kt_ctrl_read(kt_dev *d, kt_coord at, uint8_t index, uint64_t *value,
                                   bool *present);

typedef struct kt_unit {
    kt_coord at;
    kt_cu_caps caps;
    char type_text[8];
} kt_unit;

/* CU_CAPS confirmed by two agreeing reads (at most four tries). */
NPUKIT_API npk_status kt_unit_caps(kt_dev *d, kt_coord at, kt_cu_caps *caps, bool *present);
/* Walk GRID_LO-1 .. GRID_HI+1 row by row (corners hold no endpoint). Refuses a version mismatch. */
NPUKIT_API npk_status kt_enumerate(kt_dev *d, kt_unit *units, size_t max, size_t *n);
/* The coordinates of the last kt_enumerate that did not answer within the reply budget (an empty
 * coordinate, or a unit slower than the budget: no reply can tell them apart), row-major; returns
 * how many there are (at most `max` are stored). */
NPUKIT_API size_t kt_silent_coords(const kt_dev *d, kt_coord *out, size_t max);
NPUKIT_API const kt_unit *kt_find_unit(const kt_unit *units, size_t n, uint16_t type);

/* ---- programs ---- */
/* Stage flits at slots base.. as one contiguous ascending block (refuses a transport without a
 * bulk path, and base + n > STAGE_FLITS). */
NPUKIT_API npk_status kt_stage(kt_dev *d, unsigned base, const kt_flit *flits, size_t n);

typedef struct kt_ticket {
    kt_coord dst;
    uint16_t baseline; /* NODE_STATUS count before the kick */
    uint16_t n;        /* signals expected: one per instruction */
    uint8_t txn;
    uint64_t expect_cycles; /* the caller's estimate of the program's work (0: unknown) */
    uint64_t paused_at;     /* set by the dispatch: the waits' paused cycles until then */
} kt_ticket;

/* Dispatch n staged flits at slot `base` to `unit`, seeding credit min(credit, inst_depth)
 * (credit 0 = inst_depth). Order BASE, LEN, DST, CRED, KICK, none elided, each a whole 64-bit
 * write; the NODE_STATUS baseline is read before any of them.
 * Before BASE, every earlier program has returned its INST_COMPLETEs: credit is refilled by a
 * completion from any node, and on a pre-strobe bitstream a late one arriving between BASE
 * (which zeroes the credit) and DST (which repairs the destination) would release the
 * dispatch PROG_LEN fired while PROG_DST still reads 0 — its first flit lost at {0,0}. */
NPUKIT_API npk_status kt_dispatch(kt_dev *d, const kt_unit *unit, unsigned base, unsigned n,
                                  unsigned credit, kt_ticket *tk);

typedef struct kt_wait_result {
    kt_node_status last; /* the final NODE_STATUS */
    bool fault_seen;     /* a SIG_FAULT was observed while waiting */
    uint32_t fault_arg;
    uint32_t polls;
} kt_wait_result;

/* Wait until the node has sent n more signals (16-bit, wrap-aware). A fault observed on the
 * way, or as the last code, fails with NPK_EFAULT; so does, for the most recent dispatch, a
 * credit short of seed - 1 at the end (NODE_STATUS keeps only the last code, so a fault
 * followed by more completions between two polls is visible only as credit never returned). A
 * budget without progress fails with NPK_ETIMEDOUT and a diagnosis from PROG_STAT (starved of
 * credit / never addressed). */
NPUKIT_API npk_status kt_wait(kt_dev *d, const kt_ticket *tk, kt_wait_result *res);
/* SIG_DONE: clear, and wait for a total. Only when opt.bitstream_current is set. */
NPUKIT_API npk_status kt_sig_done_clear(kt_dev *d);
NPUKIT_API npk_status kt_wait_sig_done(kt_dev *d, uint16_t total);

/* Decode PROG_STAT into one line: "run=1 flits_left=3 credit=0 (starved: ...)". */
NPUKIT_API size_t kt_prog_stat_text(const kt_prog_stat *p, char *buf, size_t len);

/* The unit types' instruction encoders are declared with their layouts in each unit's own
 * header (kt_saxpy.h: kt_saxpy_inst, kt_test_unit.h: kt_test_inst, kt_mat.h, kt_vec.h). */

#ifdef __cplusplus
}
#endif
#endif
