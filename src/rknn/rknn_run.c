/* SPDX-License-Identifier: MIT */
/* rknn_matmul_run on the runtime, and the host-side B repacking helper.
 *
 * The NPU computes fp16 -> fp32 or fp16, and int8/int4 -> the exact int32 sum. What the types
 * add on the host:
 *   3  (int8 -> int8): c = saturate_int8(round_half_even(sA * sB[j] * (acc - zB[j] * rowsum_A[i])
 *      / sC) + zC);
 *   9  (int8 -> fp32): c = sA * sB[j] * (acc - zB[j] * rowsum_A[i]); B per group: rknn_group.c;
 *   10 (int4 -> int16): c = acc saturated to [-32768, 32767].
 * Type 2 writes acc itself (its quantisation parameters are kept for get_quant_params). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rknn_context.h"
#include "rknn_group.h"

static npk_rk_layout b_layout(int16_t l)
{
    return l == RKNN_MM_LAYOUT_NATIVE    ? NPK_RK_NATIVE
           : l == RKNN_MM_LAYOUT_TP_NORM ? NPK_RK_TRANSPOSED
                                         : NPK_RK_ROWS;
}

/* The bound operand's bytes, checked against the current shape, its mem pinned into *pin for
 * the run (another thread's rknn_destroy_mem waits for it); NULL with the error recorded. */
static uint8_t *operand(const rknn_binding *b, const rknn_matmul_tensor_attr *attr,
                        rknn_mem_obj **pin, npk_status *s)
{
    if (!b->mem) {
        *s = npk_fail(NPK_EINVAL, "rknn_matmul_run: %s is not bound (rknn_matmul_set_io_mem)",
                      attr->name);
        return NULL;
    }
    if (!(*pin = rknn_mem_pin(&b->mem->pub, b->id))) {
        *s = npk_fail(NPK_EINVAL, "rknn_matmul_run: the mem bound as %s was destroyed", attr->name);
        return NULL;
    }
    /* A memfd standing for a dma-buf can be cut by its owner after the import. */
    npk_status cut = npk_rk_buffer_check(b->mem->buf);
    if (cut) {
        char why[400];
        snprintf(why, sizeof why, "%s", npk_last_error());
        *s = npk_fail(cut, "rknn_matmul_run: the mem bound as %s: %s", attr->name, why);
        return NULL;
    }
    uint64_t room = npk_rk_buffer_size(b->mem->buf);
    if (b->off > room || attr->size > room - b->off) {
        *s = npk_fail(NPK_EINVAL,
                      "rknn_matmul_run: %s needs %u bytes at offset %llu; its mem "
                      "has %llu",
                      attr->name, attr->size, (unsigned long long)b->off, (unsigned long long)room);
        return NULL;
    }
    return (uint8_t *)npk_rk_buffer_host(b->mem->buf) + b->off;
}

/* B as runtime weights: bound to the mem (read in place or re-read through the runtime's
 * checksummed copy), or for int4 in a normal layout (two elements a byte, which the runtime's
 * row-major convention does not take) unpacked here when the layer's checksum changes. */
static npk_status weights(rknn_mm_ctx *c, const rknn_matmul_shape *sh, const uint8_t *bytes,
                          uint32_t size)
{
    const rknn_binding *b = &c->b;
    npk_rk_layout layout = b_layout(c->info.B_layout);
    bool layer_copy = c->row->in == NPK_PREC_INT4 && layout != NPK_RK_NATIVE;
    bool same_mem = c->w && c->w_mem_id == b->id && c->w_off == b->off;
    uint64_t sum = layer_copy ? npk_rk_checksum(bytes, size) : 0;
    if (same_mem && (!layer_copy || sum == c->w_sum))
        return NPK_OK;
    if (c->w)
        npk_rk_weights_free(c->rt, c->w);
    c->w = NULL;
    npk_status s;
    if (layer_copy) {
        size_t count = (size_t)sh->K * sh->N;
        int8_t *v = malloc(count);
        if (!v)
            return npk_fail(NPK_ENOMEM, "rknn_matmul_run: no memory to unpack int4 B");
        rknn_int4_unpack(bytes, v, count);
        s = npk_rk_weights_pack_layout(c->rt, NPK_PREC_INT4, (uint32_t)sh->K, (uint32_t)sh->N, v,
                                       layout, (uint32_t)sh->M, &c->w);
        free(v);
    } else {
        s = npk_rk_weights_bind(c->rt, c->row->in, (uint32_t)sh->K, (uint32_t)sh->N, b->mem->buf,
                                b->off, layout, (uint32_t)sh->M, &c->w);
    }
    if (s == NPK_OK) {
        c->w_mem_id = b->id;
        c->w_off = b->off;
        c->w_sum = sum;
    }
    return s;
}

