/* SPDX-License-Identifier: MIT */
/* The compatible layer's shared parts: error codes, the type table, shapes and io attributes,
 * element conversions. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "rknn_internal.h"

/* RKNN_LOG_LEVEL, on the scale the vendor runtime's users set it: 0 keeps only errors (what
 * RKNN_LOG_LEVEL=0 is set for: a quiet runtime), each step up adds a level, and 4 and 5 (the
 * vendor's profiling and dumps) are npukit's most detailed, debug. A value that is no number
 * from 0 up leaves the library's level in force, and says so. */
static const npk_log_level rknn_levels[] = {NPK_LOG_ERROR, NPK_LOG_WARN, NPK_LOG_INFO,
                                            NPK_LOG_DEBUG, NPK_LOG_DEBUG, NPK_LOG_DEBUG};
enum { RKNN_LEVELS = sizeof rknn_levels / sizeof rknn_levels[0] };

static void read_rknn_log_level(void)
{
    const char *v = getenv("RKNN_LOG_LEVEL");
    if (!v || !*v)
        return;
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || n < 0) {
        npk_log(NPK_LOG_WARN, "RKNN", "RKNN_LOG_LEVEL=\"%s\" ignored: expected a number from 0",
                v);
        return;
    }
    npk_log_component_threshold("RKNN", rknn_levels[n < RKNN_LEVELS ? n : RKNN_LEVELS - 1]);
}

static void rknn_log_init(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, read_rknn_log_level);
}

int rknn_fail(npk_status s)
{
    rknn_log_init();
    npk_log(NPK_LOG_ERROR, "RKNN", "%s", npk_last_error());
    switch (s) {
    case NPK_OK: return RKNN_SUCC;
    case NPK_EINVAL:
    case NPK_ELIMIT:
    case NPK_EUNSUPPORTED: return RKNN_ERR_PARAM_INVALID;
    case NPK_ENOMEM: return RKNN_ERR_MALLOC_FAIL;
    case NPK_ETIMEDOUT: return RKNN_ERR_TIMEOUT;
    case NPK_ENODEV: return RKNN_ERR_DEVICE_UNAVAILABLE;
    case NPK_EIO:
    case NPK_EFAULT:
    case NPK_EBUSY:
    case NPK_EPARSE:
    case NPK_EPROTO:
    case NPK_EMISMATCH:
    case NPK_STATUS_COUNT:
    default: return RKNN_ERR_FAIL;
    }
}

int rknn_error(npk_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    npk_vfail(s, fmt, ap);
    va_end(ap);
    return rknn_fail(s);
}

npk_status rknn_runtime_open(npk_rk **rt) { return npk_rk_open_shared(NULL, rt); }

/* The types the RK3588 runs. 3 and 9 are the int8 matmul with the requantisation or
 * dequantisation done on the host; 10's int16 is the exact int32 sum saturated. A native C is
 * (N/4, M, 4), for the int16 output (N/8, M, 8). */
static const rknn_type_row types[] = {
    {RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32, NPK_PREC_FP16, NPK_PREC_FP32, RKNN_TENSOR_FLOAT16,
     RKNN_TENSOR_FLOAT32, 16, 32, 4, false},
    {RKNN_INT8_MM_INT8_TO_INT32, NPK_PREC_INT8, NPK_PREC_INT32, RKNN_TENSOR_INT8, RKNN_TENSOR_INT32,
     8, 32, 4, true},
    {RKNN_INT8_MM_INT8_TO_INT8, NPK_PREC_INT8, NPK_PREC_INT32, RKNN_TENSOR_INT8, RKNN_TENSOR_INT8,
     8, 8, 4, true},
    {RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16, NPK_PREC_FP16, NPK_PREC_FP16, RKNN_TENSOR_FLOAT16,
     RKNN_TENSOR_FLOAT16, 16, 16, 4, false},
    {RKNN_INT8_MM_INT8_TO_FLOAT32, NPK_PREC_INT8, NPK_PREC_INT32, RKNN_TENSOR_INT8,
     RKNN_TENSOR_FLOAT32, 8, 32, 4, true},
    {RKNN_INT4_MM_INT4_TO_INT16, NPK_PREC_INT4, NPK_PREC_INT32, RKNN_TENSOR_INT4, RKNN_TENSOR_INT16,
     4, 16, 8, false},
};

const rknn_type_row *rknn_type_find(rknn_matmul_type t)
{
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (types[i].type == t)
            return &types[i];
    return NULL;
}

