/* SPDX-License-Identifier: MIT */
/* Matmul planning: K slices, per-core N ranges, N tiles and M tiles, chosen by the modelled
 * cost among candidates. */
#include <stdlib.h>

#include "npukit/rk_plan.h"
#include "npukit/rk_sched.h"
#include "npukit/rk_synth.h"
#include "npukit/rk_timing.h"

/* Plans beyond this many tasks are refused rather than allocated. */
#define PLAN_MAX_TASKS (1u << 22)

void npk_rk_plan_request_init(npk_rk_plan_request *r, npk_rk_prec in, uint32_t m, uint32_t k,
                              uint32_t n)
{
    *r = (npk_rk_plan_request){0};
    r->in = in;
    r->out = npk_rk_default_out(in);
    r->m = m;
    r->k = k;
    r->n = n;
    r->cores = 1;
    r->mode = -1;
    r->k_pad = -1;
}

static uint32_t round_up(uint32_t x, uint32_t a) { return (x + a - 1) / a * a; }

/* The largest K one task may hold: the single-op limit, and for int4 the accumulator bound
 * (so every int16 partial is exact), rounded down to the 32-element K-tile. */
static uint32_t k_task_max(const npk_rk_plan_request *r, const npk_rk_soc *soc)
{
    uint32_t kmax = soc->k_max_single;
    if (r->in == NPK_PREC_INT4)
        kmax = npk_rk_int4_k_max();
    if (r->k_slice_max && r->k_slice_max < kmax)
        kmax = r->k_slice_max;
    return kmax / 32 * 32;
}

/* The best (schedule, M tile) for a K slice of kp: the larger ceiling wins. */
static void best_m_tile(const npk_rk_plan_request *r, const npk_rk_soc *soc, npk_rk_mode mode,
                        uint32_t kp, int *sched, uint32_t *mt)
{
    uint32_t c0 = npk_rk_m_ceiling(r->in, kp, NPK_SCHED_0);
    uint32_t c1 = npk_rk_m_ceiling(r->in, kp, NPK_SCHED_1);
    *sched = c1 > c0 ? NPK_SCHED_1 : NPK_SCHED_0;
    uint32_t cap = c1 > c0 ? c1 : c0;
    if (cap > soc->m_max)
        cap = soc->m_max;
    /* FEATURE_GRAINS = min(M+1, R) must fit its field. */
    uint32_t r_rows = npk_rk_rows_per_tile(r->in, kp);
    if (r_rows > soc->grains_max && cap + 1 > soc->grains_max)
        cap = soc->grains_max - 1;
    if (mode == NPK_MODE_CUBE && cap >= 4)
        cap = cap / 4 * 4; /* cube mode needs M = 1 or a multiple of 4 */
    *mt = cap ? cap : 1;
}

/* The cost of a plan, by the timing model (rk_timing.h): the busiest core's modelled NPU time
 * over its tasks, each submitted alone. Counted by kind of tile rather than task by task, so
 * that comparing candidates costs nothing next to building one. */
typedef struct plan_shape {
    const npk_rk_plan_request *r;
    const npk_rk_soc *soc;
    npk_rk_mode mode;
    unsigned cores; /* cores the N groups are spread over */
    uint32_t ks;    /* K per slice */
    bool pad;       /* the last slice synthesized at ks */
} plan_shape;

static uint32_t slice_kp(const plan_shape *p, uint32_t s, uint32_t slices)
{
    uint32_t kp_all = round_up(p->r->k, 32);
    return s + 1 < slices || p->pad ? p->ks : kp_all - s * p->ks;
}

static uint32_t rows_padded(const plan_shape *p, uint32_t rows)
{
    return p->mode == NPK_MODE_CUBE && rows != 1 ? round_up(rows, 4) : rows;
}

