/* SPDX-License-Identifier: MIT */
/* The converting move and the walkers through the whole card, each against a reference of its
 * own rather than the library's walker:
 *   - mode 5 through slot 1 (the MXFP7 quantiser) over the 256 entries of kt_mxfp_vectors.h,
 *     checked against the rows recorded from upstream's mx_quant under Verilator (A packing on
 *     even entries, B on odd): two moves, each reading every other entry through a strided
 *     two-dimension source walker and writing every other destination entry;
 *   - a 4 x 3 matrix of words transposed by a copy whose walkers have two dimensions, a source
 *     window that pads the first row and a destination window that suppresses the last column,
 *     checked against the index arithmetic written out;
 *   - the driver's refusals of a transform it cannot run (empty slot, partial entry, mismatched
 *     destination). */
#include <string.h>

#include "check.h"
#include "kt_mxfp_vectors.h"
#include "npukit/kt_mover.h"
#include "ktsim/ktsim_card.h"

enum { SRC = 0x100000, DST = 0x200000, IN = 256, OUT = 128 };

static ktsim_card *card(void)
{
    ktsim_card *c = NULL;
    ktsim_card_opts o = {0};
    if (ktsim_card_open_preset("default", false, &o, &c) != NPK_OK)
        fprintf(stderr, "%s\n", npk_last_error());
    return c;
}

static void test_quantiser_against_rtl(void)
{
    ktsim_card *c = card();
    CHECK(c != NULL);
    if (!c)
        return;
    kt_transport *t = ktsim_card_transport(c);
    uint64_t ctrl = ktsim_card_ctrl_base(c, 0), mem = ktsim_card_mem_base(c, 0);
    static uint8_t src[MXV_ENTRIES * IN], got[MXV_ENTRIES * OUT];
    for (unsigned e = 0; e < MXV_ENTRIES; e++) {
        uint16_t v[MXV_ELEMS];
        mxv_entry(e, v);
        for (unsigned i = 0; i < MXV_ELEMS; i++) {
            src[e * IN + 2 * i] = (uint8_t)v[i];
            src[e * IN + 2 * i + 1] = (uint8_t)(v[i] >> 8);
        }
    }
    CHECK_EQ(kt_write_block(t, mem + SRC, src, sizeof src), NPK_OK);
    for (unsigned parity = 0; parity < 2; parity++) {
        /* Every other entry: the source steps two entries, the destination two outputs. */
        kt_mv_move m = kt_mv_transform(DST + parity * OUT, SRC + parity * IN, MXV_ENTRIES / 2,
                                       KT_MV_SLOT_MXFP7, parity ? KT_MV_XMODE_B_LAYOUT : 0);
        m.src.dims[0].stride = 2 * IN;
        m.dst.dims[0].stride = 2 * OUT;
        kt_mv_result r;
        CHECK_EQ(kt_mv_run(t, ctrl, &m, 0, &r), NPK_OK);
        CHECK_EQ(r.after.fault, 0);
    }
    CHECK_EQ(kt_read_block(t, mem + DST, got, sizeof got), NPK_OK);
    unsigned bad = 0;
    for (unsigned e = 0; e < MXV_ENTRIES; e++)
        if (mxv_fnv(got + e * OUT, OUT) != mxv_rtl_fnv[e] && bad++ < 5)
            fprintf(stderr, "  entry %u (%s packing) differs from the RTL's\n", e,
                    e & 1 ? "B" : "A");
    CHECK_EQ(bad, 0);
    ktsim_card_destroy(c);
}

