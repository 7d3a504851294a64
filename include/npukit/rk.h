/* SPDX-License-Identifier: MIT */
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
#include "npukit/export.h"

#include "npukit/rk_act_hw.h"
#include "npukit/rk_sdp_hw.h"
#include "npukit/rk_types.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct npk_rk npk_rk;
typedef struct npk_rk_weights npk_rk_weights;

/* device: "auto" or NULL (an rknpu node if one exists, else a rocket node, else the
 * simulator), "sim", "sim-rocket" (the simulator behind the rocket interface), "npu"
 * (auto-detected rknpu node; fails if none), "rocket" (auto-detected /dev/accel node), or a
 * device path such as /dev/dri/card1 or /dev/accel/accel0 (its driver picks the interface). */
NPUKIT_API npk_status npk_rk_open(const char *device, npk_rk **out);
/* The same, but every runtime opened this way with the same device name shares one engine:
 * the device, its per-core buffers and its reset lock. Device buffers and weights resident on
 * it serve all of them; their calls run at once on different cores and take turns (waiting,
 * not NPK_EBUSY) on a core they both use, so a core's feature buffer keeps one address (spec
 * "Feature address caching") and a reset never lands under another runtime's job. A runtime
 * opened with npk_rk_open shares nothing with any other. */
NPUKIT_API npk_status npk_rk_open_shared(const char *device, npk_rk **out);
NPUKIT_API void npk_rk_close(npk_rk *rt);

typedef struct npk_rk_info {
    const char *soc; /* "rk3588" */
    char device[64]; /* "sim" or the node path */
    bool simulated;
    unsigned cores;
    uint32_t drv_version; /* GET_DRV_VERSION (e.g. 908 for 0.9.8) */
    uint32_t hw_version;  /* GET_HW_VERSION */
    char kernel[16];      /* the kernel interface: "rknpu" or "rocket" */
    bool sdp;             /* the kernel runs SDP tasks (element-wise ops, activations, softmax):
                             both do (an SDP task ends on the DPU interrupt, the one rocket
                             waits for) */
    /* Packed weights the device can really hold: each NPU address space has 32-bit IOVAs, of
     * which 4 GiB less 256 MiB (kept for the runtime's own buffers) take weights. rknpu 0.9.8
     * places them over its IOMMU domains (16); rocket over one space, since every core's file
     * holds a copy of them. */
    unsigned weight_spaces;   /* address spaces weights are placed over */
    uint64_t weight_capacity; /* bytes of packed weights the device holds at most */
    uint64_t weight_used;     /* bytes of packed weights placed now (every runtime on it) */
    bool pdp;                 /* the kernel completes PDP tasks (max and min pooling): rocket
                                 ends every job on the DPU interrupt, so there an average pool
                                 runs as a depthwise conv and max/min are refused
                                 (npk_rk_pool2d) */
} npk_rk_info;
NPUKIT_API npk_status npk_rk_query(npk_rk *rt, npk_rk_info *info);

/* Use at most `cores` cores (1..the SoC's count; default all): cores 0..cores-1. */
NPUKIT_API npk_status npk_rk_set_cores(npk_rk *rt, unsigned cores);
/* Pin the runtime's calls to the cores in `mask` (bit c: core c; 0: every core, the default).
 * A call spreads N over the pinned cores in mask order; a single bit runs every task on that
 * core. Bits beyond the SoC's cores are refused. */
NPUKIT_API npk_status npk_rk_set_core_mask(npk_rk *rt, unsigned mask);
/* The pinned cores as a mask (after set_cores(n): the low n bits). */
NPUKIT_API unsigned npk_rk_core_mask(const npk_rk *rt);

/* The most tasks one submit chains (npk_rk_set_chain; the kernel accepts up to 4095, this
 * bounds the runtime's buffers). */
#define NPK_RK_MAX_CHAIN 64u

/* Chain up to `tasks_per_submit` (1..NPK_RK_MAX_CHAIN, default 1) consecutive tasks of a core into
 * one SUBMIT: their regcmd trailers link each program to the next (task_number > 1), which saves
 * the per-submit floor. Each task of a job has its own feature and output slot; a job's first task
 * always uses the core's first feature slot. Changing it re-creates the per-core buffers. */
NPUKIT_API npk_status npk_rk_set_chain(npk_rk *rt, unsigned tasks_per_submit);

/* Progress of a long matmul (npk_rk_matmul and the calls built on it): fn(user, done, total)
 * once a job's tasks are read back, done counting up to total (the call's planned tasks; the
 * last report has done == total). Reports come from the threads that run the cores, one at a
 * time, never two at once; fn must not call back into the runtime. NULL: no reports (the
 * default). Costs one call per job, so the callback should be cheap (a terminal line at most
 * every so often). */
typedef void (*npk_rk_progress_fn)(void *user, uint32_t done, uint32_t total);
NPUKIT_API npk_status npk_rk_set_progress(npk_rk *rt, npk_rk_progress_fn fn, void *user);

/* Submission forms: how a call's tasks reach the NPU. "single" (the default, board-validated:
 * one task per SUBMIT, blocking), "chained" (up to set_chain tasks linked by their trailers;
 * set_chain > 1 on a "single" runtime selects it), "concat" (up to set_chain tasks in one regcmd
 * array with CORE_CTRL 0x000f between them: a task_number = 1 job), "multitask" (the vendor's
 * form: every core's tasks in one SUBMIT, a core's tasks 0 and 1 whole, later ones
 * incremental programs),
 * "nonblock" (SUBMIT without BLOCK, then a per-core completion wait, timed apart as submit_ns
 * and wait_ns). A form the device's kernel cannot run is refused naming why; a matmul
 * whose weights a form does not serve is refused at the call. */
