/* SPDX-License-Identifier: MIT */
/* KohakuTPU host control programs (spec §5, facts §2.3): a program is data.
 *
 *   setup  — block writes the host makes itself before anything runs (staging flits);
 *   cmds   — WR addr data / POLL addr want mask / DONE code.
 *
 * The same program runs two ways: on the host over any transport (kt_hp_run_host: every WR is a
 * write64, every POLL a read loop with a budget), or loaded into the host control-program engine
 * and started with one GO (kt_hp_run_engine), so that a whole stage + dispatch + wait costs the
 * host the setup block, the command words and a GO, and the host is not in the loop per poll.
 *
 * Every command may carry a label ("NODE_STATUS(1,1)"); a poll that runs out of budget names the
 * command, its register, what it wanted and the last value read.
 */
#ifndef NPUKIT_KT_HOSTPROG_H
#define NPUKIT_KT_HOSTPROG_H

#include "npukit/export.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npukit/kt.h"
#include "npukit/kt_mover.h"
#include "npukit/kt_transport.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kt_hp_op { KT_HP_WR = 1, KT_HP_POLL = 2, KT_HP_DONE = 3 } kt_hp_op;

/* The engine's window (spec §5). */
enum kt_engine_reg {
    KT_ENG_CTRL = 0x0000, /* W: [0] GO. R: [0] busy, [1] done, [2] err */
    KT_ENG_PC = 0x0008,
    KT_ENG_CODE = 0x0010,
    KT_ENG_POLLS = 0x0018,
    KT_ENG_CMD = 0x1000, /* command n, field f at 0x1000 + n*32 + f*8 */
};
enum {
    KT_ENG_NCMD = 128,     /* command slots (NCMD) */
    KT_ENG_ADDR_BITS = 32, /* ADDR_W: the engine's master reaches 32-bit addresses only */
    KT_HP_LABEL = 40,
};
static inline uint32_t kt_eng_cmd_offset(unsigned n, unsigned field)
{
    return KT_ENG_CMD + n * 32u + field * 8u;
}

typedef struct kt_hp_cmd {
    uint8_t op;
    uint64_t addr, data, mask; /* WR: data. POLL: want and mask. DONE: data = code */
    char what[KT_HP_LABEL];    /* the register's name, for diagnostics */
} kt_hp_cmd;

typedef struct kt_hp_block {
    uint64_t addr;
    uint8_t *bytes;
    size_t len;
} kt_hp_block;

typedef struct kt_hostprog {
    kt_hp_block *setup;
    size_t n_setup, cap_setup;
    kt_hp_cmd *cmds;
    size_t n_cmds, cap_cmds;
} kt_hostprog;

NPUKIT_API void kt_hp_init(kt_hostprog *p);
NPUKIT_API void kt_hp_free(kt_hostprog *p);
NPUKIT_API const char *kt_hp_op_name(unsigned op);

/* Append. `what` may be NULL (the address is named instead). */
NPUKIT_API npk_status kt_hp_setup(kt_hostprog *p, uint64_t addr, const void *bytes, size_t len);
NPUKIT_API npk_status kt_hp_wr(kt_hostprog *p, uint64_t addr, uint64_t data, const char *what);
NPUKIT_API npk_status kt_hp_poll(kt_hostprog *p, uint64_t addr, uint64_t want, uint64_t mask,
                      const char *what);
NPUKIT_API npk_status kt_hp_done(kt_hostprog *p, uint64_t code);

/* One line per command / setup block: "WR   0x10000068 <- 0x0 PROG_BASE". */
NPUKIT_API size_t kt_hp_format(const kt_hostprog *p, char *buf, size_t len);

/* ---- text form: one command per line, '#' starts a comment ----
 *   SETUP <addr> <hex bytes, memory order>
 *   WR    <addr> <data> [label]
 *   POLL  <addr> <want> <mask> [label]
 *   DONE  <code>
 * Numbers are decimal or 0x hex. kt_hp_to_text writes what kt_hp_parse reads. */
NPUKIT_API npk_status kt_hp_parse(const char *text, const char *origin, kt_hostprog *p);
/* Returns the length the whole text needs (like snprintf). */
NPUKIT_API size_t kt_hp_to_text(const kt_hostprog *p, char *buf, size_t len);