/* Modelled time and tasks of one core's N groups [g0, g1) over one slice of kp. */
static double slice_cost(const plan_shape *p, uint32_t kp, uint32_t g0, uint32_t g1,
                         uint64_t *tasks)
{
    const npk_rk_plan_request *r = p->r;
    const uint32_t nal = npk_rk_n_align(r->in), tile_groups = p->soc->n_max / nal;
    int sched;
    uint32_t mt;
    best_m_tile(r, p->soc, p->mode, kp, &sched, &mt);
    const uint32_t m_kind[2][2] = {{r->m / mt, mt}, {r->m % mt ? 1 : 0, r->m % mt}};
    const uint32_t n_kind[2][2] = {{(g1 - g0) / tile_groups, tile_groups},
                                   {(g1 - g0) % tile_groups ? 1 : 0, (g1 - g0) % tile_groups}};
    double us = 0;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            uint64_t count = (uint64_t)m_kind[i][0] * n_kind[j][0];
            if (!count)
                continue;
            *tasks += count;
            us += (double)count * npk_rk_time_task_us(r->in, r->out, rows_padded(p, m_kind[i][1]),
                                                      kp, n_kind[j][1] * nal);
        }
    return us;
}

static double plan_cost(const plan_shape *p, uint64_t *tasks)
{
    const uint32_t nal = npk_rk_n_align(p->r->in);
    const uint32_t groups = (p->r->n + nal - 1) / nal;
    const uint32_t slices = (round_up(p->r->k, 32) + p->ks - 1) / p->ks;
    double span = 0;
    *tasks = 0;
    for (unsigned c = 0; c < p->cores; c++) {
        uint32_t g0 = (uint32_t)((uint64_t)groups * c / p->cores);
        uint32_t g1 = (uint32_t)((uint64_t)groups * (c + 1) / p->cores);
        uint64_t full_tasks = 0;
        double us = slices > 1 ? slice_cost(p, p->ks, g0, g1, &full_tasks) * (slices - 1) : 0;
        *tasks += full_tasks * (slices - 1);
        us += slice_cost(p, slice_kp(p, slices - 1, slices), g0, g1, tasks);
        if (us > span)
            span = us;
    }
    return span;
}

/* Cores take contiguous ranges of N groups; fewer cores while each would get < 2 groups
 * (facts E.3). */
static unsigned cores_for(const npk_rk_plan_request *r)
{
    const uint32_t nal = npk_rk_n_align(r->in);
    const uint32_t groups = (r->n + nal - 1) / nal;
    unsigned nc = r->cores;
    while (nc > 1 && groups < 2 * nc)
        nc--;
    return nc;
}

/* The candidates: the whole (padded) K when it fits one task and the slices the schedules are
 * measured at (or the requested slice), each with the last slice as it is and, where it is
 * shorter and padding is allowed, zero-padded. The cheapest by the model is chosen (ties: fewer
 * tasks, then the larger slice, then unpadded). */
static size_t list_candidates(const npk_rk_plan_request *r, const npk_rk_soc *soc, npk_rk_mode mode,
                              uint32_t kmax, npk_rk_plan_candidate *out, size_t max)
{
    uint32_t kp_all = round_up(r->k, 32);
    uint32_t ks_list[16], nk = 0;
    if (r->k_slice) {
        ks_list[nk++] = r->k_slice;
    } else {
        ks_list[nk++] = kp_all < kmax ? kp_all : kmax;
        for (uint32_t ks = 128; ks <= 4096; ks *= 2)
            if (ks < ks_list[0])
                ks_list[nk++] = ks;
    }
    size_t n = 0, best = 0;
    plan_shape p = {r, soc, mode, cores_for(r), 0, false};
    for (uint32_t i = 0; i < nk; i++)
        for (int pad = 0; pad < 2; pad++) {
            bool shorter = kp_all % ks_list[i] != 0;
            if (pad && (!shorter || r->k_pad == 0))
                continue;
            if (!pad && shorter && r->k_pad == 1)
                continue;
            p.ks = ks_list[i];
            p.pad = pad;
            npk_rk_plan_candidate c = {.k_slice = p.ks, .k_padded = pad};
            c.model_us = plan_cost(&p, &c.tasks);
            if (n < max) {
                out[n] = c;
                const npk_rk_plan_candidate *b = &out[best];
                if (n == 0 || c.model_us < b->model_us - 1e-9 ||
                    (c.model_us <= b->model_us + 1e-9 &&
                     (c.tasks < b->tasks || (c.tasks == b->tasks && c.k_slice > b->k_slice))))
                    best = n;
            }
            n++;
        }
    if (n && max)
        out[best].chosen = true;
    return n;
}

