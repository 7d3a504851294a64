/* SPDX-License-Identifier: MIT */
/* The runtime's functions: console and stdin through the control region, picolibc's standard
 * streams bound to them, exit, trap vector, and credit-keeping dispatch through the mailbox. */
#include "rt.h"

#include <stdio.h>

void rt_putc(char c) { rt_write(KT_RV64_R_CONSOLE, (uint8_t)c); }

void rt_puts(const char *s)
{
    while (*s)
        rt_putc(*s++);
}

int rt_getc(void)
{
    uint64_t v = rt_read(KT_RV64_R_STDIN);
    if (!(v & 0x100))
        return -1;
    rt_write(KT_RV64_R_STDIN, 0); /* a store pops */
    return (int)(v & 0xff);
}

void rt_exit(uint64_t code)
{
    rt_write(KT_RV64_R_EXIT, code);
    for (;;)
        ;
}

void rt_set_trap_handler(void (*handler)(void))
{
    __asm__ volatile("csrw mtvec, %0" ::"r"((uintptr_t)handler));
}

/* picolibc's stdio: one stream for all three. */
static int stream_put(char c, FILE *f)
{
    (void)f;
    rt_putc(c);
    return (unsigned char)c;
}
static int stream_get(FILE *f)
{
    (void)f;
    int c = rt_getc();
    return c < 0 ? EOF : c;
}
static FILE rt_stream = FDEV_SETUP_STREAM(stream_put, stream_get, NULL, _FDEV_SETUP_RW);
FILE *const stdin = &rt_stream;
FILE *const stdout = &rt_stream;
FILE *const stderr = &rt_stream;

void rt_node_init(rt_node *n, unsigned x, unsigned y, unsigned inst_depth)
{
    n->x = x;
    n->y = y;
    n->credit = inst_depth;
}

bool rt_dispatch(rt_node *n, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3)
{
    if (n->credit == 0)
        return false;
    /* A GO while the previous flit is still offered is ignored without a trace: wait. */
    while (rt_read(KT_RV64_M_STAT) & KT_RV64_MSTAT_OFFERED)
        ;
    rt_write(KT_RV64_M_DST, ((uint64_t)n->y << 8) | n->x);
    rt_write(KT_RV64_M_ARG0, a0);
    rt_write(KT_RV64_M_ARG1, a1);
    rt_write(KT_RV64_M_ARG2, a2);
    rt_write(KT_RV64_M_ARG3, a3);
    rt_write(KT_RV64_M_GO, 1);
    n->credit--;
    return true;
}

bool rt_complete(rt_node *nodes, unsigned count, uint64_t *word)
{
    if ((rt_read(KT_RV64_M_STAT) & KT_RV64_MSTAT_QUEUED) == 0)
        return false;
    uint64_t w = rt_read(KT_RV64_M_HEAD);
    rt_write(KT_RV64_M_HEAD, 0); /* a store pops */
    for (unsigned i = 0; i < count; i++)
        if (nodes[i].x == KT_RV64_CQ_SRC_X(w) && nodes[i].y == KT_RV64_CQ_SRC_Y(w)) {
            nodes[i].credit++;
            break;
        }
    *word = w;
    return true;
}
