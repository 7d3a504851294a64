/* The RK NPU runtime: C = A . B for any shape, on the real NPU or the simulator.
 *
 *   npk_rk *rt;
 *   npk_rk_open("auto", &rt);                          // the NPU if present, else the simulator
 *   npk_rk_weights *w;
 *   npk_rk_weights_pack(rt, NPK_PREC_FP16, K, N, b, 1, &w);   // B: uint16_t fp16 bits [K][N]
 *   npk_rk_matmul(rt, w, M, a, NPK_PREC_FP32, c, NULL);        // A [M][K] -> C float [M][N]
 *   npk_rk_weights_free(rt, w);
 *   npk_rk_close(rt);
 *
 * Element types in the user's row-major arrays: fp16 as uint16_t bit patterns, int8 as int8_t,
 * int4 as int8_t values in [-8, 7]; outputs float (fp32), uint16_t (fp16), int32_t.
 *
 * Supported: fp16 x fp16 -> fp32 or fp16, int8 x int8 -> int32, int4 x int4 -> int32 (exact:
 * K slices are sized so no int16 partial can saturate, then accumulated in int32). Any
 * M, K, N >= 1: the shape is padded to the hardware's alignment internally and split by the
 * planner into tasks within every limit; only the user's shape is written.
 *
 * Thread safety: one npk_rk may be shared between threads, but its calls are not interleaved:
 * a call that finds another in progress on the same runtime returns NPK_EBUSY at once (it
 * never waits and never interleaves submits). Separate runtimes are independent. Inside a call
 * the runtime drives each core from its own thread (blocking single-core submits), and a reset
 * waits until no core has a job in flight.
 *
 * Errors are npk_status codes; npk_last_error() names the bad argument and the limit. A submit
 * that fails (after the one recovery retry the state policy allows) returns an error — never a
 * wrong result. */
#ifndef NPUKIT_RK_H
#define NPUKIT_RK_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/rk_types.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct npk_rk npk_rk;
typedef struct npk_rk_weights npk_rk_weights;

/* device: "auto" or NULL (the NPU if an rknpu node exists, else the simulator), "sim", "npu"
 * (auto-detected node; fails if none), or a device path such as /dev/dri/card1. */
npk_status npk_rk_open(const char *device, npk_rk **out);
void npk_rk_close(npk_rk *rt);

typedef struct npk_rk_info {
    const char *soc;       /* "rk3588" */
    char device[64];       /* "sim" or the node path */
    bool simulated;
    unsigned cores;
    uint32_t drv_version;  /* GET_DRV_VERSION (e.g. 908 for 0.9.8) */
    uint32_t hw_version;   /* GET_HW_VERSION */
} npk_rk_info;
npk_status npk_rk_query(npk_rk *rt, npk_rk_info *info);

/* Use at most `cores` cores (1..the SoC's count; default all). */
npk_status npk_rk_set_cores(npk_rk *rt, unsigned cores);

/* The most tasks one submit chains (npk_rk_set_chain; the kernel accepts up to 4095, this
 * bounds the runtime's buffers). */
#define NPK_RK_MAX_CHAIN 64u

/* Chain up to `tasks_per_submit` (1..NPK_RK_MAX_CHAIN, default 1) consecutive tasks of a core into one SUBMIT:
 * their regcmd trailers link each program to the next (task_number > 1), which saves the
 * per-submit floor. Each task of a job has its own feature and output slot; a job's first task
 * always uses the core's first feature slot. Changing it re-creates the per-core buffers. */
npk_status npk_rk_set_chain(npk_rk *rt, unsigned tasks_per_submit);

/* Pack B [K][N] (row-major, `in` elements) into NPU memory once; it stays resident until freed.
 * m_hint is the typical M it will be multiplied with: it chooses the K slicing (1: decode, the
 * whole K per task where it fits; >= 64: prefill, slices where the M-tile schedule holds the
 * most rows). Any M works with either. */
npk_status npk_rk_weights_pack(npk_rk *rt, npk_rk_prec in, uint32_t k, uint32_t n, const void *b,
                               uint32_t m_hint, npk_rk_weights **out);
/* Frees w's NPU buffer in the runtime that packed it (weights belong to one runtime; a matmul
 * on another refuses them). Call it before closing that runtime. */
void npk_rk_weights_free(npk_rk *rt, npk_rk_weights *w);

/* What one call did. Times in nanoseconds; the NPU time is the device's hw_elapse_time: a
 * model when the device is the simulator. */
typedef struct npk_rk_stats {
    uint32_t tasks;          /* planned tasks */
    uint32_t submits;        /* SUBMIT ioctls, warm-ups and retries included */
    uint32_t warmups;        /* throwaway submits to fresh output buffers */
    uint32_t resets;         /* ACT_RESETs issued by the state policy */
    uint32_t retries;        /* submits retried after a recovery */
    uint64_t npu_ns;         /* sum of hw_elapse_time over every submit of every core */
    uint64_t npu_span_ns;    /* the busiest core's sum: the call's NPU time, as the cores run
                                concurrently (one submitting thread each) */
    uint64_t host_ns;        /* wall time of the whole call */
    uint64_t synth_ns, pack_ns, sync_ns, submit_ns, accumulate_ns; /* host-side parts */
    uint32_t cores_used;     /* cores the plan spread N over (fewer than allowed for narrow N) */
} npk_rk_stats;

/* C [M][N] = A [M][K] . B. out: NPK_PREC_FP32 or NPK_PREC_FP16 for fp16 weights, NPK_PREC_INT32
 * for int8 and int4. stats may be NULL. */
npk_status npk_rk_matmul(npk_rk *rt, const npk_rk_weights *w, uint32_t m, const void *a,
                         npk_rk_prec out, void *c, npk_rk_stats *stats);

/* The weights' shape and precision. */
void npk_rk_weights_shape(const npk_rk_weights *w, npk_rk_prec *in, uint32_t *k, uint32_t *n);

#ifdef __cplusplus
}
#endif
#endif
