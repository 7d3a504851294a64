/* SPDX-License-Identifier: MIT */
/* The runtime calls of one node, or of several independent nodes: every weight matrix's
 * matmul goes into one npk_rk_matmul_batch per weight form (a job runs one precision mode), so
 * L matmuls of a decode step or of a mixture of experts' picked experts pay the submit floor
 * about ceil(L T / cores / chain) times instead of L T / cores (the spec's "TWO distinct batch
 * mechanisms"). NPUKIT_GGML_BATCH=0 runs one npk_rk_matmul per matrix instead.
 *
 * The int8 row form (npg_types.c) multiplies int8 weights with one scale per output row by
 * activations quantised here as two int8 digits per row (token) with one scale s:
 * x ~ s (q1 + q2 / 254), q1 = round(x / s), q2 = round((x - s q1) 254 / s), so that a token
 * whose values are uneven keeps about 16 bits (one digit keeps 8 bits of its largest value
 * only). Both digits are rows of the same call; the NPU's int32 sums P1, P2 are exact, and
 * C[m][n] = s[m] w_scale[n] (P1 + P2 / 254) is applied here in fp32. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npg.h"

bool npg_act_row(npg_form form, const struct ggml_tensor *t, const uint8_t *p, float *tmp,
                 uint8_t *dst, size_t digit_stride, float *scale)
{
    if (form == NPG_FORM_FP16)
        return npg_tensor_row_fp16(t, p, tmp, (uint16_t *)dst);
    int8_t *q1 = (int8_t *)dst, *q2 = (int8_t *)(dst + digit_stride);
    const float *x = tmp;
    if (t->type == GGML_TYPE_F32 && t->nb[0] == sizeof(float))
        x = (const float *)(const void *)p; /* a packed F32 row: read in place */
    else
        npg_tensor_row_f32(t, p, tmp);
    return npg_int8_digits(x, t->ne[0], q1, q2, scale);
}

void npg_count_call(npg_device *d, const npk_rk_stats *st, const char *what, uint64_t *t0,
                    uint64_t *runtime_host)
{
    if (npg_settings_get()->verbose)
        fprintf(stderr,
                "ggml-npukit: %s: %u tasks %u submits, call %.3f ms (synth %.3f pack %.3f sync "
                "%.3f submit %.3f accumulate %.3f), NPU %.3f ms\n",
                what, st->tasks, st->submits, st->host_ns / 1e6, st->synth_ns / 1e6,
                st->pack_ns / 1e6, st->sync_ns / 1e6, st->submit_ns / 1e6,
                st->accumulate_ns / 1e6, st->npu_span_ns / 1e6);
    d->counters.npu_calls++;
    d->counters.submits += st->submits;
    d->counters.npu_ns += st->npu_span_ns;
    /* The call's wall time leaves the caller's clock (t0 moves past it) and only the runtime's
     * host parts come back; a simulated device's syncs copy the simulator's memory (its work,
     * not the host's), so they count only on hardware. */
    *t0 += st->host_ns;
    *runtime_host +=
        st->synth_ns + st->pack_ns + st->accumulate_ns + (d->simulated ? 0 : st->sync_ns);
}

/* A matmul call's figures: the counters, and the verbose line naming its matrices. */
static void count_matmuls(npg_device *d, const npk_rk_stats *st, const char *name,
                          size_t matrices, const npg_call *first, uint64_t *t0,
                          uint64_t *runtime_host)
{
    char what[192];
    snprintf(what, sizeof what, "%s %zu matmul(s) %s, first M %u K %u N %u", name, matrices,
             npk_rk_prec_name(npg_form_info(first->form)->in), first->m, first->k, first->n);
    d->counters.npu_matrices += matrices;
    npg_count_call(d, st, what, t0, runtime_host);
}

/* The int32 sums of an int8 call (rows of both digits) as its M result rows, in place or
 * where the call says (out): s[m] w_scale[n] (P1[m][n] + P2[m][n] / 254). */
static void int8_rescale(const npg_call *c)
{
    const size_t digit2 = (size_t)c->m * c->n;
    for (uint32_t i = 0; i < c->m; i++) {
        float *row = c->c + (size_t)i * c->n;
        npg_int8_rescale_row(row, row + digit2, c->n, c->a_scale[i], c->mat->scale,
                             c->out ? c->out + (size_t)i * c->n : row);
    }
}

static void fail(const char *name, const npg_call *c, size_t count, npk_status rc)
{
    fprintf(stderr, "ggml-npukit: %s (%zu matmul(s), first M %u, K %u, N %u): %s: %s\n", name,
            count, c->m, c->k, c->n, npk_status_name(rc), npk_last_error());
}

/* The calls of one form: chunks of at most NPK_RK_BATCH_MAX items per runtime call (one
 * item per call when batching is off). */
static bool run_form(npg_device *d, npg_call *calls, size_t count, npg_form form,
                     npk_rk_matmul_item *items, const char *name, uint64_t *t0,
                     uint64_t *runtime_host)
{
    const npg_form_row *f = npg_form_info(form);
    const npk_rk_prec out = f->out;
    const size_t chunk = npg_settings_get()->batch ? NPK_RK_BATCH_MAX : 1;
    size_t used = 0, first = 0;
    for (size_t i = 0; i <= count; i++) {
        if (used && (i == count || used == chunk)) {
            npk_rk_stats st;
            const npk_rk_matmul_item *one = &items[0];
            npk_status rc =
                used > 1      ? npk_rk_matmul_batch(d->rt, items, (uint32_t)used, out, &st)
                : one->a_fp32 ? npk_rk_matmul_f32(d->rt, one->w, one->m, one->a, out, one->c, &st)
                              : npk_rk_matmul(d->rt, one->w, one->m, one->a, out, one->c, &st);
            if (rc != NPK_OK) {
                fail(name, &calls[first], used, rc);
                return false;
            }
            count_matmuls(d, &st, name, used, &calls[first], t0, runtime_host);
            used = 0;
        }
        if (i == count || calls[i].form != form)
            continue;
        if (used == 0)
            first = i;
        items[used++] = (npk_rk_matmul_item){.w = calls[i].mat->w,
                                             .m = calls[i].m * f->act_rows,
                                             .a = calls[i].a,
                                             .c = calls[i].c,
                                             .a_fp32 = calls[i].a_f32};
    }
    if (form == NPG_FORM_INT8_ROW)
        for (size_t i = 0; i < count; i++)
            if (calls[i].form == form)
                int8_rescale(&calls[i]);
    return true;
}

bool npg_calls_run(npg_device *d, npg_call *calls, size_t count, const char *name, uint64_t *t0,
                   uint64_t *runtime_host)
{
    if (count == 0)
        return true;
    npk_rk_matmul_item *items = malloc(
        (count < NPK_RK_BATCH_MAX ? count : NPK_RK_BATCH_MAX) * sizeof *items);
    if (!items) {
        fprintf(stderr, "ggml-npukit: %s: out of memory for %zu matmuls\n", name, count);
        return false;
    }
    static const npg_form forms[] = {NPG_FORM_FP16, NPG_FORM_INT8_ROW};
    bool ok = true;
    for (size_t f = 0; f < sizeof forms / sizeof forms[0] && ok; f++)
        ok = run_form(d, calls, count, forms[f], items, name, t0, runtime_host);
    free(items);
    return ok;
}
