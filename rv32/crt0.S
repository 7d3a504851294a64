/* SPDX-License-Identifier: MIT */
/* Start-up for programs on the RV32 control processor. A kick starts the core at the pc it
 * carries (0 for these programs) with every register zero; there are no traps (a fault halts
 * the unit). Set the global and stack pointers, zero .bss (the scratchpad keeps what the last
 * program left), run main, and halt with ECALL: its return value in a0 is the halt word the
 * completion carries to the host. */
    .section .text.start, "ax"
    .globl _start
_start:
    .option push
    .option norelax
    la gp, __global_pointer$
    .option pop
    la sp, __stack_top
    la t0, __bss_start
    la t1, __bss_end
1:  bgeu t0, t1, 2f
    sw zero, 0(t0)
    addi t0, t0, 4
    j 1b
2:  call main
    ecall
3:  j 3b
