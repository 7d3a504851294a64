/* SPDX-License-Identifier: MIT */
/* The RV64 complex's state: the core, the host registers' latches, the load window, the
 * mailbox. Its own header so that the complex (rv64_complex.c: host window, load window, boot)
 * and the processor's control region (rv64_ctrl.c: control registers, mailbox, interrupts) share
 * it without needing each other's headers. */
#ifndef NPUKIT_KTSIM_RV64_STATE_H
#define NPUKIT_KTSIM_RV64_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "kt/hw/kt_rv64.h"
#include "mesh.h"
#include "npukit/kt_flit.h"
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

#endif
