/* SPDX-License-Identifier: MIT */
/* The matmul cluster's chain in integer arithmetic (kt_mx_chain_fp22) against the reference it
 * replaces in the sweep: the exact chain in double (kt_mx_chain), rounded by kt_mx_acc_round and
 * taken to bits by kt_mx_fp22_of. Every dot product from -121 000 to 121 000 (each built from
 * 32 significands), each under a different pair of scale fields and anchor; every anchor under
 * every scale exponent and mantissa for a set of dots that hit the format's edges (the flush
 * below 2^-62, the saturation above 2^64, ties and the rounding carry); then random chains with
 * significands anywhere in -64..63; and whole sub-tiles summed over K blocks against the
 * arithmetic on doubles the sweep used before. Then the sweep's kernel on prepared operands
 * (kt_mx_subtile_run), vector and portable paths, against kt_mx_subtile_fp22 block after block:
 * every dot of the first test again, the adder over the RTL's operand pairs (the tile holding one,
 * the chain built to equal the other) and random sub-tiles over 1..12 K blocks with tiles that
 * start anywhere in the 22-bit patterns. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "common/dense.h"
#include "kt_fp22_vectors.h"
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

/* ---- kt_mx_subtile_run ---- */

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 11;
}

static unsigned run_failures;

/* One sub-tile of nk blocks (entries qa/qb[kb], lane * 32 + k) through kt_mx_subtile_run, against
 * kt_mx_subtile_fp22 on the same blocks, from the same starting tile. */
static void same_run(const int8_t (*qa)[KT_MX_ENTRY_ELEMS], const uint8_t (*fa)[KT_MX_LANES],
                     const int8_t (*qb)[KT_MX_ENTRY_ELEMS], const uint8_t (*fb)[KT_MX_LANES],
                     unsigned nk, unsigned anchor, bool load, const uint32_t start[16])
{
    static kt_mx_opnd oa[16], ob[16];
    const kt_mx_opnd *pa[16], *pb[16];
    uint32_t want[16], got[16];
    memcpy(want, start, sizeof want);
    memcpy(got, start, sizeof got);
    for (unsigned kb = 0; kb < nk; kb++) {
        kt_mx_opnd_of(qa[kb], fa[kb], &oa[kb]);
        kt_mx_opnd_of(qb[kb], fb[kb], &ob[kb]);
        pa[kb] = &oa[kb];
        pb[kb] = &ob[kb];
        kt_mx_subtile_fp22(qa[kb], fa[kb], qb[kb], fb[kb], anchor, load && kb == 0, want);
    }
    kt_mx_subtile_run(pa, pb, nk, anchor, load, got);
    for (int e = 0; e < 16; e++)
        if (got[e] != want[e] && run_failures++ < 10)
            fprintf(stderr, "run nk %u anchor %u load %d [%d]: 0x%06x, block by block 0x%06x\n", nk,
                    anchor, load, e, (unsigned)got[e], (unsigned)want[e]);
    CHECK(memcmp(got, want, sizeof got) == 0);
}

/* Every dot of test_every_dot as lane 0 of both entries, the other lanes a rotation of it (so
 * the sixteen chains differ), one block, loaded; every other dot under the largest mantissas,
 * where the scaled dot reaches 2^25. */
static void test_run_every_dot(unsigned stride)
{
    int8_t qa[1][KT_MX_ENTRY_ELEMS], qb[1][KT_MX_ENTRY_ELEMS];
    uint8_t fa[1][KT_MX_LANES], fb[1][KT_MX_LANES];
    uint32_t zero[16] = {0};
    for (int t = -121000; t <= 121000; t += (int)stride) {
        build(t, qa[0], qb[0]);
        for (int l = 1; l < KT_MX_LANES; l++)
            for (int k = 0; k < K; k++) {
                qa[0][l * K + k] = qa[0][(k + 5 * l) % K];
                qb[0][l * K + k] = qb[0][(k + 3 * l) % K];
            }
        unsigned u = (unsigned)(t + 121000);
        for (int l = 0; l < KT_MX_LANES; l++) {
            fa[0][l] = (uint8_t)(u * 37 + 29 * (unsigned)l);
            fb[0][l] = (uint8_t)((u * 101 >> 3) + 71 * (unsigned)l);
        }
        if (u & 1) { /* both mantissas 15: the dots above 74 565 scale past 2^24 */
            fa[0][0] |= 7;
            fb[0][0] |= 7;
        }
        same_run(qa, fa, qb, fb, 1, u % 251, true, zero);
    }
}

/* The adder through the kernel: for each RTL pair, the tile's first value is the pair's first
 * operand (the other fifteen the next pairs' first operands) and the block's first chain is built
 * to equal the second (its 15-bit significand as A lane 0 . B lane 0, mantissas 8, the exponent
 * set by the anchor), one block summed. */
