/* SPDX-License-Identifier: MIT */
/* The matmul cluster's timing row against figures measured on the RTL: upstream's
 * mx_cluster_cu (KohakuTPU 7703ee8; GA = GB = 512, TILES = 256, ACC_MW = 14, behavioural MACs)
 * under Verilator 5.006, driven port to port by a bench built on upstream's
 * mx_cluster_data_tb: operands delivered first, then a GEMM and a DRAIN of all its sub-tiles
 * back to back, then the same DRAIN again alone; cycles from the GEMM (or the lone DRAIN)
 * entering the unit's port to the DRAIN's completion leaving it, and CU_DBG's compute_cycles
 * over the GEMM.
 *
 * The simulator's figure for the same work is the shell's busy_cycles (CU_COUNTERS: from the
 * unit taking an instruction to exec_done, summed over the instructions) plus the shell's own
 * hops, which the port-to-port figure includes: an instruction's way from the port through the
 * instruction FIFO to the unit, and the completion's way out (HOPS, read from noc_cu_base's
 * registers: FIFO write, inst_valid, accept; signal queue, output register). Every shape must
 * land within 10 %; compute_cycles must equal the RTL's.
 *
 * The emitting sweep the same way (the bench extended with an emitting GEMM and a fused DRAIN of
 * its sub-tiles at one address): cycles from the GEMM entering the port to the fused DRAIN's
 * completion leaving it; with acc, after a plain GEMM of the same shape (its compute_cycles the
 * RTL's total less the plain sweep's, issue + 31). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kt/hw/units/mat.h"
#include "npukit/kt.h"
#include "npukit/kt_regs.h"
#include "npukit/ktsim.h"
#include "npukit/kt_mat.h"

enum { HOPS = 4, OPERANDS = 0x10000, C_AT = 0x80000 };

/* RTL figures (KohakuTPU 7703ee8, mx_cluster_cu under Verilator 5.006). */
static const struct {
    unsigned gm, gn, nk;
    unsigned gemm_drain; /* GEMM in to DRAIN's completion out */
    unsigned compute;    /* compute_cycles over the GEMM */
    unsigned drain;      /* the DRAIN alone */
} rtl[] = {
    {1, 1, 1, 56, 44, 22},    {2, 2, 1, 65, 50, 28},    {2, 2, 4, 92, 77, 28},
    {4, 4, 1, 95, 74, 46},    {4, 4, 2, 111, 90, 46},   {4, 4, 4, 143, 122, 46},
    {8, 8, 1, 203, 170, 106}, {8, 8, 2, 267, 234, 106}, {8, 8, 8, 651, 618, 106},
    {1, 8, 4, 101, 82, 36},   {8, 1, 4, 101, 82, 36},   {3, 5, 3, 123, 102, 45},
};

/* RTL figures for GEMM emit + fused DRAIN (same source). */
static const struct {
    unsigned gm, gn, nk;
    bool acc;
    unsigned end;     /* GEMM in to the fused DRAIN's completion out */
    unsigned compute; /* compute_cycles over the emitting GEMM */
} rtl_emit[] = {
    {1, 1, 2, false, 47, 37},   {2, 2, 2, false, 59, 46},  {2, 2, 4, false, 75, 62},
    {4, 4, 2, false, 81, 63},   {4, 4, 4, false, 113, 95}, {8, 8, 2, false, 189, 159},
    {8, 8, 8, false, 573, 543}, {1, 8, 4, false, 79, 63},  {8, 1, 4, false, 79, 63},
    {3, 5, 3, false, 94, 76},   {1, 1, 1, true, 42, 32},   {4, 4, 1, true, 65, 47},
    {8, 8, 1, true, 125, 95},
};

typedef struct run {
    ktsim *s;
    kt_dev d;
    kt_unit unit;
    ktsim_config c;
} run;

static bool start(run *r)
{
    const char *text = "name mg_timing\ngrid 1 1\nmem_port 0 1\n"
                       "unit 1 1 mat version=4 n_buffers=2 inst_depth=32\n";
    CHECK_EQ(ktsim_preset_parse(text, "mg", &r->c), NPK_OK);
    r->s = NULL;
    if (ktsim_create(&r->c, &r->s) != NPK_OK)
        return false;
    CHECK_EQ(kt_open(&r->d, ktsim_transport(r->s), r->c.ctrl_base, NULL), NPK_OK);
    size_t n = 0;
    CHECK_EQ(kt_enumerate(&r->d, &r->unit, 1, &n), NPK_OK);
    /* the operands' values do not matter to the timing; memory must have been written */
    static uint8_t zero[64 * 256];
    CHECK_EQ(ktsim_dram_write(r->s, OPERANDS, zero, sizeof zero), NPK_OK);
    return n == 1;
}

static uint64_t ctrl(run *r, uint8_t index)
{
    uint64_t v = 0;
    bool present = false;
    CHECK_EQ(kt_ctrl_read(&r->d, r->unit.at, index, &v, &present), NPK_OK);
    return v;
}