/* Sum of A's row i (int8), read in A's layout. */
static int64_t row_sum(const int8_t *a, int32_t m, int32_t k, bool native, int32_t i)
{
    int64_t s = 0;
    for (int32_t j = 0; j < k; j++)
        s += native ? a[((size_t)(j / 16) * m + i) * 16 + j % 16] : a[(size_t)i * k + j];
    return s;
}

/* The host stage of types 3, 9 and 10: acc (int32 rows) into out rows of C's element type. */
static void host_stage(const rknn_mm_ctx *c, const rknn_matmul_shape *sh, const int32_t *acc,
                       const int8_t *a, void *out)
{
    const int32_t m = sh->M, n = sh->N;
    const bool native = c->info.AC_layout == RKNN_MM_LAYOUT_NATIVE;
    for (int32_t i = 0; i < m; i++) {
        int64_t rs = c->b_zp && c->row->in == NPK_PREC_INT8 ? row_sum(a, m, sh->K, native, i) : 0;
        for (int32_t j = 0; j < n; j++) {
            size_t e = (size_t)i * n + j;
            if (c->info.type == RKNN_INT4_MM_INT4_TO_INT16) {
                int32_t v = acc[e];
                ((int16_t *)out)[e] = (int16_t)(v > 32767 ? 32767 : v < -32768 ? -32768 : v);
                continue;
            }
            int32_t q = c->b_len == n ? j : 0;
            double sb = c->b_scale ? c->b_scale[q] : 1.0, zb = c->b_zp ? c->b_zp[q] : 0;
            double real = (double)c->a_scale * sb * ((double)acc[e] - zb * (double)rs);
            if (c->info.type == RKNN_INT8_MM_INT8_TO_FLOAT32) {
                ((float *)out)[e] = (float)real;
            } else {
                double v = nearbyint(real / c->c_scale) + c->c_zp;
                ((int8_t *)out)[e] = (int8_t)(v > 127 ? 127 : v < -128 ? -128 : v);
            }
        }
    }
}

/* Sync the operand's bytes of a bound mem (its offset, the current shape's size). */
static npk_status sync_operand(const rknn_binding *b, uint32_t size, npk_rk_sync_dir dir)
{
    return npk_rk_buffer_sync(b->mem->buf, b->off, size, dir);
}

/* The memory contract, as the vendor's runtime keeps it: a run makes the device's copy of A and
 * B what the CPU wrote (so a caller that never syncs is right, and a FROM_DEVICE sync of an
 * input after the run gives back what was written), and it leaves C in the device's buffer as
 * well as in the CPU's view (the result is computed into the CPU view here, then cleaned to the
 * device: a FROM_DEVICE sync after the run, which every open client makes, reads the result and
 * not the stale device bytes). Every documented sequence of rknn_mem_sync calls around a run
 * therefore leaves the right bytes on both sides. */
static npk_status sync_inputs(const rknn_mm_ctx *c, const rknn_matmul_io_attr *at)
{
    npk_status s = sync_operand(&c->a, at->A.size, NPK_RK_SYNC_TO_DEVICE);
    if (s == NPK_OK && !npk_rk_weights_in_place(c->w)) /* in place: the runtime syncs it */
        s = sync_operand(&c->b, at->B.size, NPK_RK_SYNC_TO_DEVICE);
    return s;
}

