/* SPDX-License-Identifier: MIT */
/* Register words as field tables: generic get/put and their refusals, decode/encode loops against
 * words composed by hand from the spec's bit positions, the generated description text, sanity
 * of every table (no overlaps, inside 64 bits), the mover's words round-tripping through the one
 * table, and the 40-bit inside address. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kt/hw/kt_interlink_hw.h"
#include "npukit/kt_mover_hw.h"
#include "npukit/kt_regs.h"
#include "npukit/kt_words.h"

/* Every layout the hardware layer publishes, for the table-wide checks. */
static const kt_word_layout *all_layouts(unsigned i)
{
    static const kt_word_layout *const fixed[] = {
        &kt_word_status,          &kt_word_caps,        &kt_word_prog_stat, &kt_word_node_status,
        &kt_word_prog_dst,        &kt_word_tx_status,   &kt_word_rx_status, &kt_word_prog_len,
        &kt_word_prog_cred,       &kt_word_prog_base,   &kt_word_sig_done,  &kt_word_cu_caps,
        &kt_word_cu_status,       &kt_word_cu_counters, &kt_word_aux_stat,  &kt_word_mesh_addr,
        &kt_word_aperture_offset,
    };
    unsigned n = sizeof fixed / sizeof fixed[0];
    if (i < n)
        return fixed[i];
    const kt_mv_reg_row *r = &kt_mv_regs[i - n];
    return r->name ? r->layout : NULL;
}

static void test_tables_are_sane(void)
{
    for (unsigned i = 0; all_layouts(i); i++) {
        const kt_word_layout *L = all_layouts(i);
        uint64_t used = 0;
        bool ok = L->n > 0;
        for (unsigned k = 0; k < L->n; k++) {
            const kt_wfield *f = &L->fields[k];
            ok = ok && f->f.name && f->f.width >= 1 && f->f.lo + f->f.width <= 64;
            ok = ok && (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8);
            ok = ok && f->f.width <= 8u * f->size; /* the member can hold the field */
            uint64_t m = kt_word_mask(L, k);
            ok = ok && !(used & m) && m; /* no two fields share a bit */
            used |= m;
        }
        if (!ok)
            fprintf(stderr, "layout %s is malformed\n", L->name);
        CHECK(ok);
    }
}

static void test_get_put(void)
{
    const kt_word_layout *L = &kt_word_prog_stat;
    uint64_t w = 0;
    CHECK_EQ(kt_word_put(L, KT_PROG_STAT_F_CREDIT, &w, 0xFFFF), NPK_OK);
    CHECK_EQ(w, 0xFFFFull << 17);
    CHECK_EQ(kt_word_put(L, KT_PROG_STAT_F_RUN, &w, 1), NPK_OK);
    CHECK_EQ(kt_word_get(L, KT_PROG_STAT_F_CREDIT, w), 0xFFFF);
    CHECK_EQ(kt_word_get(L, KT_PROG_STAT_F_FLITS_LEFT, w), 0);
    /* A value wider than the field is refused, naming word, field, value and limit, and the word
     * is left as it was. */
    uint64_t before = w;
    CHECK_EQ(kt_word_put(L, KT_PROG_STAT_F_CREDIT, &w, 0x10000), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(),
                  "PROG_STAT field credit=0x10000 does not fit 16 bits (max 0xffff)");
    CHECK_EQ(w, before);
    CHECK_EQ(kt_word_mask(L, KT_PROG_STAT_F_FLITS_LEFT), 0xFFFFull << 1);
    CHECK_EQ(kt_word_bits(L, KT_PROG_STAT_F_FLITS_LEFT, 0x1FFFF),
             0xFFFFull << 1); /* cut to the field */
}

