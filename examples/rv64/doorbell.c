/* SPDX-License-Identifier: MIT */
/* doorbell: the host's doorbell (HR_DBELL) as the core's machine software interrupt.
 *
 * HR_DBELL is a level the host sets and only the host lowers: R_DBELL is read-only from here,
 * so a handler cannot acknowledge its own doorbell. It asks the host instead (a console request,
 * see rt_host_request) and waits until R_DBELL reads 0 before it returns — returning with the
 * level still high would take the interrupt again at once. To make the run self-contained the
 * program also asks the host to ring, ROUNDS times; a real doorbell comes from whatever the host
 * is doing. Between rings it sleeps in WFI.
 *
 * Exit word: 0 when it handled exactly ROUNDS doorbells; EXIT_COUNT (0x100) + the number
 * handled when it handled another number; EXIT_TRAP (0xbad) when a trap other than the doorbell
 * came. The count is also printed ("3 doorbells handled"). */
#include <stdio.h>

#include "rt.h"

enum { ROUNDS = 3 };
/* Failure exit words; success is 0. */
enum { EXIT_COUNT = 0x100, EXIT_TRAP = 0xbad };
#define MCAUSE_MSI 0x8000000000000003ull /* interrupt, machine software */
#define MIE_MSIE 0x8u

static volatile unsigned taken;

static void __attribute__((interrupt("machine"))) on_trap(void)
{
    uint64_t cause;
    __asm__ volatile("csrr %0, mcause" : "=r"(cause));
    if (cause != MCAUSE_MSI || !(rt_read(KT_RV64_R_DBELL) & 1)) {
        printf("doorbell: unexpected trap, mcause 0x%llx\n", (unsigned long long)cause);
        rt_exit(EXIT_TRAP);
    }
    taken++;
    rt_host_request(KT_RV64_REQ_CLEAR);
    while (rt_read(KT_RV64_R_DBELL) & 1)
        ;
}

/* Sleep until the handler has run `n` times. WFI wakes on a pending enabled interrupt even with
 * mstatus.MIE clear, so the test and the sleep happen with interrupts off (no lost wake-up),
 * and the interrupt is taken when they are switched back on. */
static void wait_for(unsigned n)
{
    rt_irq_disable();
    while (taken < n) {
        __asm__ volatile("wfi");
        rt_irq_enable(0);
        rt_irq_disable();
    }
    rt_irq_enable(0);
}

int main(void)
{
    rt_set_trap_handler(on_trap);
    rt_irq_enable(MIE_MSIE);
    for (unsigned i = 1; i <= ROUNDS; i++) {
        printf("round %u: asking the host to ring\n", i);
        rt_host_request(KT_RV64_REQ_RING);
        wait_for(i);
        printf("round %u: doorbell taken, acknowledged, R_DBELL reads %u\n", i,
               (unsigned)(rt_read(KT_RV64_R_DBELL) & 1));
    }
    rt_irq_disable();
    printf("%u doorbells handled\n", taken);
    return taken == ROUNDS ? 0 : EXIT_COUNT + (int)taken;
}
