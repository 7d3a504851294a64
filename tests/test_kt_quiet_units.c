/* SPDX-License-Identifier: MIT */
/* ktsim's matmul clusters and vector cores sleep through their quiet ticks while the mesh is
 * busy elsewhere, and apply them at once when they wake (their own clocks and counters run while
 * they wait or idle). The reference is the same machine with skip_quiet off, which ticks every
 * unit every cycle: a workload with both kinds running at once — FILLs, wide and narrow sweeps,
 * DRAINs, an emitting sweep and its fused DRAIN on both clusters, vector kernels with fills,
 * barriers, interlocked chains and reductions on both cores — must leave every unit's
 * CU_COUNTERS, CU_DBG and CU_STATUS, every signal, the results in DRAM, the final cycle and
 * the stalled-cycle count sampled while the units work (it asks every unit, sleeping or not,
 * whether it is idle) exactly the same. Midway through each round's samples the host stages a
 * program again into the staging RAM's upper half, so its beats land while units work: in
 * cycles that tick and in quiet stretches (where a run of beats that only store is written at
 * once and its cycles skipped together).
 *
 * The memory port sleeps too while it has nothing to do, woken by what hands it work: a flit the
 * router offers it (the units' reads and writes), the agent's output register filling (every
 * dispatched flit and CU_CTRL request) and, for the quantising FILLs, the hold it counts down
 * while the quiet skip runs. A wake missed or late delays a transaction, so each stall sample
 * also takes the agent's AXI read and write counts (they move as the port issues), and midway
 * the host writes and reads back a DRAM word through the memory window while the units work. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kt_vec_kernels.h"
#include "npukit/kt.h"
#include "npukit/kt_mat.h"
#include "npukit/kt_regs.h"
#include "npukit/kt_vec.h"
#include "npukit/ktsim.h"

enum { MAX_UNITS = 8, ROUNDS = 2, MG_PROG = 9, VC_UNITS = 2, MG_UNITS = 2 };
enum { A_AT = 0x100000, B_AT = 0x140000, C_AT = 0x300000, E_AT = 0x340000, N_AT = 0x380000 };
enum { GM = 4, GN = 4, NK = 4, UNIT_STRIDE = 0x8000 };
enum { RESULTS = MG_UNITS * (2 * GM * GN + 2) * 32 };
enum { VL = 64 };
enum { STALL_SAMPLES = 16, STALL_STEP = 97 }; /* a prime step: samples at varied phases */
enum { RESTAGE_AT = 64 }; /* past every program dispatched from the staging RAM's start */
enum { HOST_AT = 0x3F0000 }; /* the host's own DRAM words, past every result */

/* Each round's kernel per vector core (the first core, the second). */
static const char *const kernels[ROUNDS][VC_UNITS] = {{"fma", "red"}, {"chain", "expsum"}};

typedef struct outcome {
    uint64_t cycle;
    uint64_t reg[MAX_UNITS][3]; /* CU_COUNTERS, CU_DBG, CU_STATUS per unit, each round's end */
    uint64_t last[ROUNDS][MAX_UNITS]; /* each dispatch's final NODE_STATUS: code, arg, count */
    uint64_t stalled[ROUNDS][STALL_SAMPLES]; /* ktsim_stalled_cycles while each round runs */
    uint32_t traffic[ROUNDS][STALL_SAMPLES]; /* the agent's AXI reads << 16 | writes, likewise */
    uint64_t host_word[ROUNDS];              /* the DRAM word the host wrote and read back */
    uint8_t *dram;                    /* every cluster's results */
    uint8_t *dumps;                   /* the kernels' read-back regions, one after another */
    size_t ndumps;
    size_t nunits;
} outcome;

/* One cluster's program: two FILLs, a wide sweep and its DRAIN, a narrow sweep (fewer sub-tiles
 * than reuse_min: it paces) and its DRAIN, a sweep then an emitting one accumulating on it and
 * the fused DRAIN of what it emits. */
