/* SPDX-License-Identifier: MIT */
/* The planner: over a grid of shapes (edges included) every plan covers the user's shape
 * exactly once, every task passes the synthesizer's limit checks, M tiles are as large as
 * the slice's ceiling allows (unless even tiles are chosen), the chosen plan never costs more by
 * the timing model than K slicing alone, and bad requests fail with clear errors. */
#include <stdlib.h>

#include "check.h"
#include "npukit/rk.h"
#include "npukit/rk_plan.h"
#include "npukit/rk_sched.h"
#include "npukit/rk_synth.h"
#include "npukit/rk_timing.h"

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Sorted distinct boundaries of one axis. */
static size_t bounds(const npk_rk_plan *p, int axis, uint32_t *out)
{
    size_t n = 0;
    for (size_t i = 0; i < p->count; i++) {
        const npk_rk_task_plan *t = &p->tasks[i];
        out[n++] = axis == 0 ? t->m0 : axis == 1 ? t->k0 : t->n0;
        out[n++] = axis == 0 ? t->m1 : axis == 1 ? t->k1 : t->n1;
    }
    qsort(out, n, sizeof *out, cmp_u32);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (!u || out[u - 1] != out[i])
            out[u++] = out[i];
    return u;
}

static size_t find(const uint32_t *b, size_t n, uint32_t v)
{
    size_t i = 0;
    while (i < n && b[i] != v)
        i++;
    return i;
}

/* Each cell of the boundary grid is covered exactly once. */
static int coverage_errors(const npk_rk_plan *p)
{
    uint32_t *bm = malloc(2 * p->count * sizeof *bm), *bk = malloc(2 * p->count * sizeof *bk),
             *bn = malloc(2 * p->count * sizeof *bn);
    size_t nm = bounds(p, 0, bm), nk = bounds(p, 1, bk), nn = bounds(p, 2, bn);
    int err = 0;
    if (bm[0] != 0 || bm[nm - 1] != p->req.m || bk[0] != 0 || bk[nk - 1] != p->req.k ||
        bn[0] != 0 || bn[nn - 1] != p->req.n)
        err++;
    unsigned char *cells = calloc(nm * nk * nn, 1);
    for (size_t i = 0; i < p->count; i++) {
        const npk_rk_task_plan *t = &p->tasks[i];
        for (size_t a = find(bm, nm, t->m0); a < find(bm, nm, t->m1); a++)
            for (size_t b = find(bk, nk, t->k0); b < find(bk, nk, t->k1); b++)
                for (size_t c = find(bn, nn, t->n0); c < find(bn, nn, t->n1); c++)
                    cells[(a * nk + b) * nn + c]++;
    }
    for (size_t a = 0; a + 1 < nm; a++)
        for (size_t b = 0; b + 1 < nk; b++)
            for (size_t c = 0; c + 1 < nn; c++)
                if (cells[(a * nk + b) * nn + c] != 1)
                    err++;
    free(cells);
    free(bm);
    free(bk);
    free(bn);
    return err;
}

static int task_errors(const npk_rk_plan *p)
{
    int err = 0;
    for (size_t i = 0; i < p->count; i++) {
        const npk_rk_task_plan *t = &p->tasks[i];
        npk_rk_mm mm = npk_rk_mm_default(p->req.in, t->mp, t->kp, t->np);
        mm.out = p->req.out;
        mm.mode = (int)p->mode;
        mm.sched = t->sched;
        npk_rk_synth_info info;
        if (npk_rk_mm_check(&mm, &info) != NPK_OK) {
            if (err < 3)
                fprintf(stderr, "task %zu (%ux%ux%u): %s\n", i, t->mp, t->kp, t->np,
                        npk_last_error());
            err++;
            continue;
        }
        if (info.cbuf_con0 != t->cbuf_con0 || t->core >= p->cores_used || t->mp < t->m1 - t->m0 ||
            t->kp < t->k1 - t->k0 || t->np < t->n1 - t->n0)
            err++;
        /* The padding stays within one tile: K to 32 (or, for a zero-padded last slice, to the
         * plan's slice), N to the dtype's group, M to 4. */
        bool padded_last = p->k_padded && t->k1 == p->req.k;
        if ((padded_last ? t->kp != p->k_slice : t->kp - (t->k1 - t->k0) >= 32) ||
            t->np - (t->n1 - t->n0) >= npk_rk_n_align(p->req.in) || t->mp - (t->m1 - t->m0) >= 4)
            err++;
    }
    return err;
}

