/* SPDX-License-Identifier: MIT */
/* Mover driver: encoding, ordering, validation, names, and the PRNG's known answer. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "npukit/kt_mover.h"

static const kt_mv_write *find(const kt_mv_write *w, size_t n, uint8_t off, size_t nth)
{
    for (size_t i = 0; i < n; i++)
        if (w[i].offset == off && nth-- == 0)
            return &w[i];
    return NULL;
}

static void test_philox_known_answer(void)
{
    /* The published Philox-4x32-10 known answer for counter 0, key 0. */
    uint32_t ctr[4] = {0}, key[2] = {0}, out[4];
    kt_philox4x32_10(ctr, key, out);
    CHECK_EQ(out[0], 0x6627e8d5u);
    CHECK_EQ(out[1], 0xe169c58du);
    CHECK_EQ(out[2], 0xbc57ac4cu);
    CHECK_EQ(out[3], 0x9b00dbd8u);
    /* A word is a pure function of (seed, absolute destination word); halves differ. */
    uint8_t a[32], b[32], c[32];
    kt_mv_generate_word(7, 0x1000, a);
    kt_mv_generate_word(7, 0x1000, b);
    kt_mv_generate_word(7, 0x1020, c);
    CHECK(!memcmp(a, b, 32));
    CHECK(memcmp(a, c, 32));
    CHECK(memcmp(a, a + 16, 16));
    /* Half 0 is Philox at counter {wordaddr, 0, 0, 0}. */
    uint32_t ctr2[4] = {0x1000 >> 5, 0, 0, 0}, key2[2] = {7, 0};
    kt_philox4x32_10(ctr2, key2, out);
    CHECK_EQ((uint32_t)a[0] | (uint32_t)a[1] << 8 | (uint32_t)a[2] << 16 | (uint32_t)a[3] << 24, out[0]);
}

static void test_fill_patterns(void)
{
    uint8_t w[32];
    kt_mv_fill_word(KT_MV_W8, 0x12345678, w);
    CHECK_EQ(w[0], 0x78);
    CHECK_EQ(w[31], 0x78);
    kt_mv_fill_word(KT_MV_W16, 0x12345678, w);
    CHECK_EQ(w[0], 0x78);
    CHECK_EQ(w[1], 0x56);
    CHECK_EQ(w[2], 0x78);
    kt_mv_fill_word(KT_MV_W32, 0x12345678, w);
    CHECK_EQ(w[3], 0x12);
    CHECK_EQ(w[7], 0x12);
}

static void test_copy_sequence(void)
{
    kt_mv_move m = kt_mv_copy(0x2000, 0x1000, 4);
    kt_mv_write w[KT_MV_MAX_WRITES];
    size_t n = 0;
    CHECK_EQ(kt_mv_build(&m, w, KT_MV_MAX_WRITES, &n), NPK_OK);
    /* HDR, DIM, AXIS, WINDOW x2 per walker, then CTRL|GO last. */
    CHECK_EQ(n, 11);
    uint8_t order[] = {0x10, 0x18, 0x20, 0x28, 0x28, 0x10, 0x18, 0x20, 0x28, 0x28, 0x00};
    for (size_t i = 0; i < n && i < sizeof order; i++)
        CHECK_EQ(w[i].offset, order[i]);
    CHECK_EQ(w[0].value, 0x1000ull << 4 | 1ull << 44);         /* source: sel 0, base, ndim 1 */
    CHECK_EQ(w[5].value, 1 | 0x2000ull << 4 | 1ull << 44);     /* destination: sel 1 */
    CHECK_EQ(w[1].value, 0 | 0 << 1 | 4ull << 4 | 32ull << 20); /* DIM: count 4, stride 32 */
    CHECK_EQ(w[3].value, 0);                                    /* window 0 of the source, off */
    CHECK_EQ(w[4].value, 1u << 1);                              /* window 1 of the source, off */
    CHECK_EQ(w[8].value, 1);                                    /* window 0 of the destination */
    CHECK_EQ(w[10].value, (uint64_t)KT_MV_COPY | 1ull << 3 | (uint64_t)KT_MV_FLAG_WCOAL << 8 | 1ull << 16);
}

