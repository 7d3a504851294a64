/* SPDX-License-Identifier: MIT */
/* The planner: any M x K x N matmul as tasks that each satisfy every hardware limit.
 *
 * K is split into slices whose partials the host accumulates; N into tiles of at most the
 * SoC's N limit, spread over cores; M into tiles as large as the slice's (dtype, K,
 * schedule) ceiling allows — bigger M tiles mean fewer submits for the same MACs, and the
 * weights are streamed once per M tile (spec "M-tiling scheduler", "Limits & tiling"). */
#ifndef NPUKIT_RK_PLAN_H
#define NPUKIT_RK_PLAN_H

#include "npukit/export.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "npukit/rk_soc.h"
#include "npukit/rk_types.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest M, K or N a plan accepts: the layouts' limit (rk_layout.h), which the runtime
 * shares. It keeps the padding and range arithmetic of every task far from 32-bit wrap-around. */
#define NPK_RK_PLAN_MAX_DIM (1u << 24)
/* Cores a plan spreads over at most (every SoC row has fewer). */
#define NPK_RK_PLAN_MAX_CORES 8

/* The host's work a plan costs, as rates (a MODEL: the defaults are a table of rates measured by
 * bench/bench_rk_host on an x86-64 host driving the simulator; a board's Cortex-A76 host is
 * slower, so users on a board set their own figures). What the runtime does per task, per job
 * and per byte on the host (runtime_matmul.c), on each core's own worker thread: */
typedef struct npk_rk_host_model {
    double task_ns;          /* per task: its program synthesized and placed in its job, its
                                feature slot and its output synced */
    double job_ns;           /* per submit: the task buffer synced and the job built (the
                                SUBMIT ioctl's round trip is in the timing model's job floor) */
    double pack_ns_per_byte; /* per byte of feature (A) packed into a task's slot */
    double out_ns_per_elem;  /* per output element a task writes (rows x its padded N) read back
                                and added into C: every task, so a K slice adds M x N of them */
    double core_ns;          /* per core's worker thread started and joined (more than one core) */
} npk_rk_host_model;

/* The process's host model: the measured table unless npk_rk_set_host_model replaced it. */
NPUKIT_API npk_rk_host_model npk_rk_host_model_get(void);
/* Replace the process's host model (NULL: back to the measured table). Every later plan uses it,
 * the runtime's included; a request's own `host` wins over it. */
NPUKIT_API void npk_rk_set_host_model(const npk_rk_host_model *m);
/* The measured table scaled by `scale` (0: the host costs nothing; 3: a host three times
 * slower). */
NPUKIT_API npk_rk_host_model npk_rk_host_model_scaled(double scale);
/* Every rate of *m times `scale` (>= 0); NPK_ELIMIT, *m unchanged, when a rate would pass
 * NPK_RK_HOST_RATE_MAX (scales applied one after another multiply). */
#define NPK_RK_HOST_RATE_MAX 1e12 /* ns: more than a quarter of an hour per task or byte */
NPUKIT_API npk_status npk_rk_host_model_scale(npk_rk_host_model *m, double scale);
/* Set rates of *m from "name=value[,name=value...]" (names: task, job, pack, out, core; values in
 * ns, 0..NPK_RK_HOST_RATE_MAX); an error names the bad item. */
NPUKIT_API npk_status npk_rk_host_model_parse(const char *spec, npk_rk_host_model *m);
/* The rates of *m, one a line, with each default's source. */
NPUKIT_API void npk_rk_host_model_print(FILE *out, const npk_rk_host_model *m);

typedef struct npk_rk_plan_request {
    npk_rk_prec in, out; /* out: 0-initialised requests should call npk_rk_plan_request_init */
    uint32_t m, k, n;
    unsigned cores;        /* 1..soc->cores */
    int mode;              /* -1: vendor default for the dtype */
    const npk_rk_soc *soc; /* NULL: RK3588 */
    uint32_t k_slice_max;  /* 0: the planner's choice; else the largest K per task */
    uint32_t k_slice;      /* 0: the planner's choice; else exactly this K per slice (a multiple
                              of 32 within the limits), e.g. the slicing weights were packed in */
    int k_pad;             /* a last K slice shorter than the others: -1 the planner's choice
                              (default), 0 as it is, 1 zero-padded to the slice's K (the
                              operands' padding must then be zero: weights packed so) */
    uint32_t chain;        /* tasks per submit the plan will run in (the submission form's
                              grouping; 0 or 1: a submit per task): the job floor is charged
                              once per job, not per task */
    bool chain_m_tiles;    /* jobs group only consecutive M tiles of one K slice and column
                              range (the row-offset form) */
    int core_split;        /* -1 the planner's choice, else an npk_rk_core_split */
    int m_tiling;          /* -1 the planner's choice, else an npk_rk_m_tiling */
    bool host_one_thread;  /* one thread submits for every core (the multi-task form): the
                              cores' host work is serial instead of one worker per core */
    const npk_rk_host_model *host; /* NULL: npk_rk_host_model_get() */
    /* Warm-ups: a core whose output buffer is cold or smaller than its first job's output pays
     * one, that job submitted twice (runtime_submit.c). false (the default): not costed, the
     * steady state of a runtime's later calls (and what a slicing chosen once, as the weights'
     * is, should serve); true: costed from the cores' buffers below (the runtime passes them at
     * every call; all zero: a fresh runtime, every used core cold). */
    bool cost_warmups;
    uint64_t out_bytes[NPK_RK_PLAN_MAX_CORES]; /* the planner's core i's output buffer bytes */
    uint32_t out_warm;                         /* bit i: core i's buffer is warm */
    uint32_t a_pitch;    /* 0: the dtype's feature layout; else line form with the feature rows
                            a_pitch x the packed row apart (npk_rk_pitch_row_of; tiles fit the
                            runtime's feature slot, the CBUF's bytes) */
    bool m_tile_chain;   /* the PC-chained M-tile schedule (sched chain, spec "The M-tiling
                            scheduler"): the whole K per task (a captured K), R rows per tile;
                            never chosen by cost (it re-reads the weights per tile) */
    uint32_t m_tile_max; /* 0: no cap; else at most this many rows per task (1: the vendor's
                            multi-task shape, one row per task) */
} npk_rk_plan_request;