/* ---- the core's sequences, emitted as program data ---- */
/* Staging as one setup block (a block: word by word a pre-strobe bitstream keeps 1 word in 4),
 * padded to whole 32-byte bus flits with words staged before, exactly as kt_stage writes it; `d`
 * records the block as staged (the program is expected to run). */
NPUKIT_API npk_status kt_hp_stage(kt_hostprog *p, kt_dev *d, unsigned base, const kt_flit *flits, size_t n);
/* The dispatch: POLL PROG_STAT.run == 0, then BASE, LEN, DST, CRED, KICK — none elided. The
 * NODE_STATUS baseline is read now, on the host, because the wait needs an absolute count. */
NPUKIT_API npk_status kt_hp_dispatch(kt_hostprog *p, kt_dev *d, const kt_unit *unit, unsigned base, unsigned n,
                          unsigned credit, kt_ticket *tk);
/* The wait: POLL NODE_STATUS until count == baseline + n (16-bit) and valid. */
NPUKIT_API npk_status kt_hp_await(kt_hostprog *p, const kt_dev *d, const kt_ticket *tk);
/* After the run: the final NODE_STATUS must not carry SIG_FAULT (a count alone is satisfied by
 * a fault), and for the program's last dispatch PROG_CRED must be back at seed - 1 (a fault that
 * later completions overwrote in NODE_STATUS returned no credit), as kt_wait checks. */
NPUKIT_API npk_status kt_hp_check_ticket(kt_dev *d, const kt_ticket *tk);
/* ---- programs that run again as loaded (a bitstream that honours strobes) ----
 * NODE_STATUS counts only grow and a POLL matches one exact value, so a program that waits on
 * them can run once. SIG_DONE is cleared by a write: a program that clears it first and waits on
 * totals counted from that clear does the same thing every time it runs, so once loaded it runs
 * again for one GO and one completion check. On a pre-strobe bitstream every dispatch's
 * PROG_BASE/PROG_CRED write clears SIG_DONE as well (spec §2.7), so there is no such program.
 *
 * kt_hp_signals_start: WR SIG_DONE 0; refused on a pre-strobe bitstream or while earlier
 * programs of this session may still signal. kt_hp_dispatch_signals: `before` = the signals of
 * this run's earlier programs; POLL SIG_DONE == before (or PROG_STAT.run == 0 for the first), then
 * BASE, LEN, DST, CRED, KICK. kt_hp_await_signals: POLL SIG_DONE == total. After a run that ended
 * (DONE after the final await), kt_hp_signals_ended records that nothing is pending; check each
 * ticket with kt_hp_check_ticket. kt_hp_ticket_again: the same dispatch's ticket for the next
 * run (baseline moved by its length; `last`: the run's last dispatch, whose credit
 * kt_hp_check_ticket checks). */
NPUKIT_API npk_status kt_hp_signals_start(kt_hostprog *p, kt_dev *d);
NPUKIT_API npk_status kt_hp_dispatch_signals(kt_hostprog *p, kt_dev *d, const kt_unit *unit, unsigned base,
                                  unsigned n, unsigned credit, uint16_t before, kt_ticket *tk);
NPUKIT_API npk_status kt_hp_await_signals(kt_hostprog *p, const kt_dev *d, uint16_t total);
NPUKIT_API void kt_hp_signals_ended(kt_dev *d);
NPUKIT_API void kt_hp_ticket_again(kt_dev *d, kt_ticket *tk, bool last);
/* A move: its ordered writes into AUX_CFG, then POLL AUX_STAT.busy == 0. Check the fault with
 * kt_mv_status_decode on AUX_STAT afterwards. */
NPUKIT_API npk_status kt_hp_move(kt_hostprog *p, uint64_t ctrl_base, const kt_mv_write *w, size_t n);

/* ---- running ---- */
typedef struct kt_hp_opts {
    uint32_t
        poll_budget; /* reads per POLL (host) or CTRL reads (engine) before giving up; 0 = 100000 */
    /* Called between two unsuccessful reads: a real host sleeps, a simulated one advances the
     * clock. NULL = read back to back. */
    void (*idle)(void *user);
    void *idle_user;
} kt_hp_opts;