static void test_grid(void)
{
    static const npk_rk_prec dts[] = {NPK_PREC_FP16, NPK_PREC_INT8, NPK_PREC_INT4};
    static const uint32_t ms[] = {1, 3, 64, 353, 2049};
    static const uint32_t ks[] = {32, 100, 2048, 10752, 10784, 20000};
    static const uint32_t ns[] = {16, 17, 8192, 8193, 20000};
    static const unsigned cores[] = {1, 3};
    int plans = 0, cov = 0, tasks = 0;
    for (size_t d = 0; d < 3; d++)
        for (size_t a = 0; a < 5; a++)
            for (size_t b = 0; b < 6; b++)
                for (size_t c = 0; c < 5; c++)
                    for (size_t e = 0; e < 2; e++) {
                        npk_rk_plan_request r;
                        npk_rk_plan_request_init(&r, dts[d], ms[a], ks[b], ns[c]);
                        r.cores = cores[e];
                        npk_rk_plan p;
                        if (npk_rk_plan_matmul(&r, &p) != NPK_OK) {
                            fprintf(stderr, "plan failed: %s\n", npk_last_error());
                            plans++;
                            continue;
                        }
                        cov += coverage_errors(&p);
                        tasks += task_errors(&p);
                        npk_rk_plan_free(&p);
                    }
    CHECK_EQ(plans, 0);
    CHECK_EQ(cov, 0);
    CHECK_EQ(tasks, 0);
}

/* The planner compares candidates by the timing model: fp16 300x5000x9000 on 3 cores sliced at
 * 512 leaves a 392-wide last slice whose sched-0 ceiling cuts 300 rows into eight tasks per
 * core (51 tasks); zero-padded to 512 it keeps one 300-row sched-1 task (30 tasks), which the
 * model finds cheaper, so it is chosen. */
static void test_cost_choice(void)
{
    npk_rk_plan_request r;
    npk_rk_plan_request_init(&r, NPK_PREC_FP16, 300, 5000, 9000);
    r.cores = 3;
    npk_rk_plan p;
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_OK);
    CHECK_EQ(p.count, 30);
    CHECK_EQ(p.k_slice, 512);
    CHECK(p.k_padded);
    CHECK_EQ(coverage_errors(&p), 0);
    CHECK_EQ(task_errors(&p), 0);
    for (size_t i = 0; i < p.count; i++) {
        CHECK_EQ(p.tasks[i].m1 - p.tasks[i].m0, 300);
        CHECK_EQ(p.tasks[i].sched, NPK_SCHED_1);
        CHECK_EQ(p.tasks[i].kp, 512);
    }
    double chosen_us = p.model_us;
    npk_rk_plan_free(&p);

    /* the candidates: the chosen one is the cheapest; the unpadded 512 slicing over N in
     * ceiling tiles is the 51 */
    npk_rk_plan_candidate c[NPK_RK_PLAN_MAX_CANDIDATES];
    size_t n = npk_rk_plan_candidates(&r, c, NPK_RK_PLAN_MAX_CANDIDATES);
    CHECK(n >= 4 && n <= NPK_RK_PLAN_MAX_CANDIDATES);
    size_t chosen = 0, unpadded = 0;
    for (size_t i = 0; i < n; i++) {
        chosen += c[i].chosen;
        CHECK(c[i].model_us >= chosen_us - 1e-6);
        if (c[i].chosen)
            CHECK(c[i].k_slice == 512 && c[i].k_padded && c[i].tasks == 30);
        if (c[i].k_slice == 512 && !c[i].k_padded && c[i].core_split == NPK_RK_SPLIT_N &&
            c[i].m_tiling == NPK_RK_MTILE_CEILING) {
            unpadded++;
            CHECK_EQ(c[i].tasks, 51);
            CHECK(c[i].model_us > chosen_us);
        }
    }
    CHECK_EQ(chosen, 1);
    CHECK_EQ(unpadded, 1);

    /* padding refused: the 51-task plan */
    r.k_pad = 0;
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_OK);
    CHECK_EQ(p.count, 51);
    CHECK(!p.k_padded);
    CHECK_EQ(coverage_errors(&p), 0);
    CHECK_EQ(task_errors(&p), 0);
    npk_rk_plan_free(&p);
    r.k_pad = 2;
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "k_pad 2");
}

