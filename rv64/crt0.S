/* SPDX-License-Identifier: MIT */
/* Start-up for programs on the RV64 control complex. The core leaves reset at address 0 with
 * every register zero and no trap handler (a fault halts it). Set the global, thread and stack
 * pointers, zero .bss (a boot does not clear the scratchpad), run main, and hand its return
 * value to rt_exit, which stores it to R_EXIT. */
    .section .text.start, "ax"
    .globl _start
_start:
    .option push
    .option norelax
    la gp, __global_pointer$
    .option pop
    la tp, __tls_base
    la sp, __stack_top
    la t0, __bss_start
    la t1, __bss_end
1:  bgeu t0, t1, 2f
    sd zero, 0(t0)
    addi t0, t0, 8
    j 1b
2:  call main
    call rt_exit
3:  j 3b
