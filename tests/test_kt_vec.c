/* SPDX-License-Identifier: MIT */
/* The vector core's values: the kernels of kt_vec_kernels.h against outputs recorded from the
 * RTL (upstream's vec_cu, KohakuTPU 7703ee8, under Verilator 5.006: each row the FNV-1a of the
 * DRAM region the kernel drains), the lane arithmetic against the CPU, the CU words' encoders
 * and their limits, the faults by name, CU_DATA into L1 from the host and from another core's
 * drain, and the instructions the model refuses by name. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kt/hw/e8m15.h"
#include "kt_vec_testlib.h"
#include "npukit/fp16.h"

static const struct {
    const char *kind;
    unsigned n;
    uint32_t fnv;
} rtl[] = {
    {"fma", 16, 0xdf0bb33d},  {"fma", 40, 0xad7c0fd3},  {"fma", 128, 0x41524ef0},
    {"ops", 16, 0x8dbe5c23},  {"ops", 40, 0xb92ec0b7},  {"ops", 128, 0xb354316d},
    {"edge", 16, 0xc799be06}, {"edge", 40, 0xead687d9}, {"edge", 128, 0xf13a92b1},
    {"d2", 16, 0xc4b48f37},   {"d2", 40, 0x1587a482},   {"d2", 128, 0xd1e7555b},
    {"red", 16, 0xe4d9c335},  {"red", 48, 0xe6abfdc5},  {"red", 128, 0xa5897ba5},
    {"d4", 16, 0x0070bff8},   {"d4", 40, 0x7bb7268e},   {"d4", 128, 0xbad9404c},
    {"seed", 16, 0xfb9244fa}, {"seed", 40, 0xdc61ed00}, {"seed", 128, 0x1c8ef871},
};

static void rtl_outputs(void)
{
    for (unsigned i = 0; i < sizeof rtl / sizeof rtl[0]; i++) {
        vk_kernel k;
        CHECK(vk_build(rtl[i].kind, rtl[i].n, &k));
        vk_run r;
        if (!vk_open(&r)) {
            CHECK(!"the mesh builds");
            return;
        }
        CHECK_EQ(vk_exec(&r, &k, NULL, NULL), NPK_OK);
        uint8_t out[256 * 32];
        CHECK_EQ(ktsim_dram_read(r.s, k.dump_addr, out, 32ull * k.dump_words), NPK_OK);
        uint32_t h = vk_fnv(out, 32ull * k.dump_words);
        CHECK_EQ(h, rtl[i].fnv);
        ktsim_destroy(r.s);
    }
}

/* The FP16 value of a 16-bit pattern, and the E8M15 nearest a double with ties to even (the
 * CPU's own rounding: scale the 16-bit significand to an integer and round it). */
static double f16_value(uint16_t h) { return (double)npk_f16_to_f32(h); }

static double e8_round(double x)
{
    if (x == 0)
        return 0;
    int e;
    frexp(x, &e);
    return ldexp(nearbyint(ldexp(x, 16 - e)), e - 16);
}

static uint32_t e8_of(double x)
{
    float f = (float)x; /* exact for an E8M15 value */
    uint32_t b;
    memcpy(&b, &f, 4);
    return b >> 8;
}

/* The lanes against the CPU: sums, products and FMAs of random values whose exact results a
 * double holds, rounded once to nearest even; a product that is an exact tie rounds up (the
 * lane's zero addend leaves a sticky bit), which the CPU reference states separately. */