NPUKIT_API npk_status npk_rk_set_submission(npk_rk *rt, const char *form);
/* Until a form is set, or after "auto", a matmul whose weights the vendor batches as a
 * multi-task SUBMIT (int4, the precision row's vendor_multitask; spec "TWO distinct batch
 * mechanisms") is planned twice, in the runtime's form and in "multitask" with the vendor's
 * shape (one row per task), and runs in the one the planner's cost model (NPU, submits and host)
 * finds cheaper; any form set explicitly (even "single") is used as it is. Where the kernel
 * cannot run "multitask" (rocket) nothing is weighed. The choice for a matmul of w at M = m:
 * the form's name (a static string) and both modelled totals in microseconds (multitask_us 0
 * when it was not weighed); NULL pointers are skipped. */
NPUKIT_API npk_status npk_rk_submission_choice(npk_rk *rt, const npk_rk_weights *w, uint32_t m,
                                               npk_rk_prec out, const char **form,
                                               double *form_us, double *multitask_us);
/* The runtime's form's name. */
NPUKIT_API const char *npk_rk_submission(const npk_rk *rt);
/* The forms, for listing: name and one line about it (NULL past the end). */
NPUKIT_API unsigned npk_rk_submission_count(void);
NPUKIT_API const char *npk_rk_submission_name(unsigned i);
NPUKIT_API const char *npk_rk_submission_about(unsigned i);
/* How a matmul run in form `form` (NULL: single) at `chain` tasks per submit groups its tasks
 * into submits, into a plan request (its chain and chain_m_tiles) for the plan's cost; a
 * "single" form with chain > 1 is the chained form, as npk_rk_set_chain makes it. */
struct npk_rk_plan_request;
NPUKIT_API npk_status npk_rk_submission_plan(const char *form, unsigned chain,
                                             struct npk_rk_plan_request *req);

/* Feature layout: 0 (the default) packs A as the dtype's own layout (fp16/int8 dense line
 * rows, int4 cube); a factor F puts each row of a task's feature F x its packed width apart in
 * line form, CNA_DMA_CON1 (0x107c) = F x Kp x eb / 16, the pad between rows zero. Described at
 * fp16 1, 2, 4, 8 (board-confirmed, spec "0x107c CNA_DMA_CON1.LINE_STRIDE") and int8 1; int4 at
 * 2, the spec's K/16 with each row followed by a zero line ("mc_phys = 2H", inferred): int4's
 * native multi-row line form, at most 16384/K rows per task (npk_rk_pitch_row_of; another
 * factor is refused at the call, naming the ones described). Weights pack the same either way. */
NPUKIT_API npk_status npk_rk_set_feature_pitch(npk_rk *rt, unsigned factor);
NPUKIT_API unsigned npk_rk_feature_pitch(const npk_rk *rt);
/* M schedule: "auto" (the default: the planner's K split and M tiles, chosen by cost) or "chain"
 * (the spec's PC-chained M-tile schedule: the whole K per task at a captured K, 512..8192, R
 * rows per tile, a core's tiles chained up to npk_rk_set_chain per SUBMIT, the later tiles of a
 * job flagged 0x2000; it re-reads the weights per tile, so the planner never picks it itself).
 * Set it before packing the weights (they are packed in one K slice for it). */
NPUKIT_API npk_status npk_rk_set_schedule(npk_rk *rt, const char *sched);
NPUKIT_API const char *npk_rk_schedule(const npk_rk *rt);

/* Pack B [K][N] (row-major, `in` elements) into NPU memory once; it stays resident until freed.
 * m_hint is the typical M it will be multiplied with: it chooses the K slicing (1: decode, the
 * whole K per task where it fits; >= 64: prefill, slices where the M-tile schedule holds the
 * most rows). Any M works with either. */
NPUKIT_API npk_status npk_rk_weights_pack(npk_rk *rt, npk_rk_prec in, uint32_t k, uint32_t n,
                                          const void *b, uint32_t m_hint, npk_rk_weights **out);
/* Frees w's NPU buffer in the runtime that packed it (weights belong to one runtime; a matmul
 * on another refuses them). Call it before closing that runtime. */
NPUKIT_API void npk_rk_weights_free(npk_rk *rt, npk_rk_weights *w);

/* What one call did. Times in nanoseconds; the NPU time is the device's hw_elapse_time: a
 * model when the device is the simulator. */
typedef struct npk_rk_stats {
    uint32_t tasks;       /* planned tasks */
    uint32_t submits;     /* SUBMIT ioctls, warm-ups and retries included */
    uint32_t warmups;     /* throwaway submits to fresh output buffers */
    uint32_t resets;      /* ACT_RESETs issued by the state policy */
    uint32_t retries;     /* submits retried after a recovery */
    uint64_t npu_ns;      /* sum of hw_elapse_time over every submit of every core */
    uint64_t npu_span_ns; /* the busiest core's sum: the call's NPU time, as the cores run
                             concurrently (one submitting thread each) */
    uint64_t host_ns;     /* wall time of the whole call */
    /* host-side parts; a matmul's synth, pack, sync and accumulate are wall time, or each
     * part's CPU time on its thread with NPUKIT_RK_HOST_CLOCK=thread (docs/rk-runtime.md) */
    uint64_t synth_ns, pack_ns, sync_ns, submit_ns, accumulate_ns;
    uint64_t wait_ns;    /* completion waits after non-blocking submits (submit_ns excludes them) */
    uint32_t cores_used; /* cores the plan spread N over (fewer than allowed for narrow N) */
    uint32_t core_mask;  /* the cores the tasks ran on */
    uint32_t b_repacks;  /* bound weights repacked because their bytes changed */
    uint64_t b_check_ns; /* time spent checking bound weights for changes (checksum) */
    uint32_t sdp_tasks;  /* element-wise (SDP) tasks among `tasks` */
    uint32_t fused_jobs; /* submits that chained a matmul and its element-wise epilogue */
    uint32_t sdp_direct; /* SDP tasks that read and wrote device buffers in place, unstaged */
    uint64_t handoff_ns; /* handing the cores' task groups to their threads and collecting them:
                            the cores' phase beyond its slowest group (0 on one core) */
    uint32_t host_steps; /* steps of the call run on the host because the NPU model does not
                            cover them (softmax's row maximum and sum, a norm's reductions and
                            normalisation), each named in docs/rk-activations.md */
    uint32_t a_beyond_fp16; /* A given as floats (npk_rk_matmul_f32, a_fp32 items): 1 when a
                               finite float of A was beyond fp16's range (|x| > 65504), which
                               the rounding made an infinity or 65504, so C is not the product
                               of the floats given (a batch: the items this happened to, each
                               item's stats saying which); found as A is converted, not by a
                               pass of its own */
} npk_rk_stats;

