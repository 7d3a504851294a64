/* SPDX-License-Identifier: MIT */
/* The mover model's timing rows (src/ktsim/mover_timing.c) against a sweep of sizes measured on
 * the RTL: upstream's saxpy_mesh top (KohakuTPU 7703ee8) under Verilator 5.006, one clock
 * domain, its axi_ram as DRAM, each move built by kt_mv_build and written through S_AXI_CTRL;
 * cycles from the GO write's data handshake until the mover's busy falls. Every size must land
 * within 10 %, the streaming rate of a long copy or fill included (before the rows were fitted
 * over sizes a copy of 2048 words modelled 8211 cycles against the RTL's 2470). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kt_flat_mem_testlib.h"
#include "ktsim/mover.h"
#include "npukit/kt_mover.h"

enum { MEM = KT_FLAT_MEM, SRC = 0x0, DST = 0x10000, INDEX = 0x8000 };


/* Ticks from the last cfg pulse (GO) until busy drops. */
static uint64_t model_cycles(const kt_mv_move *move, uint8_t *mem)
{
    ksim_mover_mem mm = {kt_flat_read, kt_flat_write, NULL, mem};
    ksim_mover *mv = ksim_mover_create(&mm, NULL, NULL);
    kt_mv_write w[KT_MV_MAX_WRITES];
    size_t n = 0;
    CHECK_EQ(kt_mv_build(move, w, KT_MV_MAX_WRITES, &n), NPK_OK);
    for (size_t i = 0; i < n; i++)
        ksim_mover_cfg(mv, w[i].offset, w[i].value);
    uint64_t cycles = 0;
    while (ksim_mover_busy(mv) && cycles < 1000000) {
        ksim_mover_tick(mv);
        cycles++;
    }
    CHECK_EQ(kt_mv_status_decode(ksim_mover_stat(mv)).fault, 0);
    ksim_mover_destroy(mv);
    return cycles;
}

typedef struct sweep {
    const char *mode;
    unsigned words;
    unsigned rtl;
} sweep;

/* KohakuTPU 7703ee8, saxpy_mesh under Verilator 5.006 (gather: rows of one word, index i = 7i
 * mod 64, 8 indices an index word). */
static const sweep rtl[] = {
    {"copy", 1, 34},      {"copy", 4, 43},       {"copy", 16, 79},      {"copy", 64, 223},
    {"copy", 256, 552},   {"copy", 1024, 1374},  {"copy", 2048, 2470},  {"fill", 1, 23},
    {"fill", 4, 29},      {"fill", 16, 53},      {"fill", 64, 149},     {"fill", 256, 409},
    {"fill", 1024, 1201}, {"fill", 2048, 2257},  {"gather", 1, 49},     {"gather", 4, 86},
    {"gather", 16, 229},  {"gather", 64, 823},   {"generate", 1, 108},  {"generate", 4, 378},
    {"generate", 16, 1458}, {"generate", 64, 5778},
};

int main(void)
{
    uint8_t *mem = calloc(1, MEM);
    static uint32_t idx[64];
    for (unsigned i = 0; i < 64; i++)
        idx[i] = (i * 7) % 64;
    memcpy(mem + INDEX, idx, sizeof idx);
    for (size_t i = 0; i < sizeof rtl / sizeof rtl[0]; i++) {
        const sweep *r = &rtl[i];
        uint16_t n = (uint16_t)r->words;
        kt_mv_move m;
        if (!strcmp(r->mode, "copy"))
            m = kt_mv_copy(DST, SRC, n);
        else if (!strcmp(r->mode, "fill"))
            m = kt_mv_fill(DST, n, KT_MV_W32, 0x5A5A5A5A);
        else if (!strcmp(r->mode, "gather"))
            m = kt_mv_gather(DST, SRC, idx, n, INDEX, 32, 1);
        else
            m = kt_mv_generate(DST, n, 0x1234);
        uint64_t got = model_cycles(&m, mem);
        uint64_t diff = got > r->rtl ? got - r->rtl : r->rtl - got;
        printf("mover %-8s %5u words: model %5llu cycles, RTL %5u (%+.1f%%)\n", r->mode, r->words,
               (unsigned long long)got, r->rtl, 100.0 * ((double)got - r->rtl) / r->rtl);
        CHECK(diff * 10 <= r->rtl);
    }
    free(mem);
    return check_done();
}