static void set_attr(rknn_matmul_tensor_attr *a, const char *name, rknn_tensor_type type,
                     unsigned bits, unsigned n_dims, const uint32_t *dims)
{
    memset(a, 0, sizeof *a);
    snprintf(a->name, sizeof a->name, "%s", name);
    a->n_dims = n_dims;
    uint64_t elems = 1;
    for (unsigned i = 0; i < n_dims; i++) {
        a->dims[i] = dims[i];
        elems *= dims[i];
    }
    a->size = (uint32_t)((elems * bits + 7) / 8);
    a->type = type;
}

static uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

int rknn_shape_attrs(const rknn_matmul_info *info, const rknn_matmul_shape *shape,
                     rknn_matmul_io_attr *attr)
{
    const rknn_type_row *t = rknn_type_find(info->type);
    if (!t)
        return rknn_error(NPK_EINVAL, "matmul type %d is not a matmul type", (int)info->type);
    const uint32_t n_align = t->in == NPK_PREC_FP16 ? 16 : t->in == NPK_PREC_INT8 ? 32 : 64;
    const int32_t m = shape->M, k = shape->K, n = shape->N;
    if (m < 1 || k < 1 || n < 1)
        return rknn_error(NPK_EINVAL, "M=%d K=%d N=%d: each must be at least 1", m, k, n);
    if (k % 32)
        return rknn_error(NPK_EINVAL, "K=%d must be a multiple of 32", k);
    if (k > 10240)
        return rknn_error(NPK_ELIMIT, "K=%d exceeds the K limit 10240", k);
    if (n % (int32_t)n_align)
        return rknn_error(NPK_EINVAL, "N=%d must be a multiple of %u for %s", n, n_align,
                          get_matmul_type_string(info->type));
    if ((uint64_t)m * (uint64_t)(k > n ? k : n) * 4 > 0xF0000000ull)
        return rknn_error(NPK_ELIMIT,
                          "M=%d K=%d N=%d: an operand exceeds the NPU's 32-bit "
                          "address space",
                          m, k, n);
    const uint32_t c2 = 128 / t->ab_bits; /* native A channels: 8 fp16, 16 int8, 32 int4 */
    const uint32_t gb = t->in == NPK_PREC_FP16 ? 16 : t->in == NPK_PREC_INT8 ? 32 : 64;
    uint32_t d[4];
    if (info->AC_layout == RKNN_MM_LAYOUT_NATIVE) {
        d[0] = ceil_div((uint32_t)k, c2), d[1] = (uint32_t)m, d[2] = c2;
        set_attr(&attr->A, "A", t->ab, t->ab_bits, 3, d);
        uint32_t g = t->c_native_group;
        d[0] = ceil_div((uint32_t)n, g), d[1] = (uint32_t)m, d[2] = g;
        set_attr(&attr->C, "C", t->c, t->c_bits, 3, d);
    } else {
        d[0] = (uint32_t)m, d[1] = (uint32_t)k;
        set_attr(&attr->A, "A", t->ab, t->ab_bits, 2, d);
        d[0] = (uint32_t)m, d[1] = (uint32_t)n;
        set_attr(&attr->C, "C", t->c, t->c_bits, 2, d);
    }
    if (info->B_layout == RKNN_MM_LAYOUT_NATIVE) {
        d[0] = ceil_div((uint32_t)n, gb), d[1] = ceil_div((uint32_t)k, 32), d[2] = gb, d[3] = 32;
        set_attr(&attr->B, "B", t->ab, t->ab_bits, 4, d);
    } else if (info->B_layout == RKNN_MM_LAYOUT_TP_NORM) {
        d[0] = (uint32_t)n, d[1] = (uint32_t)k;
        set_attr(&attr->B, "B", t->ab, t->ab_bits, 2, d);
    } else {
        d[0] = (uint32_t)k, d[1] = (uint32_t)n;
        set_attr(&attr->B, "B", t->ab, t->ab_bits, 2, d);
    }
    return RKNN_SUCC;
}

void rknn_int4_unpack(const uint8_t *src, int8_t *dst, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        unsigned nib = (src[i / 2] >> (4 * (i & 1))) & 0xF;
        dst[i] = (int8_t)(nib >= 8 ? (int)nib - 16 : (int)nib);
    }
}

void rknn_rows_to_groups(const void *src, void *dst, size_t rows, size_t cols, size_t eb, size_t g)
{
    const uint8_t *s = src;
    uint8_t *d = dst;
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++)
            memcpy(d + (((j / g) * rows + i) * g + j % g) * eb, s + (i * cols + j) * eb, eb);
}