/* C [M][N] = A [M][K] . B. out: NPK_PREC_FP32 or NPK_PREC_FP16 for fp16 weights, NPK_PREC_INT32
 * for int8 and int4. stats may be NULL. */
NPUKIT_API npk_status npk_rk_matmul(npk_rk *rt, const npk_rk_weights *w, uint32_t m, const void *a,
                                    npk_rk_prec out, void *c, npk_rk_stats *stats);
/* The same for fp16 weights with A [M][K] as floats: each element rounded to fp16 (to nearest,
 * ties to even, as npk_f32_to_f16) while it is packed for the NPU, so C is bit for bit
 * npk_rk_matmul's on the converted A, without the caller's fp16 copy of it. A finite value
 * beyond fp16's range becomes an infinity (or 65504) as the conversion makes it, and
 * stats->a_beyond_fp16 says so: a caller for whom that matters computes C again its own way
 * instead of reading A once more to check first. Other weights: NPK_EINVAL. */
NPUKIT_API npk_status npk_rk_matmul_f32(npk_rk *rt, const npk_rk_weights *w, uint32_t m,
                                        const float *a, npk_rk_prec out, void *c,
                                        npk_rk_stats *stats);

/* ---- Several matmuls in one call ------------------------------------------------------------
 * Independent matmuls C_i [M_i][N_i] = A_i [M_i][K_i] . B_i, each with its own weights and M,
 * planned as npk_rk_matmul plans each and packed into the same jobs: every core's tasks of all
 * the matmuls chained up to npk_rk_set_chain tasks per SUBMIT (with the "multitask" form, every
 * core's in one SUBMIT). The spec's lever for M = 1 decode and per-expert MoE GEMVs ("TWO
 * distinct batch mechanisms"): L matmuls of T tasks pay about ceil(L*T / cores / chain) submit
 * floors per core instead of L*T / cores. The weights share one input precision (a job runs in
 * one precision mode); `out` is as npk_rk_matmul takes it for them; C_i must not overlap.
 * items[i].stats (written): that matmul's tasks, the cores they ran on, and the NPU time of the
 * jobs they rode in, shared among those jobs' tasks (submits: the ones it shared). stats: the
 * whole call. */
#define NPK_RK_BATCH_MAX 4096u
typedef struct npk_rk_matmul_item {
    const npk_rk_weights *w;
    uint32_t m;
    const void *a;      /* A [M][K] */
    void *c;            /* C [M][N] */
    npk_rk_stats stats; /* out */
    bool a_fp32;        /* A holds floats, rounded to fp16 as npk_rk_matmul_f32 does (fp16
                           weights only); false: the weights' element type */
} npk_rk_matmul_item;
NPUKIT_API npk_status npk_rk_matmul_batch(npk_rk *rt, npk_rk_matmul_item *items, uint32_t count,
                                          npk_rk_prec out, npk_rk_stats *stats);

/* The weights' shape and precision. */
NPUKIT_API void npk_rk_weights_shape(const npk_rk_weights *w, npk_rk_prec *in, uint32_t *k,
                                     uint32_t *n);

/* ---- Device memory --------------------------------------------------------------------------
 * NPU-visible buffers allocated through the runtime: a host pointer and a size. They are
 * process-wide: a buffer serves any runtime's calls (as A, B or C by its host pointer, and as
 * weights read in place by the NPU on any runtime sharing its engine), may be freed after the
 * runtime that created it is closed, and keeps that engine open until it is freed. The CPU sees
 * the bytes through npk_rk_buffer_host(); after writing bytes the NPU reads, or before reading
 * bytes the NPU wrote, sync them (the runtime syncs what its own calls read and write). */
typedef struct npk_rk_buffer npk_rk_buffer;

typedef enum npk_rk_sync_dir {
    NPK_RK_SYNC_TO_DEVICE = 1,   /* CPU writes -> NPU */
    NPK_RK_SYNC_FROM_DEVICE = 2, /* NPU writes -> CPU */
    NPK_RK_SYNC_BOTH = 3,
} npk_rk_sync_dir;

NPUKIT_API npk_status npk_rk_buffer_create(npk_rk *rt, uint64_t size, npk_rk_buffer **out);
/* Allocation flags of npk_rk_buffer_create_flags. */
typedef enum npk_rk_buffer_flags {
    NPK_RK_BUFFER_CACHEABLE = 0,     /* the default: CPU-cached, synced around NPU access */
    NPK_RK_BUFFER_NON_CACHEABLE = 1, /* rknpu: a buffer without CPU caches (MEM_CREATE without
                                        RKNPU_MEM_CACHEABLE): syncs have nothing to do and
                                        make no request. Rocket has no such buffer (every
                                        buffer object is cached, PREP_BO/FINI_BO bracket the
                                        CPU's access): the flag is accepted, the buffer is
                                        cacheable (npk_rk_buffer_cacheable says so). */
} npk_rk_buffer_flags;
/* npk_rk_buffer_create with npk_rk_buffer_flags (EINVAL naming any other bit). */
NPUKIT_API npk_status npk_rk_buffer_create_flags(npk_rk *rt, uint64_t size, unsigned flags,
                                                 npk_rk_buffer **out);
