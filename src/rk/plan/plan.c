/* SPDX-License-Identifier: MIT */
/* Matmul planning: K slices, per-core N ranges, N tiles and M tiles, chosen by the modelled
 * cost among candidates. */
#include <stdlib.h>

#include "npukit/rk.h"
#include "rk/layout/rk_layout.h"
#include "npukit/rk_plan.h"
#include "rk/plan/rk_plan_split.h"
#include "rk/program/rk_sched.h"
#include "npukit/rk_synth.h"
#include "rk/hw/rk_timing.h"

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
    r->chain = 1;
    r->core_split = -1;
    r->m_tiling = -1;
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
    uint32_t c0 = npk_rk_m_ceiling(soc, r->in, kp, NPK_SCHED_0);
    uint32_t c1 = npk_rk_m_ceiling(soc, r->in, kp, NPK_SCHED_1);
    *sched = c1 > c0 ? NPK_SCHED_1 : NPK_SCHED_0;
    uint32_t cap = c1 > c0 ? c1 : c0;
    if (cap > soc->m_max)
        cap = soc->m_max;
    /* FEATURE_GRAINS = min(M+1, R) must fit its field. */
    uint32_t r_rows = npk_rk_rows_per_tile(soc, r->in, kp);
    if (r_rows > soc->grains_max && cap + 1 > soc->grains_max)
        cap = soc->grains_max - 1;
    if (r->a_pitch > 1) { /* the pitched rows fit the feature slot: the CBUF's bytes */
        const uint64_t slot = (uint64_t)soc->cbuf_banks * soc->bank_bytes;
        const uint64_t row = (uint64_t)kp * npk_rk_prec_bits(r->in) / 8;
        const uint64_t fit = (slot / row - 1) / r->a_pitch + 1;
        if (fit < cap)
            cap = (uint32_t)fit;
    }
    if (r->m_tile_max && r->m_tile_max < cap)
        cap = r->m_tile_max;
    if (r->m_tile_chain && npk_rk_mtile_row_of(kp)) { /* R rows per tile, whatever M */
        *sched = NPK_SCHED_CHAIN;
        cap = npk_rk_mtile_row_of(kp)->rows;
    }
    if (mode == NPK_MODE_CUBE && cap >= 4)
        cap = cap / 4 * 4; /* cube mode needs M = 1 or a multiple of 4 */
    *mt = cap ? cap : 1;
}

/* The axes' names, a row per value (the value is the index). */
static const char *const split_names[] = {"N", "M"};
static const char *const tiling_names[] = {"ceiling", "even"};

const char *npk_rk_core_split_name(int split)
{
    return split >= 0 && split < 2 ? split_names[split] : "?";
}

const char *npk_rk_m_tiling_name(int tiling)
{
    return tiling >= 0 && tiling < 2 ? tiling_names[tiling] : "?";
}

/* One candidate's geometry. The cost is counted by kind of tile rather than task by task, so
 * that comparing candidates costs nothing next to building one. */
typedef struct plan_shape {
    const npk_rk_plan_request *r;
    const npk_rk_soc *soc;
    npk_rk_mode mode;
    uint32_t ks; /* K per slice */
    bool pad;    /* the last slice synthesized at ks */
    int split;   /* npk_rk_core_split */
    int tiling;  /* npk_rk_m_tiling */
} plan_shape;

/* A core's share: rows [m0, m1) and N groups [g0, g1). */
typedef struct core_share {
    uint32_t m0, m1, g0, g1;
} core_share;

static uint32_t n_groups(const npk_rk_plan_request *r)
{
    const uint32_t nal = npk_rk_n_align(r->in);
    return (r->n + nal - 1) / nal;
}

/* Cores a split over N of `groups` N groups uses: fewer than asked while each would get < 2
 * groups (facts E.3). */
static unsigned n_split_cores(uint32_t groups, unsigned cores)
{
    unsigned nc = cores;
    while (nc > 1 && groups < 2 * nc)
        nc--;
    return nc;
}

unsigned npk_rk_plan_n_split(npk_rk_prec in, uint32_t n, unsigned cores, uint32_t *n0)
{
    const uint32_t nal = npk_rk_n_align(in), groups = (n + nal - 1) / nal;
    const unsigned nc = n_split_cores(groups, cores ? cores : 1);
    for (unsigned c = 0; c < nc; c++) /* core_shares' bounds, in columns */
        n0[c] = (uint32_t)((uint64_t)groups * c / nc) * nal;
    n0[nc] = n;
    return nc;
}

