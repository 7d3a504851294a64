/* SPDX-License-Identifier: MIT */
/* The 288-bit flit codec: header positions, every payload layout, host packing, range errors. */
#include "check.h"
#include "npukit/kt.h"
#include "npukit/kt_flit.h"
#include "npukit/kt_regs.h"
#include "npukit/kt_saxpy.h"
#include "npukit/kt_test_unit.h"

static void test_header_positions(void)
{
    kt_flit f = {{0}};
    kt_header h = {{0xA, 0x5}, {0x3, 0xC}, KT_T_CU_INST, 0x96, true, 0x5};
    CHECK_EQ(kt_header_put(&f, &h), NPK_OK);
    /* Word 4 holds bits 287:256: dst_x 287:284, dst_y 283:280, src_x 279:276, src_y 275:272,
     * type 271:268, txn 267:260, last 259, rsvd 258:256. */
    uint64_t want = (uint64_t)0xA << 28 | (uint64_t)0x5 << 24 | (uint64_t)0x3 << 20 | (uint64_t)0xC << 16 |
                    (uint64_t)0x5 << 12 | (uint64_t)0x96 << 4 | 1u << 3 | 0x5;
    CHECK_EQ(f.w[4], want);
    CHECK_EQ(f.w[0] | f.w[1] | f.w[2] | f.w[3], 0);
    kt_header g = kt_header_get(&f);
    CHECK_EQ(g.dst.x, 0xA);
    CHECK_EQ(g.dst.y, 0x5);
    CHECK_EQ(g.src.x, 0x3);
    CHECK_EQ(g.src.y, 0xC);
    CHECK_EQ(g.type, KT_T_CU_INST);
    CHECK_EQ(g.txn, 0x96);
    CHECK(g.last);
    CHECK_EQ(g.rsvd, 5);
    /* A coordinate beyond POS_WIDTH is refused with the value named. */
    h.dst.x = 16;
    CHECK_EQ(kt_header_put(&f, &h), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "(16,5)");
}

static void test_ctrl(void)
{
    kt_flit f;
    CHECK_EQ(kt_flit_ctrl_request(&f, (kt_coord){2, 1}, (kt_coord){0, 0}, 3, 0x21), NPK_OK);
    /* op [255:248] = 0, index [247:240] */
    CHECK_EQ(f.w[3], (uint64_t)3 << 48);
    kt_header h = kt_header_get(&f);
    CHECK_EQ(h.type, KT_T_CU_CTRL);
    CHECK(h.last);
    CHECK_EQ(kt_ctrl_get(&f).index, 3);
    /* Reply: op 0x02, index echoed, 64-bit value at [239:176] (straddles words 2 and 3). */
    CHECK_EQ(kt_flit_ctrl_reply(&f, (kt_coord){0, 0}, (kt_coord){2, 1}, 0, 0x21, 0x4D47042020000000ull),
             NPK_OK);
    kt_ctrl c = kt_ctrl_get(&f);
    CHECK_EQ(c.op, KT_CTRL_OP_REPLY);
    CHECK_EQ(c.index, 0);
    CHECK_EQ(c.value, 0x4D47042020000000ull);
    CHECK_EQ(f.w[3] >> 48, 0x0200);
    CHECK_EQ(f.w[3] & 0xFFFFFFFFFFFFull, 0x4D4704202000ull); /* value bits [63:16] in [239:192] */
    CHECK_EQ(f.w[2] >> 48, 0x0000);                           /* value bits [15:0] in [191:176] */
    /* The spec's worked CU_CAPS: MG cluster, version 4, 2 buffers, INST_DEPTH 512. */
    kt_cu_caps caps = kt_cu_caps_decode(c.value);
    CHECK_EQ(caps.type, 0x4D47);
    CHECK_EQ(caps.version, 0x04);
    CHECK_EQ(caps.n_buffers, 2);
    CHECK_EQ(caps.inst_depth, 512);
    CHECK_EQ(kt_cu_caps_encode(&caps), 0x4D47042020000000ull);
    kt_cu_caps caps32 = {0x4D47, 4, 2, 32};
    CHECK_EQ(kt_cu_caps_encode(&caps32), 0x4D47042002000000ull);
    char txt[8];
    kt_cu_type_text(0x5358, txt);
    CHECK_STR_HAS(txt, "SX");
    kt_cu_type_text(0x0001, txt);
    CHECK_STR_HAS(txt, "0x0001");
    kt_cu_type_text(0x225C, txt); /* '"' and '\\' would break the JSON kt enum prints */
    CHECK_STR_HAS(txt, "0x225c");
}