/* True when the kernel made the buffer CPU-cacheable (what it is, not what was asked for);
 * false for a non-cacheable rknpu buffer and for an imported dma-buf (its caches are the
 * exporter's: DMA_BUF_IOCTL_SYNC). */
NPUKIT_API bool npk_rk_buffer_cacheable(const npk_rk_buffer *buf);
/* A dma-buf (fd, e.g. from a DMA heap) as a buffer: imported through the kernel (PRIME) where
 * the driver imports (rknpu: the NPU reads it in place like a buffer of this runtime), else
 * mapped for the CPU only (mainline rocket has no import: every call stages it). The buffer
 * covers the whole dma-buf; it keeps its own duplicate of fd; syncs are the dma-buf's
 * (DMA_BUF_IOCTL_SYNC). npk_rk_buffer_free releases the import, never the exporter's memory. */
NPUKIT_API npk_status npk_rk_buffer_import(npk_rk *rt, int fd, npk_rk_buffer **out);
/* True for a buffer of npk_rk_buffer_import. */
NPUKIT_API bool npk_rk_buffer_imported(const npk_rk_buffer *buf);
/* NPK_EFAULT, naming both sizes, when an imported buffer's dma-buf (or memfd) is now shorter
 * than it was at the import: the pages past its new end are gone from every mapping, and
 * touching them would raise SIGBUS. NPK_OK for any other buffer. Checked before a call reads or
 * writes the buffer; the file's owner may shrink it at any time. */
NPUKIT_API npk_status npk_rk_buffer_check(const npk_rk_buffer *buf);
/* Frees the buffer's device memory (whatever runtime created it); NULL is a no-op. */
NPUKIT_API void npk_rk_buffer_free(npk_rk_buffer *buf);
NPUKIT_API void *npk_rk_buffer_host(const npk_rk_buffer *buf);
NPUKIT_API uint64_t npk_rk_buffer_size(const npk_rk_buffer *buf);
/* The buffer's NPU address (32-bit IOVA). */
NPUKIT_API uint32_t npk_rk_buffer_iova(const npk_rk_buffer *buf);
/* Sync [offset, offset + size) (size 0: to the end). */
NPUKIT_API npk_status npk_rk_buffer_sync(npk_rk_buffer *buf, uint64_t offset, uint64_t size,
                                         npk_rk_sync_dir dir);

/* ---- Operand layouts -------------------------------------------------------------------------
 * B may be given row-major [K][N], transposed [N][K], or in the NPU's native weight layout
 * (rk_layout.h: [Np/G][Kp/32][G][32], G = 16 fp16, 32 int8, 64 int4; int4 two per byte, the
 * even index in the low nibble). A native B whose K exceeds NPK_RK_NATIVE_B_SEGMENT_K is a
 * sequence of ceil(K / NPK_RK_NATIVE_B_SEGMENT_K) segments, each a native block of its own K
 * range over all Np columns, the last one holding the remainder; the runtime runs them as its K
 * slices. A and C may be row-major or in the NPU's native (cube) layouts: A [Kp/C2][M][C2]
 * (C2 = 8 fp16, 16 int8, 32 int4, int4 two per byte), C [Np/C2o][M][C2o] (C2o = 4 for fp32 and
 * int32, 8 for fp16). Row-major int4 stays one int8_t per element. */
typedef enum npk_rk_layout {
    NPK_RK_ROWS = 0,       /* row-major: B [K][N], A [M][K], C [M][N] */
    NPK_RK_NATIVE = 1,     /* the NPU's own layout */
    NPK_RK_TRANSPOSED = 2, /* B only: [N][K] */
} npk_rk_layout;
typedef npk_rk_layout npk_rk_b_layout;

/* K per segment of a native B on the RK3588. */
#define NPK_RK_NATIVE_B_SEGMENT_K 8192u

/* Bytes B of this shape occupies in a layout (native: the padded, segmented blocks). */
NPUKIT_API uint64_t npk_rk_b_layout_bytes(npk_rk_prec in, uint32_t k, uint32_t n,
                                          npk_rk_layout layout);
/* Convert row-major B [K][N] into the native layout (dst of npk_rk_b_layout_bytes(.., NATIVE)
 * bytes), segments and padding included. */
NPUKIT_API npk_status npk_rk_b_to_native(npk_rk_prec in, uint32_t k, uint32_t n, const void *b,
                                         void *dst, uint64_t dst_size);

/* npk_rk_weights_pack with B in any layout. */
NPUKIT_API npk_status npk_rk_weights_pack_layout(npk_rk *rt, npk_rk_prec in, uint32_t k, uint32_t n,
                                                 const void *b, npk_rk_layout layout,
                                                 uint32_t m_hint, npk_rk_weights **out);

/* Weights that live in a device buffer, at `offset`, in `layout`, and are read at every call:
 * bytes changed between calls give the new result.
 *   - A native fp16 or int8 B on a buffer of this runtime's engine (offset a multiple of 64) is
 *     read in place by the NPU: no copy, its K slices are the segments; each call syncs it to
 *     the device.
 *   - Otherwise (row-major or transposed B, int4 whose K slices must stay short enough for the
 *     exact int16 partials, another engine's buffer) the runtime keeps a packed copy and checks
 *     the buffer's bytes with a 64-bit checksum at every call, repacking when it changed: the
 *     check costs one read of B per call (stats.b_check_ns), the repack only when B changed.
 * The buffer must stay alive while the weights are used; npk_rk_weights_free releases only the
 * runtime's copy. */
NPUKIT_API npk_status npk_rk_weights_bind(npk_rk *rt, npk_rk_prec in, uint32_t k, uint32_t n,
                                          npk_rk_buffer *buf, uint64_t offset, npk_rk_layout layout,
                                          uint32_t m_hint, npk_rk_weights **out);