static void mg_program(kt_flit *p, unsigned u)
{
    uint64_t c = C_AT + (uint64_t)u * UNIT_STRIDE, e = E_AT + (uint64_t)u * UNIT_STRIDE;
    uint64_t n = N_AT + (uint64_t)u * UNIT_STRIDE;
    CHECK_EQ(kt_mat_fill(&p[0], A_AT, GM * NK, false, false, false, 0, 1, false), NPK_OK);
    CHECK_EQ(kt_mat_fill(&p[1], B_AT, GN * NK, true, false, false, 0, 1, false), NPK_OK);
    CHECK_EQ(kt_mat_gemm(&p[2], GM, GN, NK, false, 0, 0, false, false, 1, false), NPK_OK);
    CHECK_EQ(kt_mat_drain(&p[3], c, GM * GN, 1, false), NPK_OK);
    CHECK_EQ(kt_mat_gemm(&p[4], 1, 2, NK, false, 0, 0, false, false, 1, false), NPK_OK);
    CHECK_EQ(kt_mat_drain(&p[5], n, 2, 1, false), NPK_OK);
    CHECK_EQ(kt_mat_gemm(&p[6], GM, GN, NK, false, 0, 0, false, false, 1, false), NPK_OK);
    CHECK_EQ(kt_mat_gemm_emit(&p[7], GM, GN, NK, true, 0, 0, false, false, e, 1, false), NPK_OK);
    CHECK_EQ(kt_mat_drain_fused(&p[8], e, GM * GN, 1, false), NPK_OK);
}

static npk_status run_flits(kt_dev *d, const kt_unit *u, const kt_flit *p, unsigned n)
{
    kt_ticket tk;
    npk_status s = kt_stage(d, 0, p, n);
    if (!s)
        s = kt_dispatch(d, u, 0, n, 0, &tk);
    if (!s)
        s = kt_wait(d, &tk, NULL);
    return s;
}

/* A kernel's memory, descriptors and instructions into a core (its RUN comes later). */
static void vc_load(ktsim *s, kt_dev *d, const kt_unit *u, const vk_kernel *k)
{
    static const uint8_t zero[32];
    for (unsigned i = 0; i < k->zero_words; i++)
        CHECK_EQ(ktsim_dram_write(s, k->zero_addr + 32ull * i, zero, 32), NPK_OK);
    for (unsigned i = 0; i < k->nmem; i++)
        CHECK_EQ(ktsim_dram_write(s, k->mem[i].addr, k->mem[i].b, 32), NPK_OK);
    kt_flit p[VK_MAX_DESC + VK_MAX_IMEM];
    unsigned n = 0;
    for (unsigned i = 0; i < k->ndesc; i++)
        CHECK_EQ(kt_vec_desc(&p[n++], k->desc[i].ad, k->desc[i].fld, k->desc[i].v, 1, false),
                 NPK_OK);
    for (unsigned i = 0; i < k->nimem; i++)
        CHECK_EQ(kt_vec_imem(&p[n++], i, k->imem[i], 1, false), NPK_OK);
    for (unsigned at = 0; at < n; at += 64)
        CHECK_EQ(run_flits(d, u, p + at, n - at < 64 ? n - at : 64), NPK_OK);
}