/* Split over N: contiguous ranges of N groups (n_split_cores of them). Split over M: contiguous
 * row ranges, at least one row each. */
static unsigned core_shares(const plan_shape *p, core_share *out)
{
    const npk_rk_plan_request *r = p->r;
    const uint32_t groups = n_groups(r);
    unsigned nc = r->cores;
    if (p->split == NPK_RK_SPLIT_N)
        nc = n_split_cores(groups, nc);
    else if (nc > r->m)
        nc = r->m;
    const uint32_t total = p->split == NPK_RK_SPLIT_N ? groups : r->m;
    for (unsigned c = 0; c < nc; c++) {
        uint32_t lo = (uint32_t)((uint64_t)total * c / nc);
        uint32_t hi = (uint32_t)((uint64_t)total * (c + 1) / nc);
        out[c] = p->split == NPK_RK_SPLIT_N ? (core_share){0, r->m, lo, hi}
                                            : (core_share){lo, hi, 0, groups};
    }
    return nc;
}

static uint32_t slice_kp(const plan_shape *p, uint32_t s, uint32_t slices)
{
    uint32_t kp_all = round_up(p->r->k, 32);
    return s + 1 < slices || p->pad ? p->ks : kp_all - s * p->ks;
}

static uint32_t rows_padded(const plan_shape *p, uint32_t rows)
{
    return p->mode == NPK_MODE_CUBE && rows != 1 ? round_up(rows, 4) : rows;
}

/* The rows of M tile i of `rows` cut by the tiling at most `cap` each. */
static uint32_t m_tile_rows(int tiling, uint32_t rows, uint32_t cap, uint32_t i)
{
    if (tiling == NPK_RK_MTILE_CEILING)
        return rows - i * cap < cap ? rows - i * cap : cap;
    uint32_t tiles = (rows + cap - 1) / cap;
    return rows / tiles + (i < rows % tiles ? 1 : 0);
}

/* The M tiles of `rows` as two kinds {count, rows}. */
static void m_kinds(int tiling, uint32_t rows, uint32_t cap, uint32_t kind[2][2])
{
    uint32_t tiles = (rows + cap - 1) / cap;
    if (tiling == NPK_RK_MTILE_CEILING) {
        kind[0][0] = rows / cap, kind[0][1] = cap;
        kind[1][0] = rows % cap ? 1 : 0, kind[1][1] = rows % cap;
    } else {
        kind[0][0] = rows % tiles, kind[0][1] = rows / tiles + 1;
        kind[1][0] = tiles - rows % tiles, kind[1][1] = rows / tiles;
    }
}

/* What one core's share costs, counted by kind of tile. */
typedef struct core_cost {
    double body_us;   /* its tasks' own modelled NPU time (without job floors) */
    uint64_t tasks;   /* its tasks */
    double a_bytes;   /* feature bytes packed into the tasks' slots */
    double out_elems; /* output elements the tasks write (rows x padded N), read back and added */
} core_cost;

/* Add `times` slices of kp of one core's share to cc; the slice's M x N tiles into *m_tiles and
 * *n_tiles. */
static void slice_cost(const plan_shape *p, const core_share *cs, uint32_t kp, uint32_t times,
                       core_cost *cc, uint32_t *m_tiles, uint32_t *n_tiles)
{
    const npk_rk_plan_request *r = p->r;
    const uint32_t nal = npk_rk_n_align(r->in), tile_groups = p->soc->n_max / nal;
    const double in_bytes = npk_rk_prec_bits(r->in) / 8.0;
    int sched;
    uint32_t mt;
    best_m_tile(r, p->soc, p->mode, kp, &sched, &mt);
    uint32_t m_kind[2][2];
    m_kinds(p->tiling, cs->m1 - cs->m0, mt, m_kind);
    const uint32_t g = cs->g1 - cs->g0;
    const uint32_t n_kind[2][2] = {{g / tile_groups, tile_groups},
                                   {g % tile_groups ? 1 : 0, g % tile_groups}};
    *m_tiles = m_kind[0][0] + m_kind[1][0];
    *n_tiles = n_kind[0][0] + n_kind[1][0];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            double count = (double)m_kind[i][0] * n_kind[j][0] * times;
            if (!count)
                continue;
            const uint32_t rows = m_kind[i][1], np = n_kind[j][1] * nal;
            cc->tasks += (uint64_t)count;
            cc->body_us += count * npk_rk_time_task_body_us(p->soc, r->in, r->out,
                                                            rows_padded(p, rows), kp, np);
            cc->a_bytes += count * rows * kp * in_bytes;
            cc->out_elems += count * rows * np;
        }
}