/* The modelled cost of a built plan task by task, as the runtime runs it: each core's tasks in
 * plan order grouped into jobs of up to `chain` (with m_only a task joins the job before it
 * only as the next M tile of the same slice and column range: the row-offset form), each
 * task's own time plus the job floor once per job; the busiest core's. */
static double cost_by_task(const npk_rk_plan *p, uint32_t chain, bool m_only)
{
    double core_us[8] = {0};
    uint32_t in_job = 0;
    for (size_t i = 0; i < p->count; i++) {
        const npk_rk_task_plan *t = &p->tasks[i], *prev = i ? &p->tasks[i - 1] : NULL;
        bool joins = prev && prev->core == t->core && in_job < chain &&
                     (!m_only || (prev->k0 == t->k0 && prev->n0 == t->n0 && prev->n1 == t->n1 &&
                                  t->m0 == prev->m1));
        if (!joins) {
            core_us[t->core] += NPK_RK_T_JOB_FLOOR_US;
            in_job = 0;
        }
        in_job++;
        core_us[t->core] += npk_rk_time_task_body_us(p->req.in, p->req.out, t->mp, t->kp, t->np);
    }
    double span = 0;
    for (unsigned c = 0; c < 8; c++)
        span = core_us[c] > span ? core_us[c] : span;
    return span;
}

/* Over a sweep of shapes the planner was not tuned on (M = 1, 64, 300, 1000; K around the slice
 * limits; N small and large; 1 and 3 cores; a submit per task, chains of 4, the row-offset
 * form's chains), the chosen plan never costs more by the model than the plan of K slicing
 * alone at a submit per task (the planner before M tiling, the cores' split and the submits
 * were axes), both costed task by task as the runtime groups them; the plan's own modelled
 * cost (counted by kind of tile) equals the task-by-task one; every plan covers the shape. */
static void test_sweep_vs_default(void)
{
    static const npk_rk_prec dts[] = {NPK_PREC_FP16, NPK_PREC_INT8, NPK_PREC_INT4};
    static const uint32_t ms[] = {1, 64, 300, 1000};
    static const uint32_t ks[] = {64, 480, 544, 4096, 4128, 10752, 10784};
    static const uint32_t ns[] = {32, 100, 4096, 9000};
    static const unsigned cores[] = {1, 3};
    static const struct {
        uint32_t chain;
        bool m_only;
    } forms[] = {{1, false}, {4, false}, {4, true}};
    unsigned plans = 0, worse = 0, mismatch = 0, bad = 0, better_count = 0;
    double best_ratio = 1;
    for (size_t d = 0; d < 3; d++)
        for (size_t a = 0; a < 4; a++)
            for (size_t b = 0; b < 7; b++)
                for (size_t c = 0; c < 4; c++)
                    for (size_t e = 0; e < 2; e++)
                        for (size_t f = 0; f < 3; f++) {
                            if (forms[f].m_only && dts[d] != NPK_PREC_INT8)
                                continue; /* the row-offset form is int8's */
                            npk_rk_plan_request r;
                            npk_rk_plan_request_init(&r, dts[d], ms[a], ks[b], ns[c]);
                            r.cores = cores[e];
                            npk_rk_plan_request old = r;
                            old.core_split = NPK_RK_SPLIT_N;
                            old.m_tiling = NPK_RK_MTILE_CEILING;
                            r.chain = forms[f].chain;
                            r.chain_m_tiles = forms[f].m_only;
                            npk_rk_plan p, q;
                            if (npk_rk_plan_matmul(&r, &p) || npk_rk_plan_matmul(&old, &q)) {
                                fprintf(stderr, "plan failed: %s\n", npk_last_error());
                                bad++;
                                continue;
                            }
                            plans++;
                            double cp = cost_by_task(&p, r.chain, r.chain_m_tiles);
                            double cq = cost_by_task(&q, r.chain, r.chain_m_tiles);
                            if (cp > cq * (1 + 1e-9)) {
                                worse++;
                                fprintf(stderr, "%s %ux%ux%u cores %u chain %u%s: %.1f > %.1f\n",
                                        npk_rk_prec_name(r.in), r.m, r.k, r.n, r.cores, r.chain,
                                        r.chain_m_tiles ? " m-only" : "", cp, cq);
                            }
                            if (cp < cq * 0.999)
                                better_count++;
                            if (cp / cq < best_ratio)
                                best_ratio = cp / cq;
                            if (cp > p.model_us * (1 + 1e-9) || cp < p.model_us * (1 - 1e-9))
                                mismatch++;
                            bad += coverage_errors(&p) + task_errors(&p);
                            npk_rk_plan_free(&p);
                            npk_rk_plan_free(&q);
                        }
    printf("sweep: %u plans, %u cheaper than K slicing alone by the model (best %.3f of it)\n",
           plans, better_count, best_ratio);
    CHECK(plans > 500);
    CHECK_EQ(worse, 0);
    CHECK_EQ(mismatch, 0);
    CHECK_EQ(bad, 0);
    CHECK(better_count > 0);
}

