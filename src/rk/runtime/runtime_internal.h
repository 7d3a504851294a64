/* SPDX-License-Identifier: MIT */
/* Runtime state shared by the runtime's files. */
#ifndef NPUKIT_RK_RUNTIME_INTERNAL_H
#define NPUKIT_RK_RUNTIME_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "common/measure.h"
#include "npukit/rk.h"
#include "rk/device/rk_device.h"
#include "rk/program/rk_kernel.h"
#include "rk/layout/rk_layout.h"
#include "npukit/rk_plan.h"
#include "npukit/rk_regcmd.h"
#include "npukit/rk_soc.h"

/* The tile of A a feature slot holds, as packed by a task of one run of the matmul spine
 * (npk_rk_matmul_run): A's data and the task's rows, K range and packed geometry. The plan's
 * tasks of one row range and K slice differ only in their columns, so the same tile comes
 * again and again; a task of the same run that finds it in a slot reads it there instead of
 * packing it again (A does not change during a run). */
typedef struct npk_rk_feature_tile {
    uint64_t run; /* the run that packed it; 0: unknown (nothing, or packed outside a run) */
    const void *data;
    size_t pitch;
    uint32_t m0, m1, k0, k1, mp, kp, a_pitch;
    npk_rk_prec prec;
    int mode;
    bool f32; /* A's elements are floats, rounded to the weights' fp16 as packed */
} npk_rk_feature_tile;

/* Per-core buffers: the feature buffer is allocated once and never moves (the NPU caches
 * feature state by address, spec "Feature address caching"); the task buffer holds the
 * rknpu_task record and the regcmd program; the output buffer grows when a task needs more. */
typedef struct npk_rk_core_bufs {
    npk_rk_mem feature;
    /* What each feature slot holds, and the slot each task of the job being prepared reads
     * (its own, or an earlier task's holding the same tile); under job_lock. */
    npk_rk_feature_tile held[NPK_RK_MAX_CHAIN];
    uint8_t reads[NPK_RK_MAX_CHAIN];
    npk_rk_mem task;
    npk_rk_mem output;
    atomic_bool output_warm; /* read by its core's worker, cleared by a reset on any core */
    /* Held for a whole job: runtimes sharing an engine take turns on a core, so its feature
     * slot keeps one address and its task and output buffers hold one job at a time. */
    pthread_mutex_t job_lock;
    unsigned domain; /* the IOMMU domain its buffers are in: its jobs run there */
} npk_rk_core_bufs;

enum { NPK_RK_MAX_CORES = NPK_RK_SOC_MAX_CORES }; /* per-core state of any SoC row */

/* A device and what its cores hold: the per-core buffers, the reset lock and the state
 * policy's view of the NPU. A runtime opened with npk_rk_open has an engine of its own;
 * runtimes opened with npk_rk_open_shared on the same device name share one, so device
 * buffers and weights resident there serve all of them, jobs on a core take turns and a reset
 * waits for every runtime's job in flight. Buffers hold a reference too: the engine (and its
 * device) goes with the last runtime or buffer. */
typedef struct npk_rk_engine {
    npk_rk_device *dev;
    const npk_rk_soc *soc;
    bool simulated;
    uint32_t drv_version, hw_version;
    uint32_t chain;                 /* tasks per SUBMIT the core buffers are sized for */
    const npk_rk_kernel_form *form; /* the program form the device's kernel expects */
    unsigned max_cores;             /* cores the device can address */
    /* Each core reads only its own address space (rocket: a file per core): what a core reads
     * is placed for it (npk_rk_mem_create_for), weights for every core. */
    bool core_spaces;
    /* Bytes of one feature slot: the whole CBUF (banks x bank size). The planner's M ceilings
     * keep every feature tile within the data banks (at most 11); the slot's spare bank covers
     * cube-mode padding rows. A job of L chained tasks uses L slots. */
    uint32_t feature_slot;
    /* A submit holds npu_lock shared; a reset holds it exclusively, so it never lands under
     * another core's running job. */
    pthread_rwlock_t npu_lock;
    atomic_uint pending;         /* NPK_POLICY_* actions due before the next submit */
    pthread_mutex_t policy_lock; /* the precision the NPU was last entered in */
    bool have_prec;
    npk_rk_prec last_prec;
    npk_rk_core_bufs core[NPK_RK_MAX_CORES];
    /* Weights past one address space: rknpu's IOMMU domains (domains of them, from the
     * device). A matmul runs in the domain of its weights, on the cores' buffers of that domain
     * (domain_core[d], made on first need; domain 0's are core[]). Under place_lock, with the
     * weight bytes placed in each domain and the domain the last job ran in. */
    unsigned domains;
    pthread_mutex_t place_lock;
    uint64_t weight_bytes[RKNPU_MAX_IOMMU_DOMAIN_NUM];
    npk_rk_core_bufs *domain_core[RKNPU_MAX_IOMMU_DOMAIN_NUM];
    unsigned last_domain;
    /* sharing (under the registry's lock) */
    unsigned refs;
    bool shared;
    char key[128];
    struct npk_rk_engine *next;
} npk_rk_engine;