/* Jobs of `m_tiles` x `n_tiles` tasks of one slice when jobs hold only consecutive M tiles of
 * one column range (the plan lists a slice's tasks M tile by M tile, N tiles within). */
static uint64_t m_tile_jobs(uint32_t m_tiles, uint32_t n_tiles, uint32_t chain)
{
    return n_tiles == 1 ? (m_tiles + chain - 1) / chain : (uint64_t)m_tiles * n_tiles;
}

/* Task idx of a core's share in plan order (slice by slice, M tile by M tile, N tiles within):
 * its rows, synthesized M, K and N. */
typedef struct task_geom {
    uint32_t rows, mp, kp, np;
} task_geom;

static task_geom task_at(const plan_shape *p, const core_share *cs, uint32_t slices, uint64_t idx)
{
    const uint32_t nal = npk_rk_n_align(p->r->in), tile_groups = p->soc->n_max / nal;
    const uint32_t g = cs->g1 - cs->g0, n_tiles = (g + tile_groups - 1) / tile_groups;
    const uint32_t rows = cs->m1 - cs->m0;
    int sched;
    uint32_t mt;
    best_m_tile(p->r, p->soc, p->mode, p->ks, &sched, &mt);
    const uint64_t per_full = (uint64_t)((rows + mt - 1) / mt) * n_tiles;
    uint32_t kp = p->ks;
    if (slices == 1 || idx >= per_full * (slices - 1)) { /* the last slice */
        idx -= slices > 1 ? per_full * (slices - 1) : 0;
        kp = slice_kp(p, slices - 1, slices);
        best_m_tile(p->r, p->soc, p->mode, kp, &sched, &mt);
    } else {
        idx %= per_full;
    }
    const uint32_t j = (uint32_t)(idx % n_tiles);
    task_geom t = {.kp = kp};
    t.rows = m_tile_rows(p->tiling, rows, mt, (uint32_t)(idx / n_tiles));
    t.mp = rows_padded(p, t.rows);
    t.np = (g - j * tile_groups < tile_groups ? g - j * tile_groups : tile_groups) * nal;
    return t;
}

/* The warm-up a core pays (runtime_submit.c: a cold or too small output buffer is replaced or
 * warmed by submitting its first job twice): the modelled NPU time of the core's first job when
 * warm-ups are costed and its buffer (req.out_bytes, req.out_warm) will not serve that job
 * warm, else 0. The first job
 * is what the runtime groups: up to req.chain tasks of the core, or with chain_m_tiles only
 * consecutive M tiles of one column range of the first slice, writing one surface. A later job
 * that outgrows the buffer (the runtime grows it at least twofold) is not modelled. */
static double warmup_us(const plan_shape *p, const core_share *cs, unsigned core, uint32_t slices,
                        uint64_t core_tasks, uint32_t m_tiles0, uint32_t n_tiles)
{
    const npk_rk_plan_request *r = p->r;
    if (!r->cost_warmups)
        return 0;
    const uint32_t chain = r->chain ? r->chain : 1;
    uint64_t count = chain < core_tasks ? chain : core_tasks;
    if (r->chain_m_tiles)
        count = n_tiles == 1 ? (chain < m_tiles0 ? chain : m_tiles0) : 1;
    double us = npk_rk_time_job_floor_us(p->soc);
    uint64_t bytes = 0;
    uint32_t surface_rows = 0;
    task_geom t = {0};
    for (uint64_t i = 0; i < count; i++) {
        t = task_at(p, cs, slices, i);
        us += npk_rk_time_task_body_us(p->soc, r->in, r->out, t.mp, t.kp, t.np);
        npk_rk_block blk = npk_rk_c_block(r->out, p->mode, t.mp, t.np);
        bytes += (npk_rk_c_bytes(&blk, t.np) + 63) / 64 * 64;
        surface_rows += t.rows;
    }
    if (r->chain_m_tiles) { /* one shared surface of all the job's rows, in line mode */
        npk_rk_block blk = npk_rk_c_block(r->out, NPK_MODE_LINE, surface_rows, t.np);
        bytes = (npk_rk_c_bytes(&blk, t.np) + 63) / 64 * 64;
    }
    const bool warm = core < 32 && (r->out_warm >> core & 1) && r->out_bytes[core] >= bytes;
    return warm ? 0 : us;
}