static void test_decode_encode_against_hand_words(void)
{
    /* CU_CAPS: type [63:48], version [47:40], n_buffers [39:36], inst_depth [35:20]. */
    uint64_t v = 0x5358ull << 48 | 0x07ull << 40 | 0x3ull << 36 | 8ull << 20;
    kt_cu_caps c = kt_cu_caps_decode(v);
    CHECK_EQ(c.type, 0x5358);
    CHECK_EQ(c.version, 7);
    CHECK_EQ(c.n_buffers, 3);
    CHECK_EQ(c.inst_depth, 8);
    CHECK_EQ(kt_cu_caps_encode(&c), v);
    /* The encoders model wires: a member wider than its field is cut, as before. */
    c.n_buffers = 0x13;
    CHECK_EQ(kt_cu_caps_encode(&c), v);
    /* The checked encoder refuses it instead. */
    uint64_t out = 0;
    CHECK_EQ(kt_word_encode(&kt_word_cu_caps, &c, &out), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "n_buffers");
    /* STATUS: busy [0], error [1], mesh_ready [2]. */
    kt_status_reg st = kt_status_decode(0x4);
    CHECK(!st.busy && !st.error && st.mesh_ready);
    CHECK_EQ(kt_status_encode(&st), 0x4);
    /* CU_STATUS: busy [63], error [62], inst_space [47:32]. */
    kt_cu_status cs = {true, true, 0x1234};
    CHECK_EQ(kt_cu_status_encode(&cs), 3ull << 62 | 0x1234ull << 32);
    /* CU_COUNTERS: retired [63:32], busy cycles [31:0]. */
    kt_cu_counters cc = {0xAABBCCDD, 0x11223344};
    CHECK_EQ(kt_cu_counters_encode(&cc), 0xAABBCCDD11223344ull);
    /* PROG_DST packs {y,x}, y high. */
    kt_coord at;
    kt_word_decode(&kt_word_prog_dst, 0x21, &at);
    CHECK_EQ(at.x, 1);
    CHECK_EQ(at.y, 2);
    /* TX/RX status flags at [16] and [17]. */
    kt_rx_status rx = {true, true};
    CHECK_EQ(kt_word_pack(&kt_word_rx_status, &rx), 3ull << 16);
    /* AUX_STAT: moves [63:40], reads [39:24], writes [23:8], fault [7:4], busy [0]. */
    kt_mv_status ms = {0xABCDEF, 0x1234, 0x5678, 6, true};
    uint64_t aux = 0xABCDEFull << 40 | 0x1234ull << 24 | 0x5678ull << 8 | 6ull << 4 | 1;
    CHECK_EQ(kt_mv_status_encode(&ms), aux);
    kt_mv_status back = kt_mv_status_decode(aux);
    CHECK_EQ(back.moves_done, 0xABCDEF);
    CHECK_EQ(back.fault, 6);
    CHECK(back.busy);
}

static void test_description_text(void)
{
    char buf[160];
    kt_word_describe(&kt_word_prog_stat, buf, sizeof buf);
    CHECK(!strcmp(buf, "[0] run [16:1] flits_left [32:17] credit"));
    /* Ascending bit order whatever the table order. */
    kt_word_describe(&kt_word_node_status, buf, sizeof buf);
    CHECK(!strcmp(buf, "[0] valid [23:8] count [55:24] arg [63:56] code"));
    kt_word_format(&kt_word_prog_stat, 1ull << 17 | 2u << 1 | 1, buf, sizeof buf);
    CHECK(!strcmp(buf, "run=1 flits_left=2 credit=1"));
    /* A register's line: its fields, then its note; the width follows the fields. */
    const kt_reg_desc *r = kt_orch_reg_find(KT_PROG_STAT);
    CHECK(r && r->layout == &kt_word_prog_stat);
    CHECK_EQ(kt_reg_width(r), 33);
    kt_reg_describe(r, buf, sizeof buf);
    CHECK(!strcmp(buf, "[0] run [16:1] flits_left [32:17] credit"));
    r = kt_orch_reg_find(KT_STATUS);
    kt_reg_describe(r, buf, sizeof buf);
    CHECK_STR_HAS(buf, "[2] mesh_ready");
    CHECK_STR_HAS(buf, "tied");
    CHECK_EQ(kt_reg_width(kt_orch_reg_find(KT_CAPS)), 40);
    CHECK_EQ(kt_reg_width(kt_orch_reg_find(KT_CTRL)), 64);
    /* A short buffer is cut and terminated. */
    char small[8];
    kt_word_describe(&kt_word_prog_stat, small, sizeof small);
    CHECK_EQ(strlen(small), 7);
    kt_word_describe(kt_mv_reg_find(KT_MV_DIM)->layout, buf, sizeof buf);
    CHECK(!strcmp(buf, "[0] sel [3:1] dim [19:4] count [51:20] stride"));
}