/* The runtime's shared feature tile buffer and A staging released (runtime_tiles.c;
 * npk_rk_close). */
void npk_rk_shared_tiles_free(struct npk_rk *rt);

/* Open a private engine, or find/open the shared one for `device`; release drops a reference. */
npk_status npk_rk_engine_get(const char *device, bool shared, npk_rk_engine **out);
void npk_rk_engine_retain(npk_rk_engine *e);
void npk_rk_engine_release(npk_rk_engine *e);
/* (Re-)create the feature and task buffers of every core for jobs of `chain` tasks. */
npk_status npk_rk_engine_set_chain(npk_rk_engine *e, uint32_t chain);
/* Runtimes (and buffers) holding the engine. */
unsigned npk_rk_engine_refs(npk_rk_engine *e);

struct npk_rk {
    npk_rk_engine *eng;
    const npk_rk_kernel_form *form; /* eng->form */
    unsigned max_cores;             /* eng->max_cores */
    /* the engine's, copied: the submit spine reads them on every job */
    npk_rk_device *dev;
    const npk_rk_soc *soc;
    uint32_t chain;
    uint32_t feature_slot;
    bool simulated;
    npk_rk_core_bufs *core;             /* eng->core */
    pthread_rwlock_t *npu_lock;         /* &eng->npu_lock */
    atomic_uint *pending;               /* &eng->pending */
    unsigned cores;                     /* cores a call spreads over */
    uint8_t core_map[NPK_RK_MAX_CORES]; /* the planner's core i runs on core_map[i] */
    pthread_mutex_t lock;               /* one call at a time (others get NPK_EBUSY) */

    /* the submission form jobs take (submission.h) */
    const struct npk_rk_submission_row *submission;
    /* The form set on the runtime: `submission` is the running call's (npk_rk_matmul swaps in
     * the one it picked, under the lock), this one is what planning outside a call reads
     * (weights packed on another thread meanwhile) and is never swapped. */
    const struct npk_rk_submission_row *form_set;
    bool form_forced;       /* set by npk_rk_set_submission/set_chain: no choice by cost */
    uint32_t feature_pitch; /* npk_rk_set_feature_pitch (0: the dtype's layout) */
    bool m_tile_chain;      /* npk_rk_set_schedule("chain") */
    uint64_t calls; /* calls begun (under lock): one per API call, whatever its phases */
    struct npk_rk_workers *workers; /* the cores' threads (runtime_workers.c), under lock */
    /* npk_rk_set_progress: reported per job, serialized by progress_lock */
    npk_rk_progress_fn progress;
    void *progress_user;
    pthread_mutex_t progress_lock;
    /* a call's feature tiles packed once for every core (runtime_tiles.c), in that domain;
     * under lock */
    npk_rk_mem shared_tiles;
    unsigned shared_tiles_domain;
    /* float A converted to fp16 once for cores that pack their own tiles (runtime_tiles.c);
     * host memory kept from call to call, under lock */
    uint16_t *a_stage;
    size_t a_stage_bytes;
};