static void test_field_encodings(void)
{
    kt_mv_move m = kt_mv_copy(0x8000, 0x4000, 1);
    m.src.ndim = 2;
    m.src.dims[0] = (kt_mv_dim){3, -64, 1, -2};
    m.src.dims[1] = (kt_mv_dim){2, 32, 2, 5};
    m.src.window[0] = (kt_mv_window){-1, 7};
    m.src.window[1] = (kt_mv_window){3, 9};
    m.src.base = 0x4000 + 128;
    m.dst.dims[0].count = 6;
    m.imm = 0xABCD;
    kt_mv_write w[KT_MV_MAX_WRITES];
    size_t n;
    CHECK_EQ(kt_mv_build(&m, w, KT_MV_MAX_WRITES, &n), NPK_OK);
    const kt_mv_write *dim0 = find(w, n, KT_MV_DIM, 0), *axis0 = find(w, n, KT_MV_AXIS, 0);
    const kt_mv_write *dim1 = find(w, n, KT_MV_DIM, 1), *win0 = find(w, n, KT_MV_WINDOW, 0);
    CHECK(dim0 && axis0 && dim1 && win0);
    if (dim0 && axis0 && dim1 && win0) {
        CHECK_EQ(dim0->value, 0 | 0u << 1 | 3ull << 4 | (uint64_t)(uint32_t)-64 << 20);
        CHECK_EQ(axis0->value, 1 | (uint64_t)(uint16_t)-2 << 2);
        CHECK_EQ(dim1->value, 0 | 1u << 1 | 2ull << 4 | 32ull << 20);
        CHECK_EQ(win0->value, 0 | 0 << 1 | (uint64_t)(uint16_t)-1 << 2 | 7ull << 18);
    }
    /* A bound source window means padding: the immediate is written. */
    const kt_mv_write *imm = find(w, n, KT_MV_IMM, 0);
    CHECK(imm && imm->value == 0xABCD);
    CHECK_EQ(w[n - 1].offset, KT_MV_CTRL);

    kt_mv_move x = kt_mv_copy(0x100, 0x200, 8);
    x.mode = KT_MV_XFORM;
    x.src.xform_id = 1;
    x.src.xform_mode = 1;
    x.dst.dims[0] = (kt_mv_dim){1, 128, 0, 0};
    CHECK_EQ(kt_mv_build(&x, w, KT_MV_MAX_WRITES, &n), NPK_OK);
    CHECK_EQ(w[0].value, 0x200ull << 4 | 1ull << 44 | 1ull << 47 | 1ull << 55);

    uint32_t idx[3] = {2, 0, 1};
    kt_mv_move g = kt_mv_gather(0x1000, 0x8000, idx, 3, 0x400, 64, 2);
    CHECK_EQ(kt_mv_build(&g, w, KT_MV_MAX_WRITES, &n), NPK_OK);
    const kt_mv_write *ix = find(w, n, KT_MV_INDEX, 0), *ga = find(w, n, KT_MV_GATHER, 0);
    CHECK(ix && ix->value == (0x400ull | 3ull << 40));
    CHECK(ga && ga->value == (64ull | 2ull << 32));

    kt_mv_move gen = kt_mv_generate(0x3000, 2, 0x1122334455667788ull);
    CHECK_EQ(kt_mv_build(&gen, w, KT_MV_MAX_WRITES, &n), NPK_OK);
    CHECK_EQ(n, 1 + 2 + 2 + 1 + 1); /* destination walker only, SEED, CTRL */
    const kt_mv_write *seed = find(w, n, KT_MV_SEED, 0);
    CHECK(seed && seed->value == 0x1122334455667788ull);

    kt_mv_move f = kt_mv_fill(0x3000, 2, KT_MV_W8, 0x5A);
    CHECK_EQ(kt_mv_build(&f, w, KT_MV_MAX_WRITES, &n), NPK_OK);
    CHECK_EQ(w[n - 1].value & 0x1F, KT_MV_FILL | 0 << 3);
}