/* How the cores share the work: each a contiguous range of N groups (every row), or each a
 * contiguous range of rows (every column; uses every core however narrow N is). */
typedef enum { NPK_RK_SPLIT_N = 0, NPK_RK_SPLIT_M = 1 } npk_rk_core_split;
/* How a core's rows are cut into M tiles: at the slice's ceiling with a short last tile, or
 * into as many tiles, of equal size within a row. */
typedef enum { NPK_RK_MTILE_CEILING = 0, NPK_RK_MTILE_EVEN = 1 } npk_rk_m_tiling;
NPUKIT_API const char *npk_rk_core_split_name(int split);
NPUKIT_API const char *npk_rk_m_tiling_name(int tiling);

typedef struct npk_rk_task_plan {
    uint32_t m0, m1, k0, k1, n0, n1; /* half-open ranges over the user's shape */
    uint32_t mp, kp, np;             /* the task's synthesized (padded) M, K, N */
    unsigned core;
    int sched;
    uint32_t cbuf_con0;
} npk_rk_task_plan;

typedef struct npk_rk_plan {
    npk_rk_plan_request req;
    npk_rk_mode mode;
    unsigned cores_used;
    size_t k_slices;  /* number of K slices (partials per output element) */
    uint32_t k_slice; /* K per slice */
    bool k_padded;    /* the last slice is synthesized at k_slice, its tail zero */
    int core_split;   /* npk_rk_core_split */
    int m_tiling;     /* npk_rk_m_tiling */
    uint64_t jobs;    /* submits of the critical core under req.chain */
    double model_us;  /* the critical core's modelled NPU time (rk_timing.h: a model) */
    double warmup_us; /* its warm-up submits' modelled NPU time */
    double host_us;   /* modelled host time on the critical path (npk_rk_host_model) */
    double total_us;  /* the call's modelled time: what the planner minimises */
    npk_rk_task_plan *tasks;
    size_t count;
} npk_rk_plan;

/* Every check npk_rk_plan_matmul makes of a request, without building the plan: NPK_OK, or the
 * status and message naming the bad value. */
NPUKIT_API npk_status npk_rk_plan_check(const npk_rk_plan_request *req);

NPUKIT_API void npk_rk_plan_request_init(npk_rk_plan_request *r, npk_rk_prec in, uint32_t m, uint32_t k,
                              uint32_t n);
NPUKIT_API npk_status npk_rk_plan_matmul(const npk_rk_plan_request *req, npk_rk_plan *out);
NPUKIT_API void npk_rk_plan_free(npk_rk_plan *p);
/* The K slice the planner chooses for this request (req->k_slice when set); 0 and an error
 * message for an invalid request. *pad (may be NULL) receives whether the last slice is
 * zero-padded to it. */
NPUKIT_API uint32_t npk_rk_plan_k_slice(const npk_rk_plan_request *req);
NPUKIT_API uint32_t npk_rk_plan_k_choice(const npk_rk_plan_request *req, bool *pad);

/* The candidates the planner compares, with their modelled cost (the critical core's NPU time,
 * warm-ups and host time: the core whose sum is the largest, as the cores run concurrently),
 * the cheapest total chosen: every K slice it considers,
 * each with the last slice as it is and zero-padded (where that differs), each with the cores
 * splitting N and (on more than one core) M, each with ceiling and (where they differ) even M
 * tiles. */
#define NPK_RK_PLAN_MAX_CANDIDATES 64
typedef struct npk_rk_plan_candidate {
    uint32_t k_slice;
    bool k_padded;
    int core_split; /* npk_rk_core_split */
    int m_tiling;   /* npk_rk_m_tiling */
    unsigned cores; /* cores used */
    uint64_t tasks;
    uint64_t jobs;    /* submits of the critical core */
    double model_us;  /* the critical core's modelled NPU time: task bodies and job floors */
    double warmup_us; /* its warm-up submits' modelled NPU time */
    double host_us;   /* modelled host time on the critical path */
    double total_us;  /* the call's modelled time */
    bool chosen;
} npk_rk_plan_candidate;
/* Up to max candidates into out; returns how many there are (0 and an error message for an
 * invalid request). */
NPUKIT_API size_t npk_rk_plan_candidates(const npk_rk_plan_request *req, npk_rk_plan_candidate *out,
                              size_t max);
NPUKIT_API void npk_rk_plan_print_candidates(FILE *out, const npk_rk_plan_request *req);

/* `{"tasks":[{"m0":..,"m1":..,"k0":..,"k1":..,"n0":..,"n1":..,"core":..,"sched":..,
 * "cbuf_con0":..}, ...]}` */
NPUKIT_API void npk_rk_plan_print_json(FILE *out, const npk_rk_plan *p);
NPUKIT_API void npk_rk_plan_print_text(FILE *out, const npk_rk_plan *p);

#ifdef __cplusplus
}
#endif
#endif