/* Begin an API call on rt: take its lock for the whole call (every phase: a matmul and its
 * element-wise steps run as one call, no other call between them), or NPK_EBUSY naming `what`
 * when another call holds it. */
npk_status npk_rk_call_begin(npk_rk *rt, const char *what);
void npk_rk_call_end(npk_rk *rt);

struct npk_rk_weights {
    const npk_rk *owner; /* the runtime whose device holds mem: its IOVAs mean nothing to
                            another device, or name another buffer there */
    npk_rk_prec in;
    uint32_t k, n;
    uint32_t m_hint;  /* the M calls are expected at (the placement weighs its cost there) */
    uint32_t k_slice; /* K per slice (multiple of 32); the last slice may be shorter */
    bool k_pad;       /* ... and is then packed at k_slice, its tail zero (the plan's choice) */
    uint32_t slices;
    uint32_t np;          /* N padded to the dtype's group */
    uint64_t slice_bytes; /* bytes of one full slice over all Np columns */
    npk_rk_mem mem;       /* owned, or (in_place) a view of the bound buffer's bytes */
    /* Split by core (parts > 0; a device whose cores read only their own address space, rocket):
     * no `mem`; part i holds the columns [part_n0[i], part_n0[i + 1]) of every slice, packed as
     * the slices are (part_slice_bytes apart), in core part_core[i]'s address space only, and
     * every call splits N exactly so, part i's tasks on core part_core[i]
     * (runtime_weights.c). parts 0: `mem`, read by every core (a copy in each one's space). */
    unsigned parts;
    uint32_t part_n0[NPK_RK_MAX_CORES + 1];
    uint8_t part_core[NPK_RK_MAX_CORES];
    uint64_t part_slice_bytes[NPK_RK_MAX_CORES];
    npk_rk_mem part_mem[NPK_RK_MAX_CORES];
    /* Weights bound to a device buffer (npk_rk_weights_bind): re-read at every call. */
    struct npk_rk_buffer *src;
    uint64_t src_off, src_bytes;
    npk_rk_b_layout layout;
    bool in_place; /* the NPU reads src directly (native layout in the runtime's slicing) */
    bool have_sum;
    uint64_t sum; /* checksum of src's bytes when mem was last packed */
};

/* The device memory behind an npk_rk_buffer: the runtime's own, a dma-buf imported through
 * the kernel (PRIME: dmabuf_fd >= 0, eng set), or a dma-buf the kernel does not import, mapped
 * for the CPU only (dmabuf_fd >= 0, eng NULL, mem.handle 0: every call stages it). */
struct npk_rk_buffer {
    npk_rk_engine *eng;
    npk_rk_mem mem;
    int dmabuf_fd; /* -1: the runtime's own memory */
    /* Cleaned once whole (MEM_SYNC TO_DEVICE) before the NPU first writes it: a fresh
     * cacheable buffer's dirty CPU lines would be written back over the NPU's result (hazard
     * stale-fresh-output). */
    atomic_bool clean;
};

/* Buffer flags (facts A.1): data buffers NON_CONTIGUOUS | CACHEABLE | IOVA alignment, synced
 * both ways; the task buffer additionally KERNEL_MAPPING, which SUBMIT requires. */
#define NPK_RK_DATA_FLAGS                                                                          \
    (RKNPU_MEM_NON_CONTIGUOUS | RKNPU_MEM_CACHEABLE | RKNPU_MEM_IOMMU_LIMIT_IOVA_ALIGNMENT)
#define NPK_RK_TASK_FLAGS (NPK_RK_DATA_FLAGS | RKNPU_MEM_KERNEL_MAPPING)

/* Task buffer of a job of up to L tasks: room for L rknpu_task records of every core from 0
 * (a multi-task SUBMIT names one buffer for all cores' records), then the L regcmd programs
 * (room for the largest form's body + 4 entries each) from a 64-byte boundary (PC_SOURCE_ADDR
 * needs 16). */