static void lanes_against_cpu(void)
{
    uint64_t s = 42;
    unsigned ties = 0;
    for (int i = 0; i < 20000; i++) {
        double a = kt_e8_value(
            e8_of(ldexp((double)(0x8000 | (vk_mix(&s) & 0x7FFF)), -15 - (int)(vk_mix(&s) % 8))));
        double b = kt_e8_value(
            e8_of(ldexp((double)(0x8000 | (vk_mix(&s) & 0x7FFF)), -15 + (int)(vk_mix(&s) % 8))));
        double c = kt_e8_value(
            e8_of(ldexp((double)(0x8000 | (vk_mix(&s) & 0x7FFF)), -12 + (int)(vk_mix(&s) % 8))));
        if (vk_mix(&s) & 1)
            c = -c;
        uint32_t ea = e8_of(a), eb = e8_of(b), ec = e8_of(c);
        CHECK_EQ(kt_e8_value(kt_e8_alu(KT_E8_ADD, ea, 0, ec, NULL)), e8_round(a + c));
        CHECK_EQ(kt_e8_value(kt_e8_alu(KT_E8_SUB, ea, 0, ec, NULL)), e8_round(a - c));
        CHECK_EQ(kt_e8_value(kt_e8_alu(KT_E8_FMA, ea, eb, ec, NULL)), e8_round(a * b + c));
        double p = a * b, got = kt_e8_value(kt_e8_alu(KT_E8_MUL, ea, eb, 0, NULL));
        int e;
        frexp(p, &e);
        double scaled = ldexp(p, 16 - e);
        bool tie = scaled - floor(scaled) == 0.5;
        ties += tie;
        CHECK_EQ(got, tie ? ldexp(floor(scaled) + 1, e - 16) : e8_round(p));
        bool lt = false;
        kt_e8_alu(KT_E8_CMPLT, ea, eb, 0, &lt);
        CHECK_EQ(lt, a < b);
        CHECK_EQ(kt_e8_value(kt_e8_alu(KT_E8_MAX, ea, eb, 0, NULL)), a > b ? a : b);
    }
    CHECK(ties > 0); /* the tie rule was exercised */
    /* specials: inf - inf is the lane's NaN, 0 * inf too, and -0 + -0 keeps its sign */
    CHECK_EQ(kt_e8_alu(KT_E8_SUB, 0x7F8000, 0, 0x7F8000, NULL), (uint32_t)KT_E8_NAN);
    CHECK_EQ(kt_e8_alu(KT_E8_MUL, 0, 0x7F8000, 0, NULL), (uint32_t)KT_E8_NAN);
    CHECK_EQ(kt_e8_alu(KT_E8_ADD, 0x800000, 0, 0x800000, NULL), 0x800000u);
    /* overflow saturates to infinity, underflow flushes to zero */
    CHECK_EQ(kt_e8_alu(KT_E8_MUL, 0x7F0000, 0x7F0000, 0, NULL), 0x7F8000u);
    CHECK_EQ(kt_e8_alu(KT_E8_MUL, 0x008000, 0x008000, 0, NULL), 0u);
}

/* Conversions: every FP16 goes in exactly and comes back unchanged (NaNs stay NaN); FP32 comes
 * in rounded to nearest even and goes out exactly. */
static void conversions(void)
{
    unsigned bad = 0;
    for (uint32_t h = 0; h < 0x10000; h++) {
        uint32_t e = kt_e8_from_f16((uint16_t)h);
        bool nan = (h & 0x7C00) == 0x7C00 && (h & 0x3FF);
        if (nan)
            bad += (kt_e8_to_f16(e) & 0x7C00) != 0x7C00 || !(kt_e8_to_f16(e) & 0x3FF);
        else
            bad += kt_e8_to_f16(e) != h || kt_e8_value(e) != f16_value((uint16_t)h);
    }
    CHECK_EQ(bad, 0u);
    uint64_t s = 7;
    for (int i = 0; i < 20000; i++) {
        uint32_t f = (uint32_t)vk_mix(&s);
        float x;
        memcpy(&x, &f, 4);
        if (isnan(x) || isinf(x) || fpclassify(x) == FP_SUBNORMAL || fabs(x) > 3.4e38)
            continue;
        uint32_t e = kt_e8_from_f32(f);
        CHECK_EQ(kt_e8_value(e), e8_round(x));
        uint32_t back = kt_e8_to_f32(e);
        float y;
        memcpy(&y, &back, 4);
        CHECK_EQ((double)y, kt_e8_value(e));
    }
    /* values past FP16's range saturate to its largest finite; below it, they go subnormal */
    CHECK_EQ(kt_e8_to_f16(e8_of(1e6)), 0x7BFFu);
    CHECK_EQ(kt_e8_to_f16(e8_of(ldexp(1, -20))), 0x0010u);
}