static void test_mover_words(void)
{
    /* Signed fields: a negative stride and axis step survive the round trip through one table. */
    kt_mv_word w = {.dim = {1, 5, 0xFFFF, -64}};
    uint64_t v;
    CHECK_EQ(kt_mv_word_encode(KT_MV_DIM, &w, &v), NPK_OK);
    CHECK_EQ(v, 1ull | 5ull << 1 | 0xFFFFull << 4 | (uint64_t)0xFFFFFFC0u << 20);
    kt_mv_word back;
    CHECK(kt_mv_word_decode(KT_MV_DIM + 3, v, &back)); /* the register is offset & ~7 */
    CHECK_EQ(back.dim.sel, 1);
    CHECK_EQ(back.dim.dim, 5);
    CHECK_EQ(back.dim.count, 0xFFFF);
    CHECK(back.dim.stride == -64);
    w = (kt_mv_word){.window = {1, 1, -300, 7}};
    CHECK_EQ(kt_mv_word_encode(KT_MV_WINDOW, &w, &v), NPK_OK);
    CHECK_EQ(v, 1ull | 1ull << 1 | (uint64_t)(uint16_t)-300 << 2 | 7ull << 18);
    CHECK(kt_mv_word_decode(KT_MV_WINDOW, v, &back));
    CHECK(back.window.base == -300);
    /* HDR: base [43:4], ndim [46:44], XFORM_ID [50:47], XFORM_MODE [58:55]. */
    w = (kt_mv_word){.hdr = {0, 0x80000000A0ull, 6, 9, 3}};
    CHECK_EQ(kt_mv_word_encode(KT_MV_HDR, &w, &v), NPK_OK);
    CHECK_EQ(v, 0x80000000A0ull << 4 | 6ull << 44 | 9ull << 47 | 3ull << 55);
    /* Out of range: an address beyond 40 bits, an ndim beyond 3 bits. */
    w.hdr.base = 1ull << 40;
    CHECK_EQ(kt_mv_word_encode(KT_MV_HDR, &w, &v), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "mover HDR field base");
    w = (kt_mv_word){.axis = {0, 0}};
    CHECK_EQ(kt_mv_word_encode(0x48, &w, &v), NPK_EINVAL); /* no register there */
    CHECK(!kt_mv_word_decode(0x58, 1, &back));
    /* CTRL with GO: mode [2:0], ewidth [4:3], flags [15:8], GO [16]. */
    w = (kt_mv_word){.ctrl = {KT_MV_FILL, KT_MV_W32, 0x08, true}};
    CHECK_EQ(kt_mv_word_encode(KT_MV_CTRL, &w, &v), NPK_OK);
    CHECK_EQ(v, 4ull | 2ull << 3 | 0x08ull << 8 | 1ull << 16);
    CHECK(!strcmp(kt_mv_reg_name(KT_MV_GATHER + 4), "GATHER"));
    CHECK(!strcmp(kt_mv_reg_name(0x48), "?"));
}

static void test_mesh_address(void)
{
    /* [39] aperture, [37:36] mesh, [35:0] local; mesh 2 staging seen from the host is
     * (2 + 1) << 40 | inside = 0x3A0_0000_0000 (facts §1.9). */
    uint64_t st = kt_mesh_addr_make(true, 2, 0);
    CHECK_EQ(3ull << 40 | st, 0x3A000000000ull);
    CHECK_EQ(kt_il_stage_addr(2, 0x40), st | 0x40);
    CHECK_EQ(kt_il_dram_addr(1, 0x8000), 1ull << 36 | 0x8000);
    kt_mesh_addr a = kt_mesh_addr_split(0xB123456789ull);
    CHECK(a.aperture);
    CHECK_EQ(a.mesh, 3);
    CHECK_EQ(a.local, 0x123456789ull);
    CHECK_EQ(kt_il_addr_mesh(kt_il_dram_addr(3, 5)), 3);
    CHECK_EQ(kt_mesh_local_max(), 0xFFFFFFFFFull);
    /* The aperture's own split of the local part: [35:32] index, [31:0] offset. */
    kt_aperture_addr ap;
    kt_word_decode(&kt_word_aperture_offset, 0x100000200ull, &ap);
    CHECK_EQ(ap.index, 1);
    CHECK_EQ(ap.offset, 0x200);
}

/* CU_DBG decoded per CU_TYPE, as each type publishes it (spec §1.4): the matmul cluster's two
 * cumulative halves, the vector core's per-run kernel cycles, and a type with no published
 * meaning shown raw, named as such. */
static void test_cu_dbg(void)
{
    char t[160];
    kt_cu_dbg_describe(0x4D47, (5ull << 32) | 9, t, sizeof t);
    CHECK(!strcmp(t, "compute_cycles=5 memory_cycles=9 (cumulative)"));
    kt_cu_dbg_describe(0x5643, 77, t, sizeof t);
    CHECK(!strcmp(t, "kernel_cycles=77 (per run: never difference)"));
    kt_cu_dbg_describe(0x5358, UINT64_MAX, t, sizeof t);
    CHECK(!strcmp(t, "elements=18446744073709551615 (cumulative)"));
    kt_cu_dbg_describe(0x4D58, 0xABC, t, sizeof t); /* 'MX': no published meaning */
    CHECK(!strcmp(t, "0x0000000000000abc (undocumented for type MX)"));
    CHECK(kt_cu_dbg_row_of(0x4D58) == NULL);
    CHECK(kt_cu_dbg_row_of(0x5643)->per_run);
    char small[8]; /* cut, still terminated, and the length it wanted */
    size_t n = kt_cu_dbg_describe(0x4D47, 1, small, sizeof small);
    CHECK_EQ(strlen(small), 7u);
    CHECK(n > sizeof small);
}

int main(void)
{
    test_tables_are_sane();
    test_cu_dbg();
    test_get_put();
    test_decode_encode_against_hand_words();
    test_description_text();
    test_mover_words();
    test_mesh_address();
    return check_done();
}
