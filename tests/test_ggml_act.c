/* SPDX-License-Identifier: MIT */
/* The ggml backend's activation arithmetic (ggml/npg_act.c), built here on its own (it needs
 * no ggml tree): the vector bodies give the scalar reference's results exactly (every tail
 * length, unaligned rows, edge values), and both do what they say: the fp16 range check finds
 * exactly the finite values beyond 65504; the int8 form's x ~ s (q1 + q2 / 254)
 * within a second-digit step, |q| <= 127, rows with a value that is not finite or all below
 * 1e-30 refused; the sums scaled back within float rounding of the exact value. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ggml/npg_act.c"

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            if (failures < 20) {                                                                   \
                fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                               \
                fprintf(stderr, __VA_ARGS__);                                                      \
                fputc('\n', stderr);                                                               \
            }                                                                                      \
        }                                                                                          \
    } while (0)

static uint64_t state = 0x9e3779b97f4a7c15ull;
static uint32_t next_u32(void)
{
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return (uint32_t)(state >> 32);
}
static float uniform(void) { return (float)next_u32() / 4294967296.0f * 2.0f - 1.0f; }

enum { KMAX = 4096 + 1 };

/* Both forms of one row (at x, k elements) agree, and the result is what the form says. */
static void check_row(const float *x, int64_t k, const char *what)
{
    static int8_t q1[KMAX], q2[KMAX], r1[KMAX], r2[KMAX], one[KMAX], one_r[KMAX];
    memset(q1, 0x55, sizeof q1), memset(r1, 0x55, sizeof r1);
    float s = -1, rs = -1, s1 = -1, rs1 = -1;
    const bool ok = npg_int8_digits(x, k, q1, q2, &s);
    const bool ref = npg_int8_digits_scalar(x, k, r1, r2, &rs);
    const bool ok1 = npg_quantise_row(x, k, one, &s1);
    const bool ref1 = npg_quantise_row_scalar(x, k, one_r, &rs1);
    CHECK(ok == ref && ok1 == ref1 && ok == ok1, "%s k=%lld: accepted %d/%d/%d/%d", what,
          (long long)k, ok, ref, ok1, ref1);
    if (!ok || !ref)
        return;
    CHECK(memcmp(&s, &rs, sizeof s) == 0 && memcmp(&s1, &rs1, sizeof s) == 0,
          "%s k=%lld: scale %a vs %a", what, (long long)k, (double)s, (double)rs);
    CHECK(memcmp(q1, r1, (size_t)k) == 0 && memcmp(q2, r2, (size_t)k) == 0,
          "%s k=%lld: digits differ from the scalar form", what, (long long)k);
    CHECK(memcmp(one, one_r, (size_t)k) == 0 && memcmp(one, q1, (size_t)k) == 0,
          "%s k=%lld: one-digit row differs", what, (long long)k);
    CHECK(k == 0 || q1[k] == 0x55, "%s k=%lld: wrote past the row", what, (long long)k);
    /* what the form promises, from the definition */
    float amax = 0;
    for (int64_t i = 0; i < k; i++)
        amax = fmaxf(amax, fabsf(x[i]));
    CHECK(s == amax / 127.0f, "%s: scale %g for largest %g", what, (double)s, (double)amax);
    for (int64_t i = 0; i < k; i++) {
        CHECK(q1[i] >= -127 && q1[i] <= 127 && q2[i] >= -127 && q2[i] <= 127, "%s: digits %d %d",
              what, q1[i], q2[i]);
        const double back = (double)s * (q1[i] + q2[i] / 254.0);
        CHECK(fabs(back - x[i]) <= (double)s / 254.0 * 0.5001 + 1e-6 * fabs((double)x[i]),
              "%s k=%lld i=%lld: %g back as %g (scale %g)", what, (long long)k, (long long)i,
              (double)x[i], back, (double)s);
    }
}

