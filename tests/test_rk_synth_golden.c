/* SPDX-License-Identifier: MIT */
/* The three vendor captures (facts C.1: fp16 4x32x16 -> fp32, int8 4x32x32 -> int32, both in
 * line mode; int4 1x64x64 -> int16 in cube mode, task 0 of a chain), transcribed here column
 * by column, must equal the synthesized programs entry for entry. */
#include "check.h"
#include "npukit/rk_regcmd.h"
#include "npukit/rk_synth.h"

enum { A_ = 0xA, B_ = 0xB, C_ = 0xC }; /* placeholders for the capture's IOVAs */

typedef struct {
    uint16_t target, reg;
    uint32_t f16, i8, i4;
} row;

#define CNA 0x0201
#define CORE 0x0801
#define DPU 0x1001

static const row capture[NPK_RK_MATMUL_BODY] = {
    {CNA, 0x1040, 0xB1, 0xB1, 0xB1},
    {CNA, 0x1104, 0, 0, 0},
    {CNA, 0x1100, 0, 0, 0},
    {CNA, 0x100C, 0x20000120, 0x20000000, 0x00000360},
    {DPU, 0x4004, 0xE, 0xE, 0xE},
    {CNA, 0x100C, 0x20000120, 0x20000000, 0x00000360},
    {CNA, 0x1010, 0x50, 0x50, 0x20},
    {CNA, 0x1014, 0x9, 0x9, 0x9},
    {CNA, 0x1020, 0x10004, 0x10004, 0x10001},
    {CNA, 0x1024, 0x1F0020, 0x1F0020, 0x3F0040},
    {CNA, 0x1028, 1, 1, 1},
    {CNA, 0x102C, 4, 4, 1},
    {CNA, 0x1030, 0x400, 0x400, 0x800},
    {CNA, 0x1034, 0x40, 0x20, 0x20},
    {CNA, 0x1038, 0x1010010, 0x1010020, 0x1010040},
    {CNA, 0x1040, 0xB1, 0xB1, 0xB1},
    {CNA, 0x1044, 1, 1, 1},
    {CNA, 0x104C, 0xB, 0xB, 0xB},
    {CNA, 0x1050, 0x10000, 0x10000, 0x10000},
    {CNA, 0x1054, 0x10000, 0x10000, 0x10000},
    {CNA, 0x1058, 0x10000, 0x10000, 0x10000},
    {CNA, 0x105C, 0x10000, 0x10000, 0x10000},
    {CNA, 0x1060, 0, 0, 0},
    {CNA, 0x1064, 0, 0, 0},
    {CNA, 0x1068, 0, 0, 0},
    {CNA, 0x1070, A_, A_, A_},
    {CNA, 0x1074, 0, 0, 0},
    {CNA, 0x1078, 0xF000F, 0xF000F, 0xF000F},
    {CNA, 0x107C, 4, 2, 4},
    {CNA, 0x1080, 0, 0, 0x0FFFFFFD},
    {CNA, 0x1084, 0x10004, 0x10004, 0x10001},
    {CNA, 0x1088, 0x20, 0x20, 0x40},
    {CNA, 0x1100, 0, 0, 0},
    {CNA, 0x1104, 0, 0, 0},
    {CNA, 0x1110, B_, B_, B_},
    {CNA, 0x1140, 0, 0, 0}, {CNA, 0x1144, 0, 0, 0}, {CNA, 0x1148, 0, 0, 0},
    {CNA, 0x114C, 0, 0, 0}, {CNA, 0x1150, 0, 0, 0}, {CNA, 0x1154, 0, 0, 0},
    {CNA, 0x1158, 0, 0, 0}, {CNA, 0x115C, 0, 0, 0}, {CNA, 0x1160, 0, 0, 0},
    {CNA, 0x1164, 0, 0, 0}, {CNA, 0x1168, 0, 0, 0}, {CNA, 0x116C, 0, 0, 0},
    {CNA, 0x1170, 0, 0, 0}, {CNA, 0x1174, 0, 0, 0}, {CNA, 0x1178, 0, 0, 0},
    {CNA, 0x117C, 0, 0, 0},
    {CNA, 0x1180, 0, 0, 0},
    {CNA, 0x1184, 0, 0, 0},
    {CORE, 0x3010, 0x201, 0x001, 0x601},
    {CORE, 0x3014, 0x30000, 0x30000, 0},
    {CORE, 0x3018, 0xF, 0x1F, 0x3F},
    {CORE, 0x301C, 0, 0, 0},
    {CORE, 0x3030, 0, 0, 0},
    {DPU, 0x400C, 0x1E4, 0x1E4, 0x1E4},
    {DPU, 0x4010, 0xA8000002, 0x80000000, 0x38000006},
    {DPU, 0x4014, 0, 0, 0},
    {DPU, 0x4020, C_, C_, C_},
    {DPU, 0x4024, 0x10, 0x10, 0x10},
    {DPU, 0x4030, 0, 0, 0},
    {DPU, 0x4034, 3, 3, 0},
    {DPU, 0x4038, 0x30003, 0x70007, 0},
    {DPU, 0x403C, 0xF000F, 0x1F001F, 0x3F003F},
    {DPU, 0x4040, 0x53, 0x53, 0x53},
    {DPU, 0x4044, 0, 0, 0}, {DPU, 0x4048, 0, 0, 0}, {DPU, 0x404C, 0, 0, 0},
    {DPU, 0x4050, 0x36E, 0x7FC, 0x7FE},
    {DPU, 0x4054, 0, 0, 0},
    {DPU, 0x4058, 0xF, 0x1F, 0x3F},
    {DPU, 0x405C, 0x30000, 0x30000, 0},
    {DPU, 0x4060, 0x53, 0x53, 0x53},
    {DPU, 0x4064, 0, 0, 0}, {DPU, 0x4068, 0, 0, 0}, {DPU, 0x406C, 0, 0, 0},
    {DPU, 0x4070, 0x383, 0x383, 0x383},
    {DPU, 0x4074, 0, 0, 0},
    {DPU, 0x4078, 1, 1, 1},
    {DPU, 0x407C, 0, 0, 0},
    {DPU, 0x4080, 0, 0, 0},
    {DPU, 0x4084, 1, 1, 1},
    {DPU, 0x4088, 0, 0, 0},
    {DPU, 0x4090, 0, 0, 0}, {DPU, 0x4094, 0, 0, 0}, {DPU, 0x4098, 0, 0, 0},
    {DPU, 0x409C, 0, 0, 0}, {DPU, 0x40A0, 0, 0, 0}, {DPU, 0x40A4, 0, 0, 0},
    {DPU, 0x40A8, 0, 0, 0}, {DPU, 0x40AC, 0, 0, 0},
    {DPU, 0x40C0, 0x40, 0x80, 0x80},
    {DPU, 0x40C4, 0, 0, 0},
    {DPU, 0x4100, 0, 0, 0}, {DPU, 0x4104, 0, 0, 0}, {DPU, 0x4108, 0, 0, 0},
    {DPU, 0x410C, 0, 0, 0}, {DPU, 0x4110, 0, 0, 0}, {DPU, 0x4114, 0, 0, 0},
    {DPU, 0x4118, 0, 0, 0}, {DPU, 0x411C, 0, 0, 0}, {DPU, 0x4120, 0, 0, 0},
    {DPU, 0x4124, 0, 0, 0}, {DPU, 0x4128, 0, 0, 0}, {DPU, 0x412C, 0, 0, 0},
};