static void encoders(void)
{
    kt_flit f;
    uint32_t w;
    CHECK_EQ(kt_vec_imem(&f, KT_VEC_IMEM_WORDS, 0, 0, false), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "511");
    CHECK_EQ(kt_vec_run(&f, 600, 0, false), NPK_ELIMIT);
    CHECK_EQ(kt_vec_desc(&f, 8, 0, 0, 0, false), NPK_ELIMIT);
    CHECK_EQ(kt_vec_desc(&f, 0, 5, 0, 0, false), NPK_ELIMIT);
    CHECK_EQ(kt_vec_desc(&f, 0, 0, 1ull << 40, 0, false), NPK_ELIMIT);
    CHECK_EQ(kt_vec_desc(&f, 0, 1, 1ull << 34, 0, false), NPK_ELIMIT);
    /* a 40-bit base splits: the low 34 bits at [245:212], the top six at [68:63] */
    CHECK_EQ(kt_vec_desc(&f, 3, 0, 0xAB12345678ull, 0, false), NPK_OK);
    CHECK_EQ(kt_flit_bits(&f, 212, 34), 0xAB12345678ull & ((1ull << 34) - 1));
    CHECK_EQ(kt_flit_bits(&f, 63, 6), 0xAB12345678ull >> 34);
    CHECK_EQ(kt_flit_bits(&f, 252, 4), (uint64_t)KT_VEC_CU_DESC);
    uint64_t dim;
    CHECK_EQ(kt_vec_dim(-1, 3, &dim), NPK_OK);
    CHECK_EQ(dim, 0x3FFFFull << 16 | 3);
    CHECK_EQ(kt_vec_dim(1 << 17, 1, &dim), NPK_ELIMIT);
    CHECK_EQ(kt_vec_dim(1, 1 << 16, &dim), NPK_ELIMIT);
    /* the reference encoder's words (upstream's bench constants) */
    CHECK_EQ(kt_vec_encode(&VK_OP(KT_VEC_VADD, .vd = 2, .va = 0, .vc = 1), &w), NPK_OK);
    CHECK_EQ(w, 0x18040020u);
    CHECK_EQ(kt_vec_encode(&VK_OP(KT_VEC_VHALT), &w), NPK_OK);
    CHECK_EQ(w, 0xF8000000u);
    CHECK_EQ(kt_vec_encode(&VK_OP(KT_VEC_VSETMODE, .va = KT_VEC_TREE), &w), NPK_OK);
    CHECK_EQ(w, 0xC8006000u);
    CHECK_EQ(kt_vec_encode(&VK_OP(KT_VEC_VADD, .vd = 16), &w), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "vd=16");
    CHECK_EQ(kt_vec_encode(&VK_OP(KT_VEC_VLD, .off = 9000), &w), NPK_ELIMIT);
    CHECK_EQ(kt_vec_encode(&VK_OP(KT_VEC_VFILL, .off = 512), &w), NPK_ELIMIT);
    CHECK_EQ(kt_vec_encode(&VK_OP(32), &w), NPK_ELIMIT);
    CHECK(strstr(kt_vec_fault_name(KT_VEC_F_LEN), "F_LEN") != NULL);
    CHECK(kt_vec_fault_name(10) == NULL);
    CHECK(!strcmp(kt_vec_op_name(KT_VEC_VRSQRT), "VRSQRT"));
    CHECK(kt_vec_op_name(KT_VEC_OP_COUNT) == NULL);
}

/* A kernel of the given words; the RUN's fault code (0 when it halted). */
static uint32_t run_words(const uint32_t *words, unsigned n, const char **model_error)
{
    vk_kernel k;
    memset(&k, 0, sizeof k);
    memcpy(k.imem, words, n * sizeof *words);
    k.nimem = n;
    vk_desc(&k, 0, 0x8000, 32, 257);
    vk_run r;
    if (!vk_open(&r)) {
        CHECK(!"the mesh builds");
        return 0;
    }
    kt_node_status last;
    npk_status s = vk_exec(&r, &k, &last, NULL);
    static char err[256];
    snprintf(err, sizeof err, "%s", ktsim_fault(r.s) ? ktsim_fault(r.s) : "");
    if (model_error)
        *model_error = err;
    ktsim_destroy(r.s);
    return s == NPK_EFAULT ? last.arg : 0;
}

static uint32_t word(kt_vec_insn in)
{
    uint32_t w = 0;
    CHECK_EQ(kt_vec_encode(&in, &w), NPK_OK);
    return w;
}

