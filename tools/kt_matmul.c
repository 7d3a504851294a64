/* SPDX-License-Identifier: MIT */
/* `npukit kt matmul -m M -n N -k K`: C = A · B on the matmul clusters ('MG'). A and B are FP16 in
 * simulated DRAM in the clusters' entry layout (4 rows of A, or 4 columns of B, by 32 K, lane
 * after lane; entries group-major, K block minor); each job is one program of four instructions
 * — FILL A, FILL B (the memory port quantises to MXFP7 on the way), GEMM, DRAIN — over a tile of
 * C small enough for one FILL (255 entries) and the resident tile, the jobs dealt round-robin to
 * the clusters a round at a time. C comes back as FP16 sub-tiles and is checked against the CPU's
 * product of the same MXFP7 operands (the hardware layer's quantiser; exact dots and scales)
 * within the accumulator's rounding: FP22 each chain and each sum, then FP16. The error the
 * format itself costs is reported against the FP32 product of the FP16 inputs. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kt/hw/mxfp.h"
#include "kt/hw/units/mat.h"
#include "kt_cli.h"
#include "kt_engine_round.h"
#include "npukit/fp16.h"
#include "npukit/kt_mat.h"

enum { MM_MAX_UNITS = 16, MM_MAX_ENUM = 64, MM_PROG = 4, MM_DIM_MAX = 4096 };
static const uint64_t A_OFF = 0x100000, REGION_ALIGN = 0x100000;

typedef struct mm_job {
    unsigned m, n, k, gm, gn, nk;
    unsigned mt, nt; /* row groups and column groups of one job's tile */
    bool emit;       /* the sweep emits its sub-tiles; the DRAIN is the fused barrier */
    uint16_t *a, *bt; /* FP16, A [m][k] and B transposed [n][k] */
    double *ref, *f32; /* MXFP7 product, FP32 product of the FP16 inputs */
    double *bound;     /* the accumulator's rounding allowance per element */
    uint16_t *c;       /* what came back */
    uint64_t a_off, b_off, c_off;
    kt_unit mg[MM_MAX_UNITS];
    size_t nmg;
} mm_job;

