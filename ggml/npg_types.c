/* SPDX-License-Identifier: MIT */
/* The weight types the NPU takes and the form each takes there.
 *
 * Two forms: fp16 (fp16 x fp16 products, fp32 sums) and int8 with one scale per output row
 * (int8 x int8 products, exact int32 sums, activations quantised per token). ggml's quantised
 * blocks carry a scale per 32 or 16 weights along K, which the integer path could keep exactly
 * only as K slices of one block each (3.5 to 4.2 times the fp16 call, docs/ggml.md); the int8
 * row form instead requantises each dequantised row to one scale, which is lossy where a row's
 * blocks have very different scales. The choice per type is argued with measured error and
 * modelled time in docs/ggml.md: every quantised type is int8 (half fp16's bytes, within the
 * CPU backend's error); float types stay fp16, where int8 rows would add error they lack.
 * An int4 form (npg_int4.c: a scale per row and K slice, activations as int4 digits) is measured
 * beside them by bench_ggml part 2 and is none of these: requantising to int4 costs 3.1 to 484
 * times the CPU backend's error for every type but Q4_0, and Q4_0, held exactly in slices of
 * 32, models 5.9 times the int8 form's decode time (docs/ggml.md, "The int4 form"). */
#include <math.h>
#include <string.h>

#include "npg.h"
#include "common/dense.h" /* npk_f32_to_f16_n */
#include "npukit/fp16.h"

static const npg_type_row type_rows[] = {
    {GGML_TYPE_F16, NPG_PREP_FP16, NPG_FORM_FP16, "fp16 as stored"},
    {GGML_TYPE_F32, NPG_PREP_ROUND, NPG_FORM_FP16,
     "rounded to fp16 (NMSE ~1e-7, within MUL_MAT's 5e-4)"},
    {GGML_TYPE_BF16, NPG_PREP_ROUND, NPG_FORM_FP16, "bf16 widened exactly, rounded to fp16"},
/* Quantised types: int8 rows, whose measured error (bench_ggml part 2) stays within 1.3 times
 * the CPU backend's own on uniform values and below it where block scales and activations
 * are uneven, at half fp16's bytes. */
#define DEQUANT(t)                                                                                 \
    {                                                                                              \
        GGML_TYPE_##t, NPG_PREP_DEQUANT, NPG_FORM_INT8_ROW,                                        \
            "dequantised once, int8 with a scale per row (docs/ggml.md)"                           \
    }
    DEQUANT(Q8_0),
    DEQUANT(Q4_0),
    DEQUANT(Q4_1),
    DEQUANT(Q5_0),
    DEQUANT(Q5_1),
    DEQUANT(Q2_K),
    DEQUANT(Q3_K),
    DEQUANT(Q4_K),
    DEQUANT(Q5_K),
    DEQUANT(Q6_K),
    DEQUANT(IQ4_NL),
    DEQUANT(IQ4_XS),
    DEQUANT(MXFP4),
#undef DEQUANT
};

const npg_type_row *npg_type_of(enum ggml_type t)
{
    for (size_t i = 0; i < sizeof type_rows / sizeof type_rows[0]; i++)
        if (type_rows[i].type == t)
            return &type_rows[i];
    return NULL;
}

npg_form npg_form_of(enum ggml_type t)
{
    const npg_type_row *row = npg_type_of(t);
    return row && !npg_settings_get()->fp16_only ? row->form : NPG_FORM_FP16;
}

/* Every form's entry: fp16 x fp16 with fp32 out; int8 x int8 with int32 out and two int8
 * rows (digits) per activation row, so that activations keep about 16 bits however uneven a
 * token's values are (one int8 scale per token loses most where a few channels are far larger
 * than the rest: docs/ggml.md measures it). */
static const npg_form_row form_rows[] = {
    [NPG_FORM_FP16] = {NPK_PREC_FP16, NPK_PREC_FP32, 2, 1},
    [NPG_FORM_INT8_ROW] = {NPK_PREC_INT8, NPK_PREC_INT32, 1, 2},
};

const npg_form_row *npg_form_info(npg_form f) { return &form_rows[f]; }

float npg_load_float(enum ggml_type t, const void *p)
{
    uint16_t h;
    switch (t) {
    case GGML_TYPE_F32: {
        float f;
        memcpy(&f, p, sizeof f);
        return f;
    }
    case GGML_TYPE_F16: memcpy(&h, p, sizeof h); return npk_f16_to_f32(h);
    case GGML_TYPE_BF16: memcpy(&h, p, sizeof h); return npk_bf16_to_f32(h);
    default: return NAN;
    }
}

/* fp16's largest finite value: a finite float beyond it would become infinity. */
#define NPG_FP16_MAX 65504.0f

bool npg_row_to_fp16(enum ggml_type t, const void *src, int64_t k, float *tmp, uint16_t *dst)
{
    if (t == GGML_TYPE_F16) {
        memcpy(dst, src, (size_t)k * sizeof *dst);
        return true;
    }
    /* F32 is read in place (ggml's rows of floats are float-aligned); the batch conversion
     * rounds exactly as npk_f32_to_f16 does, vectorised where the CPU allows */
    const float *f = tmp;
    if (t == GGML_TYPE_F32)
        f = src;
    else if (t == GGML_TYPE_BF16)
        for (int64_t i = 0; i < k; i++)
            tmp[i] = npg_load_float(t, (const uint16_t *)src + i);
    else
        ggml_get_type_traits(t)->to_float(src, tmp, k);
    npk_f32_to_f16_n(f, dst, (size_t)k);
    return !npg_finite_above(f, k, NPG_FP16_MAX);
}