static void faults(void)
{
    const uint32_t halt = word(VK_OP(KT_VEC_VHALT));
    const uint32_t seti0 = word(VK_OP(KT_VEC_VSETI, .vd = 0));
    uint32_t vl0[] = {seti0, 0, word(VK_OP(KT_VEC_VSETVL, .va = 0)), halt};
    CHECK_EQ(run_words(vl0, 4, NULL), (uint32_t)KT_VEC_F_VL);
    uint32_t vl129[] = {seti0, 129, word(VK_OP(KT_VEC_VSETVL, .va = 0)), halt};
    CHECK_EQ(run_words(vl129, 4, NULL), (uint32_t)KT_VEC_F_VL);
    uint32_t nested[] = {seti0, 2, word(VK_OP(KT_VEC_VLOOP, .va = 0, .vb = 1)),
                         word(VK_OP(KT_VEC_VLOOP, .va = 0, .vb = 1)), halt};
    CHECK_EQ(run_words(nested, 5, NULL), (uint32_t)KT_VEC_F_LOOP);
    uint32_t dtype[] = {word(VK_OP(KT_VEC_VLD, .dt = 3)), halt};
    CHECK_EQ(run_words(dtype, 2, NULL), (uint32_t)KT_VEC_F_DTYPE);
    uint32_t len[] = {word(VK_OP(KT_VEC_VDRAIN, .ad = 0)), halt}; /* A0 walks 257 words */
    CHECK_EQ(run_words(len, 2, NULL), (uint32_t)KT_VEC_F_LEN);
    uint32_t chain[] = {word(VK_OP(KT_VEC_VADD, .vd = 1, .va = 0, .sc = KT_VEC_SRC_C)), halt};
    CHECK_EQ(run_words(chain, 2, NULL), (uint32_t)KT_VEC_F_CHAIN);
    uint32_t red[] = {word(VK_OP(KT_VEC_VRED, .vd = 1, .va = 0)), halt};
    CHECK_EQ(run_words(red, 2, NULL), (uint32_t)KT_VEC_F_OPCODE);
    uint32_t redvl[] = {seti0, 40, word(VK_OP(KT_VEC_VSETVL, .va = 0)),
                        word(VK_OP(KT_VEC_VRED, .vd = 1, .va = 0)), halt};
    CHECK_EQ(run_words(redvl, 5, NULL), (uint32_t)KT_VEC_F_REDVL);
    /* what the model does not represent stops the kernel by name, never silently */
    const char *err = NULL;
    /* a chained word naming a vector source faults as the RTL does */
    uint32_t vsrc[] = {word(VK_OP(KT_VEC_VSETMODE, .va = KT_VEC_D2)),
                       word(VK_OP(KT_VEC_VMOV, .vd = 1)),
                       word(VK_OP(KT_VEC_VMOV, .vd = 1, .sa = KT_VEC_SRC_C)), halt};
    CHECK_EQ(run_words(vsrc, 4, NULL), (uint32_t)KT_VEC_F_VSRC);
    uint32_t cmpchain[] = {
        word(VK_OP(KT_VEC_VSETMODE, .va = KT_VEC_D2)), word(VK_OP(KT_VEC_VMOV, .vd = 1)),
        word(VK_OP(KT_VEC_VCMPLT, .sa = KT_VEC_SRC_C, .sb = KT_VEC_SRC_K, .sc = KT_VEC_SRC_K)),
        halt};
    CHECK_EQ(run_words(cmpchain, 4, &err), (uint32_t)KT_VEC_F_UNMODELLED);
    CHECK_STR_HAS(err, "a chain ending in a compare");
    /* in TREE mode the lanes are wired as the tree: an arithmetic word there is refused */
    uint32_t tree[] = {word(VK_OP(KT_VEC_VSETMODE, .va = KT_VEC_TREE)),
                       word(VK_OP(KT_VEC_VADD, .vd = 1)), halt};
    CHECK_EQ(run_words(tree, 3, &err), (uint32_t)KT_VEC_F_UNMODELLED);
    CHECK_STR_HAS(err, "an arithmetic word in TREE mode");
    /* a word that is not arithmetic inside a chain (its select bits all K, so it names no
     * vector source) is refused by name too */
    uint32_t notalu[] = {word(VK_OP(KT_VEC_VSETMODE, .va = KT_VEC_D2)),
                         word(VK_OP(KT_VEC_VMOV, .vd = 1)),
                         word(VK_OP(KT_VEC_VSETVL, .va = 0)) | 0x3Fu << 21, halt};
    CHECK_EQ(run_words(notalu, 4, &err), (uint32_t)KT_VEC_F_UNMODELLED);
    CHECK_STR_HAS(err, "a word that is not arithmetic inside a chain");
    /* ANY/ALL reduce the predicates in any mode: compare, reduce, no fault */
    uint32_t any[] = {word(VK_OP(KT_VEC_VCMPEQ, .va = 0, .vb = 0, .pr = 1)),
                      word(VK_OP(KT_VEC_VRED, .vd = 3, .va = 0, .vc = 7, .pr = 1)), halt};
    CHECK_EQ(run_words(any, 3, &err), 0u);
    CHECK_EQ(err[0], '\0');
}

