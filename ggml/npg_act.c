/* SPDX-License-Identifier: MIT */
/* The activations' host arithmetic (npg_act.h). Every activation of a call is range-checked or
 * quantised, and every int8 result scaled back, at each call: at M = 128, K = N = 4096 that is
 * half a million elements each way, which scalar code took milliseconds over (the range check's
 * loop, a conditional maximum, is one the compiler does not vectorise without fast-math), a
 * large share of the host's work per call.
 *
 * The vector bodies compute exactly what the scalar ones do, in the same order, so the results
 * are the same bits:
 *   - rintf in the default rounding mode and CVTPS2DQ both round to nearest, ties to even; every
 *     value rounded here is within int16 (|x / s| <= 127 up to rounding), so the conversion to
 *     integers, the saturating packs and the clamp to -127..127 in int16 give what the float
 *     clamp of the scalar code gives;
 *   - the largest magnitude is a maximum, exact in any order; a row with a value that is not
 *     finite is refused by both;
 *   - the products and sums are the scalar code's operations, one by one (the build is ISO C,
 *     which contracts no a * b + c into a fused multiply-add, and the vector code names no FMA);
 *   - the sums are scaled back through double as the scalar code does: int32 to double is exact,
 *     the division by 254 and the sum round once each, then to float.
 * test_ggml_act holds them equal on random rows, every tail length and the edge values. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "npg_act.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#define NPG_INT8_SSE2 1
#else
#define NPG_INT8_SSE2 0
#endif

/* ---- the scalar forms: the reference ------------------------------------------------------ */

bool npg_finite_above_scalar(const float *x, int64_t k, float limit)
{
    for (int64_t i = 0; i < k; i++)
        if (isfinite(x[i]) && fabsf(x[i]) > limit)
            return true;
    return false;
}

/* The row's largest magnitude; false when a value is not finite or the row is all tiny. */
static bool row_amax_scalar(const float *x, int64_t k, float *amax_out)
{
    float amax = 0;
    for (int64_t i = 0; i < k; i++) {
        if (!isfinite(x[i]))
            return false;
        amax = fmaxf(amax, fabsf(x[i]));
    }
    *amax_out = amax;
    return !(amax > 0 && amax < NPG_INT8_MIN_AMAX);
}

static int8_t clamp_int8(float v) { return (int8_t)fminf(fmaxf(v, -NPG_INT8_MAX), NPG_INT8_MAX); }

/* Elements [from, k) of both digits (q2 NULL: only the first). */
static void digits_tail(const float *x, int64_t from, int64_t k, float scale, float inv, float inv2,
                        int8_t *q1, int8_t *q2)
{
    /* a count, not an index compared with k: gcc's -O3 reads the signed range of an inlined
     * `from` as a loop of 2^62 iterations and warns */
    const size_t n = k > from ? (size_t)(k - from) : 0;
    x += from, q1 += from;
    if (q2)
        q2 += from;
    for (size_t i = 0; i < n; i++) {
        /* |x * inv| <= 127 up to rounding: clamp so that rounding never leaves int8 */
        q1[i] = clamp_int8(rintf(x[i] * inv));
        if (q2)
            q2[i] = clamp_int8(rintf((x[i] - scale * q1[i]) * inv2));
    }
}

static float inverse(float num, float den) { return den > 0 ? num / den : 0; }

bool npg_quantise_row_scalar(const float *x, int64_t k, int8_t *q, float *scale)
{
    float amax;
    if (!row_amax_scalar(x, k, &amax))
        return false;
    *scale = amax / NPG_INT8_MAX;
    digits_tail(x, 0, k, *scale, inverse(NPG_INT8_MAX, amax), 0, q, NULL);
    return true;
}

bool npg_int8_digits_scalar(const float *x, int64_t k, int8_t *q1, int8_t *q2, float *scale)
{
    float amax;
    if (!row_amax_scalar(x, k, &amax))
        return false;
    *scale = amax / NPG_INT8_MAX;
    digits_tail(x, 0, k, *scale, inverse(NPG_INT8_MAX, amax), inverse(NPG_DIGIT2, *scale), q1, q2);
    return true;
}