static void test_refusals(void)
{
    kt_mv_write w[KT_MV_MAX_WRITES];
    size_t n;
    kt_mv_move m;

    m = kt_mv_copy(0x2000, 0x1000, 4);
    m.mode = KT_MV_TRANSPOSE;
    CHECK_EQ(kt_mv_build(&m, w, KT_MV_MAX_WRITES, &n), NPK_EUNSUPPORTED);
    CHECK_STR_HAS(npk_last_error(), "fault 4");
    m.mode = (kt_mv_mode)6;
    CHECK_EQ(kt_mv_validate(&m), NPK_EUNSUPPORTED);

    m = kt_mv_copy(0x2000, 0x1000, 4);
    m.width = KT_MV_W_INVALID;
    CHECK_EQ(kt_mv_validate(&m), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "fault 5");

    m = kt_mv_copy(0x2010, 0x1000, 4);
    CHECK_EQ(kt_mv_validate(&m), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "destination walker base 0x2010");
    m = kt_mv_copy(0x2000, 0x1008, 4); /* the source is unchecked by the hardware: refused here */
    CHECK_EQ(kt_mv_validate(&m), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "source walker base 0x1008");
    m = kt_mv_copy(0x2000, 0x1000, 4);
    m.dst.dims[0].stride = 48;
    CHECK_EQ(kt_mv_validate(&m), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "stride 48");

    m = kt_mv_copy(0x40, 0x1000, 4);
    m.dst.dims[0].stride = -32;
    CHECK_EQ(kt_mv_validate(&m), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "range");
    m.dst.window[0] = (kt_mv_window){0, 3}; /* ...unless the elements below zero are masked out */
    m.dst.dims[0].axis = 1;
    m.dst.dims[0].astep = 1;
    CHECK_EQ(kt_mv_validate(&m), NPK_OK);

    m = kt_mv_copy(0x2000, 0x1000, 4);
    m.dst.ndim = 7;
    CHECK_EQ(kt_mv_validate(&m), NPK_EINVAL);
    m = kt_mv_copy(0x2000, 0x1000, 4);
    m.src.dims[0].count = 0;
    CHECK_EQ(kt_mv_validate(&m), NPK_EINVAL);

    uint32_t idx[4] = {0, 1, 2, 3};
    m = kt_mv_gather(0x1000, 0x8000, idx, 4, 0x400, 64, 1);
    m.index_count = 2049;
    m.dst.dims[0].count = 2049;
    CHECK_EQ(kt_mv_validate(&m), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "index length");
    m = kt_mv_gather(0x1000, 0x8000, idx, 4, 0x410, 64, 1);
    CHECK_EQ(kt_mv_validate(&m), NPK_EINVAL);
    m = kt_mv_gather(0x1000, 0x8000, idx, 4, 0x400, 40, 1);
    CHECK_EQ(kt_mv_validate(&m), NPK_EINVAL);
    m = kt_mv_gather(0x1000, 0x8000, idx, 4, 0x400, 64, 1);
    m.dst.dims[0].count = 5;
    CHECK_EQ(kt_mv_validate(&m), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "destination walks 5");
    uint32_t far[1] = {0xFFFFFFFFu};
    m = kt_mv_gather(0x1000, 0x8000, far, 1, 0x400, 1u << 31, 1);
    CHECK_EQ(kt_mv_validate(&m), NPK_ELIMIT);

    m = kt_mv_copy(0x2000, 0x1000, 16);
    m.mode = KT_MV_XFORM;
    m.src.window[1].extent = 4;
    CHECK_EQ(kt_mv_validate(&m), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "fault 7");

    m = kt_mv_copy(0x2000, 0x1000, 4);
    CHECK_EQ(kt_mv_build(&m, w, 3, &n), NPK_ELIMIT);
}

static void test_names_and_status(void)
{
    CHECK(!strcmp(kt_mv_fault_name(0), "none"));
    CHECK(!strcmp(kt_mv_fault_name(1), "index length"));
    CHECK(!strcmp(kt_mv_fault_name(2), "range"));
    CHECK(!strcmp(kt_mv_fault_name(3), "AXI"));
    CHECK(!strcmp(kt_mv_fault_name(4), "mode"));
    CHECK(!strcmp(kt_mv_fault_name(5), "element width"));
    CHECK(!strcmp(kt_mv_fault_name(6), "alignment"));
    CHECK(!strcmp(kt_mv_fault_name(7), "bound axis in a transform"));
    CHECK(!strcmp(kt_mv_fault_name(9), "?"));
    CHECK(!strcmp(kt_mv_mode_name(KT_MV_GENERATE), "generate"));
    CHECK(!strcmp(kt_mv_reg_name(0x28), "WINDOW"));
    kt_mv_mode mode;
    CHECK_EQ(kt_mv_mode_parse("gather", &mode), NPK_OK);
    CHECK_EQ(mode, KT_MV_GATHER_MODE);
    CHECK_EQ(kt_mv_mode_parse("rotate", &mode), NPK_EINVAL);
    kt_mv_status s = {0x123456, 0xBEEF, 0xCAFE, 6, true};
    uint64_t v = kt_mv_status_encode(&s);
    CHECK_EQ(v, 0x123456ull << 40 | 0xBEEFull << 24 | 0xCAFEull << 8 | 6u << 4 | 1);
    kt_mv_status d = kt_mv_status_decode(v);
    CHECK(d.moves_done == 0x123456 && d.reads == 0xBEEF && d.writes == 0xCAFE && d.fault == 6 && d.busy);
}

static void test_walker(void)
{
    kt_mv_walker w = kt_mv_linear(0x100, 1);
    w.ndim = 2;
    w.dims[0] = (kt_mv_dim){2, 256, 0, 0};
    w.dims[1] = (kt_mv_dim){3, 32, 0, 0};
    CHECK_EQ(kt_mv_walker_elements(&w), 6);
    uint32_t idx[KT_MV_MAX_DIMS] = {0};
    int64_t want[] = {0x100, 0x120, 0x140, 0x200, 0x220, 0x240};
    for (int i = 0; i < 6; i++) {
        CHECK_EQ(kt_mv_walker_point(&w, idx).addr, want[i]);
        bool more = kt_mv_walker_next(&w, idx);
        CHECK_EQ(more, i < 5);
    }
}

int main(void)
{
    test_philox_known_answer();
    test_fill_patterns();
    test_copy_sequence();
    test_field_encodings();
    test_refusals();
    test_names_and_status();
    test_walker();
    return check_done();
}