/* The modelled host time of a core's share (npk_rk_host_model): what its worker does between
 * and around its submits. */
static double host_us(const npk_rk_host_model *h, const core_cost *cc, uint64_t jobs)
{
    return 1e-3 * ((double)cc->tasks * h->task_ns + (double)jobs * h->job_ns +
                   cc->a_bytes * h->pack_ns_per_byte + cc->out_elems * h->out_ns_per_elem);
}

/* The cost of a plan, as the runtime runs it. Each core's jobs run on that core's own worker
 * thread (runtime_cores.c), each a blocking submit: within a core the host work (pack, synth,
 * sync, read back and add) and the NPU time follow one another, while different cores overlap,
 * so a core's span is its NPU time (task bodies, the job floor once per job of up to req.chain
 * tasks, warm-ups) plus its host time, and the call's is the longest span plus starting and
 * joining the workers. With req.host_one_thread one thread prepares every core's part of each
 * submit: the host work of all cores adds up, beside the longest NPU time. The fields of `out`
 * are those of the critical core. */
static void plan_cost(const plan_shape *p, const npk_rk_host_model *h, npk_rk_plan_candidate *out)
{
    const npk_rk_plan_request *r = p->r;
    const uint32_t slices = (round_up(r->k, 32) + p->ks - 1) / p->ks;
    const uint32_t chain = r->chain ? r->chain : 1;
    core_share cs[NPK_RK_PLAN_MAX_CORES];
    const unsigned nc = core_shares(p, cs);
    double best = -1, host_all = 0, npu_max = 0;
    out->tasks = 0;
    for (unsigned c = 0; c < nc; c++) {
        core_cost cc = {0};
        uint32_t mf = 0, nf = 0, ml, nl;
        if (slices > 1)
            slice_cost(p, &cs[c], p->ks, slices - 1, &cc, &mf, &nf);
        slice_cost(p, &cs[c], slice_kp(p, slices - 1, slices), 1, &cc, &ml, &nl);
        uint64_t jobs = r->chain_m_tiles
                            ? (slices > 1 ? m_tile_jobs(mf, nf, chain) * (slices - 1) : 0) +
                                  m_tile_jobs(ml, nl, chain)
                            : (cc.tasks + chain - 1) / chain;
        const double npu = cc.body_us + (double)jobs * npk_rk_time_job_floor_us(p->soc);
        const double warm = warmup_us(p, &cs[c], c, slices, cc.tasks, slices > 1 ? mf : ml, nl);
        const double host = host_us(h, &cc, jobs);
        const double span = npu + warm + (r->host_one_thread ? 0 : host);
        out->tasks += cc.tasks;
        host_all += host;
        if (npu + warm > npu_max)
            npu_max = npu + warm;
        if (span > best) {
            best = span;
            out->jobs = jobs;
            out->model_us = npu;
            out->warmup_us = warm;
            out->host_us = host;
        }
    }
    const double handoff = nc > 1 && !r->host_one_thread ? 1e-3 * h->core_ns * nc : 0;
    out->cores = nc;
    if (r->host_one_thread) {
        out->host_us = host_all;
        out->total_us = npu_max + host_all;
    } else {
        out->host_us += handoff;
        out->total_us = best + handoff;
    }
}

/* Whether even M tiles differ from ceiling tiles anywhere in the plan. */
static bool even_differs(const plan_shape *p)
{
    core_share cs[NPK_RK_PLAN_MAX_CORES];
    const unsigned nc = core_shares(p, cs);
    const uint32_t slices = (round_up(p->r->k, 32) + p->ks - 1) / p->ks;
    for (unsigned c = 0; c < nc; c++)
        for (uint32_t s = slices > 1 ? slices - 2 : 0; s < slices; s++) {
            int sched;
            uint32_t mt, rows = cs[c].m1 - cs[c].m0;
            best_m_tile(p->r, p->soc, p->mode, slice_kp(p, s, slices), &sched, &mt);
            if (rows > mt && rows % mt)
                return true;
        }
    return false;
}

/* Whether candidate c beats b: cheaper in total (NPU, warm-ups and host: the model); ties: fewer
 * tasks, then the larger slice (then the earlier listed: unpadded, N split, ceiling tiles). */
