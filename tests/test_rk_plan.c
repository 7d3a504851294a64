/* SPDX-License-Identifier: MIT */
/* The planner: over a grid of shapes (edges included) every plan covers the user's shape
 * exactly once, every task passes the synthesizer's limit checks, M tiles are as large as
 * the slice's ceiling allows (unless even tiles are chosen), the chosen plan never costs more by
 * model (NPU time, warm-ups and host work) than K slicing alone, the host term moves the choice
 * the way it should, and bad requests fail with clear errors. */
#include <stdlib.h>

#include "check.h"
#include "npukit/rk.h"
#include "rk/layout/rk_layout.h"
#include "npukit/rk_plan.h"
#include "rk/program/rk_sched.h"
#include "npukit/rk_synth.h"
#include "rk/hw/rk_timing.h"

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

/* The host model the tests plan with (set in main): fixed figures, not the measured table, so
 * the tests do not move when the table is re-measured; a job rate too, so that term is tested. */
static const npk_rk_host_model test_host = {.task_ns = 8000,
                                            .job_ns = 2000,
                                            .pack_ns_per_byte = 0.08,
                                            .out_ns_per_elem = 0.6,
                                            .core_ns = 35000};

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

/* The planner compares candidates by the model: fp16 300x5000x9000 on 3 cores sliced at 512
 * leaves a 392-wide last slice whose sched-0 ceiling cuts 300 rows into eight tasks per core (51
 * tasks); zero-padded to 512 it keeps one 300-row sched-1 task (30 tasks), which the timing
 * model finds cheapest of all on the NPU. The host adds up 10 partials per output element at
 * 512 and 5 at 1024, so with the host counted the 1024 slice zero-padded (30 tasks too) wins;
 * with a host that costs nothing the 512 one wins again. */
static void test_cost_choice(void)
{
    npk_rk_plan_request r;
    npk_rk_plan_request_init(&r, NPK_PREC_FP16, 300, 5000, 9000);
    r.cores = 3;
    npk_rk_plan p;
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_OK);
    CHECK_EQ(p.count, 30);
    CHECK_EQ(p.k_slice, 1024);
    CHECK(p.k_padded);
    CHECK_EQ(coverage_errors(&p), 0);
    CHECK_EQ(task_errors(&p), 0);
    const double with_host = p.total_us, host_1024 = p.host_us, npu_1024 = p.model_us;
    npk_rk_plan_free(&p);

    const npk_rk_host_model zero = npk_rk_host_model_scaled(0);
    r.host = &zero;
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_OK);
    CHECK_EQ(p.count, 30);
    CHECK_EQ(p.k_slice, 512);
    CHECK(p.k_padded);
    CHECK(p.host_us == 0);
    for (size_t i = 0; i < p.count; i++) {
        CHECK_EQ(p.tasks[i].m1 - p.tasks[i].m0, 300);
        CHECK_EQ(p.tasks[i].sched, NPK_SCHED_1);
        CHECK_EQ(p.tasks[i].kp, 512);
    }
    const double npu_512 = p.model_us;
    CHECK(npu_512 < npu_1024);
    npk_rk_plan_free(&p);

    /* the candidates under the host model: the chosen one is the cheapest in total; the 512
     * slice padded is cheaper on the NPU and dearer on the host; the unpadded 512 slicing over
     * N in ceiling tiles is the 51 */
    r.host = NULL;
    npk_rk_plan_candidate c[NPK_RK_PLAN_MAX_CANDIDATES];
    size_t n = npk_rk_plan_candidates(&r, c, NPK_RK_PLAN_MAX_CANDIDATES);
    CHECK(n >= 4 && n <= NPK_RK_PLAN_MAX_CANDIDATES);
    size_t chosen = 0, unpadded = 0, padded = 0;
    for (size_t i = 0; i < n; i++) {
        chosen += c[i].chosen;
        CHECK(c[i].total_us >= with_host - 1e-6);
        if (c[i].chosen)
            CHECK(c[i].k_slice == 1024 && c[i].k_padded && c[i].tasks == 30);
        if (c[i].k_slice != 512 || c[i].core_split != NPK_RK_SPLIT_N ||
            c[i].m_tiling != NPK_RK_MTILE_CEILING)
            continue;
        if (c[i].k_padded) {
            padded++;
            CHECK(c[i].model_us < npu_1024 && c[i].host_us > host_1024);
            CHECK(c[i].total_us > with_host);
        } else {
            unpadded++;
            CHECK_EQ(c[i].tasks, 51);
            CHECK(c[i].total_us > with_host);
        }
    }
    CHECK_EQ(chosen, 1);
    CHECK_EQ(unpadded, 1);
    CHECK_EQ(padded, 1);

    /* padding refused: the 51-task plan at 512 without a host cost */
    r.host = &zero;
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