/* The 64-bit checksum bound weights are checked with: XXH3 (xxHash), not cryptographic, it
 * detects changes; NULL bytes give the sum of no bytes. */
NPUKIT_API uint64_t npk_rk_checksum(const void *bytes, uint64_t n);
/* True when the NPU reads the bound weights straight from their buffer. */
NPUKIT_API bool npk_rk_weights_in_place(const npk_rk_weights *w);

/* npk_rk_matmul with A and C in a layout each (NPK_RK_ROWS or NPK_RK_NATIVE). */
NPUKIT_API npk_status npk_rk_matmul_layout(npk_rk *rt, const npk_rk_weights *w, uint32_t m,
                                           const void *a, npk_rk_layout a_layout, npk_rk_prec out,
                                           void *c, npk_rk_layout c_layout, npk_rk_stats *stats);
/* Bytes A [M][K] or C [M][N] occupies in a layout. */
NPUKIT_API uint64_t npk_rk_a_layout_bytes(npk_rk_prec in, uint32_t m, uint32_t k,
                                          npk_rk_layout layout);
NPUKIT_API uint64_t npk_rk_c_layout_bytes(npk_rk_prec out, uint32_t m, uint32_t n,
                                          npk_rk_layout layout);

/* ---- Element-wise ops: the DPU's SDP engine -------------------------------------------------
 * C [M][N] = A [M][N] OP B with OP add, mul, max or min (npk_rk_ew_op, rk_sdp_hw.h) and B per
 * element (NPK_EW_PER_ELEMENT: [M][N]), per channel (NPK_EW_PER_CHANNEL: a length-N vector
 * broadcast over the rows) or an immediate (NPK_EW_IMMEDIATE: B points to one element, held in
 * a stage register); or the BS/BN stages' clamps of A: relu and relu6 (NPK_EW_NO_OPERAND, B
 * NULL), leakyrelu (B: the slope, immediate), batchnorm (B: scale and shift, immediate:
 * A * scale + shift). EQL is refused (NPK_EUNSUPPORTED: no source gives its output). All run as
 * SDP tasks (DPU | DPU_RDMA, no CNA) in `prec`:
 *   fp16  uint16_t bits; computed in fp32 and rounded to nearest even;
 *   int16 int16_t, int8 int8_t; exact, saturating to the element's range.
 * Any M, N >= 1 (each at most NPK_RK_EW_MAX_DIM): the call tiles the arrays onto the SDP's
 * limits (8192 rows and 8192 channels per task, NPK_RK_EW_TILE elements per task) and chains up
 * to npk_rk_set_chain tasks per submit, all on the first pinned core. A per-element op reads
 * its operands as they are (the op does not care about the layout); a per-channel op packs A
 * into the SDP's atom layout and unpacks C on the host. C may be A or B. Entering the SDP goes
 * through the state policy's RC_SDPKW row (no reset: the NPU stays warm; the precision mode
 * the matmuls key their resets on is left as it was). Device buffers take part through their
 * host pointers (npk_rk_buffer_host), or unstaged through npk_rk_ew_buffers. */
#define NPK_RK_EW_MAX_DIM ((uint32_t)1 << 24)
#define NPK_RK_EW_TILE ((uint32_t)1 << 18)
typedef struct npk_rk_ew_args {
    npk_rk_ew_op op;
    npk_rk_prec prec;
    uint32_t m, n;
    npk_rk_ew_operand operand; /* B per element ([M][N]), per channel ([N]), immediate (one
                                  value; batchnorm two) or none (B NULL) */
    const void *a, *b;
    void *c;
} npk_rk_ew_args;
NPUKIT_API npk_status npk_rk_ew(npk_rk *rt, const npk_rk_ew_args *args, npk_rk_stats *stats);

/* npk_rk_ew on arrays in device buffers: A at a_off of a, B at b_off of b (per element [M][N]
 * or per channel [N]), C at c_off of c, each checked against its buffer's size. A per-element
 * op whose buffers belong to this runtime's engine, at 16-byte aligned addresses, with C
 * overlapping neither A nor B, runs on the buffers themselves: the SDP reads A and B and writes
 * C where they are, nothing staged or copied by the host (stats.sdp_direct counts those
 * tasks), but for a tail of fewer than one atom (8 fp16/int16, 16 int8 elements), staged. Any
 * other call runs as npk_rk_ew on the buffers' host bytes. The runtime syncs what it reads and
 * writes (A and B to the device, C back); the caller syncs bytes it wrote on the CPU for
 * another reader as usual. */
typedef struct npk_rk_ew_buffers_args {
    npk_rk_ew_op op;
    npk_rk_prec prec;
    uint32_t m, n;
    npk_rk_ew_operand operand; /* B per element ([M][N]) or per channel ([N]) */
    npk_rk_buffer *a, *b, *c;
    uint64_t a_off, b_off, c_off; /* byte offsets of the arrays in their buffers */
} npk_rk_ew_buffers_args;
NPUKIT_API npk_status npk_rk_ew_buffers(npk_rk *rt, const npk_rk_ew_buffers_args *args,
                                        npk_rk_stats *stats);

/* ---- Activations, softmax and norms: the SDP's LUT and clamps -------------------------------
 * Y [M][N] = f(X [M][N]) on the SDP (docs/rk-activations.md). The smooth functions (sigmoid,
 * tanh, gelu, silu, hardswish, hardsigmoid, exp) run through the EW stage's LUT, fitted per
 * call (npk_rk_lut_fit, rk_act_hw.h), in fp16 only; each result is within 2^-11 |f(x)| +
 * 2^-e of f(x) in double precision (e: the activation's out_exp, 10..14). relu is the BS
 * stage's clamp without LUT, exact, in fp16, int16 or int8. Shapes, tiling and chaining as
 * npk_rk_ew; Y may be X. alpha and beta: hardsigmoid's (both 0: its defaults 1/6 and 1/2). */
