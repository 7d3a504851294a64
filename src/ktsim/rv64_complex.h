/* SPDX-License-Identifier: MIT */
/* The RV64 control complex around the core: the host window (§6: three regions by
 * hs_addr[31:28], write-only memories, the host registers, reads that ignore the region bits),
 * the load window a card's host reaches it through (stdin queue, LOAD_CTL/LOAD_DATA, the console
 * FIFO), the processor's control region (§7), the dispatch mailbox (§7.5) as a mesh endpoint,
 * and the two interrupt levels.
 *
 * The rest of the node (the mover, the interlink) is reached through ksim_rv64_side; a hook left
 * NULL is a block the bitstream does not have: its status reads zero and writes vanish. */
#ifndef NPUKIT_KTSIM_RV64_COMPLEX_H
#define NPUKIT_KTSIM_RV64_COMPLEX_H

#include <stdbool.h>
#include <stdint.h>

#include "mesh.h"
#include "npukit/kt_flit.h"
#include "kt/hw/kt_rv64.h"
#include "rv64.h"

typedef struct ksim_rv64_side {
    void *ctx;
    void (*mover_cfg)(void *ctx, uint8_t reg, uint64_t value); /* mover register pulse */
    uint64_t (*mover_status)(void *ctx); /* {busy[32], fault[31:28], done[27:0]} */
    void (*ilink_cfg)(void *ctx, uint8_t reg, uint64_t value); /* interlink register pulse */
    uint64_t (*db_status)(void *ctx); /* the four inbound doorbell counts */
} ksim_rv64_side;

typedef struct ksim_rv64c {
    ksim_rv64 core;
    ksim_rv64_side side;
    kt_coord at;
    uint64_t now;        /* cycles this complex has been ticked */
    uint64_t boot_cycle; /* the core's cycle 0 */
    bool running;        /* out of reset and enabled */
    /* The host registers' latches. */
    bool exited, halted;
    uint8_t cause;
    uint64_t exit_word, halt_pc, hr_pc, dbell;
    /* The load window. */
    uint8_t stdin_q[KT_RV64_STDIN_DEPTH];
    unsigned stdin_head, stdin_count;
    uint8_t cons[KT_RV64_CONS_DEPTH];
    uint8_t cons_wr, cons_rd; /* 8-bit pointers: 256 unread bytes read as empty */
    uint64_t cons_lost;
    unsigned load_region;
    uint32_t load_off;
    /* The mailbox. */
    uint64_t m_dst, m_arg[4];
    kt_flit out;
    bool offered;
    uint8_t txn;
    uint64_t cq[KT_RV64_CQ_DEPTH];
    unsigned cq_head, cq_count;
    bool overflow;
    uint64_t ignored_go, dropped_flits;
} ksim_rv64c;

bool ksim_rv64c_init(ksim_rv64c *c, const ksim_rv64_cfg *cfg, kt_coord at,
                     const ksim_rv64_side *side);
void ksim_rv64c_free(ksim_rv64c *c);

/* The hs_* port: one write (takes effect this cycle) and one read (a pure function of the
 * address: the caller has held it for the cycle the registered read needs). */
void ksim_rv64c_hs_write(ksim_rv64c *c, uint32_t addr, uint64_t data, uint8_t strobes);
uint64_t ksim_rv64c_hs_read(const ksim_rv64c *c, uint32_t addr);

/* The load window, offsets 0x000-0xFFF. */
void ksim_rv64c_lw_write(ksim_rv64c *c, uint32_t off, uint64_t value);
uint64_t ksim_rv64c_lw_read(ksim_rv64c *c, uint32_t off);

/* One cycle: the core runs every instruction that issues in it. */
void ksim_rv64c_tick(ksim_rv64c *c);

/* The mailbox as a mesh endpoint (ep = the complex). */
extern const ksim_endpoint_ops ksim_rv64c_endpoint;

#endif