/* The new axes where they win: a narrow N leaves the N split one core, while the rows split
 * over three; chained submits pay the job floor once per job. */
static void test_axes(void)
{
    npk_rk_plan_request r;
    npk_rk_plan p;
    npk_rk_plan_request_init(&r, NPK_PREC_FP16, 1000, 1024, 32);
    r.cores = 3;
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_OK);
    CHECK_EQ(p.core_split, NPK_RK_SPLIT_M);
    CHECK_EQ(p.cores_used, 3);
    CHECK_EQ(coverage_errors(&p), 0);
    CHECK_EQ(task_errors(&p), 0);
    for (size_t i = 0; i < p.count; i++)
        CHECK(p.tasks[i].n0 == 0 && p.tasks[i].n1 == 32);
    double split_m = p.model_us;
    npk_rk_plan_free(&p);
    r.core_split = NPK_RK_SPLIT_N;
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_OK);
    CHECK_EQ(p.cores_used, 1);
    CHECK(split_m < p.model_us / 2);
    npk_rk_plan_free(&p);

    /* even M tiles: 1000 rows at a ceiling of 352 are 352+352+296 or 334+333+333 */
    npk_rk_plan_request_init(&r, NPK_PREC_FP16, 1000, 512, 64);
    r.m_tiling = NPK_RK_MTILE_EVEN;
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_OK);
    CHECK_EQ(p.count, 3);
    CHECK_EQ(p.tasks[0].m1 - p.tasks[0].m0, 334);
    CHECK_EQ(p.tasks[2].m1 - p.tasks[2].m0, 333);
    CHECK_EQ(coverage_errors(&p), 0);
    CHECK_EQ(task_errors(&p), 0);
    npk_rk_plan_free(&p);

    /* 300x5000x9000 on 3 cores: 10 tasks a core; at 4 per submit, 3 submits, 7 floors fewer */
    npk_rk_plan_request_init(&r, NPK_PREC_FP16, 300, 5000, 9000);
    r.cores = 3;
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_OK);
    CHECK_EQ(p.jobs, 10);
    double one = p.model_us;
    npk_rk_plan_free(&p);
    r.chain = 4;
    r.k_slice = 512;
    r.k_pad = 1;
    r.core_split = NPK_RK_SPLIT_N;
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_OK);
    CHECK_EQ(p.count, 30);
    CHECK_EQ(p.jobs, 3);
    CHECK(p.model_us > one - 7 * NPK_RK_T_JOB_FLOOR_US - 1e-6 &&
          p.model_us < one - 7 * NPK_RK_T_JOB_FLOOR_US + 1e-6);
    npk_rk_plan_free(&p);

    /* the submission forms in a request */
    npk_rk_plan_request_init(&r, NPK_PREC_INT8, 64, 64, 64);
    CHECK_EQ(npk_rk_submission_plan(NULL, 4, &r), NPK_OK);
    CHECK(r.chain == 4 && !r.chain_m_tiles); /* single chained is the chained form */
    CHECK_EQ(npk_rk_submission_plan("nonblock", 4, &r), NPK_OK);
    CHECK_EQ(r.chain, 1);
    CHECK_EQ(npk_rk_submission_plan("rowoffset", 8, &r), NPK_OK);
    CHECK(r.chain == 8 && r.chain_m_tiles);
    CHECK_EQ(npk_rk_submission_plan("fast", 1, &r), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "submission form fast");
    CHECK_EQ(npk_rk_submission_plan("concat", 0, &r), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "chain=0");
}

