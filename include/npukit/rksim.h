/* SPDX-License-Identifier: MIT */
/* rksim: a functional simulator of the RK3588 NPU that sits behind the vendor rknpu kernel
 * interface. It answers the same requests (struct rknpu_* from rknpu_uapi.h, with the DRM
 * core's size rules and the kernel's errno values), keeps every buffer at its own 32-bit IOVA,
 * walks regcmd programs with a PC per core and executes the matmuls they configure.
 *
 * The documented hardware hazards are reproduced in the faithful mode (the default) and can be
 * switched off one by one (the ideal mode); see rksim_hazards[].
 */
#ifndef NPUKIT_RKSIM_H
#define NPUKIT_RKSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "npukit/export.h"

#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rksim rksim;

/* The documented hazards (issue list, spec "State gotchas", facts A.1/E). Numbers match the
 * issue's list; rksim_hazards[id - 1] is the row. */
typedef enum rksim_hazard_id {
    RKSIM_HZ_STALE_FRESH_OUTPUT = 1, /* first submit to a fresh cacheable output is stale */
    RKSIM_HZ_FEATURE_ADDR_CACHE,     /* rotating feature buffers corrupts results */
    RKSIM_HZ_INT8_ENTRY_WEDGE,       /* first integer submit after mode entry wedges */
    RKSIM_HZ_SUBCORE_NULL_CRASH,     /* core_mask != 1 with an empty subcore_task: Oops */
    RKSIM_HZ_WEDGE_STORM_HANG,       /* wedging submits without reset: hard hang */
    RKSIM_HZ_K_CEILING,              /* single-op K > 10752 wedges */
    RKSIM_HZ_N_CEILING,              /* N > 8192 per task silently wrong */
    RKSIM_HZ_CBUF_FLOOR,             /* 0x1040 below 0x1b hangs */
    RKSIM_HZ_SCHED_SMALL_K,          /* sched 1 at small K: zeros (M=1) / garbage (M>1) */
    RKSIM_HZ_B1_LARGE_M,             /* 0xB1 at K > 256 with large M: wrong partial rows */
    RKSIM_HZ_M_CEILING,              /* M above the ceiling for its K/dtype/schedule */
    RKSIM_HZ_K128_ENVELOPE,          /* fp16 K=128 sched 1: non-monotonic M envelope */
    RKSIM_HZ_DUPLICATE_REG,          /* a later stale copy of a duplicated register wins */
    RKSIM_HZ_SURFACE_ADD_WILD,       /* 0x40c0 holding a non-geometry value wild-writes */
    RKSIM_HZ_FP16_OUT_STAGE,         /* fp16 out w/o FP32TOFP16_EN zeros; BS 0x20150 and
                                        the forced atom-8 fp16 output hang */
    RKSIM_HZ_NARROW_INT_OUT,         /* int16/int8/fp16 int8-matmul output never completes */
    RKSIM_HZ_UNCHAINED_TASKS,        /* several tasks without chained trailers time out */
    RKSIM_HZ_INT4_SATURATION,        /* int4's int16 accumulator saturates at 0x7fff */
    RKSIM_HZ_SDP_CHAIN_PRECISION,    /* chained 2-input SDP fed another precision stalls */
    RKSIM_HZ_SDP_INT32_UNDERFETCH,   /* an int32 SDP feature under-fetches and stalls */
    RKSIM_HZ_SDP_INT32_TWO_LANE,     /* ... with 2N RDMA channels it runs as two int16 lanes */
    RKSIM_HZ_WDMA_SIZE_ZERO,         /* 0x405c left at 0: the write DMA's row bound is off */
    RKSIM_HZ_COUNT_PLUS_ONE
} rksim_hazard_id;
#define RKSIM_HZ_COUNT (RKSIM_HZ_COUNT_PLUS_ONE - 1)
#define RKSIM_HZ_BIT(id) (1u << ((id)-1))
#define RKSIM_HZ_ALL ((1u << RKSIM_HZ_COUNT) - 1)

