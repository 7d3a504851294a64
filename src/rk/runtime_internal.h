/* Runtime state shared by the runtime's files. */
#ifndef NPUKIT_RK_RUNTIME_INTERNAL_H
#define NPUKIT_RK_RUNTIME_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "npukit/measure.h"
#include "npukit/rk.h"
#include "npukit/rk_device.h"
#include "npukit/rk_regcmd.h"
#include "npukit/rk_soc.h"

/* Per-core buffers: the feature buffer is allocated once and never moves (the NPU caches
 * feature state by address, spec "Feature address caching"); the task buffer holds the
 * rknpu_task record and the regcmd program; the output buffer grows when a task needs more. */
typedef struct npk_rk_core_bufs {
    npk_rk_mem feature;
    npk_rk_mem task;
    npk_rk_mem output;
    atomic_bool output_warm; /* read by its core's worker, cleared by a reset on any core */
} npk_rk_core_bufs;

enum { NPK_RK_MAX_CORES = 3 };

struct npk_rk {
    npk_rk_device *dev;
    const npk_rk_soc *soc;
    unsigned cores;
    uint32_t chain; /* tasks per SUBMIT (1: one task per job) */
    /* Bytes of one feature slot: the whole CBUF (banks x bank size). The planner's M ceilings
     * keep every feature tile within the data banks (at most 11); the slot's spare bank covers
     * cube-mode padding rows. A job of L chained tasks uses L slots. */
    uint32_t feature_slot;
    bool simulated;
    uint32_t drv_version, hw_version;
    pthread_mutex_t lock;     /* one call at a time (others get NPK_EBUSY) */
    /* Cores are driven by one worker thread each. A submit holds npu_lock shared; a reset
     * holds it exclusively, so it never lands under another core's running job. */
    pthread_rwlock_t npu_lock;
    /* policy state */
    bool have_prec;
    npk_rk_prec last_prec;
    atomic_uint pending;      /* NPK_POLICY_* actions due before the next submit */
    npk_rk_core_bufs core[NPK_RK_MAX_CORES];
};

struct npk_rk_weights {
    const npk_rk *owner; /* the runtime whose device holds mem: its IOVAs mean nothing to
                            another device, or name another buffer there */
    npk_rk_prec in;
    uint32_t k, n;
    uint32_t k_slice;   /* K per slice (multiple of 32); the last slice may be shorter */
    uint32_t slices;
    uint32_t np;        /* N padded to the dtype's group */
    uint64_t slice_bytes; /* bytes of one full slice over all Np columns */
    npk_rk_mem mem;
};

/* Buffer flags (facts A.1): data buffers NON_CONTIGUOUS | CACHEABLE | IOVA alignment, synced
 * both ways; the task buffer additionally KERNEL_MAPPING, which SUBMIT requires. */
#define NPK_RK_DATA_FLAGS                                                                     \
    (RKNPU_MEM_NON_CONTIGUOUS | RKNPU_MEM_CACHEABLE | RKNPU_MEM_IOMMU_LIMIT_IOVA_ALIGNMENT)
#define NPK_RK_TASK_FLAGS (NPK_RK_DATA_FLAGS | RKNPU_MEM_KERNEL_MAPPING)

/* Task buffer of a job of up to L tasks: L rknpu_task records from 0, then the L regcmd
 * programs (108 + 4 entries each) from a 64-byte boundary (PC_SOURCE_ADDR needs 16). */
static inline uint64_t npk_rk_regcmd_offset(uint32_t chain, uint32_t i)
{
    uint64_t records = ((uint64_t)chain * sizeof(struct rknpu_task) + 63) / 64 * 64;
    return records +
           (uint64_t)i * (NPK_RK_MATMUL_BODY + NPK_RK_TRAILER_ENTRIES) * sizeof(npk_rk_entry);
}

/* NPK_EINVAL naming the first element outside [-8, 7]. */
npk_status npk_rk_check_int4(const int8_t *v, uint64_t count, const char *what);

#endif
