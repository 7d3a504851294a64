/* SPDX-License-Identifier: MIT */
/* The matmul cluster's chain in integer arithmetic (kt_mx_chain_fp22) against the reference it
 * replaces in the sweep: the exact chain in double (kt_mx_chain), rounded by kt_mx_acc_round and
 * taken to bits by kt_mx_fp22_of. Every dot product from -121 000 to 121 000 (each built from
 * 32 significands), each under a different pair of scale fields and anchor; every anchor under
 * every scale exponent and mantissa for a set of dots that hit the format's edges (the flush
 * below 2^-62, the saturation above 2^64, ties and the rounding carry); then random chains with
 * significands anywhere in -64..63; and whole sub-tiles summed over K blocks against the
 * arithmetic on doubles the sweep used before. */
#include <stdlib.h>

#include "check.h"
#include "kt/hw/mxfp.h"

enum { K = KT_MX_KBLOCK };

static uint32_t reference(const int8_t *qa, uint8_t fa, const int8_t *qb, uint8_t fb,
                          unsigned anchor)
{
    return kt_mx_fp22_of(kt_mx_acc_round(kt_mx_chain(qa, fa, qb, fb, anchor)));
}

static unsigned failures;

static void same(const int8_t *qa, uint8_t fa, const int8_t *qb, uint8_t fb, unsigned anchor)
{
    uint32_t want = reference(qa, fa, qb, fb, anchor), got = kt_mx_chain_fp22(qa, fa, qb, fb, anchor);
    if (got != want && failures++ < 10) {
        int dot = 0;
        for (int k = 0; k < K; k++)
            dot += qa[k] * qb[k];
        fprintf(stderr, "dot %d fields 0x%02x 0x%02x anchor %u: 0x%06x, reference 0x%06x\n", dot,
                fa, fb, anchor, (unsigned)got, (unsigned)want);
    }
    CHECK(got == want);
}

/* qa, qb with the dot product t, |t| <= 121 000: 30 slots of -64 times up to -64..63, then two
 * slots of 1 times the rest. */
static void build(int t, int8_t qa[K], int8_t qb[K])
{
    int r = t;
    for (int k = 0; k < K - 2; k++) {
        int c = -(r / 64);
        c = c < -64 ? -64 : c > 63 ? 63 : c;
        qa[k] = (int8_t)c;
        qb[k] = -64;
        r += 64 * c;
    }
    for (int k = K - 2; k < K; k++) {
        int c = r < -64 ? -64 : r > 63 ? 63 : r;
        qa[k] = (int8_t)c;
        qb[k] = 1;
        r -= c;
    }
    CHECK_EQ(r, 0);
}

static void test_every_dot(void)
{
    int8_t qa[K], qb[K];
    for (int t = -121000; t <= 121000; t++) {
        build(t, qa, qb);
        unsigned u = (unsigned)(t + 121000);
        same(qa, (uint8_t)(u * 37), qb, (uint8_t)(u * 101 >> 3), u % 251);
    }
}

static void test_every_scale(void)
{
    /* a zero, a one, ties at the 15-bit boundary (2^15 + 1 and + 3 times the mantissas), the
     * carry (2^15 - 1 times odd mantissas), and the largest magnitudes of either sign */
    const int dots[] = {0,     1,      -1,     32769,  32771,   -32769, 32767,
                        65535, 121000, -98303, -121000, 4096 * 29};
    int8_t qa[K], qb[K];
    for (size_t d = 0; d < sizeof dots / sizeof dots[0]; d++) {
        build(dots[d], qa, qb);
        for (unsigned anchor = 0; anchor < 256; anchor++)
            for (unsigned f = 0; f < 256; f++)
                same(qa, (uint8_t)f, qb, (uint8_t)((f * 77) ^ 0xA5), anchor);
    }
    /* the extreme dots, which build() does not reach: all slots -64 times -64 (2^17), and -64
     * times 63 */
    for (int k = 0; k < K; k++)
        qa[k] = qb[k] = -64;
    for (unsigned anchor = 0; anchor < 256; anchor++)
        same(qa, 0xFF, qb, 0xFF, anchor);
    for (int k = 0; k < K; k++)
        qb[k] = 63;
    for (unsigned anchor = 0; anchor < 256; anchor++)
        same(qa, 0xFF, qb, 0xFE, anchor);
}

static void test_random(void)
{
    uint64_t s = 12345;
    int8_t qa[K], qb[K];
    for (int n = 0; n < 200000; n++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        unsigned spread = (unsigned)(s >> 60); /* small, middling and full-range significands */
        for (int k = 0; k < K; k++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            int lim = spread < 4 ? 2 : spread < 8 ? 16 : 64;
            qa[k] = (int8_t)((int)(s >> 33) % lim - (spread >= 12 ? 64 % lim : 0));
            qb[k] = (int8_t)((int)(s >> 45) % lim);
            if (spread >= 14) { /* the extremes */
                qa[k] = (s >> 20 & 1) ? -64 : 63;
                qb[k] = (s >> 21 & 1) ? -64 : 63;
            }
        }
        same(qa, (uint8_t)(s >> 8), qb, (uint8_t)(s >> 16), (unsigned)(s >> 24) & 0xFF);
    }
}

/* A sub-tile's K blocks as the sweep runs them (kt_mx_subtile_fp22: loaded by the first, then
 * summed on the bits) against the unit's former arithmetic on doubles: each chain rounded by
 * kt_mx_acc_round, summed by kt_mx_acc_add, the tile's values taken to bits at the end. */
static void test_subtile(void)
{
    uint64_t s = 777;
    int8_t qa[KT_MX_ENTRY_ELEMS], qb[KT_MX_ENTRY_ELEMS];
    uint8_t fa[KT_MX_LANES], fb[KT_MX_LANES];
    for (int tile = 0; tile < 400; tile++) {
        uint32_t t[16] = {0};
        double ref[16] = {0};
        unsigned anchor = 30 + (unsigned)(tile % 21);
        for (int kb = 0; kb < 8; kb++) {
            for (int e = 0; e < KT_MX_ENTRY_ELEMS; e++) {
                s = s * 6364136223846793005ull + 1442695040888963407ull;
                qa[e] = (int8_t)((int)(s >> 33 & 127) - 64);
                qb[e] = (int8_t)((int)(s >> 45 & 127) - 64);
            }
            for (int l = 0; l < KT_MX_LANES; l++) {
                s = s * 6364136223846793005ull + 1442695040888963407ull;
                fa[l] = (uint8_t)(s >> 20);
                fb[l] = (uint8_t)(s >> 30);
            }
            kt_mx_subtile_fp22(qa, fa, qb, fb, anchor, kb == 0, t);
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++) {
                    double c = kt_mx_acc_round(
                        kt_mx_chain(qa + i * K, fa[i], qb + j * K, fb[j], anchor));
                    ref[i * 4 + j] = kb == 0 ? c : kt_mx_acc_add(ref[i * 4 + j], c);
                }
        }
        for (int e = 0; e < 16; e++)
            CHECK_EQ(t[e], kt_mx_fp22_of(ref[e]));
    }
}

int main(void)
{
    test_every_dot();
    test_every_scale();
    test_random();
    test_subtile();
    return check_done();
}