typedef struct {
    const char *name;
    npk_rk_prec in;
    uint32_t m, k, n, a, b, c;
    int column; /* 0 f16, 1 i8, 2 i4 */
} golden;

/* The captured IOVAs (facts C.0). */
static const golden goldens[] = {
    {"fp16 4x32x16", NPK_PREC_FP16, 4, 32, 16, 0xFFFF5000, 0xFFFF6000, 0xFFFF3000, 0},
    {"int8 4x32x32", NPK_PREC_INT8, 4, 32, 32, 0xFFFE4000, 0xFFFE5000, 0xFFFE2000, 1},
    {"int4 1x64x64", NPK_PREC_INT4, 1, 64, 64, 0xFFFFD000, 0xFFFFC000, 0xFFFFB000, 2},
};

static uint32_t expected_value(const row *r, const golden *g)
{
    uint32_t v = g->column == 0 ? r->f16 : g->column == 1 ? r->i8 : r->i4;
    if (r->reg == 0x1070)
        return g->a;
    if (r->reg == 0x1110)
        return g->b;
    if (r->reg == 0x4020)
        return g->c;
    return v;
}

static void check_golden(const golden *g)
{
    npk_rk_mm mm = npk_rk_mm_default(g->in, g->m, g->k, g->n);
    mm.a = g->a;
    mm.b = g->b;
    mm.c = g->c;
    npk_rk_entry body[NPK_RK_MATMUL_BODY];
    npk_rk_synth_info info;
    CHECK_EQ(npk_rk_synth_matmul(&mm, body, &info), NPK_OK);
    int mismatches = 0;
    for (unsigned i = 0; i < NPK_RK_MATMUL_BODY; i++) {
        npk_rk_entry want = npk_rk_entry_make(capture[i].target, capture[i].reg,
                                              expected_value(&capture[i], g));
        if (body[i] != want) {
            mismatches++;
            fprintf(stderr, "%s entry %u: got 0x%016llx want 0x%016llx\n", g->name, i,
                    (unsigned long long)body[i], (unsigned long long)want);
        }
    }
    CHECK_EQ(mismatches, 0);
    CHECK_EQ(info.sched, 0);
    CHECK_EQ(info.mode, g->in == NPK_PREC_INT4 ? NPK_MODE_CUBE : NPK_MODE_LINE);

    /* The single-task trailer (facts C.1 T0..T3): no-op, PC amount 0, 0x0041, op enable 0xD. */
    npk_rk_entry tr[NPK_RK_TRAILER_ENTRIES];
    CHECK_EQ(npk_rk_trailer(tr, 0, 0, NPK_RK_ENABLE_MATMUL), NPK_OK);
    CHECK_EQ(tr[0], 0);
    CHECK_EQ(tr[1], npk_rk_entry_make(0x0101, 0x0014, 0));
    CHECK_EQ(tr[2], npk_rk_entry_make(0x0041, 0x0000, 0));
    CHECK_EQ(tr[3], npk_rk_entry_make(0x0081, 0x0008, 0xD));
}