/* CU_DATA from the host into L1 (with DATA_RECEIVED), drained back to DRAM by a kernel; then a
 * burst naming buffer 1, which the next RUN reports as F_CUDATA. */
static void cu_data_in(void)
{
    vk_run r;
    if (!vk_open(&r)) {
        CHECK(!"the mesh builds");
        return;
    }
    /* a burst of two words to L1 word 100, sent through the mailbox as a host does, asking for
     * DATA_RECEIVED at the orchestrator (the memory agent's coordinate) */
    const kt_coord orch = {0, 1};
    kt_flit p[3] = {{{0}}};
    kt_cu_data desc = {0, 100, 1, 1, {0, 0}};
    CHECK_EQ(kt_cu_data_put(&p[0], &desc), NPK_OK);
    for (int i = 1; i <= 2; i++)
        for (int w = 0; w < 4; w++)
            p[i].w[w] = 0x0101010101010101ull * (uint64_t)(16 * i + w);
    uint64_t before = 0, after = 0;
    CHECK_EQ(kt_reg_read(&r.d, kt_node_status_offset(r.unit.at), &before), NPK_OK);
    for (int i = 0; i < 3; i++) {
        kt_header h = {r.unit.at, orch, KT_T_CU_DATA, 0, i == 2, 0};
        CHECK_EQ(kt_header_put(&p[i], &h), NPK_OK);
        CHECK_EQ(kt_mailbox_send(&r.d, &p[i]), NPK_OK);
    }
    kt_node_status ns = {0};
    for (int poll = 0; poll < 100 && ns.count == kt_node_status_decode(before).count; poll++) {
        CHECK_EQ(kt_reg_read(&r.d, kt_node_status_offset(r.unit.at), &after), NPK_OK);
        ns = kt_node_status_decode(after);
    }
    CHECK_EQ(ns.code, (uint8_t)KT_SIG_DATA_RECEIVED);
    CHECK_EQ(ns.arg, 0u); /* the buffer */
    vk_kernel k;
    memset(&k, 0, sizeof k);
    k.imem[k.nimem++] = word(VK_OP(KT_VEC_VDRAIN, .ad = 0, .off = 100));
    k.imem[k.nimem++] = word(VK_OP(KT_VEC_VHALT));
    vk_desc(&k, 0, 0x6000, 32, 2);
    CHECK_EQ(vk_exec(&r, &k, NULL, NULL), NPK_OK);
    uint8_t out[64];
    CHECK_EQ(ktsim_dram_read(r.s, 0x6000, out, 64), NPK_OK);
    CHECK_EQ(out[0], 16);
    CHECK_EQ(out[31], 19);
    CHECK_EQ(out[32], 32);
    /* buffer 1 is not this core's: the next RUN faults F_CUDATA */
    desc.buf_id = 1;
    desc.flags = 0;
    desc.len = 0;
    CHECK_EQ(kt_cu_data_put(&p[0], &desc), NPK_OK);
    for (int i = 0; i < 2; i++) {
        kt_header h = {r.unit.at, orch, KT_T_CU_DATA, 0, i == 1, 0};
        CHECK_EQ(kt_header_put(&p[i], &h), NPK_OK);
        CHECK_EQ(kt_mailbox_send(&r.d, &p[i]), NPK_OK);
    }
    kt_node_status last;
    CHECK_EQ(vk_exec(&r, &k, &last, NULL), NPK_EFAULT);
    CHECK_EQ(last.arg, (uint32_t)KT_VEC_F_CUDATA);
    ktsim_destroy(r.s);
}

/* A drain to a node: core (1,1) fills two words from DRAM and drains them into the L1 of the core
 * at (1,2) with DATA_RECEIVED to the orchestrator, which that core then drains to DRAM; a drain
 * naming buffer 3 makes the receiver's next RUN fault F_CUDATA. */