static void mm_free(mm_job *j)
{
    free(j->a);
    free(j->bt);
    free(j->ref);
    free(j->f32);
    free(j->bound);
    free(j->c);
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Rows (of A, or of B transposed) in entry order: entry g * nk + kb holds rows 4g..4g+3 at K
 * block kb, 32 FP16 each, row after row. */
static void pack_entries(const uint16_t *rows, unsigned groups, unsigned nk, uint8_t *out)
{
    for (unsigned g = 0; g < groups; g++)
        for (unsigned kb = 0; kb < nk; kb++)
            for (unsigned lane = 0; lane < KT_MX_LANES; lane++)
                for (unsigned k = 0; k < KT_MX_KBLOCK; k++) {
                    uint16_t v = rows[(size_t)(4 * g + lane) * nk * 32 + kb * 32 + k];
                    size_t at = (((size_t)g * nk + kb) * KT_MX_ENTRY_ELEMS +
                                 lane * KT_MX_KBLOCK + k) * 2;
                    out[at] = (uint8_t)v;
                    out[at + 1] = (uint8_t)(v >> 8);
                }
}

/* The CPU's answers: the product of the MXFP7 operands (each K block an exact dot scaled by the
 * two scales, as the cluster's chains are) with the FP22 rounding allowance, and the FP32
 * product of the FP16 inputs. */
static npk_status mm_reference(mm_job *j)
{
    size_t rows = (size_t)j->m + j->n;
    int8_t *q = malloc(rows * j->k);
    uint8_t *f = malloc(rows * j->nk);
    if (!q || !f) {
        free(q);
        free(f);
        return npk_fail(NPK_ENOMEM, "matmul: out of memory for the reference");
    }
    for (size_t r = 0; r < rows; r++) {
        const uint16_t *src = r < j->m ? j->a + r * j->k : j->bt + (r - j->m) * j->k;
        for (unsigned kb = 0; kb < j->nk; kb++)
            f[r * j->nk + kb] =
                kt_mx_scale_field(kt_mx_quant_block(src + kb * 32, q + r * j->k + kb * 32));
    }
    for (unsigned i = 0; i < j->m; i++)
        for (unsigned c = 0; c < j->n; c++) {
            size_t rb = (size_t)j->m + c;
            double sum = 0, mag = 0, f32 = 0;
            for (unsigned kb = 0; kb < j->nk; kb++) {
                double ch = kt_mx_chain(q + (size_t)i * j->k + kb * 32, f[(size_t)i * j->nk + kb],
                                        q + rb * j->k + kb * 32, f[rb * j->nk + kb], KT_MX_ANCHOR);
                sum += ch;
                mag += fabs(ch);
            }
            for (unsigned k = 0; k < j->k; k++)
                f32 += (double)npk_f16_to_f32(j->a[(size_t)i * j->k + k]) *
                       npk_f16_to_f32(j->bt[(size_t)c * j->k + k]);
            size_t at = (size_t)i * j->n + c;
            j->ref[at] = sum;
            j->f32[at] = (double)(float)f32;
            /* FP16's rounding of the result, FP22's of each chain and each sum (2^-15 of the
             * magnitudes they carry, at most the sum of the chains' magnitudes), FP16's flush
             * below 2^-14 */
            j->bound[at] = fabs(sum) * 0x1p-11 + 2.0 * j->nk * 0x1p-15 * mag + 0x1p-14;
        }
    free(q);
    free(f);
    return NPK_OK;
}

static npk_status mm_init(mm_job *j, kt_dev *dev, uint64_t mem, uint64_t dram, uint64_t seed,
                          const char *preset)
{
    j->gm = j->m / 4;
    j->gn = j->n / 4;
    j->nk = j->k / 32;
    /* a job's FILLs are at most 255 entries (gm x nk and gn x nk) */
    j->mt = KT_MAT_FILL_MAX_N / j->nk < j->gm ? KT_MAT_FILL_MAX_N / j->nk : j->gm;
    j->nt = KT_MAT_FILL_MAX_N / j->nk < j->gn ? KT_MAT_FILL_MAX_N / j->nk : j->gn;
    kt_unit all[MM_MAX_ENUM];
    size_t nall = 0;
    npk_status s = kt_enumerate(dev, all, MM_MAX_ENUM, &nall);
    if (s)
        return s;
    for (size_t i = 0; i < nall && j->nmg < MM_MAX_UNITS; i++)
        if (all[i].caps.type == KT_MAT_TYPE)
            j->mg[j->nmg++] = all[i];
    if (!j->nmg)
        return npk_fail(NPK_ENODEV, "no matmul cluster ('MG') in preset %s", preset);
    /* split N so that every cluster has a job where there are enough column groups */
    unsigned share = (unsigned)((j->gn + j->nmg - 1) / j->nmg);
    if (share < j->nt)
        j->nt = share;
    size_t asz = (size_t)j->m * j->k * 2, bsz = (size_t)j->n * j->k * 2;
    size_t csz = (size_t)j->m * j->n * 2;
    j->a_off = A_OFF;
    j->b_off = j->a_off + (asz + REGION_ALIGN - 1) / REGION_ALIGN * REGION_ALIGN;
    j->c_off = j->b_off + (bsz + REGION_ALIGN - 1) / REGION_ALIGN * REGION_ALIGN;
    if (j->c_off + csz > dram)
        return npk_fail(NPK_ELIMIT,
                        "matmul %ux%ux%u: operands and result end at 0x%" PRIx64
                        ", past the preset's DRAM of 0x%" PRIx64 " bytes",
                        j->m, j->n, j->k, j->c_off + csz, dram);
    size_t mn = (size_t)j->m * j->n;
    j->a = malloc(asz);
    j->bt = malloc(bsz);
    j->ref = malloc(mn * sizeof *j->ref);
    j->f32 = malloc(mn * sizeof *j->f32);
    j->bound = malloc(mn * sizeof *j->bound);
    j->c = malloc(csz);
    uint8_t *packed = malloc(asz > bsz ? asz : bsz);
    if (!j->a || !j->bt || !j->ref || !j->f32 || !j->bound || !j->c || !packed) {
        free(packed);
        return npk_fail(NPK_ENOMEM, "matmul %ux%ux%u: out of memory", j->m, j->n, j->k);
    }
    uint64_t st = seed;
    for (size_t i = 0; i < (size_t)j->m * j->k; i++)
        j->a[i] = npk_f32_to_f16((float)((double)(splitmix(&st) >> 11) * 0x1p-52 - 1.0));
    for (size_t i = 0; i < (size_t)j->n * j->k; i++)
        j->bt[i] = npk_f32_to_f16((float)((double)(splitmix(&st) >> 11) * 0x1p-52 - 1.0));
    if ((s = mm_reference(j)))
        goto out;
    pack_entries(j->a, j->gm, j->nk, packed);
    if ((s = kt_write_block(dev->t, mem + j->a_off, packed, asz)))
        goto out;
    pack_entries(j->bt, j->gn, j->nk, packed);
    s = kt_write_block(dev->t, mem + j->b_off, packed, bsz);
out:
    free(packed);
    return s;
}

/* Job number `job`: its first row group, column group and sizes. */
static void job_tile(const mm_job *j, unsigned job, unsigned *g0, unsigned *h0, unsigned *gms,
                     unsigned *gns)
{
    unsigned per_row = (j->gn + j->nt - 1) / j->nt;
    *g0 = job / per_row * j->mt;
    *h0 = job % per_row * j->nt;
    *gms = j->gm - *g0 < j->mt ? j->gm - *g0 : j->mt;
    *gns = j->gn - *h0 < j->nt ? j->gn - *h0 : j->nt;
}

/* The job's region of C: its sub-tiles in sweep order, one 32-byte word each. */
static uint64_t job_c_off(const mm_job *j, unsigned job)
{
    return j->c_off + (uint64_t)job * j->mt * j->nt * 32;
}

static npk_status job_program(const mm_job *j, unsigned job, kt_flit *p, uint8_t txn)
{
    unsigned g0, h0, gms, gns;
    job_tile(j, job, &g0, &h0, &gms, &gns);
    npk_status s;
    if ((s = kt_mat_fill(&p[0], j->a_off + (uint64_t)g0 * j->nk * KT_MX_ENTRY_IN, gms * j->nk,
                         false, false, false, 0, txn, false)) ||
        (s = kt_mat_fill(&p[1], j->b_off + (uint64_t)h0 * j->nk * KT_MX_ENTRY_IN, gns * j->nk,
                         true, false, false, 0, txn, false)) ||
        (s = j->emit ? kt_mat_gemm_emit(&p[2], (uint8_t)gms, (uint8_t)gns, (uint8_t)j->nk, false, 0,
                                        0, false, false, job_c_off(j, job), txn, false)
                     : kt_mat_gemm(&p[2], (uint8_t)gms, (uint8_t)gns, (uint8_t)j->nk, false, 0, 0,
                                   false, false, txn, false)))
        return s;
    return j->emit ? kt_mat_drain_fused(&p[3], job_c_off(j, job), gms * gns, txn, true)
                   : kt_mat_drain(&p[3], job_c_off(j, job), gms * gns, txn, true);
}

/* Read each job's sub-tiles back into C [m][n]. */
static npk_status mm_collect(mm_job *j, kt_transport *t, uint64_t mem, unsigned jobs)
{
    uint16_t *sub = malloc((size_t)j->mt * j->nt * 32);
    if (!sub)
        return npk_fail(NPK_ENOMEM, "matmul: out of memory for the result");
    npk_status s = NPK_OK;
    for (unsigned job = 0; job < jobs && !s; job++) {
        unsigned g0, h0, gms, gns;
        job_tile(j, job, &g0, &h0, &gms, &gns);
        if ((s = kt_read_block(t, mem + job_c_off(j, job), sub, (size_t)gms * gns * 32)))
            break;
        for (unsigned tt = 0; tt < gms * gns; tt++)
            for (unsigned e = 0; e < 16; e++) {
                unsigned row = (g0 + tt / gns) * 4 + e / 4, col = (h0 + tt % gns) * 4 + e % 4;
                j->c[(size_t)row * j->n + col] = sub[tt * 16 + e];
            }
    }
    free(sub);
    return s;
}

/* One round: program u (MM_PROG flits from prog + u * MM_PROG) on cluster u, for u < n; staged,
 * dispatched and waited for by the host, or (eng not NULL) issued as one control program that
 * the engine runs for one GO. */
static npk_status run_round(kt_dev *d, kt_engine *eng, kt_hostprog *hp, const kt_flit *prog,
                            const kt_unit *mg, size_t n)
{
    kt_ticket tk[MM_MAX_UNITS];
    memset(tk, 0, sizeof tk);
    if (eng) {
        unsigned count[MM_MAX_UNITS];
        for (size_t u = 0; u < n; u++)
            count[u] = MM_PROG;
        return kt_engine_round(d, eng, hp, prog, mg, count, n, 0, tk);
    }
    npk_status s = kt_stage(d, 0, prog, (unsigned)(n * MM_PROG));
    for (size_t u = 0; u < n && !s; u++)
        s = kt_dispatch(d, &mg[u], (unsigned)(u * MM_PROG), MM_PROG, 0, &tk[u]);
    for (size_t u = 0; u < n && !s; u++)
        s = kt_wait(d, &tk[u], NULL);
    return s;
}

/* FNV-1a (64-bit) of C's FP16 bits, row-major: two runs that print the same digest returned the
 * same C bit for bit (the host and engine forms, a served card and the simulator in-process). */
static uint64_t c_digest(const mm_job *j)
{
    uint64_t h = 0xCBF29CE484222325ull;
    for (size_t i = 0; i < (size_t)j->m * j->n; i++)
        for (unsigned b = 0; b < 2; b++) {
            h ^= (uint8_t)(j->c[i] >> (8 * b));
            h *= 0x100000001B3ull;
        }
    return h;
}

static int fail(kt_cli *c, mm_job *j, const char *what)
{
    int rc = cli_lib_error(what);
    mm_free(j);
    kt_cli_close(c);
    return rc;
}

int kt_matmul_main(int argc, char **argv)
{
    kt_cli c = {0};
    uint64_t m = 64, n = 64, k = 128, seed = 1;
    bool engine = false, emit = false;
    const cli_opt own[] = {
        {.name = "-m", .kind = CLI_U64, .dest = &m, .min = 4, .max = MM_DIM_MAX, .meta = "M",
         .help = "rows of A and C, a multiple of 4 (default 64)"},
        {.name = "-n", .kind = CLI_U64, .dest = &n, .min = 4, .max = MM_DIM_MAX, .meta = "N",
         .help = "columns of B and C, a multiple of 4 (default 64)"},
        {.name = "-k", .kind = CLI_U64, .dest = &k, .min = 32, .max = 32 * KT_MAT_FILL_MAX_N,
         .meta = "K", .help = "the reduction, a multiple of 32 (default 128)"},
        {.name = "--seed", .kind = CLI_U64, .dest = &seed, .max = UINT64_MAX, .meta = "S",
         .help = "the operands' generator seed (default 1)"},
        {.name = "--engine", .kind = CLI_FLAG, .dest = &engine,
         .help = "issue each round's stage, dispatches and waits as one program in the card's "
                 "control-program engine"},
        {.name = "--emit", .kind = CLI_FLAG, .dest = &emit,
         .help = "the sweeps emit their sub-tiles as they complete them and each DRAIN is the "
                 "fused barrier (K of 64 or more)"},
        CLI_END,
    };
    const cli_opt *tables[] = {own, kt_cli_rows(&c.o), kt_cli_discovery_rows(&c.o),
                               kt_cli_wait_rows(&c.o), NULL};
    cli_spec spec = {.cmd = "kt matmul",
                     .synopsis = "[-m M] [-n N] [-k K] [--seed S] [--engine] [--emit] [options]",
                     .about = "quantise, fill, multiply and drain C = A * B on the matmul "
                              "clusters and check it",
                     .tables = tables};
    int rc = cli_parse(&spec, argc, argv);
    if (rc >= 0)
        return rc;
    if (m % 4 || n % 4 || k % 32) {
        fprintf(stderr,
                "npukit kt matmul: M=%" PRIu64 " and N=%" PRIu64 " must be multiples of 4 and "
                "K=%" PRIu64 " of 32 (the cluster's sub-tile and K block)\n",
                m, n, k);
        return 2;
    }
    if (emit && k == 32) {
        fprintf(stderr, "npukit kt matmul: --emit with K=32: one K block, which a sweep cannot "
                        "both open and emit (K of 64 or more)\n");
        return 2;
    }
    c.engine = engine;
    if ((rc = kt_cli_open(&c)))
        return rc;
    mm_job j = {.m = (unsigned)m, .n = (unsigned)n, .k = (unsigned)k, .emit = emit};
    const kt_board *board = kt_machine_board(c.m);
    uint64_t mem = kt_machine_mem_base(c.m, 0);
    kt_transport *t = kt_machine_transport(c.m);
    if (mm_init(&j, &c.dev, mem, board->dram_size, seed, board->name))
        return fail(&c, &j, "kt matmul");
    kt_cli_pace(&c.dev, c.m, &c.o);
    kt_cli_span_begin(c.m);
    c.dev.waits = (kt_wait_stats){0};
    unsigned jobs = ((j.gm + j.mt - 1) / j.mt) * ((j.gn + j.nt - 1) / j.nt);
    unsigned stage = c.dev.opt.stage_flits;
    size_t per_round = j.nmg < stage / MM_PROG ? j.nmg : stage / MM_PROG;
    kt_flit *prog = calloc(per_round * MM_PROG, sizeof *prog);
    if (!prog)
        return fail(&c, &j, "kt matmul: out of memory");
    kt_engine eng;
    kt_hostprog hp;
    kt_hp_init(&hp);
    if (engine)
        kt_engine_init(&eng, t, board->engine_base, &c.dev);
    uint8_t txn = KT_MAT_TXN;
    uint64_t rounds = 0;
    for (unsigned next = 0; next < jobs; txn++, rounds++) {
        size_t in_round = 0;
        for (; in_round < per_round && next < jobs; in_round++, next++)
            if (job_program(&j, next, prog + in_round * MM_PROG, txn)) {
                free(prog);
                kt_hp_free(&hp);
                return fail(&c, &j, "kt matmul: building a program");
            }
        if (run_round(&c.dev, engine ? &eng : NULL, &hp, prog, j.mg, in_round)) {
            free(prog);
            kt_hp_free(&hp);
            return fail(&c, &j, engine ? "kt matmul --engine" : "kt matmul");
        }
    }
    kt_hp_free(&hp);
    free(prog);
    kt_cli_span_end(c.m);
    if (mm_collect(&j, t, mem, jobs))
        return fail(&c, &j, "kt matmul: reading C");
    size_t bad = 0, mn = (size_t)j.m * j.n;
    double err2 = 0, ref2 = 0, worst = 0;
    for (size_t i = 0; i < mn; i++) {
        double got = npk_f16_to_f32(j.c[i]);
        bad += !(fabs(got - j.ref[i]) <= j.bound[i]);
        err2 += (got - j.f32[i]) * (got - j.f32[i]);
        ref2 += j.f32[i] * j.f32[i];
        double rel = fabs(got - j.ref[i]) / (j.bound[i] ? j.bound[i] : 1);
        worst = rel > worst ? rel : worst;
    }
    double rms_err = ref2 ? sqrt(err2 / ref2) : 0;
    char digest[17];
    snprintf(digest, sizeof digest, "%016" PRIx64, c_digest(&j));
    char fault_text[512];
    const char *fault = kt_machine_fault(c.m, fault_text, sizeof fault_text) ? fault_text : NULL;
    int out = 0;
    if (c.o.json) {
        cJSON *doc = json_doc();
        json_str(doc, "form", engine ? "engine" : "host");
        json_bool(doc, "emit", emit);
        json_u64(doc, "m", j.m);
        json_u64(doc, "n", j.n);
        json_u64(doc, "k", j.k);
        json_u64(doc, "clusters", j.nmg);
        json_u64(doc, "jobs", jobs);
        json_u64(doc, "rounds", rounds);
        json_u64(doc, "mismatches", bad);
        json_fixed(doc, "worst_of_bound", worst, 4);
        json_sig(doc, "rms_error_vs_fp32", rms_err, 6);
        json_str(doc, "c_fnv1a", digest);
        json_bool(doc, "ok", !bad && !fault);
        kt_cli_json_counts(doc, &c);
        kt_cli_json_waits(doc, &c.dev.waits);
        kt_cli_json_timing(doc, c.m);
        out = json_print(doc, "kt matmul");
    } else {
        printf("matmul%s: C[%u x %u] = A[%u x %u] * B[%u x %u] on %zu clusters in %u jobs, %" PRIu64
               " rounds\n",
               engine ? " (engine)" : "", j.m, j.n, j.m, j.k, j.k, j.n, j.nmg, jobs, rounds);
        printf("check: %s (%zu of %zu elements outside the accumulator's rounding of the MXFP7 "
               "product; worst %.2f of its bound)\n",
               bad ? "MISMATCH" : "ok", bad, mn, worst);
        printf("MXFP7 error against the FP32 product: %.3f%% RMS; C's FNV-1a %s\n", 100 * rms_err,
               digest);
        kt_cli_print_timing(c.m);
        kt_cli_print_counts(&c);
        kt_cli_print_waits(&c.dev.waits);
    }
    if (fault)
        fprintf(stderr, "npukit kt matmul: %s: %s\n",
                kt_machine_sim(c.m) ? "simulator" : "machine", fault);
    mm_free(&j);
    return kt_cli_close(&c) || bad || fault || out ? 1 : 0;
}
