/* SPDX-License-Identifier: MIT */
/* libggml-npukit: a ggml backend on the RK NPU runtime (npukit/rk.h), loaded by ggml's
 * ggml_backend_load() (GGML_BACKEND_PATH or the program's directory).
 *
 * Pieces, one file each:
 *   npg_settings.c  the environment settings (device names, offload policy, CPU rate);
 *   npg_types.c     which ggml weight types run on the NPU and how they become fp16;
 *   npg_buffer.c    the buffer type: host memory in ggml's own layout (the CPU can read it
 *                   too) plus the weights packed once into the NPU's layout, resident;
 *   npg_matmul.c    MUL_MAT: activations converted, the weight matrices of one node (or of
 *                   several independent nodes) run together;
 *   npg_calls.c     the runtime calls of one or more nodes: batched into one
 *                   npk_rk_matmul_batch per weight form, int8 results scaled back;
 *   npg_cost.c      the offload decision: the planner's modelled time vs a CPU estimate;
 *   npg_pool.c      POOL_2D through the runtime's pooling;
 *   npg_conv.c      CONV_2D through the runtime's fp16 convolution;
 *   npg_cpu.c       the nodes of a graph the device does not compute, on ggml's CPU backend;
 *   npg_repack.c    weights the CPU backend keeps repacked (CPU_REPACK): left there, read there;
 *   npg_scratch.c   the calls' scratch memory, kept from call to call;
 *   npg_act.c       the activations' arithmetic: fp16 range check, int8 digits, int8 sums
 *                   scaled back (SSE2, and the scalar reference);
 *   npg_backend.c   registry, devices, backend streams and graph_compute. */
#ifndef NPUKIT_GGML_NPG_H
#define NPUKIT_GGML_NPG_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ggml-backend-impl.h"
#include "ggml-npukit.h"
#include "ggml.h"
#include "npg_act.h"
#include "npukit/rk.h"

#define NPG_MAX_DEVICES 4
/* The NPU memory a device can hold: one NPU address space, 4 GiB, since every address a
 * regcmd program holds is a 32-bit IOVA (facts B.1); the runtime maps everything it uses in it. */
#define NPG_ADDRESS_SPACE (1ull << 32)

/* The M that weights kept packed between calls are sliced for (at least): their K slicing is
 * fixed when they are packed, at their first call. Sliced for one row (decode), K stays whole,
 * and every later prefill pays for it: 3.7x the NPU time at M = 32 and 5.6-19x at M = 512 for
 * llama-7B's layers (the planner's model); sliced for 512 rows (llama.cpp's default micro-batch),
 * a decode call costs about 1 % more (1.428 -> 1.439 ms for 4096 x 4096). */
#define NPG_RESIDENT_M_HINT 512u

/* ---- settings (npg_settings.c) ---------------------------------------------------------- */
typedef enum { NPG_OFFLOAD_AUTO = 0, NPG_OFFLOAD_ALWAYS, NPG_OFFLOAD_NEVER } npg_offload;

typedef struct npg_settings {
    char devices[256];   /* NPUKIT_GGML_DEVICE: comma-separated npk_rk_open names */
    npg_offload offload; /* NPUKIT_GGML_OFFLOAD */
    double cpu_gflops;   /* NPUKIT_GGML_CPU_GFLOPS: the CPU estimate's rate */
    unsigned cores;      /* NPUKIT_GGML_CORES: cores per device (0: all) */
    bool verbose;        /* NPUKIT_GGML_VERBOSE: one line per decision / fallback */
    bool batch;          /* NPUKIT_GGML_BATCH: several matmuls per runtime call */
    unsigned chain;      /* NPUKIT_GGML_CHAIN: tasks per SUBMIT (npk_rk_set_chain) */
    bool fp16_only;      /* NPUKIT_GGML_WEIGHTS=fp16: every type as fp16 (the table's forms
                            otherwise) */
    unsigned generation; /* counts the readings (decisions made under older ones are stale) */
} npg_settings;

/* The process's settings, read from the environment once. */
const npg_settings *npg_settings_get(void);
/* Re-read the environment (the bench and tests change the policy between runs). */
void npg_settings_reload(void);
const char *npg_offload_name(npg_offload o);

/* ---- weight types (npg_types.c) --------------------------------------------------------- */
typedef enum {
    NPG_PREP_FP16 = 0, /* already fp16: copied */
    NPG_PREP_ROUND,    /* F32 / BF16: rounded to fp16 (out-of-range values: host fallback) */
    NPG_PREP_DEQUANT,  /* quantised: dequantised once (ggml's to_float) */
} npg_prep;