/* The modelled cost of a built plan task by task, as the runtime runs it under request r's
 * submission settings: each core's tasks in plan order grouped into jobs of up to r->chain (with
 * chain_m_tiles a task joins the job before it only as the next M tile of the same slice and
 * column range: the row-offset form); a core's NPU time is each task's own time plus the job
 * floor once per job, and, when warm-ups are costed and the core's buffer is cold or smaller
 * than its first job's output (one 64-byte aligned slot per task, or the row-offset form's one
 * surface of all the job's rows), that first job once more; its host time is h's rates over
 * its tasks, jobs, feature bytes (rows x K x the input's bytes) and output elements (rows x
 * padded N). The call: the longest core's NPU + host, plus a worker per core when more than one
 * is used; with host_one_thread the longest NPU time plus every core's host time. */
static double cost_by_task(const npk_rk_plan *p, const npk_rk_plan_request *r,
                           const npk_rk_host_model *h)
{
    const uint32_t chain = r->chain ? r->chain : 1;
    double npu[8] = {0}, host_ns[8] = {0}, first_us[8] = {0};
    uint64_t jobs[8] = {0}, first_bytes[8] = {0};
    uint32_t first_rows[8] = {0}, first_np[8] = {0};
    uint32_t in_job = 0;
    for (size_t i = 0; i < p->count; i++) {
        const npk_rk_task_plan *t = &p->tasks[i], *prev = i ? &p->tasks[i - 1] : NULL;
        const unsigned c = t->core;
        bool joins = prev && prev->core == c && in_job < chain &&
                     (!r->chain_m_tiles || (prev->k0 == t->k0 && prev->n0 == t->n0 &&
                                            prev->n1 == t->n1 && t->m0 == prev->m1));
        if (!joins) {
            npu[c] += npk_rk_time_job_floor_us(NULL);
            host_ns[c] += h->job_ns;
            jobs[c]++;
            in_job = 0;
        }
        in_job++;
        const double body =
            npk_rk_time_task_body_us(p->req.soc, p->req.in, p->req.out, t->mp, t->kp, t->np);
        const uint32_t rows = t->m1 - t->m0;
        npu[c] += body;
        host_ns[c] += h->task_ns +
                      (double)rows * t->kp * npk_rk_prec_bits(p->req.in) / 8 * h->pack_ns_per_byte +
                      (double)rows * t->np * h->out_ns_per_elem;
        if (jobs[c] == 1) {
            npk_rk_block blk = npk_rk_c_block(p->req.out, p->mode, t->mp, t->np);
            first_us[c] += body;
            first_bytes[c] += (npk_rk_c_bytes(&blk, t->np) + 63) / 64 * 64;
            first_rows[c] += rows;
            first_np[c] = t->np;
        }
    }
    double span = 0, npu_max = 0, host_all = 0;
    unsigned used = 0;
    for (unsigned c = 0; c < 8; c++) {
        if (!jobs[c])
            continue;
        used++;
        if (r->chain_m_tiles) {
            npk_rk_block blk =
                npk_rk_c_block(p->req.out, NPK_MODE_LINE, first_rows[c], first_np[c]);
            first_bytes[c] = (npk_rk_c_bytes(&blk, first_np[c]) + 63) / 64 * 64;
        }
        bool warm =
            !r->cost_warmups || ((r->out_warm >> c & 1) && r->out_bytes[c] >= first_bytes[c]);
        double n = npu[c] + (warm ? 0 : npk_rk_time_job_floor_us(NULL) + first_us[c]);
        npu_max = n > npu_max ? n : npu_max;
        host_all += host_ns[c] / 1e3;
        span = n + host_ns[c] / 1e3 > span ? n + host_ns[c] / 1e3 : span;
    }
    if (r->host_one_thread)
        return npu_max + host_all;
    return span + (used > 1 ? h->core_ns * used / 1e3 : 0);
}