/* The int4 capture is task 0 of a chain: its trailer points at the next regcmd (0xFFFFF380)
 * with amount 0x37 for a 108-entry body (facts C.1 T0/T1, B.3). */
static void check_int4_chain_trailer(void)
{
    npk_rk_entry tr[NPK_RK_TRAILER_ENTRIES];
    CHECK_EQ(npk_rk_trailer(tr, 0xFFFFF380, NPK_RK_MATMUL_BODY, NPK_RK_ENABLE_MATMUL), NPK_OK);
    CHECK_EQ(npk_rk_entry_target(tr[0]), 0x0101);
    CHECK_EQ(npk_rk_entry_reg(tr[0]), 0x0010);
    CHECK_EQ(npk_rk_entry_value(tr[0]), 0xFFFFF380);
    CHECK_EQ(npk_rk_entry_value(tr[1]), 0x37);
    CHECK_EQ(npk_rk_pc_amount(108), 55);
    CHECK_EQ(npk_rk_pc_amount(104), 53);
    /* vendor 394^3 chain bodies of 13 and 12 entries -> 8 and 7 (facts B.3) */
    CHECK_EQ(npk_rk_pc_amount(13), 8);
    CHECK_EQ(npk_rk_pc_amount(12), 7);
    CHECK_EQ(npk_rk_trailer(tr, 0xFFFFF388, 108, 0xD), NPK_EINVAL); /* not 16-byte aligned */
}

int main(void)
{
    for (unsigned i = 0; i < sizeof goldens / sizeof goldens[0]; i++)
        check_golden(&goldens[i]);
    check_int4_chain_trailer();
    return check_done();
}