/* The form weights take on the NPU. */
typedef enum {
    NPG_FORM_FP16 = 0, /* fp16 weights, fp16 activations, fp32 sums */
    NPG_FORM_INT8_ROW, /* int8 weights with one fp32 scale per output row (requantised from the
                          dequantised row); each activation row (token) two int8 rows with one
                          scale, x ~ s (q1 + q2 / 254); exact int32 sums combined and scaled on
                          the host */
} npg_form;

/* What a form asks of the runtime (npg_types.c, one row per form). */
typedef struct npg_form_row {
    npk_rk_prec in, out;    /* the runtime's input and output precision */
    unsigned act_bytes;     /* bytes per activation element */
    unsigned act_rows;      /* runtime rows per activation row (int8: its two digits) */
} npg_form_row;

typedef struct npg_type_row {
    enum ggml_type type;
    npg_prep prep;
    npg_form form;
    const char *why; /* the choice, for the docs and the verbose log */
} npg_type_row;

/* The row of a weight type, NULL when the NPU does not take it. */
const npg_type_row *npg_type_of(enum ggml_type t);
/* The form t's weights take under the current settings (NPUKIT_GGML_WEIGHTS). */
npg_form npg_form_of(enum ggml_type t);
const npg_form_row *npg_form_info(npg_form f);
/* Row `row` of src (K elements, any supported type) as fp16 bits; false when a finite value
 * is beyond fp16's range (the caller falls back to the host). tmp: K floats. */
bool npg_row_to_fp16(enum ggml_type t, const void *src, int64_t k, float *tmp, uint16_t *dst);
/* True when no finite value of x[0..n) is beyond fp16's range (what npg_row_to_fp16 checks). */
bool npg_f32_fits_fp16(const float *x, int64_t n);
/* One element of a float-like tensor (F32, F16, BF16) as float. */
float npg_load_float(enum ggml_type t, const void *p);

/* ---- device, buffers -------------------------------------------------------------------- */
/* ---- scratch memory (npg_scratch.c) ----------------------------------------------------- */
/* Per-call buffers kept from call to call, so a call does not pay the first-touch page faults
 * of megabytes of fresh memory. Under the device's lock: npg_scratch_begin at a graph step's
 * start makes everything free again (what the last step got is no longer valid); then
 * npg_scratch_get hands out 64-byte aligned pieces (NULL when out of memory). */
typedef struct npg_scratch {
    struct npg_scratch_block *blocks;
} npg_scratch;
void npg_scratch_begin(npg_scratch *s);
void *npg_scratch_get(npg_scratch *s, size_t bytes);
void npg_scratch_free(npg_scratch *s);

/* What a device has done (ggml-npukit.h names the fields). */
typedef ggml_npukit_counters npg_counters;

typedef struct npg_device {
    char name[16];         /* "NPUKIT0" */
    char description[160]; /* the runtime's device, kernel interface and SoC */
    char open_name[64];    /* what npk_rk_open was given */
    npk_rk *rt;
    bool simulated;
    bool sdp;             /* its kernel runs SDP tasks (npk_rk_info.sdp) */
    bool pdp;             /* its kernel completes PDP tasks (npk_rk_info.pdp) */
    unsigned cores;       /* the cores its calls use */
    pthread_mutex_t lock; /* the runtime takes one call at a time: every caller holds this */
    npg_counters counters;
    uint64_t resident; /* bytes of NPU memory its cached packed weights hold (lock) */
    npg_scratch scratch; /* the running step's activations and int8 sums (lock) */
    /* packed copies of weights in buffers not ours (marked as weights, or CPU_REPACK): used
     * again while a checksum of their bytes matches (npg_buffer.c) */
    struct npg_buffer *foreign;
    struct ggml_backend_device dev;
    struct ggml_backend_buffer_type buft;
} npg_device;

/* A backend stream of a device: what ggml_backend_t's context points at. */
typedef struct npg_stream {
    npg_device *dev;
    ggml_backend_t cpu; /* ggml's CPU backend for the nodes the device does not compute */
} npg_stream;

/* Nodes [first, end) of g on the stream's CPU backend (npg_cpu.c); false and a message on
 * stderr when there is none or it fails. */
bool npg_cpu_compute(npg_stream *s, struct ggml_cgraph *g, int first, int end);
/* op is a layout copy (CONT) the device claims, for the CPU backend to compute inside
 * graph_compute: where the offload policy takes non-matmul nodes, ggml's CPU backend is
 * loaded and computes op, and op's bytes are host memory (npg_cpu.c). */
bool npg_cpu_claims(const npg_device *d, const struct ggml_tensor *op);
void npg_cpu_free(npg_stream *s);