static inline uint64_t npk_rk_regcmd_offset(uint32_t chain, uint32_t i)
{
    uint64_t records =
        ((uint64_t)NPK_RK_MAX_CORES * chain * sizeof(struct rknpu_task) + 63) / 64 * 64;
    return records +
           (uint64_t)i * (NPK_RK_BODY_MAX + NPK_RK_TRAILER_ENTRIES) * sizeof(npk_rk_entry);
}

/* A buffer that core c's jobs read and write (its feature, task and output buffers, b): in core
 * c's address space, in b's domain. */
npk_status npk_rk_core_mem(npk_rk_engine *e, const npk_rk_core_bufs *b, unsigned c,
                           uint64_t size, uint32_t flags, npk_rk_mem *mem);
/* Bytes of one address space packed weights may fill: the rest stays for the runtime's own
 * buffers of the domain (feature, task and output buffers, which a job needs beside them). */
#define NPK_RK_WEIGHT_SPACE ((1ull << 32) - (256ull << 20))
/* Packed weights, which every core of the engine may read: placed for all of them (a copy in
 * each core's address space where cores have their own, kept equal by MEM_SYNC), in the first
 * IOMMU domain with room (NPK_RK_WEIGHT_SPACE); an error naming the size and the limit when
 * none has. */
npk_status npk_rk_weights_mem(npk_rk *rt, uint64_t size, npk_rk_mem *mem);
/* Give back what npk_rk_weights_mem placed (destroys mem). */
void npk_rk_weights_mem_free(npk_rk_engine *e, npk_rk_mem *mem);
/* Address spaces packed weights are placed over: the IOMMU domains, or on a device whose cores
 * read only their own space (rocket) the cores' spaces (one open file each). */
unsigned npk_rk_weight_spaces(const npk_rk_engine *e);
/* Bytes of packed weights address space `space` has room for now. */
uint64_t npk_rk_weights_free_in(npk_rk_engine *e, unsigned space);
/* Packed weights only core `core` reads, in its own address space (a device with core spaces):
 * NPK_ENOMEM when the space has no room for them (no error message set: the caller names the
 * placement it tried). npk_rk_weights_mem_free_on gives them back. */
npk_status npk_rk_weights_mem_on(npk_rk_engine *e, unsigned core, uint64_t size, npk_rk_mem *mem);
void npk_rk_weights_mem_free_on(npk_rk_engine *e, unsigned core, npk_rk_mem *mem);
/* The packed-weight bytes the engine can hold, and holds (npk_rk_info.weight_*): every copy
 * counts in its own space. */
void npk_rk_weights_room(npk_rk_engine *e, uint64_t *capacity, uint64_t *used);
/* Point rt's cores at the buffers of IOMMU domain d (made on first need) for a call whose
 * weights live there, and enter it (npk_rk_engine_enter_domain); rt->core = rt->eng->core
 * points them back. */
npk_status npk_rk_use_domain(npk_rk *rt, unsigned d);
/* Jobs of domain d are about to run: a reset is made due when the NPU last ran in another. */
void npk_rk_engine_enter_domain(npk_rk_engine *e, unsigned d);
/* Clear every domain's cores' warm flags (after a reset). */
void npk_rk_engine_clear_warm(npk_rk_engine *e);

/* The engine's core that runs a task the planner gave core `core` of a call on w: the core
 * holding that part of weights split by core, else the runtime's core_map. */
unsigned npk_rk_task_core(const npk_rk *rt, const npk_rk_weights *w, unsigned core);

/* Make policy actions (NPK_POLICY_*) due: the next submit on any core carries them out first,
 * while no job is in flight. */
void npk_rk_policy_due(npk_rk *rt, unsigned actions);
/* One SUBMIT of the first `tasks` task records in core c's task buffer (chained through their
 * trailers), under the state policy: due actions first, a warm-up submit for a fresh output
 * buffer, a reset and retry after a wedge. Accounts submits, warm-ups, resets, retries, NPU
 * and submit time in st. */
npk_status npk_rk_submit_job(npk_rk *rt, unsigned c, uint32_t tasks, npk_rk_stats *st);

/* Whether the runtime's kernel runs SDP tasks (element-wise ops, activations): a kernel whose
 * fixed interrupt mask covers the DPU interrupt an SDP task ends on (both do; rk_kernel.h). */