/* Over a sweep of shapes the planner was not tuned on (M = 1, 64, 300, 1000; K around the slice
 * limits; N small and large; 1 and 3 cores; a submit per task, chains of 4, the row-offset
 * form's chains, one thread for every core; warm-ups not costed, a fresh runtime's, and core 0
 * warm with a 64 KiB buffer), the chosen plan never costs more by the model than the plan of K
 * slicing alone (the planner before M tiling, the cores' split, the submits and the host were
 * axes), both costed task by task as the runtime groups them; the plan's own modelled total
 * (counted by kind of tile) equals the task-by-task one; every plan covers the shape. */
static void test_sweep_vs_default(void)
{
    static const npk_rk_prec dts[] = {NPK_PREC_FP16, NPK_PREC_INT8, NPK_PREC_INT4};
    static const uint32_t ms[] = {1, 64, 300, 1000};
    static const uint32_t ks[] = {64, 480, 544, 4096, 4128, 10752, 10784};
    static const uint32_t ns[] = {32, 100, 4096, 9000};
    static const unsigned cores[] = {1, 3};
    static const struct {
        uint32_t chain;
        bool m_only, one_thread;
    } forms[] = {{1, false, false}, {4, false, false}, {4, true, false}, {4, false, true}};
    unsigned plans = 0, worse = 0, mismatch = 0, bad = 0, better_count = 0;
    double best_ratio = 1;
    for (size_t d = 0; d < 3; d++)
        for (size_t a = 0; a < 4; a++)
            for (size_t b = 0; b < 7; b++)
                for (size_t c = 0; c < 4; c++)
                    for (size_t e = 0; e < 2; e++)
                        for (size_t f = 0; f < 4; f++) {
                            if (forms[f].m_only && dts[d] != NPK_PREC_INT8)
                                continue; /* the row-offset form is int8's */
                            npk_rk_plan_request r;
                            npk_rk_plan_request_init(&r, dts[d], ms[a], ks[b], ns[c]);
                            r.cores = cores[e];
                            const unsigned state = (unsigned)(a + b + c + f) % 3;
                            r.cost_warmups = state > 0;
                            if (state == 2) {
                                r.out_warm = 1;
                                r.out_bytes[0] = 64 * 1024;
                            }
                            npk_rk_plan_request old = r;
                            old.core_split = NPK_RK_SPLIT_N;
                            old.m_tiling = NPK_RK_MTILE_CEILING;
                            r.chain = forms[f].chain;
                            r.chain_m_tiles = forms[f].m_only;
                            r.host_one_thread = forms[f].one_thread;
                            npk_rk_plan p, q;
                            if (npk_rk_plan_matmul(&r, &p) || npk_rk_plan_matmul(&old, &q)) {
                                fprintf(stderr, "plan failed: %s\n", npk_last_error());
                                bad++;
                                continue;
                            }
                            plans++;
                            double cp = cost_by_task(&p, &r, &test_host);
                            double cq = cost_by_task(&q, &r, &test_host);
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
                            if (cp > p.total_us * (1 + 1e-9) || cp < p.total_us * (1 - 1e-9)) {
                                if (mismatch++ < 5)
                                    fprintf(stderr,
                                            "%s %ux%ux%u cores %u chain %u%s%s state %u: task by "
                                            "task %.3f, planner %.3f\n",
                                            npk_rk_prec_name(r.in), r.m, r.k, r.n, r.cores, r.chain,
                                            r.chain_m_tiles ? " m-only" : "",
                                            r.host_one_thread ? " one-thread" : "", state, cp,
                                            p.total_us);
                            }
                            bad += coverage_errors(&p) + task_errors(&p);
                            npk_rk_plan_free(&p);
                            npk_rk_plan_free(&q);
                        }
    printf("sweep: %u plans, %u cheaper than K slicing alone by the model (best %.3f of it)\n",
           plans, better_count, best_ratio);
    CHECK(plans > 1500);
    CHECK_EQ(worse, 0);
    CHECK_EQ(mismatch, 0);
    CHECK_EQ(bad, 0);
    CHECK(better_count > 0);
}