/* One packed weight matrix. */
typedef struct npg_matrix {
    npk_rk_weights *w; /* NULL: computed on the host (values its form cannot hold) */
    float *scale;      /* NPG_FORM_INT8_ROW: N scales, row n ~ scale[n] * int8 row; else NULL */
} npg_matrix;

/* Packed weights of one ggml tensor (every ne2 x ne3 matrix), kept while the bytes stay. */
typedef struct npg_packed {
    struct npg_packed *next;
    const void *data; /* the tensor's data pointer, type and strides it was packed from */
    enum ggml_type type;
    int64_t ne[4];
    size_t nb[4];
    size_t lo, hi; /* the bytes it was packed from, relative to the buffer's base */
    uint64_t sum;  /* npk_rk_checksum of those bytes (a buffer not marked as weights) */
    uint64_t resident; /* bytes of NPU memory the packed matrices hold */
    npg_form form;
    uint32_t count;
    npg_matrix *mat; /* count matrices */
} npg_packed;

typedef struct npg_buffer {
    npg_device *dev;
    uint8_t *base;
    size_t size;
    pthread_mutex_t lock; /* the packed list */
    npg_packed *packed;
} npg_buffer;

void npg_buft_init(npg_device *d);
/* The device's cache of packed weights from buffers not its own: made, and freed (at close). */
bool npg_foreign_init(npg_device *d);
void npg_foreign_free(npg_device *d);
bool npg_buft_is_ours(ggml_backend_buffer_type_t buft);
/* Forget the packed weights made from bytes in [lo, hi) of the buffer holding `data`. */
void npg_buffer_invalidate(ggml_backend_buffer_t buf, const void *data, size_t bytes);

/* The packed weights of src0 for a matmul of m rows: cached in our buffers (in a buffer marked
 * as weights, GGML_BACKEND_BUFFER_USAGE_WEIGHTS, until its bytes are written through the
 * buffer; in any other of our buffers while a checksum of its bytes still matches); cached by
 * the device for weights in other buffers marked as weights or in the CPU's CPU_REPACK (while
 * a checksum matches: they are written behind our back), else packed for this call
 * (*owned = true: the caller frees with npg_packed_free). NULL and a message on failure. */
npg_packed *npg_packed_get(npg_device *d, const struct ggml_tensor *src0, uint32_t m_hint,
                           bool *owned);
void npg_packed_free(npg_device *d, npg_packed *p);

/* ---- weights the CPU keeps repacked (npg_repack.c) ------------------------------------- */
/* ggml's CPU backend's CPU_REPACK buffer type; NULL when no CPU backend offers one. */
ggml_backend_buffer_type_t npg_repack_buft(void);
/* t lives in a CPU_REPACK buffer. */
bool npg_repack_held(const struct ggml_tensor *t);
/* The CPU backend would keep op's weight (src[0]) repacked for its own kernels. */
bool npg_repack_cpu_keeps(const struct ggml_tensor *op);
/* t, held in CPU_REPACK, has a form of the CPU's this device can unpack (checked on a probe
 * the CPU repacked itself). */
bool npg_repack_readable(const struct ggml_tensor *t);
/* t's bytes in ggml's own layout into out (ggml_nbytes(t)); false and a message when its form
 * is not readable. */
bool npg_repack_unpack(const struct ggml_tensor *t, void *out);
/* t's bytes in ggml's own layout: t->data, or (held in CPU_REPACK) a copy unpacked into
 * *owned, which the caller frees. NULL and a message on failure. */
const uint8_t *npg_weights_plain(const struct ggml_tensor *t, void **owned);
/* The device reads weight t where it is: host memory, or CPU_REPACK in a readable form. */
bool npg_weights_readable(const struct ggml_tensor *t);

/* ---- ops -------------------------------------------------------------------------------- */
/* The device can compute this node (capability only, no policy). */
bool npg_can_mul_mat(const struct ggml_tensor *op);
/* dst = MUL_MAT(src0, src1) on the device; false and a message on stderr on failure. */
bool npg_mul_mat(npg_device *d, struct ggml_tensor *dst);
/* Several MUL_MAT nodes that do not read each other's results, their matrices in one batch. */
bool npg_mul_mat_nodes(npg_device *d, struct ggml_tensor *const *nodes, int count);
/* The same for MUL_MAT_ID (npg_matmul_id.c): src0 one matrix per expert, src2 the ids. */
bool npg_can_mul_mat_id(const struct ggml_tensor *op);
bool npg_mul_mat_id(npg_device *d, struct ggml_tensor *dst);

