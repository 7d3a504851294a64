/* SPDX-License-Identifier: MIT */
/* The activation rows, the LUT fitting and the LUT's arithmetic as modelled (rk_act_hw.h). */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "npukit/fp16.h"
#include "npukit/rk_act_hw.h"

/* ---- the functions, in double precision ---- */

static double f_sigmoid(double x, double a, double b)
{
    (void)a, (void)b;
    return 1.0 / (1.0 + exp(-x));
}
static double f_tanh(double x, double a, double b)
{
    (void)a, (void)b;
    return tanh(x);
}
static double f_gelu(double x, double a, double b)
{
    (void)a, (void)b;
    const double k = 0.7978845608028654; /* sqrt(2 / pi) */
    return 0.5 * x * (1.0 + tanh(k * (x + 0.044715 * x * x * x)));
}
static double f_silu(double x, double a, double b)
{
    (void)a, (void)b;
    return x / (1.0 + exp(-x));
}
static double f_hardswish(double x, double a, double b)
{
    (void)a, (void)b;
    double r = x + 3.0 < 0 ? 0 : x + 3.0 > 6 ? 6 : x + 3.0;
    return x * r / 6.0;
}
static double f_hardsigmoid(double x, double a, double b)
{
    double v = a * x + b;
    return v < 0 ? 0 : v > 1 ? 1 : v;
}
static double f_exp(double x, double a, double b)
{
    (void)a, (void)b;
    return exp(x);
}
static double f_relu(double x, double a, double b)
{
    (void)a, (void)b;
    return x < 0 ? 0 : x;
}
static double f_relu6(double x, double a, double b)
{
    (void)a, (void)b;
    return x < 0 ? 0 : x > 6 ? 6 : x;
}

/* Ranges: wide enough that past them the function is its end slope within the fp16 output's
 * resolution (sigmoid(-16) = 1.1e-7, tanh(8) = 1 - 2.3e-7; gelu and silu reach x or 0 within
 * 1e-6 past +-8 and +-16); the LE/LO split where the curvature is. out_exp: the largest
 * |f| in range times 2^out_exp stays below 2^15. */
static const npk_rk_act_row rows[NPK_ACT_COUNT] = {
    /* act            name          engine               op   x_lo  x_mid x_hi  out_exp params a b
       ref */
    {NPK_ACT_SIGMOID, "sigmoid", NPK_ACT_ENGINE_LUT, NPK_EW_LUT, -16, 0, 16, 14, false, 0, 0,
     f_sigmoid},
    {NPK_ACT_TANH, "tanh", NPK_ACT_ENGINE_LUT, NPK_EW_LUT, -8, 0, 8, 14, false, 0, 0, f_tanh},
    {NPK_ACT_GELU, "gelu", NPK_ACT_ENGINE_LUT, NPK_EW_LUT, -8, 0, 8, 11, false, 0, 0, f_gelu},
    {NPK_ACT_SILU, "silu", NPK_ACT_ENGINE_LUT, NPK_EW_LUT, -16, 0, 16, 10, false, 0, 0, f_silu},
    {NPK_ACT_HARDSWISH, "hardswish", NPK_ACT_ENGINE_LUT, NPK_EW_LUT, -4, 0, 4, 12, false, 0, 0,
     f_hardswish},
    {NPK_ACT_HARDSIGMOID, "hardsigmoid", NPK_ACT_ENGINE_LUT, NPK_EW_LUT, -8, 0, 8, 14, true,
     1.0 / 6.0, 0.5, f_hardsigmoid},
    {NPK_ACT_EXP, "exp", NPK_ACT_ENGINE_LUT, NPK_EW_LUT, -16, -8, 0, 14, false, 0, 0, f_exp},
    {NPK_ACT_RELU, "relu", NPK_ACT_ENGINE_CLAMP, NPK_EW_RELU, 0, 0, 0, 0, false, 0, 0, f_relu},
    /* the spec's op map puts relu6 on the clamp path (rk_sdp_hw.h's relu6 row) */
    {NPK_ACT_RELU6, "relu6", NPK_ACT_ENGINE_CLAMP, NPK_EW_RELU6, 0, 0, 0, 0, false, 0, 0, f_relu6},
};

const npk_rk_act_row *npk_rk_act_row_of(npk_rk_act_kind act)
{
    return (unsigned)act < NPK_ACT_COUNT ? &rows[act] : NULL;
}

bool npk_rk_act_parse(const char *name, npk_rk_act_kind *out)
{
    for (unsigned i = 0; name && i < NPK_ACT_COUNT; i++)
        if (!strcmp(name, rows[i].name)) {
            *out = rows[i].act;
            return true;
        }
    return false;
}

