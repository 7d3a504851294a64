/* SPDX-License-Identifier: MIT */
/* The runtime for programs on the KohakuTPU RV64 control complex: console, stdin, exit, the
 * control region, and dispatch through the mailbox with credit kept by the program (the
 * hardware keeps none). printf and friends from picolibc write to the console. */
#ifndef NPUKIT_RV64_RT_H
#define NPUKIT_RV64_RT_H

#include <stdbool.h>
#include <stdint.h>

#include "kt/hw/kt_rv64.h"
#include "kt/kt_rv64_request.h"

/* A control-region register, by its offset. */
static inline volatile uint64_t *rt_reg(unsigned off)
{
    return (volatile uint64_t *)(uintptr_t)(KT_RV64_CTRL_BASE + off);
}
static inline uint64_t rt_read(unsigned off) { return *rt_reg(off); }
static inline void rt_write(unsigned off, uint64_t v) { *rt_reg(off) = v; }

void rt_putc(char c);
void rt_puts(const char *s); /* no newline added */
/* The next stdin byte, or -1 when the queue is empty. */
int rt_getc(void);
/* Store code to R_EXIT: the host reads it at HR_EXIT. Does not return. */
void rt_exit(uint64_t code) __attribute__((noreturn));

/* Ask the host for something over the console (the loader's convention, KT_RV64_REQ):
 * KT_RV64_REQ_RING or KT_RV64_REQ_CLEAR. The host acts when it next drains the console. */
static inline void rt_host_request(char code)
{
    rt_putc((char)KT_RV64_REQ);
    rt_putc(code);
}

/* Machine-mode interrupts. */
static inline void rt_irq_enable(uint64_t mie_bits)
{
    __asm__ volatile("csrs mie, %0" ::"r"(mie_bits));
    __asm__ volatile("csrsi mstatus, 8");
}
static inline void rt_irq_disable(void) { __asm__ volatile("csrci mstatus, 8"); }
void rt_set_trap_handler(void (*handler)(void)); /* writes mtvec (direct mode) */

/* ---- dispatch ----
 * A node's credit: how many instructions may be outstanding at it, from its CU_CAPS
 * inst_depth. rt_dispatch refuses (returns false) rather than over-dispatch; every completion
 * popped from the queue returns one credit to the node that sent it. */
typedef struct rt_node {
    unsigned x, y;
    unsigned credit;
} rt_node;
void rt_node_init(rt_node *n, unsigned x, unsigned y, unsigned inst_depth);
/* Offer one CU_INST with the 256-bit payload {a3, a2, a1, a0}; waits until the previous
 * dispatch is taken. false: no credit left at that node. */
bool rt_dispatch(rt_node *n, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3);
/* Pop the oldest completion into *word, crediting its node when it is in nodes[0..count).
 * false when the queue is empty. */
bool rt_complete(rt_node *nodes, unsigned count, uint64_t *word);
/* The mailbox's sticky overflow bit: completions were lost. */
static inline bool rt_mbox_overflowed(void)
{
    return rt_read(KT_RV64_M_STAT) & KT_RV64_MSTAT_OVERFLOW;
}

#endif
