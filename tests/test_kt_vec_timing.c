/* SPDX-License-Identifier: MIT */
/* The vector core's timing against figures measured on the RTL: upstream's vec_cu (KohakuTPU
 * 7703ee8; MODEL = 1, INST_DEPTH and RECV_DEPTH 512, L1 block RAM, one clock) under Verilator
 * 5.006, driven port to port by a bench that plays the agent and the memory (a read answered 4
 * cycles after its request). Each kernel of kt_vec_kernels.h was run once after reset; the rows
 * are the RUN's result (the kernel's cycles, which CU_DBG also reports) and the cycles from the
 * RUN entering the unit's port to its completion leaving it.
 *
 * The simulator's figures: CU_DBG (kernel_cycles) after the RUN, and the shell's busy_cycles
 * over the RUN plus the shell's own hops in and out (HOPS, as for the matmul cluster). Every
 * kernel must land within 10 %. */
#include <stdio.h>
#include <string.h>

#include "kt_vec_testlib.h"

enum { HOPS = 4 };

/* RTL figures (KohakuTPU 7703ee8, vec_cu under Verilator 5.006). */
static const struct {
    const char *kind;
    unsigned n, kernel, port;
} rtl[] = {
    {"fma", 16, 178, 184},      {"fma", 40, 220, 226},      {"fma", 128, 325, 331},
    {"ops", 16, 2301, 2307},    {"ops", 40, 2491, 2497},    {"ops", 128, 2966, 2972},
    {"edge", 16, 2385, 2391},   {"edge", 40, 2599, 2605},   {"edge", 128, 3134, 3140},
    {"chain", 1, 111, 117},     {"chain", 2, 136, 142},     {"chain", 16, 486, 492},
    {"chain", 64, 1686, 1692},  {"indep", 1, 134, 140},     {"indep", 4, 242, 248},
    {"indep", 16, 674, 680},    {"ldst", 16, 54, 60},       {"ldst", 40, 92, 98},
    {"ldst", 128, 187, 193},    {"drain", 1, 18, 24},       {"drain", 4, 27, 33},
    {"drain", 16, 63, 69},      {"drain", 64, 207, 213},    {"drain", 256, 783, 789},
    {"fill", 1, 26, 32},        {"fill", 4, 35, 41},        {"fill", 16, 71, 77},
    {"fill", 64, 215, 221},     {"fill", 256, 791, 797},    {"pdrain", 1, 18, 24},
    {"pdrain", 4, 28, 34},      {"pdrain", 16, 64, 70},     {"pdrain", 64, 208, 214},
    {"d2", 16, 503, 509},       {"d2", 40, 555, 561},       {"d2", 128, 685, 691},
    {"d4", 16, 500, 506},       {"d4", 40, 560, 566},       {"d4", 128, 710, 716},
    {"d2loop", 1, 127, 133},    {"d2loop", 2, 175, 181},    {"d2loop", 16, 847, 853},
    {"d4loop", 1, 135, 141},    {"d4loop", 2, 213, 219},    {"d4loop", 16, 1305, 1311},
    {"d4loop128", 1, 151, 157}, {"d4loop128", 2, 200, 206}, {"d4loop128", 16, 886, 892},
    {"red", 16, 1001, 1007},    {"red", 48, 1031, 1037},    {"red", 128, 1106, 1112},
    {"seed", 16, 2002, 2008},   {"seed", 40, 1663, 1669},   {"seed", 128, 2807, 2813},
    {"expsum", 16, 403, 409},   {"expsum", 48, 425, 431},   {"expsum", 128, 480, 486},
};

static bool within_10pct(unsigned got, unsigned want)
{
    unsigned diff = got > want ? got - want : want - got;
    return diff * 10 <= want;
}

int main(void)
{
    for (unsigned i = 0; i < sizeof rtl / sizeof rtl[0]; i++) {
        vk_kernel k;
        CHECK(vk_build(rtl[i].kind, rtl[i].n, &k));
        vk_run r;
        if (!vk_open(&r)) {
            CHECK(!"the mesh builds");
            break;
        }
        uint32_t busy = 0;
        CHECK_EQ(vk_exec(&r, &k, NULL, &busy), NPK_OK);
        uint32_t kernel = (uint32_t)vk_ctrl(&r, KT_CU_DBG);
        printf("  %-5s %3u: kernel ktsim %4u RTL %4u   port ktsim %4u RTL %4u\n", rtl[i].kind,
               rtl[i].n, kernel, rtl[i].kernel, busy + HOPS, rtl[i].port);
        CHECK(within_10pct(kernel, rtl[i].kernel));
        CHECK(within_10pct(busy + HOPS, rtl[i].port));
        if (ktsim_fault(r.s))
            printf("  fault: %s\n", ktsim_fault(r.s));
        CHECK(ktsim_fault(r.s) == NULL);
        ktsim_destroy(r.s);
    }
    return check_done();
}