static float rescale_one(int32_t p1, int32_t p2, float a_scale, float w_scale)
{
    return (float)((double)p1 + (double)p2 / NPG_DIGIT2) * a_scale * w_scale;
}

/* Elements [from, n): the sums read through memcpy (they sit in a float array). */
static void rescale_tail(const void *p1, const void *p2, size_t from, size_t n, float a_scale,
                         const float *w_scale, float *out)
{
    for (size_t j = from; j < n; j++) {
        int32_t s1, s2;
        memcpy(&s1, (const int32_t *)p1 + j, sizeof s1);
        memcpy(&s2, (const int32_t *)p2 + j, sizeof s2);
        out[j] = rescale_one(s1, s2, a_scale, w_scale[j]);
    }
}

void npg_int8_rescale_row_scalar(const void *p1, const void *p2, size_t n, float a_scale,
                                 const float *w_scale, float *out)
{
    rescale_tail(p1, p2, 0, n, a_scale, w_scale, out);
}

/* ---- the vector forms ------------------------------------------------------------------- */

#if NPG_INT8_SSE2
/* The row's largest magnitude, four lanes at a time (the tail scalar). */
static bool row_amax(const float *x, int64_t k, float *amax_out)
{
    const __m128i magnitude = _mm_set1_epi32(0x7fffffff), below_inf = _mm_set1_epi32(0x7f7fffff);
    __m128 m = _mm_setzero_ps();
    __m128i bad = _mm_setzero_si128();
    int64_t i = 0;
    for (; i + 4 <= k; i += 4) {
        const __m128i bits = _mm_and_si128(_mm_castps_si128(_mm_loadu_ps(x + i)), magnitude);
        bad = _mm_or_si128(bad, _mm_cmpgt_epi32(bits, below_inf)); /* infinity or NaN */
        m = _mm_max_ps(m, _mm_castsi128_ps(bits));
    }
    if (_mm_movemask_epi8(bad))
        return false;
    float lane[4];
    _mm_storeu_ps(lane, m);
    float amax = fmaxf(fmaxf(lane[0], lane[1]), fmaxf(lane[2], lane[3]));
    for (; i < k; i++) {
        if (!isfinite(x[i]))
            return false;
        amax = fmaxf(amax, fabsf(x[i]));
    }
    *amax_out = amax;
    return !(amax > 0 && amax < NPG_INT8_MIN_AMAX);
}

bool npg_finite_above(const float *x, int64_t k, float limit)
{
    const __m128 magnitude = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
    const __m128 lim = _mm_set1_ps(limit), max_finite = _mm_set1_ps(FLT_MAX);
    __m128 above = _mm_setzero_ps();
    int64_t i = 0;
    for (; i + 4 <= k; i += 4) {
        const __m128 a = _mm_and_ps(_mm_loadu_ps(x + i), magnitude);
        /* a NaN compares false both ways; an infinity is above FLT_MAX */
        above = _mm_or_ps(above, _mm_and_ps(_mm_cmpgt_ps(a, lim), _mm_cmple_ps(a, max_finite)));
    }
    return _mm_movemask_ps(above) || npg_finite_above_scalar(x + i, k - i, limit);
}

/* Eight values as int16 lanes, rounded to nearest even and clamped to -127..127. */
static __m128i round_clamp8(__m128 lo, __m128 hi)
{
    const __m128i v = _mm_packs_epi32(_mm_cvtps_epi32(lo), _mm_cvtps_epi32(hi));
    return _mm_min_epi16(_mm_max_epi16(v, _mm_set1_epi16(-127)), _mm_set1_epi16(127));
}

/* Eight int16 lanes stored as int8. */
static void store8(int8_t *dst, __m128i v16)
{
    _mm_storel_epi64((__m128i *)(void *)dst, _mm_packs_epi16(v16, v16));
}