static void test_signal_and_status_words(void)
{
    kt_flit f;
    CHECK_EQ(kt_flit_signal(&f, (kt_coord){0, 1}, (kt_coord){1, 1}, 7, KT_SIG_FAULT, 0xDEADBEEF), NPK_OK);
    /* code [255:248], arg [247:216] */
    CHECK_EQ(f.w[3] >> 56, 0x04);
    CHECK_EQ((f.w[3] >> 24) & 0xFFFFFFFF, 0xDEADBEEF);
    kt_signal s = kt_signal_get(&f);
    CHECK_EQ(s.code, KT_SIG_FAULT);
    CHECK_EQ(s.arg, 0xDEADBEEF);
    CHECK_STR_HAS(kt_signal_name(1), "BATCH");
    CHECK_STR_HAS(kt_signal_name(0x41), "UNIT");
    /* NODE_STATUS: code [63:56], arg [55:24], count [23:8], valid [0]. */
    kt_node_status ns = {0x01, 0x12345678, 0xFFFF, true};
    uint64_t v = kt_node_status_encode(&ns);
    CHECK_EQ(v, 0x0112345678FFFF01ull);
    kt_node_status back = kt_node_status_decode(v);
    CHECK_EQ(back.count, 0xFFFF);
    CHECK_EQ(back.arg, 0x12345678);
    /* PROG_STAT: run [0], flits left [16:1], credit [32:17]. */
    kt_prog_stat ps = kt_prog_stat_decode(((uint64_t)5 << 17) | (3u << 1) | 1);
    CHECK(ps.run);
    CHECK_EQ(ps.flits_left, 3);
    CHECK_EQ(ps.credit, 5);
    /* The measured v6.7 A_CAPS: FLIT 288, POS 4, GRID_LO 1, GRID_HI 2. */
    kt_agent_caps ac = kt_agent_caps_decode(0x0000000201040120ull);
    CHECK_EQ(ac.flit_width, 288);
    CHECK_EQ(ac.pos_width, 4);
    CHECK_EQ(ac.grid_lo, 1);
    CHECK_EQ(ac.grid_hi, 2);
    kt_cu_status cs = kt_cu_status_decode(((uint64_t)1 << 63) | ((uint64_t)30 << 32));
    CHECK(cs.busy);
    CHECK(!cs.error);
    CHECK_EQ(cs.inst_space, 30);
    kt_cu_counters cc = kt_cu_counters_decode(0x0000000500000010ull);
    CHECK_EQ(cc.retired, 5);
    CHECK_EQ(cc.busy_cycles, 16);
    /* Counters are differenced modulo 2^32 and 2^16. */
    CHECK_EQ(kt_counter_delta32(0xFFFFFFF0u, 0x10u), 0x20);
    CHECK_EQ(kt_count_delta16(0xFFFE, 0x0001), 3);
}

static void test_mem_req(void)
{
    kt_flit f = {{0}};
    kt_mem_req r = {0};
    r.addr = 0x8012345678ull; /* aperture bit 39 set */
    r.len = 7;
    r.flags = KT_MEM_FLAG_STREAM;
    r.count = 200;
    r.peer[0] = (kt_coord){1, 2};
    r.peer[2] = (kt_coord){3, 4};
    r.n_peer = 3;
    r.entry_words = 4;
    CHECK_EQ(kt_mem_req_put(&f, &r), NPK_OK);
    /* addr [255:216] is the top 40 bits of word 3 */
    CHECK_EQ(f.w[3] >> 24, 0x8012345678ull);
    CHECK_EQ((f.w[3] >> 16) & 0xFF, 7);    /* len [215:208] */
    CHECK_EQ((f.w[3] >> 8) & 0xFF, 0x40);  /* flags [207:200] */
    CHECK_EQ(f.w[3] & 0xFF, 200);          /* count [199:192] */
    CHECK_EQ((f.w[2] >> 40) & 0xFF, 0x21); /* peer0 = {y,x} in the lowest byte at [175:168] */
    kt_mem_req g = kt_mem_req_get(&f);
    CHECK_EQ(g.addr, r.addr);
    CHECK_EQ(g.count, 200);
    CHECK_EQ(g.n_peer, 3);
    CHECK_EQ(g.peer[2].x, 3);
    CHECK_EQ(g.peer[2].y, 4);
    CHECK_EQ(g.entry_words, 4);
    r.addr = 1ull << 40; /* 41 bits */
    CHECK_EQ(kt_mem_req_put(&f, &r), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "addr");
    r.addr = 0;
    r.n_peer = 4;
    CHECK_EQ(kt_mem_req_put(&f, &r), NPK_ELIMIT);
}