bool npk_rk_runs_sdp(const npk_rk *rt);

/* Core c's task buffer with room for `bytes` (re-created larger when it has less: a job of LUT
 * tasks, whose programs are longer than the matmul's). Call with the core's job lock held. */
npk_status npk_rk_core_task(npk_rk *rt, unsigned c, uint64_t bytes);

/* Core c's output buffer with room for `bytes` (re-created larger when it has less, which makes
 * it fresh: its next submit is warmed up). Jobs also stage their DMA-read operands there. */
npk_status npk_rk_core_output(npk_rk *rt, unsigned c, uint64_t bytes);

/* One SUBMIT in any form: core c runs count[c] records from start[c] of `records` (one buffer
 * for every core's records); nonblock submits without BLOCK and then waits for each core's
 * completion (timed as wait_ns; npk_rk_submit_job is this with one core, blocking). */
typedef struct npk_rk_job {
    const npk_rk_mem *records;
    unsigned core_mask;
    uint32_t start[NPK_RK_MAX_CORES], count[NPK_RK_MAX_CORES];
    bool nonblock;
} npk_rk_job;
npk_status npk_rk_submit_form(npk_rk *rt, const npk_rk_job *job, npk_rk_stats *st);
/* npk_rk_submit_form plus the trace's events for the job (NPUKIT_TRACE): every spine submits
 * through this (npk_rk_submit_job does), so matmul, element-wise and fused jobs all appear. */
npk_status npk_rk_submit_traced(npk_rk *rt, npk_rk_job *job, npk_rk_stats *st, uint32_t tasks);

/* Stats a part of a call adds to the call's: counts, times and cores (not the NPU span, the
 * wall time or cores_used, which the parts' combination decides). */
void npk_rk_stats_add(npk_rk_stats *to, const npk_rk_stats *from);
/* The plan's tasks grouped by core (the planner lists a core's tasks contiguously): group i is
 * tasks [first[i], first[i] + count[i]); *groups of them, at most NPK_RK_MAX_CORES. */
npk_status npk_rk_core_groups(const npk_rk_plan *plan, size_t *first, size_t *count,
                              unsigned *groups);
/* Runs tasks [first, first + count) of one core, accounting in st (the worker's own). */
typedef npk_status (*npk_rk_core_fn)(void *ctx, size_t first, size_t count, npk_rk_stats *st);
/* One core's group of a call: tasks [first, first + count), and what running them gave. */
typedef struct npk_rk_core_job {
    size_t first, count;
    npk_rk_stats st; /* the group's own */
    npk_status status;
    uint64_t ns;   /* the group's own wall time */
    char msg[512]; /* npk_last_error() is per thread: carried back to the caller */
} npk_rk_core_job;
/* A runtime's persistent core workers (runtime_workers.c). */
typedef struct npk_rk_workers npk_rk_workers;
/* fn over jobs[0..n) at once: job 0 on the calling thread, the others on the pool's workers
 * (*pool created and its threads started on first need; a pool inherited across fork() is
 * replaced). Returns when every job is done; an error only when a worker could not be started
 * (then nothing ran). Calls on one pool must not overlap (the runtime's lock). */
npk_status npk_rk_workers_run(npk_rk_workers **pool, npk_rk_core_fn fn, void *ctx,
                              npk_rk_core_job *jobs, unsigned n);
/* Stop and join the pool's threads (those of this process) and free it; NULL is a no-op. */
void npk_rk_workers_free(npk_rk_workers *pool);
/* Worker threads the pool has started (0 for NULL). */
unsigned npk_rk_workers_started(const npk_rk_workers *pool);
/* Every core's group at once, one thread per core (none for one group; the caller's thread
 * runs the first, the runtime's persistent workers the others), as the vendor runtime drives
 * the cores: the groups' stats added into st, st->npu_span_ns the busiest core's NPU time. The
 * groups must touch disjoint parts of the result. */
npk_status npk_rk_run_cores(npk_rk_workers **pool, const npk_rk_plan *plan, npk_rk_core_fn fn,
                            void *ctx, npk_rk_stats *st);

#endif