static void test_run_adder(void)
{
    int8_t qa[1][KT_MX_ENTRY_ELEMS], qb[1][KT_MX_ENTRY_ELEMS];
    uint8_t fa[1][KT_MX_LANES], fb[1][KT_MX_LANES];
    for (int l = 0; l < KT_MX_LANES; l++)
        fa[0][l] = fb[0][l] = 31 << 3;
    for (unsigned i = 0; i < KT_FP22_CASES; i++) {
        uint32_t tile[16], v, unused;
        for (unsigned e = 0; e < 16; e++)
            kt_fp22_pair((i + e) % KT_FP22_CASES, &tile[e], e ? &unused : &v);
        unsigned ex = v >> 14 & 0x7F;
        int dot = ex ? (int)((1u << 14) | (v & 0x3FFF)) : 0;
        build((v >> 21 & 1) ? -dot : dot, qa[0], qb[0]);
        for (int l = 1; l < KT_MX_LANES; l++)
            for (int k = 0; k < K; k++) {
                qa[0][l * K + k] = qa[0][(k + (int)i + l) % K];
                qb[0][l * K + k] = qb[0][(k + 7 * l) % K];
            }
        CHECK_EQ(kt_mx_chain_fp22(qa[0], fa[0][0], qb[0], fb[0][0], ex ? 139 - ex : 40),
                 ex ? v : 0u);
        same_run(qa, fa, qb, fb, 1, ex ? 139 - ex : 40, false, tile);
    }
}

/* Random sub-tiles: significands in small, middling, full and extreme ranges, any scale field,
 * any anchor, 1..12 blocks, loaded or summed onto a tile of any 22-bit patterns (zeros with
 * stray fraction bits, the saturated magnitude, values near the flush). */
static void test_run_random(unsigned n)
{
    static int8_t qa[12][KT_MX_ENTRY_ELEMS], qb[12][KT_MX_ENTRY_ELEMS];
    uint8_t fa[12][KT_MX_LANES], fb[12][KT_MX_LANES];
    uint64_t s = 4242;
    for (unsigned it = 0; it < n; it++) {
        unsigned nk = 1 + (unsigned)(lcg(&s) % 12), mode = (unsigned)(lcg(&s) % 5);
        unsigned anchor = (unsigned)(lcg(&s) % 4 == 0 ? lcg(&s) % 256 : 30 + lcg(&s) % 21);
        for (unsigned kb = 0; kb < nk; kb++) {
            for (int e = 0; e < KT_MX_ENTRY_ELEMS; e++) {
                uint64_t r = lcg(&s);
                int lim = mode == 0 ? 2 : mode == 1 ? 16 : 64;
                qa[kb][e] = (int8_t)((int)(r % 128) - 64);
                qb[kb][e] = (int8_t)((int)(r >> 8 & 127) - 64);
                if (mode < 2) {
                    qa[kb][e] = (int8_t)(qa[kb][e] % lim);
                    qb[kb][e] = (int8_t)(qb[kb][e] % lim);
                } else if (mode == 3) {
                    qa[kb][e] = (r >> 20 & 1) ? -64 : 63;
                    qb[kb][e] = (r >> 21 & 1) ? -64 : (r >> 22 & 1) ? 63 : 0;
                }
            }
            for (int l = 0; l < KT_MX_LANES; l++) {
                uint64_t r = lcg(&s);
                fa[kb][l] = (uint8_t)r;
                fb[kb][l] = (uint8_t)(r >> 8);
                if (mode == 4) /* exponents near the middle: long sums that cancel and carry */
                    fa[kb][l] = fb[kb][l] = (uint8_t)(((18 + r % 4) << 3) | (r >> 16 & 7));
            }
        }
        uint32_t start[16];
        for (int e = 0; e < 16; e++) {
            uint64_t r = lcg(&s);
            start[e] = (uint32_t)(r & 0x3FFFFF);
            if (r >> 30 & 1)
                start[e] &= 0x203FFF; /* exponent 0: a zero with stray bits */
            else if ((r >> 31 & 3) == 0)
                start[e] |= 0x1FFFFF; /* the largest magnitude */
        }
        same_run((const int8_t (*)[KT_MX_ENTRY_ELEMS])qa, (const uint8_t (*)[KT_MX_LANES])fa,
                 (const int8_t (*)[KT_MX_ENTRY_ELEMS])qb, (const uint8_t (*)[KT_MX_LANES])fb, nk,
                 anchor, lcg(&s) & 1, start);
    }
}

/* Both paths: the vector kernel where the machine has one, the portable one always (at a
 * lighter density: it is the same arithmetic as kt_mx_subtile_fp22's own portable code). */
static void test_run(void)
{
    for (int portable = !npk_dense_use_avx2(); portable < 2; portable++) {
        npk_dense_force_portable(portable);
        test_run_every_dot(portable ? 7 : 1);
        test_run_adder();
        test_run_random(portable ? 3000 : 20000);
    }
    npk_dense_force_portable(false);
    if (run_failures)
        fprintf(stderr, "kt_mx_subtile_run: %u elements differ\n", run_failures);
}

int main(void)
{
    test_every_dot();
    test_every_scale();
    test_random();
    test_subtile();
    test_run();
    return check_done();
}