/* The kernel interfaces (the simulator's front ends) a hazard row applies to. A row outside the
 * running job's kernel never fires: the job behaves as the row's evidence says that kernel
 * does (for the state hazards of the vendor driver, a rocket job starts clean). */
enum {
    RKSIM_KERNEL_RKNPU = 1u << 0,  /* the vendor rknpu driver (BSP kernel) */
    RKSIM_KERNEL_ROCKET = 1u << 1, /* the mainline rocket accel driver */
    RKSIM_KERNEL_ALL = RKSIM_KERNEL_RKNPU | RKSIM_KERNEL_ROCKET,
};

/* One row of the hazard table: what triggers it, what the faithful model does, what the ideal
 * mode does instead, the driver-side defence, where the hazard is documented, and the kernels
 * it applies to with the reason. */
typedef struct rksim_hazard {
    rksim_hazard_id id;
    const char *name;     /* short identifier */
    const char *trigger;  /* the register/state condition */
    const char *faithful; /* modelled board behaviour */
    const char *ideal;    /* behaviour with the hazard switched off */
    const char *defence;  /* what a driver does about it */
    const char *source;   /* spec section, fact id, or "inferred" */
    unsigned kernels;     /* RKSIM_KERNEL_* bits */
    const char *scope;    /* why those kernels: the evidence for the row's reach */
} rksim_hazard;

NPUKIT_API extern const rksim_hazard rksim_hazards[RKSIM_HZ_COUNT];

/* "rknpu", "rocket" or "rknpu, rocket": the kernels of a row's kernels bits. */
NPUKIT_API const char *rksim_kernels_name(unsigned kernels);

/* The longest a wedge sleeps, whatever the submit's timeout and the scale: a hostile timeout
 * (2^32 - 1 ms, scaled by 1/1000, is 71 minutes) still returns ETIMEDOUT within a second. */
#define RKSIM_MAX_WAIT_MS 1000.0

/* The end of the description the simulator's kernel front ends (rknpu and rocket) answer to
 * DRM_IOCTL_VERSION, after the driver's own words: the name stays the driver's ("rknpu",
 * "rocket") so programs find it, and the description says the NPU behind it is a model, so
 * that whoever reads it (npukit's kernel backend, through the LD_PRELOAD shim too) labels the
 * times it reports as modelled, not measured. */
#define RKSIM_DRM_DESC_MARK "(npukit rksim simulator)"

/* The decoded-weights cache's default and largest size (MiB, all cores together). */
enum { RKSIM_WEIGHT_CACHE_DEFAULT_MIB = 256, RKSIM_WEIGHT_CACHE_MAX_MIB = 65536 };

typedef struct rksim_config {
    uint32_t ideal_mask;       /* RKSIM_HZ_BIT(id) set: hazard id behaves ideally */
    double timeout_scale;      /* a wedge sleeps submit.timeout * this, at most RKSIM_MAX_WAIT_MS
                                * (0: no sleep) */
    const char *soc;           /* the SoC modelled, a row of rk_soc.h (NULL: "rk3588") */
    unsigned cores;            /* cores modelled, 1..the SoC's (0: all of them) */
    uint32_t weight_cache_mib; /* decoded weights kept for reuse, all cores together (MiB;
                                * 0: only the block in use); a model cost, not an NPU one */
} rksim_config;

/* Faithful mode, the default SoC with all its cores, timeouts scaled by 1/1000 (6000 ms -> 6 ms), a
 * 256 MiB weights cache. from_env applies NPUKIT_RKSIM_IDEAL ("all", or hazard numbers such as
 * "1,3"), NPUKIT_RKSIM_TIMEOUT_SCALE, NPUKIT_RKSIM_WEIGHT_CACHE_MIB (0..65536) and NPUKIT_RKSIM_SOC
 * (a SoC row's name); a value that does not parse is NPK_EINVAL naming it, and cfg is left
 * unchanged. */
NPUKIT_API void rksim_config_default(rksim_config *cfg);
NPUKIT_API npk_status rksim_config_from_env(rksim_config *cfg);