static void test_cu_data_and_ack(void)
{
    kt_flit f = {{0}};
    kt_cu_data d = {3, 0x1234, 255, 1, {5, 6}};
    CHECK_EQ(kt_cu_data_put(&f, &d), NPK_OK);
    CHECK_EQ(f.w[3] >> 56, 3);
    CHECK_EQ((f.w[3] >> 40) & 0xFFFF, 0x1234);
    CHECK_EQ((f.w[3] >> 32) & 0xFF, 255);
    CHECK_EQ((f.w[3] >> 24) & 0xFF, 1);
    CHECK_EQ((f.w[3] >> 16) & 0xFF, 0x65); /* ack_y [215:212], ack_x [211:208] */
    kt_cu_data g = kt_cu_data_get(&f);
    CHECK_EQ(g.ack.x, 5);
    CHECK_EQ(g.ack.y, 6);
    CHECK_EQ(g.offset, 0x1234);
    kt_flit a = {{1, 0, 0, 0, 0}};
    CHECK(kt_wr_ack_dropped(&a));
}

static void test_packing_and_fields(void)
{
    kt_flit f = {{0}};
    /* A field straddling two words. */
    kt_flit_set_bits(&f, 60, 8, 0xAB);
    CHECK_EQ(f.w[0] >> 60, 0xB);
    CHECK_EQ(f.w[1] & 0xF, 0xA);
    CHECK_EQ(kt_flit_bits(&f, 60, 8), 0xAB);
    uint64_t words[5] = {1, 2, 3, 4, 0x100000000ull};
    CHECK_EQ(kt_flit_from_words(&f, words), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "above 287");
    words[4] = 0xFFFFFFFF;
    CHECK_EQ(kt_flit_from_words(&f, words), NPK_OK);
    uint8_t bytes[40];
    kt_flit_to_bytes(&f, bytes);
    CHECK_EQ(bytes[0], 1);
    CHECK_EQ(bytes[8], 2);
    CHECK_EQ(bytes[32], 0xFF);
    const kt_field *n = kt_field_find(kt_layout_saxpy, "n");
    CHECK(n != NULL);
    CHECK_EQ(kt_field_put(&f, n, 1u << 24), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "n=0x1000000");
    CHECK(kt_layout_for_type(KT_T_CU_CTRL) == kt_layout_ctrl);
    char buf[256];
    kt_flit_signal(&f, (kt_coord){0, 1}, (kt_coord){1, 1}, 9, 1, 9);
    kt_flit_describe(&f, buf, sizeof buf);
    CHECK_STR_HAS(buf, "CU_SIGNAL dst=(0,1) src=(1,1) txn=0x09");
    CHECK_STR_HAS(buf, "code=0x1");
    CHECK_EQ(kt_node_status_offset((kt_coord){2, 1}), 0x1000 + 0x12 * 8);
    CHECK_EQ(kt_stage_end(128, 5), 0x3400); /* the staging window ends past the 0x2xxx page */
}

/* The test unit's instruction at the positions the simulated unit decodes (src/ktsim/unit_test.c). */
static void test_test_unit_inst(void)
{
    kt_flit f;
    CHECK_EQ(kt_test_inst(&f, KT_TU_FAULT, 7, 0xCAFEF00D, 9, true), NPK_OK);
    CHECK_EQ(kt_flit_bits(&f, 252, 4), KT_TU_FAULT);
    CHECK_EQ(kt_flit_bits(&f, 224, 16), 7);
    CHECK_EQ(kt_flit_bits(&f, 0, 32), 0xCAFEF00D);
    CHECK_EQ(kt_flit_bits(&f, 184, 40), 0);
    kt_header h = kt_header_get(&f);
    CHECK_EQ(h.type, KT_T_CU_INST);
    CHECK_EQ(h.txn, 9);
    CHECK(h.last);
    CHECK_EQ(kt_test_inst(&f, KT_TU_FETCH, 0, 0xFF00003000ull, 1, false), NPK_OK);
    CHECK_EQ(kt_flit_bits(&f, 184, 40), 0xFF00003000ull);
    CHECK_EQ(kt_flit_bits(&f, 0, 32), 0);
    CHECK_EQ(kt_test_inst(&f, KT_TU_FETCH, 0, 1ull << 40, 1, false), NPK_ELIMIT); /* past 40 bits */
    CHECK_STR_HAS(npk_last_error(), "fetch_addr");
    CHECK_EQ(kt_test_inst(&f, KT_TU_RETIRE, 0, 1ull << 32, 1, false), NPK_ELIMIT); /* result is 32 bits */
    CHECK_EQ(kt_test_inst(&f, 16, 0, 0, 1, false), NPK_ELIMIT);                   /* op is 4 bits */
}

int main(void)
{
    test_test_unit_inst();
    test_header_positions();
    test_ctrl();
    test_signal_and_status_words();
    test_mem_req();
    test_cu_data_and_ack();
    test_packing_and_fields();
    return check_done();
}
