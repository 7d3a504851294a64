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

/* The mover alone (mm_mover at 7703ee8 in front of upstream's axi_ram, Verilator 5.006): cycles
 * from GO until busy falls under CTRL flags [3] write coalescing and [7:5] the burst cap (0x08:
 * the driver's flags, coalescing on and the cap at 128 words; 0x00 coalescing off; 0x28 cap 1,
 * 0x48 cap 2, 0x88 cap 8, 0xc8 cap 32, 0xe8 cap 64). Without the machine around it the mover is
 * quicker than in the sweep above, so the model is held to each figure's ratio to the 0x08
 * figure of the same move. */
typedef struct flags_row {
    kt_mv_mode mode;
    unsigned words;
    uint8_t flags;
    unsigned rtl;
} flags_row;
static const flags_row rtl_flags[] = {
    {KT_MV_COPY, 16, 0x08, 59},     {KT_MV_FILL, 16, 0x08, 41},     {KT_MV_COPY, 16, 0x00, 74},
    {KT_MV_FILL, 16, 0x00, 56},     {KT_MV_COPY, 16, 0x28, 59},     {KT_MV_FILL, 16, 0x28, 56},
    {KT_MV_COPY, 16, 0x48, 45},     {KT_MV_FILL, 16, 0x48, 41},     {KT_MV_COPY, 16, 0x88, 45},
    {KT_MV_FILL, 16, 0x88, 35},     {KT_MV_COPY, 16, 0xc8, 59},     {KT_MV_FILL, 16, 0xc8, 41},
    {KT_MV_COPY, 256, 0x08, 525},   {KT_MV_FILL, 256, 0x08, 395},   {KT_MV_COPY, 256, 0x00, 906},
    {KT_MV_FILL, 256, 0x00, 776},   {KT_MV_COPY, 256, 0x28, 779},   {KT_MV_FILL, 256, 0x28, 776},
    {KT_MV_COPY, 256, 0x48, 525},   {KT_MV_FILL, 256, 0x48, 521},   {KT_MV_COPY, 256, 0x88, 345},
    {KT_MV_FILL, 256, 0x88, 335},   {KT_MV_COPY, 256, 0xc8, 345},   {KT_MV_FILL, 256, 0xc8, 311},
    {KT_MV_COPY, 256, 0xe8, 401},   {KT_MV_FILL, 256, 0xe8, 335},   {KT_MV_COPY, 2048, 0x08, 2345},
    {KT_MV_FILL, 2048, 0x08, 2215}, {KT_MV_COPY, 2048, 0x00, 6289}, {KT_MV_FILL, 2048, 0x00, 6152},
    {KT_MV_COPY, 2048, 0x28, 6155}, {KT_MV_FILL, 2048, 0x28, 6152}, {KT_MV_COPY, 2048, 0x48, 4109},
    {KT_MV_FILL, 2048, 0x48, 4105}, {KT_MV_COPY, 2048, 0x88, 2585}, {KT_MV_FILL, 2048, 0x88, 2575},
    {KT_MV_COPY, 2048, 0xc8, 2249}, {KT_MV_FILL, 2048, 0xc8, 2215}, {KT_MV_COPY, 2048, 0xe8, 2249},
    {KT_MV_FILL, 2048, 0xe8, 2183},
};

static kt_mv_move flags_move(kt_mv_mode mode, unsigned words, uint8_t flags)
{
    kt_mv_move m = mode == KT_MV_COPY ? kt_mv_copy(DST, SRC, (uint16_t)words)
                                      : kt_mv_fill(DST, (uint16_t)words, KT_MV_W32, 0x5A5A5A5A);
    m.flags = flags;
    return m;
}

static void test_flags_timing(uint8_t *mem)
{
    for (size_t i = 0; i < sizeof rtl_flags / sizeof rtl_flags[0]; i++) {
        const flags_row *r = &rtl_flags[i];
        unsigned rtl0 = 0;
        for (size_t j = 0; j < sizeof rtl_flags / sizeof rtl_flags[0]; j++)
            if (rtl_flags[j].mode == r->mode && rtl_flags[j].words == r->words &&
                rtl_flags[j].flags == KT_MV_FLAG_WCOAL)
                rtl0 = rtl_flags[j].rtl;
        kt_mv_move m0 = flags_move(r->mode, r->words, KT_MV_FLAG_WCOAL),
                   m = flags_move(r->mode, r->words, r->flags);
        double model = (double)model_cycles(&m, mem), model0 = (double)model_cycles(&m0, mem);
        double want = model0 * r->rtl / rtl0; /* the RTL's ratio applied to the model's row */
        printf("mover %-4s %4u words flags 0x%02x: model %5.0f cycles, RTL ratio %.3f -> %5.0f "
               "(%+.1f%%)\n",
               kt_mv_mode_name(r->mode), r->words, r->flags, model, (double)r->rtl / rtl0, want,
               100.0 * (model - want) / want);
        CHECK(model >= want * 0.9 && model <= want * 1.1);
    }
    /* The flags change bursts, never bytes: a copy under each writes the same words. */
    for (unsigned field = 0; field < 8; field++)
        for (unsigned wcoal = 0; wcoal < 2; wcoal++) {
            uint8_t flags = (uint8_t)(field << KT_MV_FLAG_BURST_SHIFT | wcoal * KT_MV_FLAG_WCOAL);
            for (unsigned b = 0; b < 64 * 32; b++)
                mem[SRC + b] = (uint8_t)(b * 31 + field * 7 + wcoal), mem[DST + b] = 0;
            kt_mv_move m = flags_move(KT_MV_COPY, 64, flags);
            model_cycles(&m, mem);
            CHECK(!memcmp(mem + DST, mem + SRC, 64 * 32));
        }
    /* Strided walks make bursts of one word whatever the flags: the time does not move. */
    kt_mv_move a = kt_mv_copy(DST, SRC, 64), b;
    a.src.dims[0].stride = a.dst.dims[0].stride = 64;
    b = a;
    b.flags = 0x20; /* coalescing off, cap 1 */
    CHECK_EQ(model_cycles(&a, mem), model_cycles(&b, mem));
}

static void test_flags_fields(void)
{
    static const unsigned caps[8] = {128, 1, 2, 4, 8, 16, 32, 64};
    for (unsigned field = 0; field < 8; field++) {
        CHECK_EQ(kt_mv_burst_cap((uint8_t)(field << 5 | 0x08)), caps[field]);
        CHECK_EQ(kt_mv_burst_field(caps[field]), (int)field);
    }
    CHECK_EQ(kt_mv_burst_field(3), -1);
    CHECK_EQ(kt_mv_burst_field(256), -1);
    kt_mv_move m = kt_mv_copy(DST, SRC, 4);
    m.flags = 0x19;
    CHECK_EQ(kt_mv_validate(&m), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "mover flags 0x19: bits 0x11 are read by nothing");
    m.flags = 0xE8;
    CHECK_EQ(kt_mv_validate(&m), NPK_OK);
}

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
    test_flags_timing(mem);
    test_flags_fields();
    free(mem);
    return check_done();
}