NPUKIT_API npk_status rksim_create(const rksim_config *cfg, rksim **out);
NPUKIT_API void rksim_destroy(rksim *sim);
/* The SoC the simulator models, by its name in the SoC table ("rk3588"). */
NPUKIT_API const char *rksim_soc_name(const rksim *sim);

/* The kernel interface: one rknpu/DRM request. `request` carries the caller's struct size; the
 * front end copies in min(caller size, kernel size), zero-fills the rest and copies back what
 * fits, as the DRM core does. Returns 0 or a negative errno (the kernel's values). */
NPUKIT_API int rksim_ioctl(rksim *sim, unsigned long request, void *arg);

/* The DRM nodes the rknpu driver exposes: the primary card node (/dev/dri/card1) and the
 * render node (/dev/dri/renderD129). Both answer every request alike except SUBMIT: a raw
 * SUBMIT through the render node is accepted (0) and runs no task, task_counter 0 (spec
 * "Submission model": raw RKNPU_SUBMIT only works on the card node; facts A.1). */
typedef enum rksim_node { RKSIM_NODE_CARD = 0, RKSIM_NODE_RENDER } rksim_node;
/* rksim_ioctl on a given node; rksim_ioctl is the card node's. */
NPUKIT_API int rksim_node_ioctl(rksim *sim, rksim_node node, unsigned long request, void *arg);

/* mmap of a MEM_MAP offset: the CPU view of that buffer, or NULL with *err = errno value. */
NPUKIT_API void *rksim_mmap(rksim *sim, uint64_t offset, size_t length, int *err);
/* Release a CPU mapping returned by rksim_mmap. Returns false when addr is not one. */
NPUKIT_API bool rksim_munmap(rksim *sim, void *addr, size_t length);

/* What the last SUBMIT did, for diagnostics (the kernel interface itself only has errno,
 * task_counter and hw_elapse_time). */
typedef enum rksim_outcome {
    RKSIM_OK = 0,
    RKSIM_WEDGE,       /* never completed: ETIMEDOUT, core needs ACT_RESET */
    RKSIM_FAULT,       /* DMA outside live buffers: the job fails like a wedge */
    RKSIM_UNSUPPORTED, /* a register combination outside the model: EOPNOTSUPP */
    RKSIM_CRASH,       /* modelled kernel crash / hard hang: dead until re-opened */
    RKSIM_REJECTED,    /* the kernel rejected the request (EINVAL, ...) */
} rksim_outcome;

typedef struct rksim_report {
    rksim_outcome outcome;
    uint32_t hazards; /* RKSIM_HZ_BIT of each hazard whose trigger occurred in this
                         submit (in the ideal mode too, where it had no effect) */
    uint32_t task_counter;
    uint32_t ops;        /* operations (op-enables) executed */
    uint64_t fault_iova; /* first faulting address (RKSIM_FAULT) */
    double model_us;     /* modelled hardware time (a model, not a measurement) */
    char message[256];   /* what happened, naming the register or value */
} rksim_report;

NPUKIT_API const rksim_report *rksim_last_report(const rksim *sim);
NPUKIT_API const char *rksim_outcome_name(rksim_outcome o);

/* True once a modelled kernel crash or hard hang happened: every request fails with ENODEV
 * until the simulator is destroyed and created again (a reboot). */
NPUKIT_API bool rksim_is_dead(const rksim *sim);

/* A NONBLOCK SUBMIT returns 0 once the kernel has accepted the job; how the job ended is what
 * its completion (the kernel's fence) tells. This takes core `core`'s pending completion: 0,
 * or -ETIMEDOUT for a job that wedged or faulted, which the kernel reports only after the
 * submit's timeout (*wait_ms: how long the caller should wait before it has the answer, the
 * scaled timeout). *model_us: the job's modelled time. 0 with nothing pending. */
NPUKIT_API int rksim_nonblock_take(rksim *sim, unsigned core, double *model_us, double *wait_ms);

#ifdef __cplusplus
}
#endif
#endif