/* Both digits (q2 NULL: only the first), eight elements a step; returns where the tail starts. */
static int64_t digits_v(const float *x, int64_t k, float scale, float inv, float inv2, int8_t *q1,
                        int8_t *q2)
{
    const __m128 vinv = _mm_set1_ps(inv), vs = _mm_set1_ps(scale), vinv2 = _mm_set1_ps(inv2);
    int64_t i = 0;
    for (; i + 8 <= k; i += 8) {
        const __m128 x0 = _mm_loadu_ps(x + i), x1 = _mm_loadu_ps(x + i + 4);
        const __m128i d1 = round_clamp8(_mm_mul_ps(x0, vinv), _mm_mul_ps(x1, vinv));
        store8(q1 + i, d1);
        if (!q2)
            continue;
        /* the first digit back as floats: its int16 lanes sign-extended to int32 */
        const __m128 f0 = _mm_cvtepi32_ps(_mm_srai_epi32(_mm_unpacklo_epi16(d1, d1), 16));
        const __m128 f1 = _mm_cvtepi32_ps(_mm_srai_epi32(_mm_unpackhi_epi16(d1, d1), 16));
        const __m128 r0 = _mm_mul_ps(_mm_sub_ps(x0, _mm_mul_ps(vs, f0)), vinv2);
        const __m128 r1 = _mm_mul_ps(_mm_sub_ps(x1, _mm_mul_ps(vs, f1)), vinv2);
        store8(q2 + i, round_clamp8(r0, r1));
    }
    return i;
}

bool npg_quantise_row(const float *x, int64_t k, int8_t *q, float *scale)
{
    float amax;
    if (!row_amax(x, k, &amax))
        return false;
    *scale = amax / NPG_INT8_MAX;
    const float inv = inverse(NPG_INT8_MAX, amax);
    digits_tail(x, digits_v(x, k, *scale, inv, 0, q, NULL), k, *scale, inv, 0, q, NULL);
    return true;
}

bool npg_int8_digits(const float *x, int64_t k, int8_t *q1, int8_t *q2, float *scale)
{
    float amax;
    if (!row_amax(x, k, &amax))
        return false;
    *scale = amax / NPG_INT8_MAX;
    const float inv = inverse(NPG_INT8_MAX, amax), inv2 = inverse(NPG_DIGIT2, *scale);
    digits_tail(x, digits_v(x, k, *scale, inv, inv2, q1, q2), k, *scale, inv, inv2, q1, q2);
    return true;
}

void npg_int8_rescale_row(const void *p1, const void *p2, size_t n, float a_scale,
                          const float *w_scale, float *out)
{
    const __m128d unit = _mm_set1_pd((double)NPG_DIGIT2);
    const __m128 va = _mm_set1_ps(a_scale);
    const uint8_t *b1 = p1, *b2 = p2;
    size_t j = 0;
    for (; j + 4 <= n; j += 4) {
        const __m128i s1 = _mm_loadu_si128((const __m128i *)(const void *)(b1 + 4 * j));
        const __m128i s2 = _mm_loadu_si128((const __m128i *)(const void *)(b2 + 4 * j));
        const __m128d lo = _mm_add_pd(_mm_cvtepi32_pd(s1), _mm_div_pd(_mm_cvtepi32_pd(s2), unit));
        const __m128d hi =
            _mm_add_pd(_mm_cvtepi32_pd(_mm_shuffle_epi32(s1, 0xee)),
                       _mm_div_pd(_mm_cvtepi32_pd(_mm_shuffle_epi32(s2, 0xee)), unit));
        const __m128 f = _mm_movelh_ps(_mm_cvtpd_ps(lo), _mm_cvtpd_ps(hi));
        _mm_storeu_ps(out + j, _mm_mul_ps(_mm_mul_ps(f, va), _mm_loadu_ps(w_scale + j)));
    }
    rescale_tail(p1, p2, j, n, a_scale, w_scale, out);
}
#else /* no vector body here: the scalar forms */
bool npg_finite_above(const float *x, int64_t k, float limit)
{
    return npg_finite_above_scalar(x, k, limit);
}

bool npg_quantise_row(const float *x, int64_t k, int8_t *q, float *scale)
{
    return npg_quantise_row_scalar(x, k, q, scale);
}

bool npg_int8_digits(const float *x, int64_t k, int8_t *q1, int8_t *q2, float *scale)
{
    return npg_int8_digits_scalar(x, k, q1, q2, scale);
}

void npg_int8_rescale_row(const void *p1, const void *p2, size_t n, float a_scale,
                          const float *w_scale, float *out)
{
    npg_int8_rescale_row_scalar(p1, p2, n, a_scale, w_scale, out);
}
#endif