static npk_status push_task(npk_rk_plan *p, const npk_rk_task_plan *t, size_t *cap)
{
    if (p->count == *cap) {
        if (*cap >= PLAN_MAX_TASKS)
            return npk_fail(NPK_ELIMIT, "the plan needs more than %u tasks; shape too large",
                            PLAN_MAX_TASKS);
        size_t ncap = *cap ? *cap * 2 : 64;
        npk_rk_task_plan *grown = realloc(p->tasks, ncap * sizeof *grown);
        if (!grown)
            return npk_fail(NPK_ENOMEM, "plan of %zu tasks: out of memory", ncap);
        p->tasks = grown;
        *cap = ncap;
    }
    p->tasks[p->count++] = *t;
    return NPK_OK;
}

/* Every check of a request, and what the plan derives from it before tiling. */
static npk_status validate(const npk_rk_plan_request *req, const npk_rk_soc **soc_out,
                           npk_rk_mode *mode_out, uint32_t *ks_out, bool *pad_out)
{
    const npk_rk_soc *soc = req->soc ? req->soc : npk_rk_soc_default();
    const char *dt = npk_rk_prec_name(req->in) ? npk_rk_prec_name(req->in) : "?";
    if (req->in != NPK_PREC_FP16 && req->in != NPK_PREC_INT8 && req->in != NPK_PREC_INT4)
        return npk_fail(NPK_EINVAL, "dtype %s cannot be planned (fp16, int8, int4)", dt);
    const npk_rk_out_stage *st = npk_rk_out_stage_find(req->in, req->out);
    if (!st || !st->completes)
        return npk_fail(NPK_EINVAL, "%s -> %s is not a completing matmul output", dt,
                        npk_rk_prec_name(req->out) ? npk_rk_prec_name(req->out) : "?");
    if (!req->m || !req->k || !req->n)
        return npk_fail(NPK_EINVAL, "M=%u K=%u N=%u: every dimension must be at least 1", req->m,
                        req->k, req->n);
    if (req->m > NPK_RK_PLAN_MAX_DIM || req->k > NPK_RK_PLAN_MAX_DIM ||
        req->n > NPK_RK_PLAN_MAX_DIM)
        return npk_fail(NPK_ELIMIT, "M=%u K=%u N=%u: each must be at most %u", req->m, req->k,
                        req->n, NPK_RK_PLAN_MAX_DIM);
    if (req->cores < 1 || req->cores > soc->cores)
        return npk_fail(NPK_EINVAL, "cores=%u: %s has 1..%u cores", req->cores, soc->name,
                        soc->cores);
    if (req->k_slice_max && req->k_slice_max < 32)
        return npk_fail(NPK_EINVAL, "K slice limit %u is below the 32-element K-tile",
                        req->k_slice_max);
    npk_rk_mode mode = req->mode == -1 ? npk_rk_default_mode(req->in) : (npk_rk_mode)req->mode;
    const uint32_t kmax = k_task_max(req, soc);
    if (req->k_slice && (req->k_slice % 32 || req->k_slice > kmax))
        return npk_fail(NPK_EINVAL, "K slice %u must be a multiple of 32 and at most %u",
                        req->k_slice, kmax);
    *soc_out = soc;
    *mode_out = mode;
    if (req->k_pad < -1 || req->k_pad > 1)
        return npk_fail(NPK_EINVAL, "k_pad %d must be -1 (choose), 0 or 1", req->k_pad);
    npk_rk_plan_candidate cands[32];
    size_t n = list_candidates(req, soc, mode, kmax, cands, 32);
    for (size_t i = 0; i < n && i < 32; i++)
        if (cands[i].chosen) {
            *ks_out = cands[i].k_slice;
            *pad_out = cands[i].k_padded;
        }
    return NPK_OK;
}