const char *npk_rk_act_names(void)
{
    return "sigmoid|tanh|gelu|silu|hardswish|hardsigmoid|exp|relu|relu6";
}

/* ---- fitting ---- */

/* The units of X per unit of x: the narrower table's 512 steps are 2^5 units each (the step
 * the third-party sigmoid capture uses), so s = 2^14 / width. */
enum { STEP_BITS = 5 };

static int16_t sat16(double v)
{
    v = nearbyint(v);
    return (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v);
}

/* A slope in entry units per X unit as scale / 2^shift: the largest shift (<= 31) that keeps
 * the scale in 16 signed bits. */
static void slope_of(double slope, int16_t *scale, uint8_t *shift)
{
    *scale = 0;
    *shift = 0;
    if (!(fabs(slope) > 0))
        return;
    int sh = 31;
    while (sh > 0 && fabs(ldexp(slope, sh)) > 32767)
        sh--;
    *scale = sat16(ldexp(slope, sh));
    *shift = (uint8_t)sh;
}

/* The function's one-sided slope at x, outward. */
static double one_sided(const npk_rk_act_row *r, double x, double a, double b, bool up)
{
    const double h = 1e-4;
    return up ? (r->ref(x + h, a, b) - r->ref(x, a, b)) / h
              : (r->ref(x, a, b) - r->ref(x - h, a, b)) / h;
}

/* The slope to extrapolate with past an end x: the function's slope there when it stays that
 * slope a range further out (an asymptote that is a line: gelu, silu, hardswish towards +inf),
 * else 0 (a flat end: sigmoid, tanh, exp, and the decaying sides), so no end grows without
 * bound where the function does not. */
static double slope_at(const npk_rk_act_row *r, double x, double a, double b, bool up)
{
    const double width = r->x_hi - r->x_lo;
    double here = one_sided(r, x, a, b, up);
    double further = one_sided(r, up ? x + width : x - width, a, b, up);
    return fabs(here - further) <= 1e-3 * fmax(fabs(here), 1e-30) ? here : 0.0;
}

static void fit_table(const npk_rk_act_row *r, double a, double b, double x0, double x1, double s,
                      double gain, int exp2, npk_rk_lut_table *t)
{
    const double scale = gain * ldexp(1.0, exp2);
    const double steps_units = (x1 - x0) * s / NPK_RK_LUT_STEPS; /* a power of two */
    t->start = (int32_t)lrint(x0 * s);
    t->select = (uint8_t)lrint(log2(steps_units));
    for (unsigned i = 0; i < NPK_RK_LUT_ENTRIES; i++)
        t->t[i] = sat16(r->ref(x0 + (x1 - x0) * i / NPK_RK_LUT_STEPS, a, b) * scale);
    /* entry units per X unit = f' * 2^out_exp / s */
    slope_of(slope_at(r, x0, a, b, false) * scale / s, &t->uflow_scale, &t->uflow_shift);
    slope_of(slope_at(r, x1, a, b, true) * scale / s, &t->oflow_scale, &t->oflow_shift);
}

/* Whether the function a table's range further out is what the fit extrapolates there (its
 * end slope from its end value) within the bound 2^-out_exp: a parameterised row (hardsigmoid)
 * whose kinks move past the range would otherwise hold a wrong end silently. */
static bool ends_extrapolate(const npk_rk_act_row *r, double a, double b)
{
    const double width = r->x_hi - r->x_lo, bound = ldexp(1.0, -r->out_exp);
    for (int up = 0; up < 2; up++) {
        const double end = up ? r->x_hi : r->x_lo, far = up ? end + width : end - width;
        const double predicted = r->ref(end, a, b) + slope_at(r, end, a, b, up) * (far - end);
        if (!(fabs(r->ref(far, a, b) - predicted) <= bound))
            return false;
    }
    return true;
}

npk_status npk_rk_lut_fit(npk_rk_act_kind act, double alpha, double beta, npk_rk_lut *lut)
{
    return npk_rk_lut_fit_scaled(act, alpha, beta, 1.0, lut);
}