/* busy_cycles and compute_cycles spent on a program. */
static void measure(run *r, kt_flit *p, unsigned n, uint32_t *busy, uint32_t *compute)
{
    uint32_t b0 = kt_cu_counters_decode(ctrl(r, KT_CU_COUNTERS)).busy_cycles;
    uint32_t c0 = (uint32_t)(ctrl(r, KT_CU_DBG) >> 32);
    CHECK_EQ(kt_stage(&r->d, 0, p, n), NPK_OK);
    kt_ticket tk;
    CHECK_EQ(kt_dispatch(&r->d, &r->unit, 0, n, 0, &tk), NPK_OK);
    CHECK_EQ(kt_wait(&r->d, &tk, NULL), NPK_OK);
    /* let the sweep's tail finish counting */
    for (int i = 0; i < 8; i++)
        ctrl(r, KT_CU_STATUS);
    *busy = kt_cu_counters_decode(ctrl(r, KT_CU_COUNTERS)).busy_cycles - b0;
    *compute = (uint32_t)(ctrl(r, KT_CU_DBG) >> 32) - c0;
}

static bool close(unsigned got, unsigned want, const char *what, unsigned gm, unsigned gn,
                  unsigned nk)
{
    unsigned diff = got > want ? got - want : want - got;
    printf("  %-10s %ux%ux%u: ktsim %4u  RTL %4u\n", what, gm, gn, nk, got, want);
    return diff * 10 <= want;
}

static bool within_10pct(unsigned got, unsigned want, const char *what, unsigned i)
{
    return close(got, want, what, rtl[i].gm, rtl[i].gn, rtl[i].nk);
}

static void emitting(void)
{
    for (unsigned i = 0; i < sizeof rtl_emit / sizeof rtl_emit[0]; i++) {
        run r;
        if (!start(&r)) {
            CHECK(!"the mesh builds");
            break;
        }
        unsigned gm = rtl_emit[i].gm, gn = rtl_emit[i].gn, nk = rtl_emit[i].nk;
        kt_flit p[2];
        CHECK_EQ(kt_mat_fill(&p[0], OPERANDS, gm * nk, false, true, false, 0, 1, false), NPK_OK);
        CHECK_EQ(kt_mat_fill(&p[1], OPERANDS, gn * nk, true, true, false, 0, 1, false), NPK_OK);
        uint32_t busy, compute;
        measure(&r, p, 2, &busy, &compute);
        if (rtl_emit[i].acc) {
            CHECK_EQ(kt_mat_gemm(&p[0], (uint8_t)gm, (uint8_t)gn, (uint8_t)nk, false, 0, 0, false,
                                 false, 1, false),
                     NPK_OK);
            measure(&r, p, 1, &busy, &compute);
        }
        CHECK_EQ(kt_mat_gemm_emit(&p[0], (uint8_t)gm, (uint8_t)gn, (uint8_t)nk, rtl_emit[i].acc, 0,
                                  0, false, false, C_AT, 1, false),
                 NPK_OK);
        CHECK_EQ(kt_mat_drain_fused(&p[1], C_AT, gm * gn, 1, false), NPK_OK);
        measure(&r, p, 2, &busy, &compute);
        CHECK(close(busy + HOPS, rtl_emit[i].end, "emit+fuse", gm, gn, nk));
        CHECK(close(compute, rtl_emit[i].compute, "compute", gm, gn, nk));
        CHECK(ktsim_fault(r.s) == NULL);
        ktsim_destroy(r.s);
    }
}

int main(void)
{
    for (unsigned i = 0; i < sizeof rtl / sizeof rtl[0]; i++) {
        run r;
        if (!start(&r)) {
            CHECK(!"the mesh builds");
            break;
        }
        unsigned gm = rtl[i].gm, gn = rtl[i].gn, nk = rtl[i].nk;
        kt_flit p[4];
        CHECK_EQ(kt_mat_fill(&p[0], OPERANDS, gm * nk, false, true, false, 0, 1, false), NPK_OK);
        CHECK_EQ(kt_mat_fill(&p[1], OPERANDS, gn * nk, true, true, false, 0, 1, false), NPK_OK);
        uint32_t busy, compute;
        measure(&r, p, 2, &busy, &compute);
        CHECK_EQ(kt_mat_gemm(&p[0], (uint8_t)gm, (uint8_t)gn, (uint8_t)nk, false, 0, 0, false,
                             false, 1, false),
                 NPK_OK);
        CHECK_EQ(kt_mat_drain(&p[1], C_AT, gm * gn, 1, false), NPK_OK);
        measure(&r, p, 2, &busy, &compute);
        CHECK(within_10pct(busy + HOPS, rtl[i].gemm_drain, "gemm+drain", i));
        CHECK(within_10pct(compute, rtl[i].compute, "compute", i));
        measure(&r, &p[1], 1, &busy, &compute);
        CHECK(within_10pct(busy + HOPS, rtl[i].drain, "drain", i));
        CHECK(ktsim_fault(r.s) == NULL);
        ktsim_destroy(r.s);
    }
    emitting();
    return check_done();
}