npk_status npk_rk_plan_matmul(const npk_rk_plan_request *req, npk_rk_plan *out)
{
    *out = (npk_rk_plan){0};
    const npk_rk_soc *soc;
    npk_rk_mode mode;
    uint32_t ks;
    bool pad = false;
    npk_status vs = validate(req, &soc, &mode, &ks, &pad);
    if (vs)
        return vs;
    out->req = *req;
    out->mode = mode;
    out->k_slice = ks;
    out->k_padded = pad;

    const uint32_t nal = npk_rk_n_align(req->in);
    const uint32_t kp_all = round_up(req->k, 32);
    const uint32_t slices = (kp_all + ks - 1) / ks;
    out->k_slices = slices;

    const uint32_t groups = (req->n + nal - 1) / nal;
    const plan_shape shape = {req, soc, mode, cores_for(req), ks, pad};
    const unsigned nc = shape.cores;
    out->cores_used = nc;
    uint64_t ntasks;
    out->model_us = plan_cost(&shape, &ntasks);
    const uint32_t tile_groups = soc->n_max / nal;
    size_t cap = 0;
    for (unsigned c = 0; c < nc; c++) {
        uint32_t g0 = (uint32_t)((uint64_t)groups * c / nc);
        uint32_t g1 = (uint32_t)((uint64_t)groups * (c + 1) / nc);
        for (uint32_t s = 0; s < slices; s++) {
            uint32_t k0 = s * ks, k1 = k0 + ks;
            if (k1 > req->k)
                k1 = req->k;
            uint32_t kp = slice_kp(&shape, s, slices);
            int sched;
            uint32_t mt;
            best_m_tile(req, soc, mode, kp, &sched, &mt);
            for (uint32_t m0 = 0; m0 < req->m; m0 += mt) {
                uint32_t m1 = m0 + mt < req->m ? m0 + mt : req->m;
                uint32_t mp = m1 - m0;
                if (mode == NPK_MODE_CUBE && mp != 1)
                    mp = round_up(mp, 4); /* padded rows are computed and dropped */
                for (uint32_t t0 = g0; t0 < g1; t0 += tile_groups) {
                    uint32_t t1 = t0 + tile_groups < g1 ? t0 + tile_groups : g1;
                    npk_rk_task_plan t = {0};
                    t.m0 = m0;
                    t.m1 = m1;
                    t.k0 = k0;
                    t.k1 = k1;
                    t.n0 = t0 * nal;
                    t.n1 = t1 * nal < req->n ? t1 * nal : req->n;
                    t.mp = mp;
                    t.kp = kp;
                    t.np = (t1 - t0) * nal;
                    t.core = c;
                    t.sched =
                        mp <= npk_rk_m_ceiling(req->in, kp, NPK_SCHED_0) ? NPK_SCHED_0 : sched;
                    t.cbuf_con0 = npk_rk_cbuf_con0(req->in, mp, kp, t.sched);
                    npk_status st2 = push_task(out, &t, &cap);
                    if (st2) {
                        npk_rk_plan_free(out);
                        return st2;
                    }
                }
            }
        }
    }
    return NPK_OK;
}

uint32_t npk_rk_plan_k_choice(const npk_rk_plan_request *req, bool *pad)
{
    /* The choice is made on the cost by kind of tile, so no plan is built (a large M would
     * build a large one just to read its first slice). */
    const npk_rk_soc *soc;
    npk_rk_mode mode;
    uint32_t ks;
    bool padded = false;
    if (validate(req, &soc, &mode, &ks, &padded))
        return 0;
    if (pad)
        *pad = padded;
    return ks;
}