/* fp16 300 x 5000 x n on 3 cores, sliced at 512 with the last slice zero-padded, the cores
 * splitting N in ceiling M tiles: one fixed plan, whatever the costs. */
static void padded_512_request(npk_rk_plan_request *r, uint32_t n)
{
    npk_rk_plan_request_init(r, NPK_PREC_FP16, 300, 5000, n);
    r->cores = 3;
    r->k_slice = 512;
    r->k_pad = 1;
    r->core_split = NPK_RK_SPLIT_N;
    r->m_tiling = NPK_RK_MTILE_CEILING;
}

static bool near(double a, double b) { return a > b - 1e-6 && a < b + 1e-6; }

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

    /* 300x5000x9000 on 3 cores sliced at 512, padded: 10 tasks a core; at 4 per submit, 3
     * submits, 7 floors (and 7 job rates of the host) fewer */
    padded_512_request(&r, 9000);
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_OK);
    CHECK_EQ(p.jobs, 10);
    double one = p.model_us, one_host = p.host_us;
    npk_rk_plan_free(&p);
    r.chain = 4;
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_OK);
    CHECK_EQ(p.count, 30);
    CHECK_EQ(p.jobs, 3);
    CHECK(near(p.model_us, one - 7 * npk_rk_time_job_floor_us(NULL)));
    CHECK(near(p.host_us, one_host - 7 * test_host.job_ns / 1e3));
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

/* The host term moves the choice the way it should: int4 64x1000x128 on 3 cores splits the rows
 * into 9 tasks over 3 cores when the host costs nothing; on a host 3x the test rates, where every
 * task, partial and worker costs more, the plan with fewer tasks on fewer cores wins. */
static void test_host_terms(void)
{
    npk_rk_plan_request r;
    npk_rk_plan p;
    npk_rk_plan_request_init(&r, NPK_PREC_INT4, 64, 1000, 128);
    r.cores = 3;
    const npk_rk_host_model zero = npk_rk_host_model_scaled(0);
    npk_rk_host_model slow = test_host;
    slow.task_ns *= 3, slow.job_ns *= 3, slow.pack_ns_per_byte *= 3;
    slow.out_ns_per_elem *= 3, slow.core_ns *= 3;
    r.host = &zero;
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_OK);
    const size_t free_tasks = p.count;
    const unsigned free_cores = p.cores_used;
    const double free_npu = p.model_us;
    CHECK_EQ(free_tasks, 9);
    CHECK_EQ(free_cores, 3);
    npk_rk_plan_free(&p);
    r.host = &slow;
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_OK);
    CHECK(p.count < free_tasks);
    CHECK(p.cores_used < free_cores);
    CHECK(p.model_us > free_npu); /* slower on the NPU, cheaper in all */
    CHECK_EQ(coverage_errors(&p), 0);
    CHECK_EQ(task_errors(&p), 0);
    npk_rk_plan_free(&p);

    /* warm-ups: a fresh runtime's cores each run their first job twice; warm buffers as large
     * as the first job's output run none; a warm buffer one byte short pays again (N = 9024:
     * 188 groups of 16 for each core, so every core is the critical one) */
    padded_512_request(&r, 9024);
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_OK);
    CHECK(p.warmup_us == 0); /* not costed by default */
    const double steady = p.total_us;
    const npk_rk_task_plan t0 = p.tasks[0];
    npk_rk_plan_free(&p);
    r.cost_warmups = true;
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_OK);
    const double first = npk_rk_time_job_floor_us(NULL) +
                         npk_rk_time_task_body_us(NULL, r.in, r.out, t0.mp, t0.kp, t0.np);
    CHECK(near(p.warmup_us, first));
    CHECK(near(p.total_us, steady + first));
    npk_rk_plan_free(&p);
    npk_rk_block blk = npk_rk_c_block(r.out, NPK_MODE_LINE, t0.mp, t0.np);
    const uint64_t need = (npk_rk_c_bytes(&blk, t0.np) + 63) / 64 * 64;
    r.out_warm = 7;
    for (unsigned c = 0; c < 3; c++)
        r.out_bytes[c] = need;
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_OK);
    CHECK(p.warmup_us == 0);
    npk_rk_plan_free(&p);
    r.out_bytes[1] = need - 1;
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_OK);
    CHECK(near(p.warmup_us, first));
    npk_rk_plan_free(&p);

    /* one thread for every core: the cores' host work adds up (3 equal cores: 3x one core's,
     * without the workers' start) */
    padded_512_request(&r, 9024);
    r.chain = 4;
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_OK);
    const double per_core = p.host_us - 3 * test_host.core_ns / 1e3;
    npk_rk_plan_free(&p);
    r.host_one_thread = true;
    CHECK_EQ(npk_rk_plan_matmul(&r, &p), NPK_OK);
    CHECK(p.host_us > 3 * per_core * (1 - 1e-3) && p.host_us < 3 * per_core * (1 + 1e-3));
    npk_rk_plan_free(&p);
}