typedef struct npk_rk_act_args {
    npk_rk_act_kind act;
    npk_rk_prec prec;
    uint32_t m, n;
    const void *x;
    void *y;
    double alpha, beta;
} npk_rk_act_args;
NPUKIT_API npk_status npk_rk_act(npk_rk *rt, const npk_rk_act_args *args, npk_rk_stats *stats);

/* Softmax over each row of X [M][N] (fp16): y = exp(x - max - ln(sum)), two passes of the exp
 * LUT per row with the row's shift as the BN stage's immediate, rows chained as tasks of one
 * job (the spec's PC-chained softmax); the row maximum and the row sum of the first pass are
 * reductions the NPU model does not cover, run on the host (stats.host_steps counts 2 per
 * row). Each result within 2^-10 y + 2^-13 of the double-precision softmax. */
NPUKIT_API npk_status npk_rk_softmax(npk_rk *rt, npk_rk_prec prec, uint32_t m, uint32_t n,
                                     const void *x, void *y, npk_rk_stats *stats);

/* Row norms of X [M][N] (fp16): RMSNorm y = x / sqrt(mean(x^2) + eps), LayerNorm
 * y = (x - mean) / sqrt(var + eps), then times gamma[N] and plus beta[N] when given (fp16,
 * may be NULL). The spec's decomposition puts the reductions on the conv engine, whose
 * registers no source gives: the norm runs on the host as a named fallback (stats.host_steps
 * counts one per row), in double precision rounded once to fp16. */
typedef enum npk_rk_norm_kind { NPK_NORM_RMS, NPK_NORM_LAYER } npk_rk_norm_kind;
typedef struct npk_rk_norm_args {
    npk_rk_norm_kind kind;
    npk_rk_prec prec;
    uint32_t m, n;
    const void *x;
    void *y;
    const void *gamma, *beta;
    float eps;
} npk_rk_norm_args;
NPUKIT_API npk_status npk_rk_norm(npk_rk *rt, const npk_rk_norm_args *args, npk_rk_stats *stats);

/* One element-wise step of a matmul epilogue: C = C OP b (b in the output's precision: per
 * element [M][N], per channel [N], an immediate, or NULL for relu/relu6; as npk_rk_ew takes
 * them). */
typedef struct npk_rk_ew_step {
    npk_rk_ew_op op;
    npk_rk_ew_operand operand;
    const void *b;
} npk_rk_ew_step;

#define NPK_RK_EPILOGUE_MAX 4u
/* Steps applied in order to A.B, e.g. {mul per channel by scale, add per element residual}:
 * C = A.B (.) scale + residual. */
typedef struct npk_rk_epilogue {
    uint32_t count; /* 0..NPK_RK_EPILOGUE_MAX */
    npk_rk_ew_step step[NPK_RK_EPILOGUE_MAX];
    bool no_fuse; /* run the matmul and the element-wise steps as separate submits */
} npk_rk_epilogue;

/* npk_rk_matmul followed by an element-wise epilogue computed on the NPU's SDP. The output is
 * fp16 (the SDP's precision for fp16 weights; int8/int4 weights' int32 accumulators cannot feed
 * the SDP: the spec's int32 under-fetch). The fusion rules decide how it runs:
 *   fused: each matmul task is chained with its epilogue's SDP tasks in one submit, when the
 *     matmul task itself writes fp16 (the dtype-path rule: a 2-input SDP runs as a chained task
 *     only behind its own precision; so fp16 weights in one K slice), the kernel chains tasks
 *     (rknpu, not rocket), the chain setting holds 1 + count tasks and the tile is within the
 *     SDP's limits; per-channel operands are broadcast over the tile's rows on the host, as the
 *     vendor's compiler does;
 *   split otherwise (or with no_fuse): the matmul, then npk_rk_ew per step.
 * stats.fused_jobs counts the fused submits. */
NPUKIT_API npk_status npk_rk_matmul_epilogue(npk_rk *rt, const npk_rk_weights *w, uint32_t m,
                                             const void *a, npk_rk_prec out, void *c,
                                             const npk_rk_epilogue *ep, npk_rk_stats *stats);

/* C [M][N] = f(A . B + bias) in fp16: the matmul, the per-channel bias add (when bias is
 * given: fp16 [N]) and the activation (npk_rk_act's: a LUT activation or relu's clamp) on the
 * SDP, chained in one submit per matmul task under npk_rk_matmul_epilogue's fusion rules (a
 * 1-input SDP chains behind the matmul regardless of the precision path, spec), split
 * otherwise. alpha and beta: hardsigmoid's (both 0: its defaults). */
typedef struct npk_rk_matmul_act_args {
    const npk_rk_weights *w;
    uint32_t m;
    const void *a;
    void *c;
    const void *bias;
    npk_rk_act_kind act;
    double alpha, beta;
    bool no_fuse;
} npk_rk_matmul_act_args;
NPUKIT_API npk_status npk_rk_matmul_act(npk_rk *rt, const npk_rk_matmul_act_args *args,
                                        npk_rk_stats *stats);

/* The per-channel-scaled fp16 matmul C [M][N] = (A . B)[M][N] . scale[N] by the SDP path
 * (spec "Per-channel-scaled fp16 matmul"): the matmul writes fp16, the host repacks it into
 * the atom layout, and per-channel SDP mul tasks of at most NPK_RK_SCALED_TILE_M rows (the
 * spec's cap) and N padded to a multiple of 32 scale it. Any M, N >= 1; fp16 weights; scale
 * and C fp16 bits. */
#define NPK_RK_SCALED_TILE_M 64u
NPUKIT_API npk_status npk_rk_matmul_scaled(npk_rk *rt, const npk_rk_weights *w, uint32_t m,
                                           const void *a, const uint16_t *scale, uint16_t *c,
                                           npk_rk_stats *stats);