/* UNARY (relu, sigmoid, tanh, gelu, silu, hardswish, hardsigmoid) and SOFT_MAX (plain rows)
 * on the SDP (npg_unary.c); only on a device whose kernel runs SDP tasks. */
bool npg_can_unary(const struct ggml_tensor *op);
bool npg_unary(npg_device *d, struct ggml_tensor *dst);
bool npg_can_soft_max(const struct ggml_tensor *op);
bool npg_soft_max(npg_device *d, struct ggml_tensor *dst);

/* POOL_2D (max, avg) on the PDP, an average as a depthwise conv where the kernel does not
 * complete PDP tasks (npg_pool.c); needs_pdp: the node's method runs on the PDP only. */
bool npg_can_pool_2d(const struct ggml_tensor *op);
bool npg_pool_2d_needs_pdp(const struct ggml_tensor *op);
bool npg_pool_2d(npg_device *d, struct ggml_tensor *dst);
/* CONV_2D (ggml_conv_2d_direct) as the runtime's fp16 conv on the CNA (npg_conv.c). */
bool npg_can_conv_2d(const struct ggml_tensor *op);
bool npg_conv_2d(npg_device *d, struct ggml_tensor *dst);

/* Shared by both (npg_matmul.c): the row of t at p (t's K elements, its element stride) as
 * fp16 (false: beyond fp16's range; tmp: 2 K floats) or as float; tensors the host reads in
 * place; activation types. */
bool npg_tensor_row_fp16(const struct ggml_tensor *t, const uint8_t *p, float *tmp, uint16_t *dst);
void npg_tensor_row_f32(const struct ggml_tensor *t, const uint8_t *p, float *dst);
bool npg_host_buffer_ok(const struct ggml_tensor *t);
bool npg_float_type(enum ggml_type t);
/* Count one runtime call in the device's counters (and its verbose line, `what` describing
 * it): its host parts into *runtime_host, its wall time out of the caller's clock (*t0). */
void npg_count_call(npg_device *d, const npk_rk_stats *st, const char *what, uint64_t *t0,
                    uint64_t *runtime_host);

/* ---- runtime calls (npg_calls.c) -------------------------------------------------------- */
/* One matmul C [M][N] = A [M][K] . mat^T for the runtime. */
typedef struct npg_call {
    const npg_matrix *mat;
    npg_form form;
    uint32_t m, k, n;
    const void *a;        /* act_rows x M rows of K: fp16 bits, floats (a_f32), or int8 (digit
                             d of row m at row d M + m) */
    bool a_f32;           /* NPG_FORM_FP16: a is ggml's own F32 rows, rounded to fp16 as the
                             runtime packs them (npk_rk_matmul_f32) */
    const float *a_scale; /* NPG_FORM_INT8_ROW: M scales */
    float *c;             /* act_rows x M rows of N; the result is its first M rows */
    float *out;           /* NPG_FORM_INT8_ROW: M rows of N where the results go (NULL: c) */
} npg_call;

/* Row p of t (K elements) as the form takes its activations: fp16 bits at dst, or int8 digits
 * at dst and dst + digit_stride bytes with their scale in *scale. False when the form cannot
 * hold it (a finite value beyond fp16; for int8 a value that is not finite, or a row of values
 * all below 1e-30 but not all 0): the caller
 * computes that matrix on the host. tmp: 2 K floats. */
bool npg_act_row(npg_form form, const struct ggml_tensor *t, const uint8_t *p, float *tmp,
                 uint8_t *dst, size_t digit_stride, float *scale);
/* Every call, as few runtime calls as the settings allow (NPUKIT_GGML_BATCH: one
 * npk_rk_matmul_batch per form), counted in the device's counters; `name` names the node(s)
 * in messages. False and a message on failure. */
bool npg_calls_run(npg_device *d, npg_call *calls, size_t count, const char *name, uint64_t *t0,
                   uint64_t *runtime_host);

/* ---- cost (npg_cost.c) ------------------------------------------------------------------- */
typedef struct npg_cost {
    double npu_us;  /* the planner's modelled NPU time of every call (a model) */
    double host_us; /* the planner's host model plus activation conversion */
    double cpu_us;  /* the CPU estimate: 2 M N K / NPUKIT_GGML_CPU_GFLOPS */
    bool offload;   /* npu_us + host_us < cpu_us */
} npg_cost;
/* The modelled cost of a MUL_MAT node; false for a node the planner refuses. */
bool npg_mul_mat_cost(const struct ggml_tensor *op, unsigned cores, npg_cost *out);
/* The policy: NPUKIT_GGML_OFFLOAD, else the cost. */
bool npg_wants(const struct ggml_tensor *op, unsigned cores);

uint64_t npg_now_ns(void);

#endif