/* The host model's settings: the process's model, its text form and its errors. */
static void test_host_model(void)
{
    const npk_rk_host_model table = npk_rk_host_model_scaled(1);
    CHECK(table.task_ns > 0 && table.pack_ns_per_byte > 0 && table.out_ns_per_elem > 0 &&
          table.core_ns > 0);
    const npk_rk_host_model twice = npk_rk_host_model_scaled(2);
    CHECK(twice.task_ns == 2 * table.task_ns && twice.out_ns_per_elem == 2 * table.out_ns_per_elem);
    npk_rk_host_model got = npk_rk_host_model_get();
    CHECK(got.task_ns == test_host.task_ns && got.job_ns == test_host.job_ns);
    npk_rk_set_host_model(NULL);
    got = npk_rk_host_model_get();
    CHECK(got.task_ns == table.task_ns && got.core_ns == table.core_ns);
    npk_rk_set_host_model(&test_host);

    npk_rk_host_model m = npk_rk_host_model_scaled(0);
    CHECK_EQ(npk_rk_host_model_parse("task=1500,out=0.25", &m), NPK_OK);
    CHECK(m.task_ns == 1500 && m.out_ns_per_elem == 0.25 && m.pack_ns_per_byte == 0);
    CHECK_EQ(npk_rk_host_model_parse("core=1e5,job=7,pack=1", &m), NPK_OK);
    CHECK(m.core_ns == 1e5 && m.job_ns == 7 && m.pack_ns_per_byte == 1 && m.task_ns == 1500);
    const char *bad[] = {"tasks=1", "task", "task=", "task=abc", "pack=-1", "out=1x", "core=2e12"};
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
        npk_rk_host_model before = m;
        CHECK_EQ(npk_rk_host_model_parse(bad[i], &m), NPK_EINVAL);
        CHECK_STR_HAS(npk_last_error(), bad[i]);
        CHECK(m.task_ns == before.task_ns && m.core_ns == before.core_ns);
    }
    /* a bad item after good ones changes nothing */
    CHECK_EQ(npk_rk_host_model_parse("task=1,job=-2", &m), NPK_EINVAL);
    CHECK(m.task_ns == 1500);
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
    CHECK_EQ(mt, npk_rk_m_ceiling(NULL, NPK_PREC_FP16, p.tasks[0].kp, 1));
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
    npk_rk_set_host_model(&test_host);
    test_grid();
    test_cost_choice();
    test_sweep_vs_default();
    test_axes();
    test_host_terms();
    test_host_model();
    test_choices();
    test_errors();
    return check_done();
}