/* The run on pinned operands. */
static npk_status run_pinned(rknn_mm_ctx *c, uint8_t *a, uint8_t *b, uint8_t *out)
{
    const rknn_matmul_shape *sh = &c->shapes[c->cur];
    const rknn_matmul_io_attr *at = &c->attrs[c->cur];
    const rknn_type_row *row = c->row;
    npk_status s;
    if (rknn_group_wanted(c)) { /* type 9 with B per group: the runtime's quantised matmul */
        /* The same memory contract as below: inputs to the device, the result cleaned to it. */
        if ((s = sync_operand(&c->a, at->A.size, NPK_RK_SYNC_TO_DEVICE)) ||
            (s = sync_operand(&c->b, at->B.size, NPK_RK_SYNC_TO_DEVICE)) ||
            (s = rknn_group_run(c, sh, at, a, b, out)))
            return s;
        return sync_operand(&c->c, at->C.size, NPK_RK_SYNC_TO_DEVICE);
    }
    if ((s = weights(c, sh, b, at->B.size)) || (s = sync_inputs(c, at)))
        return s;
    const bool native = c->info.AC_layout == RKNN_MM_LAYOUT_NATIVE;
    const size_t mn = (size_t)sh->M * sh->N;
    /* A: as bound, except int4 row-major (two a byte) which the runtime takes one a byte. */
    int8_t *a4 = NULL;
    const void *a_run = a;
    if (row->in == NPK_PREC_INT4 && !native) {
        if (!(a4 = malloc((size_t)sh->M * sh->K)))
            return npk_fail(NPK_ENOMEM, "rknn_matmul_run: no memory to unpack int4 A");
        rknn_int4_unpack(a, a4, (size_t)sh->M * sh->K);
        a_run = a4;
    }
    /* C: written by the runtime straight into the mem when the element type and grouping are
     * the runtime's (fp32/int32 native groups of 4 are its cube layout), else through rows. */
    const bool direct = row->c_bits == 32
                            ? !(row->run_out == NPK_PREC_INT32 && row->c == RKNN_TENSOR_FLOAT32)
                            : row->c == RKNN_TENSOR_FLOAT16 && !native;
    size_t run_bytes = mn * (row->run_out == NPK_PREC_FP16 ? 2 : 4);
    void *rows = direct ? NULL : malloc(run_bytes);
    void *conv = NULL;
    if (!direct && !rows)
        s = npk_fail(NPK_ENOMEM, "rknn_matmul_run: no memory for C's rows");
    if (s == NPK_OK)
        s = npk_rk_matmul_layout(
            c->rt, c->w, (uint32_t)sh->M, a_run, native ? NPK_RK_NATIVE : NPK_RK_ROWS, row->run_out,
            direct ? out : rows, direct && native ? NPK_RK_NATIVE : NPK_RK_ROWS, NULL);
    if (s == NPK_OK && !direct) {
        const size_t eb = row->c_bits / 8;
        void *res = rows; /* fp16 rows of type 4 go as they are */
        if (row->run_out == NPK_PREC_INT32) {
            if (!(conv = malloc(mn * eb)))
                s = npk_fail(NPK_ENOMEM, "rknn_matmul_run: no memory for C");
            else
                host_stage(c, sh, rows, (const int8_t *)a, conv);
            res = conv;
        }
        if (s == NPK_OK && native)
            rknn_rows_to_groups(res, out, (size_t)sh->M, (size_t)sh->N, eb, row->c_native_group);
        else if (s == NPK_OK)
            memcpy(out, res, mn * eb);
    }
    if (s == NPK_OK)
        s = sync_operand(&c->c, at->C.size, NPK_RK_SYNC_TO_DEVICE);
    free(a4);
    free(rows);
    free(conv);
    return s;
}

static npk_status run_locked(rknn_mm_ctx *c)
{
    const rknn_matmul_io_attr *at = &c->attrs[c->cur];
    npk_status s = NPK_OK;
    rknn_mem_obj *pins[3] = {NULL, NULL, NULL};
    uint8_t *a = operand(&c->a, &at->A, &pins[0], &s);
    uint8_t *b = a ? operand(&c->b, &at->B, &pins[1], &s) : NULL;
    uint8_t *out = b ? operand(&c->c, &at->C, &pins[2], &s) : NULL;
    if (out)
        s = run_pinned(c, a, b, out);
    for (int i = 0; i < 3; i++)
        rknn_mem_unpin(pins[i]);
    return s;
}

int rknn_matmul_run(rknn_matmul_ctx ctx)
{
    rknn_mm_ctx *c = rknn_ctx_lock(ctx, "rknn_matmul_run");
    if (!c)
        return RKNN_ERR_CTX_INVALID;
    npk_status s = run_locked(c);
    pthread_mutex_unlock(&c->lock);
    return s ? rknn_fail(s) : RKNN_SUCC;
}

int rknn_B_normal_layout_to_native_layout(void *B_input, void *B_output, int K, int N,
                                          rknn_matmul_info *info)
{
    if (!B_input || !B_output || !info)
        return rknn_error(NPK_EINVAL, "rknn_B_normal_layout_to_native_layout: NULL %s",
                          !B_input    ? "B_input"
                          : !B_output ? "B_output"
                                      : "info");
    const rknn_type_row *row = rknn_type_find(info->type);
    if (!row)
        return rknn_error(NPK_EINVAL,
                          "rknn_B_normal_layout_to_native_layout: matmul type %d "
                          "does not run here",
                          (int)info->type);
    rknn_matmul_shape sh = {1, K, N};
    rknn_matmul_io_attr attr;
    int rc = rknn_shape_attrs(info, &sh, &attr);
    if (rc)
        return rc;
    const void *rows = B_input;
    int8_t *v = NULL;
    if (row->in == NPK_PREC_INT4) {
        if (!(v = malloc((size_t)K * N)))
            return rknn_error(NPK_ENOMEM, "rknn_B_normal_layout_to_native_layout: out of memory");
        rknn_int4_unpack(B_input, v, (size_t)K * N);
        rows = v;
    }
    npk_status s =
        npk_rk_b_to_native(row->in, (uint32_t)K, (uint32_t)N, rows, B_output,
                           npk_rk_b_layout_bytes(row->in, (uint32_t)K, (uint32_t)N, NPK_RK_NATIVE));
    free(v);
    return s ? rknn_fail(s) : RKNN_SUCC;
}
