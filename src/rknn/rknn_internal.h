/* SPDX-License-Identifier: MIT */
/* The rknn_matmul_* compatible layer on npukit's RK runtime: what its files share. */
#ifndef NPUKIT_RKNN_INTERNAL_H
#define NPUKIT_RKNN_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>

#include "npukit/rk.h"
#include "rknn_matmul_api.h"

/* A rknn_tensor_mem handed out by rknn_create_mem: the caller's struct first, so the pointer
 * the caller holds is this object's. id tells a live mem from a later one at the same address.
 * pins counts the calls using its buffer right now: destroy waits for them. */
typedef struct rknn_mem_obj {
    rknn_tensor_mem pub;
    npk_rk_buffer *buf;
    uint64_t id;
    unsigned pins;
} rknn_mem_obj;

/* The live mem behind a caller's pointer, pinned: its buffer stays until rknn_mem_unpin, even if
 * another thread destroys the mem meanwhile (the destroy waits). NULL: never made here, or
 * destroyed (or being destroyed); with id != 0, also when it is no longer that mem. */
rknn_mem_obj *rknn_mem_pin(const rknn_tensor_mem *mem, uint64_t id);
/* Release a pin of rknn_mem_pin (NULL: nothing). */
void rknn_mem_unpin(rknn_mem_obj *o);

/* A runtime on the process's shared engine (device "auto": NPUKIT_RK_DEVICE, the NPU if
 * present, else the simulator). */
npk_status rknn_runtime_open(npk_rk **rt);

/* The vendor's code for a runtime status; the message stays in npk_last_error() and is printed
 * as the vendor's runtime prints its errors. */
int rknn_fail(npk_status s);
/* npk_fail + rknn_fail: `return rknn_error(NPK_EINVAL, "...", ...)`. */
int rknn_error(npk_status s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Element facts of a matmul type supported here: the runtime's input and output precisions and
 * the rknn tensor types of A/B and C. */
typedef struct rknn_type_row {
    rknn_matmul_type type;
    npk_rk_prec in;      /* fp16, int8, int4 */
    npk_rk_prec run_out; /* what the runtime computes: fp32, fp16 or int32 */
    rknn_tensor_type ab, c;
    unsigned ab_bits, c_bits;
    unsigned c_native_group; /* channels per group of a native C */
    bool quant;              /* takes quantisation parameters */
} rknn_type_row;
/* NULL for a type this platform does not run. */
const rknn_type_row *rknn_type_find(rknn_matmul_type t);

/* Check an (M, K, N) of a type as the documented API does; fills the three attrs for the
 * layouts. RKNN error code. */
int rknn_shape_attrs(const rknn_matmul_info *info, const rknn_matmul_shape *shape,
                     rknn_matmul_io_attr *attr);

/* int4 two per byte (the even index in the low nibble) <-> one int8_t per element. */
void rknn_int4_unpack(const uint8_t *src, int8_t *dst, size_t count);
/* Row-major [rows][cols] of `eb`-byte elements into [cols/g][rows][g]. */
void rknn_rows_to_groups(const void *src, void *dst, size_t rows, size_t cols, size_t eb, size_t g);

#endif