npk_status npk_rk_lut_fit_scaled(npk_rk_act_kind act, double alpha, double beta, double gain,
                                 npk_rk_lut *lut)
{
    const npk_rk_act_row *r = npk_rk_act_row_of(act);
    if (!r)
        return npk_fail(NPK_EINVAL, "lut: activation %d is not one of %s", (int)act,
                        npk_rk_act_names());
    if (r->engine != NPK_ACT_ENGINE_LUT)
        return npk_fail(NPK_EINVAL,
                        "lut: %s is a clamp without LUT (spec: relu-like activations "
                        "are a PPU clamp)",
                        r->name);
    if (!r->params) {
        alpha = r->alpha;
        beta = r->beta;
    } else if (!isfinite(alpha) || !isfinite(beta)) {
        return npk_fail(NPK_EINVAL, "lut: %s alpha=%g beta=%g: both must be finite", r->name, alpha,
                        beta);
    }
    if (r->params && !ends_extrapolate(r, alpha, beta))
        return npk_fail(NPK_EINVAL,
                        "lut: %s alpha=%g beta=%g: the function changes past the table's "
                        "[%g, %g] (its kinks must lie inside)",
                        r->name, alpha, beta, r->x_lo, r->x_hi);
    if (!(gain > 0 && gain <= 1))
        return npk_fail(NPK_EINVAL, "lut: %s gain %g is outside (0, 1]", r->name, gain);
    int k = 0;
    while (ldexp(gain, k + 1) <= 1.0 && k < 256)
        k++;
    const int exp2 = r->out_exp + k;
    if (exp2 > 255)
        return npk_fail(NPK_ELIMIT,
                        "lut: %s gain %g needs MINUS_EXP %d, past the field's 8 bits (255)",
                        r->name, gain, exp2);
    memset(lut, 0, sizeof *lut);
    const double narrow = fmin(r->x_mid - r->x_lo, r->x_hi - r->x_mid);
    const double s = ldexp(NPK_RK_LUT_STEPS, STEP_BITS) / narrow;
    lut->in_scale = npk_f32_to_f16((float)s);
    lut->in_offset = -0.0f; /* x + -0 is x, +0 included */
    fit_table(r, alpha, beta, r->x_lo, r->x_mid, s, gain, exp2, &lut->le);
    fit_table(r, alpha, beta, r->x_mid, r->x_hi, s, gain, exp2, &lut->lo);
    /* LE below, LO above and at the shared point (the density table wins, NVDLA's advice) */
    lut->hybrid_lo = true;
    lut->uflow_lo = false;
    lut->oflow_lo = true;
    lut->minus_exp = (uint8_t)exp2;
    return NPK_OK;
}

/* ---- the arithmetic as modelled ---- */

static float table_end(const npk_rk_lut_table *t)
{
    return (float)t->start + ldexpf((float)NPK_RK_LUT_STEPS, t->select);
}

/* T + d * scale / 2^shift; a zero scale is flat even for an infinite d (no inf * 0). */
static float extrapolate(int16_t base, float d, int16_t scale, uint8_t shift)
{
    return scale ? (float)base + d * ldexpf((float)scale, -(int)shift) : (float)base;
}

float npk_rk_lut_table_eval(const npk_rk_lut_table *t, float X)
{
    const float start = (float)t->start, end = table_end(t);
    if (isnan(X)) /* as modelled: a NaN passes through */
        return X;
    if (X < start)
        return extrapolate(t->t[0], X - start, t->uflow_scale, t->uflow_shift);
    if (X > end)
        return extrapolate(t->t[NPK_RK_LUT_STEPS], X - end, t->oflow_scale, t->oflow_shift);
    float u = ldexpf(X - start, -t->select);
    int i = (int)floorf(u);
    if (i >= NPK_RK_LUT_STEPS)
        i = NPK_RK_LUT_STEPS - 1;
    float f = u - (float)i;
    return (float)t->t[i] + ((float)t->t[i + 1] - (float)t->t[i]) * f;
}

float npk_rk_lut_eval(const npk_rk_lut *lut, float x)
{
    const float X = (x + lut->in_offset) * npk_f16_to_f32(lut->in_scale);
    const float le0 = (float)lut->le.start, le1 = table_end(&lut->le);
    const float lo0 = (float)lut->lo.start, lo1 = table_end(&lut->lo);
    const bool in_le = X >= le0 && X <= le1, in_lo = X >= lo0 && X <= lo1;
    bool use_lo;
    if (in_le != in_lo)
        use_lo = in_lo;
    else if (in_le) /* both */
        use_lo = lut->hybrid_lo;
    else if (X < le0 && X < lo0)
        use_lo = lut->uflow_lo;
    else if (X > le1 && X > lo1)
        use_lo = lut->oflow_lo;
    else /* between the tables */
        use_lo = lut->hybrid_lo;
    float y = npk_rk_lut_table_eval(use_lo ? &lut->lo : &lut->le, X);
    return ldexpf(y, -(int)lut->minus_exp);
}