static bool better(const npk_rk_plan_candidate *c, const npk_rk_plan_candidate *b)
{
    const double eps = 1e-6 * (b->total_us > 1 ? b->total_us : 1);
    if (c->total_us < b->total_us - eps)
        return true;
    if (c->total_us > b->total_us + eps)
        return false;
    return c->tasks < b->tasks || (c->tasks == b->tasks && c->k_slice > b->k_slice);
}

static size_t choose(const npk_rk_plan_candidate *c, size_t n)
{
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (better(&c[i], &c[best]))
            best = i;
    return best;
}

/* The candidates: the whole (padded) K when it fits one task and the slices the schedules are
 * measured at (or the requested slice), each with the last slice as it is and, where it is
 * shorter and padding is allowed, zero-padded; each with the cores splitting N and, on more
 * than one core, M; each with ceiling and, where they differ, even M tiles. The cheapest in
 * total by the model (NPU time, warm-ups and the host's work) is chosen. */
static size_t list_candidates(const npk_rk_plan_request *r, const npk_rk_soc *soc, npk_rk_mode mode,
                              uint32_t kmax, npk_rk_plan_candidate *out, size_t max)
{
    uint32_t kp_all = round_up(r->k, 32);
    const npk_rk_host_model host = r->host ? *r->host : npk_rk_host_model_get();
    uint32_t ks_list[16], nk = 0;
    if (r->k_slice) {
        ks_list[nk++] = r->k_slice;
    } else {
        ks_list[nk++] = kp_all < kmax ? kp_all : kmax;
        for (uint32_t ks = 128; ks <= 4096 && !r->m_tile_chain; ks *= 2)
            if (ks < ks_list[0])
                ks_list[nk++] = ks;
    }
    size_t n = 0;
    for (uint32_t i = 0; i < nk; i++)
        for (int pad = 0; pad < 2; pad++) {
            bool shorter = kp_all % ks_list[i] != 0;
            if (pad && (!shorter || r->k_pad == 0))
                continue;
            if (!pad && shorter && r->k_pad == 1)
                continue;
            for (int split = 0; split < 2; split++) {
                if (r->core_split != -1 ? split != r->core_split : split && r->cores == 1)
                    continue;
                for (int tiling = 0; tiling < 2; tiling++) {
                    plan_shape p = {r, soc, mode, ks_list[i], pad, split, tiling};
                    if (r->m_tiling != -1 ? tiling != r->m_tiling : tiling && !even_differs(&p))
                        continue;
                    npk_rk_plan_candidate c = {
                        .k_slice = p.ks, .k_padded = pad, .core_split = split, .m_tiling = tiling};
                    plan_cost(&p, &host, &c);
                    if (n < max)
                        out[n] = c;
                    n++;
                }
            }
        }
    if (n && max)
        out[choose(out, n < max ? n : max)].chosen = true;
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

/* The feature pitch and the M-tile chain: described for the dtype (and the chain for the whole
 * K), each refused naming the value and the rows that exist. *mode becomes line with a pitch. */
static npk_status validate_layout(const npk_rk_plan_request *req, const npk_rk_soc *soc,
                                  npk_rk_mode *mode)
{
    const char *dt = npk_rk_prec_name(req->in);
    char list[64];
    if (req->a_pitch) {
        if (!npk_rk_pitch_row_of(req->in, req->a_pitch))
            return npk_fail(NPK_EUNSUPPORTED,
                            "feature row pitch %ux for %s: described only at %s (spec \"0x107c\")",
                            req->a_pitch, dt, npk_rk_pitch_list(req->in, list, sizeof list));
        if (req->mode == NPK_MODE_CUBE)
            return npk_fail(NPK_EINVAL, "a feature row pitch is a line-form layout, not cube");
        *mode = NPK_MODE_LINE;
    }
    if (req->m_tile_chain) {
        const uint32_t kp = round_up(req->k, 32);
        const char *why = "";
        if (req->k_slice && req->k_slice < kp)
            return npk_fail(NPK_EINVAL,
                            "the M-tile chain does the whole K per tile: K=%u in slices of %u "
                            "(weights packed for a K split)",
                            req->k, req->k_slice);
        if (!npk_rk_sched_valid(req->in, kp, NPK_SCHED_CHAIN, &why))
            return npk_fail(NPK_EUNSUPPORTED, "M-tile chain for %s K=%u: %s", dt, kp, why);
        if (kp > k_task_max(req, soc))
            return npk_fail(NPK_ELIMIT, "M-tile chain for %s K=%u: a task holds at most K=%u%s",
                            dt, kp, k_task_max(req, soc),
                            req->in == NPK_PREC_INT4 ? " (the int16 accumulator's exact bound)"
                                                     : "");
        if (req->a_pitch > 1)
            return npk_fail(NPK_EINVAL, "the M-tile chain is captured at the dense feature");
    }
    return NPK_OK;
}

/* Every check of a request, and the candidate the plan is built from. */
static npk_status validate(const npk_rk_plan_request *req, const npk_rk_soc **soc_out,
                           npk_rk_mode *mode_out, npk_rk_plan_candidate *chosen)
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
    if (req->cores < 1 || req->cores > soc->cores || req->cores > NPK_RK_PLAN_MAX_CORES)
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
    if (req->k_pad < -1 || req->k_pad > 1)
        return npk_fail(NPK_EINVAL, "k_pad %d must be -1 (choose), 0 or 1", req->k_pad);
    if (req->chain > NPK_RK_MAX_CHAIN)
        return npk_fail(NPK_EINVAL, "chain=%u: tasks per submit must be 1..%u", req->chain,
                        NPK_RK_MAX_CHAIN);
    if (req->core_split < -1 || req->core_split > NPK_RK_SPLIT_M)
        return npk_fail(NPK_EINVAL, "core_split %d must be -1 (choose), 0 (N) or 1 (M)",
                        req->core_split);
    if (req->m_tiling < -1 || req->m_tiling > NPK_RK_MTILE_EVEN)
        return npk_fail(NPK_EINVAL, "m_tiling %d must be -1 (choose), 0 (ceiling) or 1 (even)",
                        req->m_tiling);
    npk_status s = validate_layout(req, soc, &mode);
    if (s)
        return s;
    *soc_out = soc;
    *mode_out = mode;
    npk_rk_plan_candidate cands[NPK_RK_PLAN_MAX_CANDIDATES];
    size_t n = list_candidates(req, soc, mode, kmax, cands, NPK_RK_PLAN_MAX_CANDIDATES);
    for (size_t i = 0; i < n && i < NPK_RK_PLAN_MAX_CANDIDATES; i++)
        if (cands[i].chosen)
            *chosen = cands[i];
    return NPK_OK;
}