typedef struct kt_hp_result {
    uint64_t code;  /* the DONE code */
    uint32_t polls; /* reads spent polling (host) / engine POLLS register (engine) */
    uint32_t waits; /* engine form: host reads of the engine's CTRL */
    unsigned pc;
} kt_hp_result;

NPUKIT_API npk_status kt_hp_run_host(kt_transport *t, const kt_hostprog *p, const kt_hp_opts *o,
                          kt_hp_result *r);

/* Engine form: refuses more than 128 commands and addresses beyond the engine's 32 bits. Load
 * writes the setup blocks, then each command's fields as single writes (the engine takes one
 * beat per write; a burst would hang its slave) — op, addr and data for WR, all four for POLL, op
 * and code for DONE. */
NPUKIT_API npk_status kt_hp_load(kt_transport *t, uint64_t engine_base, const kt_hostprog *p);
/* GO. Refuses a busy engine (a GO while busy is lost and there is no abort). The program's
 * dispatches are not a kt_dev's: call kt_forget_known on any kt_dev of the same machine. */
NPUKIT_API npk_status kt_hp_go(kt_transport *t, uint64_t engine_base);
/* Poll CTRL until done; err = an invalid opcode was reached (named with its PC). A budget that
 * runs out names the command at the PC, its register, and the value the host reads there now. */
NPUKIT_API npk_status kt_hp_wait_engine(kt_transport *t, uint64_t engine_base, const kt_hostprog *p,
                             const kt_hp_opts *o, kt_hp_result *r);
NPUKIT_API npk_status kt_hp_run_engine(kt_transport *t, uint64_t engine_base, const kt_hostprog *p,
                            const kt_hp_opts *o, kt_hp_result *r);
/* Whether the engine can hold p: at most 128 commands, a DONE, valid opcodes, 32-bit addresses. */
NPUKIT_API npk_status kt_hp_check_engine(const kt_hostprog *p);

/* ---- an engine kept across runs ----
 * What this session knows of one engine without reading it: the command RAM is write-only and
 * only this session writes it, so the words written are remembered and a later program rewrites
 * only the words that differ (none, when the same program runs again); and once a read saw the
 * engine done it stays idle until the session's next GO, so a GO needs no read first. A loaded
 * program runs again with kt_engine_run: one GO and its completion check — when the program can
 * run twice (see kt_hp_dispatch_signals). */
typedef struct kt_engine {
    kt_transport *t;
    uint64_t base;
    kt_dev *pace; /* when set, the waits pace themselves through this device (kt_pace_start) */
    uint64_t words[KT_ENG_NCMD][4];
    uint8_t known[KT_ENG_NCMD]; /* bit f: words[n][f] is what the engine holds */
    bool idle;                  /* a read saw it not busy, and no GO since */
    uint64_t go_paused_at;      /* pace->waits.paused_cycles at the last GO */
    uint64_t cmd_writes;        /* command words written so far */
} kt_engine;

NPUKIT_API void kt_engine_init(kt_engine *e, kt_transport *t, uint64_t base, kt_dev *pace);
/* The setup blocks, then the words each command's opcode reads that the engine does not hold. */
NPUKIT_API npk_status kt_engine_load(kt_engine *e, const kt_hostprog *p);
/* GO; refuses a busy engine (a GO while busy is lost), reading CTRL only when not known idle. */
NPUKIT_API npk_status kt_engine_go(kt_engine *e);
/* Wait for done after a GO, reading CTRL only: the DONE code is the program's when it has one
 * DONE (CODE is read otherwise), PC is read on err. With a pacing device the first read waits
 * for `expect` cycles of work, then polls at growing intervals (and counts checks and polls in
 * the device's kt_wait_stats); without one each unsuccessful read is followed by o->idle. r->waits
 * counts the CTRL reads; r->polls (the engine's POLLS register) is not read. */
NPUKIT_API npk_status kt_engine_wait(kt_engine *e, const kt_hostprog *p, uint64_t expect, const kt_hp_opts *o,
                          kt_hp_result *r);
/* Load (only what changed), GO and wait. */
NPUKIT_API npk_status kt_engine_run(kt_engine *e, const kt_hostprog *p, uint64_t expect, const kt_hp_opts *o,
                         kt_hp_result *r);

#ifdef __cplusplus
}
#endif
#endif