static void drain_to_node(void)
{
    vk_run r;
    if (!vk_open(&r)) {
        CHECK(!"the mesh builds");
        return;
    }
    uint8_t src[64];
    for (int i = 0; i < 64; i++)
        src[i] = (uint8_t)(i * 3 + 1);
    vk_kernel k;
    memset(&k, 0, sizeof k);
    memcpy(k.mem[0].b, src, 32), k.mem[0].addr = 0x7000;
    memcpy(k.mem[1].b, src + 32, 32), k.mem[1].addr = 0x7020;
    k.nmem = 2;
    k.imem[k.nimem++] = word(VK_OP(KT_VEC_VFILL, .ad = 0));
    k.imem[k.nimem++] = word(VK_OP(KT_VEC_VBAR));
    /* to (1,2), buffer 0, signal: ir[25] signal, [24] node, [20:17] x, [16:13] y, [12:9] buf */
    uint32_t to_node = word(VK_OP(KT_VEC_VDRAIN, .ad = 1)) | 1u << 25 | 1u << 24 |
                       (uint32_t)r.peer.at.x << 17 | (uint32_t)r.peer.at.y << 13;
    k.imem[k.nimem++] = to_node;
    k.imem[k.nimem++] = word(VK_OP(KT_VEC_VHALT));
    vk_desc(&k, 0, 0x7000, 32, 2);
    vk_desc(&k, 1, 1ull << 20 | 0ull << 16 | 300, 1, 2); /* ack (0,1), peer L1 word 300 */
    uint64_t before = 0, after = 0;
    CHECK_EQ(kt_reg_read(&r.d, kt_node_status_offset(r.peer.at), &before), NPK_OK);
    CHECK_EQ(vk_exec(&r, &k, NULL, NULL), NPK_OK);
    CHECK_EQ(kt_reg_read(&r.d, kt_node_status_offset(r.peer.at), &after), NPK_OK);
    CHECK_EQ(kt_node_status_decode(after).code, (uint8_t)KT_SIG_DATA_RECEIVED);
    CHECK(kt_node_status_decode(after).count != kt_node_status_decode(before).count);
    /* the receiver drains what landed */
    vk_kernel back;
    memset(&back, 0, sizeof back);
    back.imem[back.nimem++] = word(VK_OP(KT_VEC_VDRAIN, .ad = 0, .off = 300));
    back.imem[back.nimem++] = word(VK_OP(KT_VEC_VHALT));
    vk_desc(&back, 0, 0x7100, 32, 2);
    kt_unit self = r.unit;
    r.unit = r.peer;
    CHECK_EQ(vk_exec(&r, &back, NULL, NULL), NPK_OK);
    uint8_t got[64];
    CHECK_EQ(ktsim_dram_read(r.s, 0x7100, got, 64), NPK_OK);
    CHECK_EQ(memcmp(got, src, 64), 0);
    /* buffer 3 is not the receiver's: its next RUN reports F_CUDATA */
    r.unit = self;
    k.imem[2] = to_node | 3u << 9;
    CHECK_EQ(vk_exec(&r, &k, NULL, NULL), NPK_OK);
    r.unit = r.peer;
    kt_node_status last;
    CHECK_EQ(vk_exec(&r, &back, &last, NULL), NPK_EFAULT);
    CHECK_EQ(last.arg, (uint32_t)KT_VEC_F_CUDATA);
    ktsim_destroy(r.s);
}

/* CU_DBG is the last kernel's cycles, cleared at each RUN (per run, not cumulative). */
static void per_run_counter(void)
{
    vk_run r;
    if (!vk_open(&r)) {
        CHECK(!"the mesh builds");
        return;
    }
    vk_kernel k;
    CHECK(vk_build("drain", 1, &k));
    kt_node_status last;
    CHECK_EQ(vk_exec(&r, &k, &last, NULL), NPK_OK);
    CHECK_EQ(last.arg, 18u); /* the RTL's figure for this kernel */
    CHECK_EQ(vk_ctrl(&r, KT_CU_DBG), 18u);
    CHECK_EQ(vk_exec(&r, &k, &last, NULL), NPK_OK);
    CHECK_EQ(vk_ctrl(&r, KT_CU_DBG), 18u);
    CHECK_EQ(vk_ctrl(&r, KT_CU_CAPS) >> 48, (uint64_t)KT_VEC_TYPE);
    /* the driver decodes it by the unit's CU_TYPE */
    char text[128];
    kt_cu_dbg_describe(KT_VEC_TYPE, vk_ctrl(&r, KT_CU_DBG), text, sizeof text);
    CHECK_STR_HAS(text, "kernel_cycles=18 (per run");
    CHECK(kt_cu_dbg_row_of(KT_VEC_TYPE)->per_run);
    ktsim_destroy(r.s);
}

int main(void)
{
    rtl_outputs();
    lanes_against_cpu();
    conversions();
    encoders();
    faults();
    cu_data_in();
    drain_to_node();
    per_run_counter();
    return check_done();
}