npk_status npk_rk_plan_matmul(const npk_rk_plan_request *req, npk_rk_plan *out)
{
    *out = (npk_rk_plan){0};
    const npk_rk_soc *soc;
    npk_rk_mode mode;
    npk_rk_plan_candidate ch = {0};
    npk_status vs = validate(req, &soc, &mode, &ch);
    if (vs)
        return vs;
    const uint32_t ks = ch.k_slice;
    out->req = *req;
    out->mode = mode;
    out->k_slice = ks;
    out->k_padded = ch.k_padded;
    out->core_split = ch.core_split;
    out->m_tiling = ch.m_tiling;
    out->jobs = ch.jobs;
    out->model_us = ch.model_us;
    out->warmup_us = ch.warmup_us;
    out->host_us = ch.host_us;
    out->total_us = ch.total_us;

    const uint32_t nal = npk_rk_n_align(req->in);
    const uint32_t slices = (round_up(req->k, 32) + ks - 1) / ks;
    out->k_slices = slices;
    const plan_shape shape = {req, soc, mode, ks, ch.k_padded, ch.core_split, ch.m_tiling};
    core_share cs[NPK_RK_PLAN_MAX_CORES];
    const unsigned nc = core_shares(&shape, cs);
    out->cores_used = nc;
    const uint32_t tile_groups = soc->n_max / nal;
    size_t cap = 0;
    for (unsigned c = 0; c < nc; c++) {
        const uint32_t g0 = cs[c].g0, g1 = cs[c].g1, rows = cs[c].m1 - cs[c].m0;
        for (uint32_t s = 0; s < slices; s++) {
            uint32_t k0 = s * ks, k1 = k0 + ks;
            if (k1 > req->k)
                k1 = req->k;
            uint32_t kp = slice_kp(&shape, s, slices);
            int sched;
            uint32_t mt;
            best_m_tile(req, soc, mode, kp, &sched, &mt);
            uint32_t m1 = cs[c].m0;
            for (uint32_t i = 0; m1 < cs[c].m1; i++) {
                uint32_t m0 = m1;
                m1 = m0 + m_tile_rows(ch.m_tiling, rows, mt, i);
                uint32_t mp = rows_padded(&shape, m1 - m0); /* padded rows computed, dropped */
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
                    t.sched = sched == NPK_SCHED_CHAIN ||
                                      mp > npk_rk_m_ceiling(soc, req->in, kp, NPK_SCHED_0)
                                  ? sched
                                  : NPK_SCHED_0;
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

npk_status npk_rk_plan_check(const npk_rk_plan_request *req)
{
    const npk_rk_soc *soc;
    npk_rk_mode mode;
    npk_rk_plan_candidate ch = {0};
    return validate(req, &soc, &mode, &ch);
}

uint32_t npk_rk_plan_k_choice(const npk_rk_plan_request *req, bool *pad)
{
    /* The choice is made on the cost by kind of tile, so no plan is built (a large M would
     * build a large one just to read its first slice). */
    const npk_rk_soc *soc;
    npk_rk_mode mode;
    npk_rk_plan_candidate ch = {0};
    if (validate(req, &soc, &mode, &ch))
        return 0;
    if (pad)
        *pad = ch.k_padded;
    return ch.k_slice;
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
    npk_rk_plan_candidate ch;
    if (validate(req, &soc, &mode, &ch))
        return 0;
    return list_candidates(req, soc, mode, k_task_max(req, soc), out, max);
}

/* The job floors' share of a candidate's NPU time: what its submits cost beside the tasks. */
static double floors_us(const npk_rk_soc *soc, uint64_t jobs)
{
    return (double)jobs * npk_rk_time_job_floor_us(soc);
}

void npk_rk_plan_print_candidates(FILE *out, const npk_rk_plan_request *req)
{
    npk_rk_plan_candidate c[NPK_RK_PLAN_MAX_CANDIDATES];
    size_t n = npk_rk_plan_candidates(req, c, NPK_RK_PLAN_MAX_CANDIDATES);
    const npk_rk_host_model host = req->host ? *req->host : npk_rk_host_model_get();
    fprintf(out,
            "candidates at %u task%s per submit, modelled (the timing model and the host model, "
            "not a measurement) for the critical core: NPU = its tasks, submit = its job floors "
            "and warm-ups, host = its worker's host work%s; total = the call. Host rates:\n",
            req->chain > 1 ? req->chain : 1, req->chain > 1 ? "s" : "",
            req->host_one_thread ? " (one thread for every core: summed)" : "");
    npk_rk_host_model_print(out, &host);
    fprintf(out, "  %7s %-11s %5s %5s %-7s %7s %7s %9s %9s %9s %9s\n", "K slice", "last slice",
            "split", "cores", "M tiles", "tasks", "submits", "NPU ms", "submit ms", "host ms",
            "total ms");
    for (size_t i = 0; i < n && i < NPK_RK_PLAN_MAX_CANDIDATES; i++)
        fprintf(
            out, "  %7u %-11s %5s %5u %-7s %7llu %7llu %9.3f %9.3f %9.3f %9.3f%s\n", c[i].k_slice,
            c[i].k_padded ? "zero-padded" : "as it is", npk_rk_core_split_name(c[i].core_split),
            c[i].cores, npk_rk_m_tiling_name(c[i].m_tiling), (unsigned long long)c[i].tasks,
            (unsigned long long)c[i].jobs, (c[i].model_us - floors_us(req->soc, c[i].jobs)) / 1e3,
            (floors_us(req->soc, c[i].jobs) + c[i].warmup_us) / 1e3, c[i].host_us / 1e3,
            c[i].total_us / 1e3, c[i].chosen ? "  <- chosen" : "");
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
            "K slice %u%s; cores split %s; %s M tiles; modelled (timing and host models, not a "
            "measurement): the critical core's NPU time %.3f ms in %llu submit%s, warm-ups "
            "%.3f ms, host %.3f ms; the call %.3f ms\n",
            p->k_slice, p->k_padded ? ", the last zero-padded to it" : "",
            npk_rk_core_split_name(p->core_split), npk_rk_m_tiling_name(p->m_tiling),
            p->model_us / 1e3, (unsigned long long)p->jobs, p->jobs == 1 ? "" : "s",
            p->warmup_us / 1e3, p->host_us / 1e3, p->total_us / 1e3);
}