uint32_t npk_rk_plan_k_slice(const npk_rk_plan_request *req)
{
    return npk_rk_plan_k_choice(req, NULL);
}

size_t npk_rk_plan_candidates(const npk_rk_plan_request *req, npk_rk_plan_candidate *out,
                              size_t max)
{
    const npk_rk_soc *soc;
    npk_rk_mode mode;
    uint32_t ks;
    bool pad;
    if (validate(req, &soc, &mode, &ks, &pad))
        return 0;
    return list_candidates(req, soc, mode, k_task_max(req, soc), out, max);
}

void npk_rk_plan_print_candidates(FILE *out, const npk_rk_plan_request *req)
{
    npk_rk_plan_candidate c[32];
    size_t n = npk_rk_plan_candidates(req, c, 32);
    fprintf(out, "candidates (modelled NPU time of the busiest core: the timing model, not a "
                 "measurement):\n");
    fprintf(out, "  %7s %-13s %7s %12s\n", "K slice", "last slice", "tasks", "model ms");
    for (size_t i = 0; i < n && i < 32; i++)
        fprintf(out, "  %7u %-13s %7llu %12.3f%s\n", c[i].k_slice,
                c[i].k_padded ? "zero-padded" : "as it is", (unsigned long long)c[i].tasks,
                c[i].model_us / 1e3, c[i].chosen ? "  <- chosen" : "");
}

void npk_rk_plan_free(npk_rk_plan *p)
{
    free(p->tasks);
    p->tasks = NULL;
    p->count = 0;
}

void npk_rk_plan_print_json(FILE *out, const npk_rk_plan *p)
{
    fprintf(out, "{\"tasks\":[");
    for (size_t i = 0; i < p->count; i++) {
        const npk_rk_task_plan *t = &p->tasks[i];
        fprintf(out,
                "%s{\"m0\":%u,\"m1\":%u,\"k0\":%u,\"k1\":%u,\"n0\":%u,\"n1\":%u,\"core\":%u,"
                "\"sched\":%d,\"cbuf_con0\":%u}",
                i ? "," : "", t->m0, t->m1, t->k0, t->k1, t->n0, t->n1, t->core, t->sched,
                t->cbuf_con0);
    }
    fprintf(out, "]}\n");
}

void npk_rk_plan_print_text(FILE *out, const npk_rk_plan *p)
{
    const npk_rk_plan_request *r = &p->req;
    fprintf(out, "%s %ux%ux%u -> %s: %zu tasks, %zu K slice%s, %u core%s, %s mode\n",
            npk_rk_prec_name(r->in), r->m, r->k, r->n, npk_rk_prec_name(r->out), p->count,
            p->k_slices, p->k_slices == 1 ? "" : "s", p->cores_used, p->cores_used == 1 ? "" : "s",
            p->mode == NPK_MODE_LINE ? "line" : "cube");
    fprintf(out, "%6s %-13s %-13s %-13s %4s %5s %6s  %s\n", "task", "m", "k", "n", "core", "sched",
            "0x1040", "synth M x K x N");
    for (size_t i = 0; i < p->count; i++) {
        const npk_rk_task_plan *t = &p->tasks[i];
        char m[32], k[32], n[32];
        snprintf(m, sizeof m, "%u..%u", t->m0, t->m1);
        snprintf(k, sizeof k, "%u..%u", t->k0, t->k1);
        snprintf(n, sizeof n, "%u..%u", t->n0, t->n1);
        fprintf(out, "%6zu %-13s %-13s %-13s %4u %5d   0x%02x  %ux%ux%u\n", i, m, k, n, t->core,
                t->sched, t->cbuf_con0, t->mp, t->kp, t->np);
    }
    fprintf(out,
            "K slice %u%s; modelled NPU time of the busiest core %.3f ms (timing model, not a "
            "measurement)\n",
            p->k_slice, p->k_padded ? ", the last zero-padded to it" : "", p->model_us / 1e3);
}