/* ---- Convolution and pooling ------------------------------------------------------------------
 * 2-D convolution on the CNA -> CORE -> DPU path with the 0x50xx input feed, and pooling on
 * the PDP (docs/rk-conv.md, docs/rk-pooling.md). Tensors are NCHW arrays of fp16 bit patterns
 * (uint16_t); the runtime packs them into the engines' atom layout and back.
 *
 * Convolution: any stride, padding, dilation (a zero-inserted kernel, exact), groups (1: dense;
 * C with out_c = C: depthwise; C with out_c = m*C: m depthwise passes; otherwise one dense pass
 * per group), a per-channel fp32 bias and a fused clamp, computed as fp16 x fp16 products
 * accumulated in fp32, the bias added in fp32 and the result rounded to fp16 once. The planner
 * splits what does not fit a task: output row bands (the input rows each band needs, the CBUF's
 * data banks), input-channel slices (their fp16 partials summed on the host in fp32, bias and
 * clamp then applied on the host), output-channel tiles, and spreads the tasks over the pinned
 * cores. Runs on both kernels (the conv's op-enable 0x1D is the one the rocket kernel runs). */
/* The conv's fused clamp (the activations of npk_rk_act are npk_rk_act_kind, rk_act_hw.h). */
typedef enum npk_rk_conv_act {
    NPK_RK_ACT_NONE = 0,
    NPK_RK_ACT_RELU = 1, /* max(x, 0) */
    NPK_RK_ACT_CLIP = 2, /* min(max(x, 0), act_max): ReLU6 with act_max 6 */
    NPK_RK_ACT_COUNT
} npk_rk_conv_act;

/* The conv's data type: fp16 in and out, or int8 in with the int32 accumulator out and the
 * host's requantisation (the CNA -> DPU path completes an int8 job only with int32 output). */
typedef enum npk_rk_conv_dtype {
    NPK_RK_CONV_FP16 = 0,
    NPK_RK_CONV_INT8 = 1,
    NPK_RK_CONV_DTYPE_COUNT
} npk_rk_conv_dtype;

typedef struct npk_rk_conv2d_args {
    uint32_t n, c, h, w;  /* input [n][c][h][w] */
    uint32_t out_c;       /* output channels */
    uint32_t k_h, k_w;    /* kernel */
    uint32_t stride_h, stride_w;
    uint32_t pad_top, pad_left, pad_bottom, pad_right;
    uint32_t dil_h, dil_w; /* 0 or 1: none */
    uint32_t groups;       /* 0 or 1: dense; must divide c and out_c */
    const uint16_t *input;   /* fp16 bits [n][c][h][w] */
    const uint16_t *weights; /* fp16 bits [out_c][c / groups][k_h][k_w] */
    const float *bias;       /* [out_c], or NULL */
    npk_rk_conv_act act;
    float act_max;    /* NPK_RK_ACT_CLIP's upper bound (>= 0) */
    uint16_t *output; /* fp16 bits [n][out_c][out_h][out_w] (npk_rk_conv2d_shape) */
    /* dtype NPK_RK_CONV_INT8 (symmetric, zero points 0): input_i8 and weights_i8 replace input
     * and weights (same shapes); the NPU sums the int8 products exactly in int32 (at most
     * 131071 products per output: C/groups x KH x KW of the dilated kernel); acc (if not NULL)
     * receives those sums [n][out_c][out_h][out_w]. The host requantises each (counted in
     * stats.host_steps): y = acc x in_scale x w_scales[o] + bias[o], the act clamp, then
     * output_i8 (if not NULL) = round-to-nearest-even(y / out_scale) saturated to int8. At
     * least one of acc and output_i8; output is not used. */
    npk_rk_conv_dtype dtype;
    const int8_t *input_i8;   /* [n][c][h][w] */
    const int8_t *weights_i8; /* [out_c][c / groups][k_h][k_w] */
    float in_scale;           /* > 0 */
    const float *w_scales;    /* [out_c], each > 0 */
    float out_scale;          /* > 0 when output_i8 is given */
    int32_t *acc;
    int8_t *output_i8;
} npk_rk_conv2d_args;

/* The output height and width of a convolution, or an error naming the bad argument and its
 * limit (a zero stride, a kernel larger than the padded input, ...). */
NPUKIT_API npk_status npk_rk_conv2d_shape(const npk_rk_conv2d_args *a, uint32_t *out_h,
                                          uint32_t *out_w);
NPUKIT_API npk_status npk_rk_conv2d(npk_rk *rt, const npk_rk_conv2d_args *a, npk_rk_stats *stats);

/* Pooling: max, min or average over a k_h x k_w window, any stride and padding the PDP takes
 * (kernel and stride up to 16, padding up to 7 and below the kernel); global pooling reduces
 * the whole plane (in stages of equal windows when it is larger than the kernel limit). The
 * padding never wins a max or min; an average divides by the whole window when
 * count_include_pad, else by the real cells (the border windows rescaled on the host). fp16
 * max/min are exact; the average sums in fp32 and multiplies by the PDP's 17-bit reciprocals.
 * The PDP ends its task on the PPU interrupt, which the rocket kernel never waits for (it ends
 * every job on the DPU's, facts A.2): on rocket, pooling is refused naming that. */
typedef enum npk_rk_pool2d_method {
    NPK_RK_POOL2D_MAX = 0,
    NPK_RK_POOL2D_AVG = 1,
    NPK_RK_POOL2D_MIN = 2,
    NPK_RK_POOL2D_METHOD_COUNT
} npk_rk_pool2d_method;