static void test_transpose_with_windows(void)
{
    ktsim_card *c = card();
    CHECK(c != NULL);
    if (!c)
        return;
    kt_transport *t = ktsim_card_transport(c);
    uint64_t ctrl = ktsim_card_ctrl_base(c, 0), mem = ktsim_card_mem_base(c, 0);
    enum { R = 4, C = 3 };
    uint8_t s[R * C * 32], d[R * C * 32], canary[R * C * 32];
    for (unsigned i = 0; i < sizeof s; i++)
        s[i] = (uint8_t)(i * 7 + 3);
    memset(canary, 0xC3, sizeof canary);
    CHECK_EQ(kt_write_block(t, mem + SRC, s, sizeof s), NPK_OK);
    CHECK_EQ(kt_write_block(t, mem + DST, canary, sizeof canary), NPK_OK);

    /* D[c][r] = S[r][c]: the destination walks c outer, r inner, contiguously; the source steps
     * a column (32) outer and a row (96) inner. Source row r binds axis 0 with step 1 from -1:
     * row 0 falls outside [0, 3) and is padding. Destination column c binds axis 1 with step 1:
     * column 2 falls outside [0, 2) and is not written. */
    kt_mv_move m = kt_mv_copy(DST, SRC, 1);
    m.imm = 0xA55A;
    m.src.ndim = m.dst.ndim = 2;
    m.src.dims[0] = (kt_mv_dim){C, 32, 0, 0};
    m.src.dims[1] = (kt_mv_dim){R, C * 32, 1, 1};
    m.src.window[0] = (kt_mv_window){-1, 3};
    m.dst.dims[0] = (kt_mv_dim){C, R * 32, 2, 1};
    m.dst.dims[1] = (kt_mv_dim){R, 32, 0, 0};
    m.dst.window[1] = (kt_mv_window){0, 2};
    kt_mv_result r;
    CHECK_EQ(kt_mv_run(t, ctrl, &m, 0, &r), NPK_OK);
    CHECK_EQ(kt_read_block(t, mem + DST, d, sizeof d), NPK_OK);
    for (unsigned col = 0; col < C; col++)
        for (unsigned row = 0; row < R; row++) {
            const uint8_t *got = d + (col * R + row) * 32;
            if (col == 2) {
                CHECK(!memcmp(got, canary, 32));
            } else if (row == 0) {
                for (unsigned b = 0; b < 32; b += 2) /* 16-bit elements of the immediate */
                    CHECK(got[b] == 0x5A && got[b + 1] == 0xA5);
            } else {
                CHECK(!memcmp(got, s + (row * C + col) * 32, 32));
            }
        }
    ktsim_card_destroy(c);
}

static void test_transform_refusals(void)
{
    kt_mv_move m = kt_mv_transform(0x2000, 0x1000, 3, 2, 0);
    CHECK_EQ(kt_mv_validate(&m), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "slot 2 (XFORM_ID) holds no occupant");
    m = kt_mv_transform(0x2000, 0x1000, 3, KT_MV_SLOT_MXFP7, 0);
    CHECK_EQ(kt_mv_validate(&m), NPK_OK);
    m.src.dims[1].count = 6;
    CHECK_EQ(kt_mv_validate(&m), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "walks 18 words, not a whole number of 8-word entries");
    m.src.dims[1].count = 8;
    m.dst.dims[0].count = 4;
    CHECK_EQ(kt_mv_validate(&m), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "feeds 3 entries but the destination walks 4");
    /* The occupant is named on the source header only: [50:47] XFORM_ID, [58:55] XFORM_MODE. */
    m = kt_mv_transform(0x2000, 0x1000, 2, KT_MV_SLOT_MXFP7, 0xB);
    kt_mv_write w[KT_MV_MAX_WRITES];
    size_t n;
    CHECK_EQ(kt_mv_build(&m, w, KT_MV_MAX_WRITES, &n), NPK_OK);
    CHECK_EQ(w[0].offset, KT_MV_HDR);
    CHECK_EQ(w[0].value, 0x1000ull << 4 | 2ull << 44 | 1ull << 47 | 0xBull << 55);
    for (size_t i = 1; i < n; i++)
        if (w[i].offset == KT_MV_HDR) /* the destination's: sel 1, no occupant */
            CHECK_EQ(w[i].value, 1 | 0x2000ull << 4 | 1ull << 44);
    CHECK_EQ(w[n - 1].value & 0x7, KT_MV_XFORM);
}

int main(void)
{
    test_quantiser_against_rtl();
    test_transpose_with_windows();
    test_transform_refusals();
    return check_done();
}