static void test_digits(void)
{
    static float buf[KMAX + 1];
    /* every tail length, each starting unaligned too */
    for (int64_t k = 0; k <= 70; k++)
        for (int off = 0; off < 2; off++) {
            for (int64_t i = 0; i < k; i++)
                buf[off + i] = uniform() * 3.0f;
            check_row(buf + off, k, "uniform");
        }
    /* long rows of several magnitudes, with outlier channels, and exact ties (x / s = n + 1/2) */
    const float mags[] = {1.0f, 1e-20f, 1e20f, 3e38f / 127.0f, 1.5e-29f};
    for (size_t m = 0; m < sizeof mags / sizeof mags[0]; m++) {
        for (int64_t i = 0; i < 4096; i++)
            buf[i] = uniform() * mags[m] * (i % 97 == 0 ? 20.0f : 1.0f);
        check_row(buf, 4096, "magnitudes");
    }
    for (int64_t i = 0; i < 64; i++) /* largest 127: x = n + 0.5 rounds to even */
        buf[i] = i == 0 ? 127.0f : (float)((int)(i % 50) - 25) + 0.5f;
    check_row(buf, 64, "ties");
    for (int64_t i = 0; i < 40; i++) /* zeros, negative zeros: scale 0, digits 0 */
        buf[i] = i % 2 ? -0.0f : 0.0f;
    check_row(buf, 40, "zeros");
    for (int64_t i = 0; i < 40; i++) /* subnormal values beside a normal one */
        buf[i] = i == 17 ? 1.0f : 1e-40f * (float)(i - 20);
    check_row(buf, 40, "subnormal");
    /* refused: not finite anywhere (vector body and tail), and all below 1e-30 */
    const float bad[] = {INFINITY, -INFINITY, NAN};
    for (size_t b = 0; b < 3; b++)
        for (int64_t at = 0; at < 37; at += 6) {
            for (int64_t i = 0; i < 37; i++)
                buf[i] = uniform();
            buf[at] = bad[b];
            float s;
            static int8_t q1[64], q2[64];
            CHECK(!npg_int8_digits(buf, 37, q1, q2, &s) && !npg_quantise_row(buf, 37, q1, &s),
                  "a row with %g at %lld was accepted", (double)bad[b], (long long)at);
            check_row(buf, 37, "not finite");
        }
    for (int64_t i = 0; i < 33; i++)
        buf[i] = uniform() * 1e-31f;
    float s;
    static int8_t q1[64], q2[64];
    CHECK(!npg_int8_digits(buf, 33, q1, q2, &s), "a row all below 1e-30 was accepted");
    check_row(buf, 33, "tiny");
}

static void test_rescale(void)
{
    enum { N = 77 };
    static int32_t p1[N + 1], p2[N + 1];
    static float w[N], out[N], ref[N], inplace[N + 1];
    for (int round = 0; round < 200; round++)
        for (size_t n = 0; n <= N; n += (round % 7) + 1) {
            const size_t off = (size_t)round % 2; /* unaligned sums too */
            for (size_t j = 0; j < n; j++) {
                /* full int32 range now and then, else sums the size of real ones */
                p1[off + j] = round % 5 == 0 ? (int32_t)next_u32()
                                             : (int32_t)(next_u32() % 4000001) - 2000000;
                p2[off + j] = (int32_t)(next_u32() % 4000001) - 2000000;
                w[j] = uniform() * 0.01f;
            }
            if (n > 1) {
                p1[off] = INT32_MIN;
                p1[off + n - 1] = INT32_MAX;
            }
            const float a = uniform() * 0.02f;
            npg_int8_rescale_row(p1 + off, p2 + off, n, a, w, out);
            npg_int8_rescale_row_scalar(p1 + off, p2 + off, n, a, w, ref);
            CHECK(memcmp(out, ref, n * sizeof *out) == 0, "rescale n=%zu differs", n);
            memcpy(inplace, p1 + off, n * sizeof *inplace);
            npg_int8_rescale_row(inplace, p2 + off, n, a, w, inplace);
            CHECK(memcmp(inplace, ref, n * sizeof *out) == 0, "in-place rescale n=%zu differs", n);
            for (size_t j = 0; j < n; j++) {
                const double exact = ((double)p1[off + j] + p2[off + j] / 254.0) * a * w[j];
                CHECK(fabs(out[j] - exact) <= 4e-7 * fabs(exact) + 1e-37, "rescale %g vs %g",
                      (double)out[j], exact);
            }
        }
}

/* The fp16 range check: one value placed at every position of rows of every tail length. */
static void test_finite_above(void)
{
    static float buf[80];
    const float limit = 65504.0f;
    const struct {
        float v;
        bool above;
    } probe[] = {{65504.0f, false}, {-65504.0f, false}, {65504.004f, true}, {-1e30f, true},
                 {3.4e38f, true},   {INFINITY, false},  {-INFINITY, false}, {NAN, false},
                 {0.0f, false},     {-0.0f, false},     {1e-45f, false}};
    for (int64_t k = 0; k <= 41; k++)
        for (size_t p = 0; p < sizeof probe / sizeof probe[0]; p++)
            for (int64_t at = 0; at < k || (k == 0 && at == 0); at++) {
                for (int64_t i = 0; i < k; i++)
                    buf[1 + i] = uniform() * limit;
                if (k)
                    buf[1 + at] = probe[p].v;
                const bool want = k > 0 && probe[p].above;
                CHECK(npg_finite_above(buf + 1, k, limit) == want &&
                          npg_finite_above_scalar(buf + 1, k, limit) == want,
                      "range check of %g at %lld of %lld: want %d", (double)probe[p].v,
                      (long long)at, (long long)k, want);
            }
}

int main(void)
{
    test_finite_above();
    test_digits();
    test_rescale();
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("ggml activation arithmetic: vector and scalar bodies agree (%s)\n",
           NPG_INT8_SSE2 ? "SSE2" : "scalar only on this target");
    return 0;
}