typedef struct npk_rk_pool2d_args {
    npk_rk_pool2d_method method;
    bool global;          /* the whole plane: kernel, stride and padding are ignored */
    uint32_t n, c, h, w;  /* input [n][c][h][w] */
    uint32_t k_h, k_w;
    uint32_t stride_h, stride_w;
    uint32_t pad_top, pad_left, pad_bottom, pad_right;
    bool count_include_pad; /* average: divide by the whole window */
    const uint16_t *input;  /* fp16 bits [n][c][h][w] */
    uint16_t *output;       /* fp16 bits [n][c][out_h][out_w] (npk_rk_pool2d_shape) */
} npk_rk_pool2d_args;

NPUKIT_API npk_status npk_rk_pool2d_shape(const npk_rk_pool2d_args *a, uint32_t *out_h,
                                          uint32_t *out_w);
NPUKIT_API npk_status npk_rk_pool2d(npk_rk *rt, const npk_rk_pool2d_args *a, npk_rk_stats *stats);

/* ---- Quantised matmuls: W8A8 and per-group scales --------------------------------------------
 * C [M][N] = sum over groups g of  sa[m][g] * sb[g][n] * P_g[m][n],   P_g = sum over k in group g
 * of A[m][k] * B[k][n], each P_g an exact int32 sum computed on the NPU (int8 x int8, or int4 x
 * int4), scaled and added on the host in fp32; the result fp32 or fp16 (rounded once).
 *   - per output channel (group NPK_RK_QGROUP_CHANNEL): one group over all of K, sb [N] (W8A8);
 *   - per group: K cut into groups of `group` (a multiple of 32; the last group may be
 *     shorter), sb [ceil(K/group)][N] — each group its own exact partial sum.
 * A's scales sa: one for the whole tensor (a_scale_count 1), one per row / token (M), or one per
 * row and group (M x groups, row-major [M][groups], as activations quantised in blocks along K
 * carry).
 * Weights are packed once and stay resident (bind B once, call many with any M). How the groups
 * reach the NPU is chosen when they are packed, by the planner's cost model at M = m_hint:
 * `groups_per_pass` groups share one pass over their K range — 1 is K-sliced tasks (each task's
 * K slice is one group, its int32 output read back and scaled), more run A as that many rows per
 * token, each row zero outside its group, so one pass over a wider K slice returns every group's
 * partial (fewer tasks and weight passes, more rows). Any M works with either. */
#define NPK_RK_QGROUP_CHANNEL 0u
#define NPK_RK_QGROUP_ALIGN 32u /* K per group is a multiple of this: the weights' K granule */
typedef struct npk_rk_qweights npk_rk_qweights;

typedef struct npk_rk_qweights_desc {
    npk_rk_prec in; /* NPK_PREC_INT8, or NPK_PREC_INT4 (int8_t values in [-8, 7]) */
    uint32_t k, n;  /* any K, N >= 1 (each at most NPK_RK_LAYOUT_MAX_DIM) */
    const void *b;  /* int8_t B: [K][N] (NPK_RK_ROWS), [N][K] (NPK_RK_TRANSPOSED), or
                       the native layout (NPK_RK_NATIVE, as npk_rk_b_to_native writes it) */
    npk_rk_layout layout;
    uint32_t group; /* NPK_RK_QGROUP_CHANNEL, or K per group: a multiple of 32 */
    /* B's scales, finite: [groups][N] for ROWS and NATIVE, [N][groups] for TRANSPOSED (as B
     * with K replaced by the groups; per channel: [N]); scale_count must be N x groups. */
    const float *scale;
    uint64_t scale_count;
    uint32_t m_hint;          /* the typical M: the cost model's choice is made for it */
    uint32_t groups_per_pass; /* 0: the cost model's choice; else that many (1: K-sliced) */
} npk_rk_qweights_desc;

NPUKIT_API npk_status npk_rk_qweights_pack(npk_rk *rt, const npk_rk_qweights_desc *d,
                                           npk_rk_qweights **out);
/* Frees the weights in the runtime that packed them (which must still be open); NULL: no-op. */
NPUKIT_API void npk_rk_qweights_free(npk_rk *rt, npk_rk_qweights *qw);

/* How packed quantised weights run, and the cost model's figures behind the choice. */
typedef struct npk_rk_qweights_info {
    npk_rk_prec in;
    uint32_t k, n;
    uint32_t group;           /* as given (NPK_RK_QGROUP_CHANNEL: one group over K) */
    uint32_t groups;          /* scales per column */
    uint32_t groups_per_pass; /* the choice: 1 = K-sliced tasks */
    uint32_t passes;          /* NPU passes (matmuls) per call */
    uint32_t m_hint;
    double ksliced_us; /* modelled time at m_hint with K-sliced tasks (0: not a candidate) */
    double chosen_us;  /* modelled time at m_hint of the choice */
} npk_rk_qweights_info;
NPUKIT_API npk_status npk_rk_qweights_query(const npk_rk_qweights *qw, npk_rk_qweights_info *info);

/* The modelled time of npk_rk_matmul_quant with these weights at M = m on rt (the planner's
 * model: NPU time, modelled on the timing model, plus its host model), for an offload policy
 * comparing it with another engine's estimate. */
NPUKIT_API npk_status npk_rk_matmul_quant_cost(npk_rk *rt, const npk_rk_qweights *qw, uint32_t m,
                                               double *us);

/* C [M][N] (float for NPK_PREC_FP32, uint16_t fp16 bits for NPK_PREC_FP16) from A [M][K] int8_t
 * (int4 weights: values in [-8, 7]) and A's scales (a_scale_count 1, M or M x groups; finite).
 * stats may be NULL; its tasks and submits add up over the passes. */
NPUKIT_API npk_status npk_rk_matmul_quant(npk_rk *rt, const npk_rk_qweights *qw, uint32_t m,
                                          const void *a, const float *a_scale,
                                          uint64_t a_scale_count, npk_rk_prec out, void *c,
                                          npk_rk_stats *stats);

#ifdef __cplusplus
}
#endif
#endif