static void test_choices(void)
{
    npk_rk_plan_request r;
    npk_rk_plan p;
    /* M=1 decode: one task per core for any K up to 10752 (sched 0, 0xB1). */
    npk_rk_plan_request_init(&r, NPK_PREC_INT8, 1, 10752, 4096);
    r.cores = 3;
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_OK);
    CHECK_EQ(p.count, 3);
    CHECK_EQ(p.k_slices, 1);
    CHECK_EQ(p.tasks[0].cbuf_con0, 0xB1);
    CHECK_EQ(p.tasks[2].n1, 4096);
    npk_rk_plan_free(&p);
    /* Past 10752 the K is split; the partials are the host's to add. */
    r.k = 10784;
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_OK);
    CHECK_EQ(p.k_slices, 2);
    npk_rk_plan_free(&p);
    /* fp16 prefill: M tiles at the slice's sched-1 ceiling (352 at K=512 / 176 at 1024). */
    npk_rk_plan_request_init(&r, NPK_PREC_FP16, 704, 1024, 256);
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_OK);
    uint32_t mt = p.tasks[0].m1 - p.tasks[0].m0;
    CHECK(mt == 352 || mt == 176 || mt == 704);
    CHECK_EQ(mt, npk_rk_m_ceiling(NPK_PREC_FP16, p.tasks[0].kp, 1));
    CHECK_EQ(p.tasks[0].sched, 1);
    npk_rk_plan_free(&p);
    /* N tiles never exceed 8192 and a narrow N uses fewer cores. */
    npk_rk_plan_request_init(&r, NPK_PREC_FP16, 1, 64, 20000);
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_OK);
    for (size_t i = 0; i < p.count; i++)
        CHECK(p.tasks[i].np <= 8192);
    npk_rk_plan_free(&p);
    npk_rk_plan_request_init(&r, NPK_PREC_FP16, 1, 64, 32);
    r.cores = 3;
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_OK);
    CHECK_EQ(p.cores_used, 1);
    npk_rk_plan_free(&p);
    /* int4 K slices keep every int16 partial exact: K x 64 <= 32767. */
    npk_rk_plan_request_init(&r, NPK_PREC_INT4, 4, 4096, 64);
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_OK);
    for (size_t i = 0; i < p.count; i++)
        CHECK(p.tasks[i].kp * 64 <= 32767);
    npk_rk_plan_free(&p);
}

static void test_errors(void)
{
    npk_rk_plan_request r;
    npk_rk_plan p;
    npk_rk_plan_request_init(&r, NPK_PREC_FP16, 0, 64, 16);
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "M=0");
    npk_rk_plan_request_init(&r, NPK_PREC_FP16, 1, 64, 16);
    r.cores = 4;
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "cores=4: rk3588 has 1..3");
    r.cores = 3;
    r.soc = npk_rk_soc_find("rk3576");
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "rk3576 has 1..2");
    npk_rk_plan_request_init(&r, NPK_PREC_INT8, 1, 64, 32);
    r.out = NPK_PREC_INT8;
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "not a completing");
    npk_rk_plan_request_init(&r, NPK_PREC_BF16, 1, 64, 32);
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_EINVAL);
    /* Near 2^32 the padding of K and N wrapped: K divided by zero, N planned no task at all. */
    const uint32_t huge[] = {NPK_RK_PLAN_MAX_DIM + 1, 4294967264u, 4294967295u};
    for (unsigned i = 0; i < 3; i++)
        for (unsigned dim = 0; dim < 3; dim++) {
            npk_rk_plan_request_init(&r, NPK_PREC_FP16, dim == 0 ? huge[i] : 1,
                                     dim == 1 ? huge[i] : 32, dim == 2 ? huge[i] : 16);
            CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_ELIMIT);
            CHECK_STR_HAS(npk_last_error(), "each must be at most 16777216");
            CHECK_EQ(p.count, 0);
        }
    /* The new axes' settings. */
    npk_rk_plan_request_init(&r, NPK_PREC_FP16, 1, 64, 16);
    r.chain = NPK_RK_MAX_CHAIN + 1;
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "chain=65: tasks per submit must be 1..64");
    r.chain = 1;
    r.core_split = 2;
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "core_split 2");
    r.core_split = -1;
    r.m_tiling = 3;
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "m_tiling 3");
    /* The limit itself plans (one row, one column: K slices only). */
    npk_rk_plan_request_init(&r, NPK_PREC_INT8, 1, NPK_RK_PLAN_MAX_DIM, 1);
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_OK);
    CHECK_EQ(p.tasks[p.count - 1].k1, NPK_RK_PLAN_MAX_DIM);
    npk_rk_plan_free(&p);
}

int main(void)
{
    test_grid();
    test_cost_choice();
    test_sweep_vs_default();
    test_axes();
    test_choices();
    test_errors();
    return check_done();
}