static bool run(bool skip, outcome *o)
{
    memset(o, 0, sizeof *o);
    ktsim_config cfg;
    ktsim *s = NULL;
    kt_dev d;
    kt_unit all[MAX_UNITS], mg[MG_UNITS], vc[VC_UNITS];
    size_t n = 0, nmg = 0, nvc = 0;
    if (ktsim_preset_load("mg2_vc2", &cfg) != NPK_OK)
        return false;
    cfg.skip_quiet = skip;
    if (ktsim_create(&cfg, &s) != NPK_OK)
        return false;
    if (kt_open(&d, ktsim_transport(s), cfg.ctrl_base, NULL) != NPK_OK ||
        kt_enumerate(&d, all, MAX_UNITS, &n) != NPK_OK) {
        ktsim_destroy(s);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (all[i].caps.type == KT_MAT_TYPE && nmg < MG_UNITS)
            mg[nmg++] = all[i];
        else if (all[i].caps.type == KT_VEC_TYPE && nvc < VC_UNITS)
            vc[nvc++] = all[i];
    }
    CHECK_EQ(nmg, (size_t)MG_UNITS);
    CHECK_EQ(nvc, (size_t)VC_UNITS);
    o->nunits = n;
    /* operands: FP16 values in [-1, 1) */
    uint8_t *ops = malloc(2 * 0x40000);
    uint64_t st = 7;
    for (size_t i = 0; i < 2 * 0x40000; i += 2) {
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        uint16_t h = (uint16_t)(((st >> 33) & 0x3BFF) | ((st >> 20) & 0x8000));
        ops[i] = (uint8_t)h;
        ops[i + 1] = (uint8_t)(h >> 8);
    }
    CHECK_EQ(ktsim_dram_write(s, A_AT, ops, 2 * 0x40000), NPK_OK);
    free(ops);
    vk_kernel *k = malloc(sizeof *k);
    for (int r = 0; r < ROUNDS; r++) {
        /* the round's kernels loaded; then everything dispatched at once */
        kt_flit p[MG_UNITS * MG_PROG + VC_UNITS];
        unsigned np = 0;
        uint64_t dump_at[VC_UNITS];
        unsigned dump_words[VC_UNITS];
        for (size_t v = 0; v < nvc; v++) {
            CHECK(vk_build(kernels[r][v], VL, k) && !k->bad);
            vc_load(s, &d, &vc[v], k);
            dump_at[v] = k->dump_addr;
            dump_words[v] = k->dump_words;
        }
        if (r == 0)
            for (size_t u = 0; u < nmg; u++, np += MG_PROG)
                mg_program(p + np, (unsigned)u);
        for (size_t v = 0; v < nvc; v++)
            CHECK_EQ(kt_vec_run(&p[np++], 0, 1, false), NPK_OK);
        CHECK_EQ(kt_stage(&d, 0, p, np), NPK_OK);
        kt_ticket tk[MG_UNITS + VC_UNITS];
        unsigned nt = 0, at = 0;
        if (r == 0)
            for (size_t u = 0; u < nmg; u++, at += MG_PROG)
                CHECK_EQ(kt_dispatch(&d, &mg[u], at, MG_PROG, 0, &tk[nt++]), NPK_OK);
        for (size_t v = 0; v < nvc; v++, at++)
            CHECK_EQ(kt_dispatch(&d, &vc[v], at, 1, 0, &tk[nt++]), NPK_OK);
        for (int k = 0; k < STALL_SAMPLES; k++) { /* the units at work, between the flits */
            ktsim_step(s, STALL_STEP);
            o->stalled[r][k] = ktsim_stalled_cycles(s);
            uint16_t rd, wr;
            ktsim_mem_traffic(s, &rd, &wr);
            o->traffic[r][k] = (uint32_t)rd << 16 | wr;
            if (k == STALL_SAMPLES / 2)
                CHECK_EQ(kt_stage(&d, RESTAGE_AT, p, np), NPK_OK);
            if (k == STALL_SAMPLES / 2 + 1) { /* a host access to DRAM, away from every operand */
                uint64_t at = cfg.mem_base + HOST_AT + 8ull * r;
                CHECK_EQ(kt_write64(ktsim_transport(s), at, 0x5EED0000u + (unsigned)r), NPK_OK);
                CHECK_EQ(kt_read64(ktsim_transport(s), at, &o->host_word[r]), NPK_OK);
            }
        }
        for (unsigned t = 0; t < nt; t++) {
            kt_wait_result res = {0};
            npk_status w = kt_wait(&d, &tk[t], &res);
            CHECK(w == NPK_OK || w == NPK_EFAULT);
            o->last[r][t] =
                (uint64_t)res.last.code << 48 | (uint64_t)res.last.count << 32 | res.last.arg;
        }
        for (size_t v = 0; v < nvc; v++) {
            size_t len = (size_t)dump_words[v] * 32;
            o->dumps = realloc(o->dumps, o->ndumps + len + 1);
            CHECK_EQ(ktsim_dram_read(s, dump_at[v], o->dumps + o->ndumps, len), NPK_OK);
            o->ndumps += len;
        }
    }
    free(k);
    for (size_t i = 0; i < n; i++) {
        static const uint8_t index[3] = {KT_CU_COUNTERS, KT_CU_DBG, KT_CU_STATUS};
        for (int j = 0; j < 3; j++) {
            bool present = false;
            CHECK_EQ(kt_ctrl_read(&d, all[i].at, index[j], &o->reg[i][j], &present), NPK_OK);
        }
    }
    /* each cluster's three results: the wide DRAIN, the narrow one, what the sweep emitted */
    o->dram = malloc(RESULTS);
    uint8_t *at = o->dram;
    for (unsigned u = 0; u < MG_UNITS; u++) {
        static const struct {
            uint64_t base;
            size_t len;
        } region[] = {{C_AT, GM * GN * 32}, {N_AT, 2 * 32}, {E_AT, GM * GN * 32}};
        for (int j = 0; j < 3; j++) {
            CHECK_EQ(
                ktsim_dram_read(s, region[j].base + (uint64_t)u * UNIT_STRIDE, at, region[j].len),
                NPK_OK);
            at += region[j].len;
        }
    }
    o->cycle = ktsim_cycle(s);
    CHECK(ktsim_fault(s) == NULL);
    ktsim_destroy(s);
    return true;
}

int main(void)
{
    outcome on, off;
    CHECK(run(true, &on));
    CHECK(run(false, &off));
    printf("%llu cycles both ways\n", (unsigned long long)on.cycle);
    CHECK(on.cycle > 0);
    CHECK_EQ(on.cycle, off.cycle);
    CHECK_EQ(on.nunits, off.nunits);
    for (size_t i = 0; i < on.nunits && i < MAX_UNITS; i++)
        for (int j = 0; j < 3; j++) {
            if (on.reg[i][j] != off.reg[i][j])
                fprintf(stderr, "unit %zu register %d: 0x%llx skipping, 0x%llx ticked\n", i, j,
                        (unsigned long long)on.reg[i][j], (unsigned long long)off.reg[i][j]);
            CHECK_EQ(on.reg[i][j], off.reg[i][j]);
        }
    /* the clusters computed and counted: compute and memory cycles both moved */
    for (size_t i = 0; i < on.nunits && i < MAX_UNITS; i++)
        CHECK(on.reg[i][1] != 0);
    CHECK(memcmp(on.last, off.last, sizeof on.last) == 0);
    uint64_t stalled_max = 0;
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 0; k < STALL_SAMPLES; k++) {
            if (on.stalled[r][k] != off.stalled[r][k])
                fprintf(stderr, "round %d sample %d: %llu stalled cycles skipping, %llu ticked\n",
                        r, k, (unsigned long long)on.stalled[r][k],
                        (unsigned long long)off.stalled[r][k]);
            CHECK_EQ(on.stalled[r][k], off.stalled[r][k]);
            stalled_max = on.stalled[r][k] > stalled_max ? on.stalled[r][k] : stalled_max;
        }
    CHECK(stalled_max > 0); /* the samples met the units working with no flit moving */
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 0; k < STALL_SAMPLES; k++) {
            if (on.traffic[r][k] != off.traffic[r][k])
                fprintf(stderr, "round %d sample %d: AXI reads/writes 0x%08x skipping, 0x%08x ticked\n",
                        r, k, on.traffic[r][k], off.traffic[r][k]);
            CHECK_EQ(on.traffic[r][k], off.traffic[r][k]);
        }
    /* the samples met the port at work: its counts moved between them */
    CHECK(on.traffic[0][0] != on.traffic[0][STALL_SAMPLES - 1]);
    for (int r = 0; r < ROUNDS; r++) {
        CHECK_EQ(on.host_word[r], 0x5EED0000u + (unsigned)r);
        CHECK_EQ(off.host_word[r], on.host_word[r]);
    }
    CHECK_EQ(on.ndumps, off.ndumps);
    CHECK(on.ndumps > 0 && on.ndumps == off.ndumps && !memcmp(on.dumps, off.dumps, on.ndumps));
    CHECK(on.dram && off.dram && !memcmp(on.dram, off.dram, RESULTS));
    free(on.dram);
    free(off.dram);
    free(on.dumps);
    free(off.dumps);
    return check_done();
}
