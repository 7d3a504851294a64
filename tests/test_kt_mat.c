/* SPDX-License-Identifier: MIT */
/* The matmul cluster ('MG', src/ktsim/unit_mat.c) through the driver on a one-router mesh:
 *   - its instruction word: the encoders' fields read back through the layout, and their limits
 *     (FILL n 1..255, 32-byte aligned 40-bit addresses, GEMM groups non-zero);
 *   - FILL (FP16 quantised by the memory port, and pre-quantised MXFP7), GEMM, DRAIN against a
 *     CPU reference computed here in double from the MXFP7 operands (q * scale per element;
 *     the quantiser is the hardware layer's, itself held to the RTL by test_kt_mxfp), within the
 *     accumulator's FP22 and FP16 rounding;
 *   - GEMM acc (the second sweep adds: 2x), L1 offsets and banks, a partial DRAIN;
 *   - an emitting GEMM with a fused DRAIN: the same C as GEMM + DRAIN, byte for byte (the RTL's
 *     emitted words equal its drained ones, measured), against the CPU; with acc after a plain
 *     sweep; the next emitting sweep waits for the last one's sub-tiles; the encoders' refusals
 *     and the cases the model refuses by name (a fused DRAIN that would wait forever, a DRAIN
 *     under an emission still leaving);
 *   - exec_result (retired FILL/GEMM/DRAIN, a no-op opcode not counted), CU_DBG
 *     {compute_cycles, memory_cycles} moving with the work;
 *   - what is not modelled is reported as a model error, not guessed at. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kt/hw/mxfp.h"
#include "kt/hw/units/mat.h"
#include "npukit/fp16.h"
#include "npukit/kt.h"
#include "npukit/kt_regs.h"
#include "npukit/ktsim.h"
#include "npukit/kt_mat.h"

enum { A_AT = 0x10000, B_AT = 0x20000, C_AT = 0x40000, QA_AT = 0x60000, QB_AT = 0x70000 };
enum { GM = 3, GN = 2, NK = 2, M = GM * 4, N = GN * 4, K = NK * 32 };

typedef struct run {
    ktsim *s;
    kt_dev d;
    kt_unit unit;
    ktsim_config c;
} run;

/* The mesh with the cluster's own settings `extra` (a preset unit line's key=value pairs). */
static bool start_with(run *r, const char *extra)
{
    char text[256];
    snprintf(text, sizeof text,
             "name mg_mesh\ngrid 1 1\nmem_port 0 1\n"
             "unit 1 1 mat version=4 n_buffers=2 inst_depth=32%s\n",
             extra);
    CHECK_EQ(ktsim_preset_parse(text, "mg", &r->c), NPK_OK);
    r->s = NULL;
    if (ktsim_create(&r->c, &r->s) != NPK_OK) {
        CHECK(!"the mesh builds");
        return false;
    }
    CHECK_EQ(kt_open(&r->d, ktsim_transport(r->s), r->c.ctrl_base, NULL), NPK_OK);
    size_t n = 0;
    CHECK_EQ(kt_enumerate(&r->d, &r->unit, 1, &n), NPK_OK);
    CHECK(n == 1 && r->unit.caps.type == KT_MAT_TYPE && !strcmp(r->unit.type_text, "MG"));
    return true;
}

static bool start(run *r) { return start_with(r, ""); }

/* A program through the driver; the last instruction's NODE_STATUS. */
static npk_status run_prog(run *r, kt_flit *p, unsigned n, kt_node_status *st)
{
    CHECK_EQ(kt_stage(&r->d, 0, p, n), NPK_OK);
    kt_ticket tk;
    CHECK_EQ(kt_dispatch(&r->d, &r->unit, 0, n, 0, &tk), NPK_OK);
    kt_wait_result w = {0};
    npk_status s = kt_wait(&r->d, &tk, &w);
    *st = w.last;
    return s;
}

/* The plain product as a program in p[0..3]: FILL A and FILL B (FP16 in memory, quantised by
 * the port on the way in), GEMM, DRAIN of `drained` entries to C. */
static void product_prog(kt_flit p[4], unsigned drained)
{
    CHECK_EQ(kt_mat_fill(&p[0], A_AT, GM * NK, false, false, false, 0, 1, false), NPK_OK);
    CHECK_EQ(kt_mat_fill(&p[1], B_AT, GN * NK, true, false, false, 0, 1, false), NPK_OK);
    CHECK_EQ(kt_mat_gemm(&p[2], GM, GN, NK, false, 0, 0, false, false, 1, false), NPK_OK);
    CHECK_EQ(kt_mat_drain(&p[3], C_AT, drained, 1, false), NPK_OK);
}

static uint64_t ctrl(run *r, uint8_t index)
{
    uint64_t v = 0;
    bool present = false;
    CHECK_EQ(kt_ctrl_read(&r->d, r->unit.at, index, &v, &present), NPK_OK);
    return v;
}

static uint64_t seed = 5;
static uint16_t rnd_half(void)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return npk_f32_to_f16((float)((double)(seed >> 11) * 0x1p-52 - 1.0));
}

/* rows [n][K] in entry order (entry g * NK + kb: 4 rows x 32 K, row after row) */
static void pack(const uint16_t *rows, unsigned groups, uint8_t *out)
{
    for (unsigned g = 0; g < groups; g++)
        for (unsigned kb = 0; kb < NK; kb++)
            for (unsigned i = 0; i < 128; i++) {
                uint16_t v = rows[(4 * g + i / 32) * K + kb * 32 + i % 32];
                size_t at = ((g * NK + kb) * 128 + i) * 2;
                out[at] = (uint8_t)v;
                out[at + 1] = (uint8_t)(v >> 8);
            }
}

/* The operand as the cluster holds it: each element q * scale of its K block, in double. */
static void dequant(const uint16_t *rows, unsigned n, double *out)
{
    for (unsigned r = 0; r < n; r++)
        for (unsigned kb = 0; kb < NK; kb++) {
            int8_t q[32];
            kt_mx_scale s = kt_mx_quant_block(rows + r * K + kb * 32, q);
            for (unsigned k = 0; k < 32; k++)
                out[r * K + kb * 32 + k] = q[k] * ldexp(s.m8 / 8.0, s.exp);
        }
}

static uint16_t a[M * K], bt[N * K];
static double ad[M * K], bd[N * K];

static void make_operands(run *r)
{
    for (unsigned i = 0; i < M * K; i++)
        a[i] = rnd_half();
    for (unsigned i = 0; i < N * K; i++)
        bt[i] = rnd_half();
    dequant(a, M, ad);
    dequant(bt, N, bd);
    uint8_t buf[M * K * 2];
    pack(a, GM, buf);
    CHECK_EQ(ktsim_dram_write(r->s, A_AT, buf, M * K * 2), NPK_OK);
    pack(bt, GN, buf);
    CHECK_EQ(ktsim_dram_write(r->s, B_AT, buf, N * K * 2), NPK_OK);
    /* the same operands already quantised, 128 bytes an entry */
    uint8_t q[GM * NK * KT_MX_ENTRY_OUT];
    pack(a, GM, buf);
    for (unsigned e = 0; e < GM * NK; e++)
        kt_mx_quant_entry(buf + e * KT_MX_ENTRY_IN, false, q + e * KT_MX_ENTRY_OUT);
    CHECK_EQ(ktsim_dram_write(r->s, QA_AT, q, GM * NK * KT_MX_ENTRY_OUT), NPK_OK);
    pack(bt, GN, buf);
    for (unsigned e = 0; e < GN * NK; e++)
        kt_mx_quant_entry(buf + e * KT_MX_ENTRY_IN, true, q + e * KT_MX_ENTRY_OUT);
    CHECK_EQ(ktsim_dram_write(r->s, QB_AT, q, GN * NK * KT_MX_ENTRY_OUT), NPK_OK);
    uint8_t zero[M * N * 2] = {0};
    CHECK_EQ(ktsim_dram_write(r->s, C_AT, zero, sizeof zero), NPK_OK);
}

/* C from DRAM (sub-tile t = g * GN + h at C_AT + 32 t) against times x A . B in double. */
static unsigned check_c(run *r, double times, unsigned subtiles)
{
    uint16_t c[M * N];
    CHECK_EQ(ktsim_dram_read(r->s, C_AT, c, sizeof c), NPK_OK);
    unsigned bad = 0;
    for (unsigned t = 0; t < subtiles; t++)
        for (unsigned e = 0; e < 16; e++) {
            unsigned i = (t / GN) * 4 + e / 4, j = (t % GN) * 4 + e % 4;
            double want = 0, mag = 0;
            for (unsigned k = 0; k < K; k++) {
                want += ad[i * K + k] * bd[j * K + k];
                mag += fabs(ad[i * K + k] * bd[j * K + k]);
            }
            want *= times;
            /* FP16 of the result, FP22 per chain and per sum, FP16's flush */
            double bound = fabs(want) * 0x1p-11 + 4.0 * NK * times * 0x1p-15 * mag + 0x1p-14;
            double got = npk_f16_to_f32(c[t * 16 + e]);
            if (!(fabs(got - want) <= bound) && bad++ < 4)
                fprintf(stderr, "  C[%u][%u] = %g, want %g (bound %g)\n", i, j, got, want, bound);
        }
    return bad;
}

static void test_encoding(void)
{
    kt_flit f;
    kt_mat_fields d;
    CHECK_EQ(kt_mat_fill(&f, 0xAB12345660ull, 200, true, true, true, 7, 0x40, true), NPK_OK);
    kt_mat_decode(&f, &d);
    CHECK_EQ(d.op, KT_MAT_OP_FILL);
    CHECK_EQ(d.addr, 0xAB12345660ull); /* 40 bits across [251:218] and [68:63] */
    CHECK_EQ(kt_flit_bits(&f, 63, 6), 0xAB12345660ull >> 34);
    CHECK(d.n == 200 && d.sel && d.preq && d.fbank && d.eoff == 7);
    CHECK_EQ(kt_header_get(&f).type, KT_T_CU_INST);
    CHECK(kt_header_get(&f).last);
    CHECK_EQ(kt_mat_gemm(&f, 8, 9, 10, true, 3, 4, true, false, 0x40, false), NPK_OK);
    kt_mat_decode(&f, &d);
    CHECK(d.op == KT_MAT_OP_GEMM && d.gm == 8 && d.gn == 9 && d.nk == 10 && d.acc);
    CHECK(d.aoff == 3 && d.boff == 4 && d.abank && !d.bbank && d.anchor == KT_MX_ANCHOR);
    CHECK_EQ(kt_flit_bits(&f, 252, 4), KT_MAT_OP_GEMM);
    CHECK_EQ(kt_mat_drain(&f, 0x1000, 64, 0x40, true), NPK_OK);
    kt_mat_decode(&f, &d);
    CHECK(d.op == KT_MAT_OP_DRAIN && d.n == 64 && d.addr == 0x1000);
    /* limits, each naming the value */
    CHECK_EQ(kt_mat_fill(&f, 0, 256, false, false, false, 0, 0, false), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "n=256");
    CHECK_EQ(kt_mat_fill(&f, 0, 0, false, false, false, 0, 0, false), NPK_ELIMIT);
    CHECK_EQ(kt_mat_fill(&f, 0x10, 1, false, false, false, 0, 0, false), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "0x10");
    CHECK_EQ(kt_mat_drain(&f, 1ull << 40, 1, 0, false), NPK_ELIMIT);
    CHECK_EQ(kt_mat_gemm(&f, 0, 1, 1, false, 0, 0, false, false, 0, false), NPK_EINVAL);
}

static void test_gemm(void)
{
    run r;
    if (!start(&r))
        return;
    make_operands(&r);
    kt_flit p[8];
    kt_node_status st;
    product_prog(p, GM * GN);
    CHECK_EQ(run_prog(&r, p, 4, &st), NPK_OK);
    CHECK_EQ(st.code, KT_SIG_INST_COMPLETE);
    CHECK_EQ(st.arg, 4); /* FILL, FILL, GEMM, DRAIN retired */
    CHECK_EQ(check_c(&r, 1, GM * GN), 0);
    uint64_t dbg = ctrl(&r, KT_CU_DBG);
    CHECK(dbg >> 32 > 0);         /* compute_cycles */
    CHECK((dbg & 0xFFFFFFFF) > 0); /* memory_cycles */

    /* GEMM acc: the second sweep adds into the resident tile; a no-op opcode is not counted */
    kt_flit nop;
    memset(&nop, 0, sizeof nop);
    kt_flit_set_bits(&nop, 252, 4, 9);
    kt_header h = {{0, 0}, {0, 0}, KT_T_CU_INST, 1, false, 0};
    kt_header_put(&nop, &h);
    p[0] = nop;
    CHECK_EQ(kt_mat_gemm(&p[1], GM, GN, NK, true, 0, 0, false, false, 1, false), NPK_OK);
    CHECK_EQ(kt_mat_drain(&p[2], C_AT, GM * GN, 1, false), NPK_OK);
    CHECK_EQ(run_prog(&r, p, 3, &st), NPK_OK);
    CHECK_EQ(st.arg, 6);
    CHECK_EQ(check_c(&r, 2, GM * GN), 0);
    uint64_t dbg2 = ctrl(&r, KT_CU_DBG);
    CHECK(dbg2 >> 32 > dbg >> 32);                   /* the sweep counted */
    CHECK_EQ(dbg2 & 0xFFFFFFFF, dbg & 0xFFFFFFFF); /* no FILL: memory cycles unchanged */

    /* pre-quantised operands in the upper banks at offset 5, a DRAIN of the first 4 sub-tiles */
    uint8_t zero[M * N * 2] = {0};
    CHECK_EQ(ktsim_dram_write(r.s, C_AT, zero, sizeof zero), NPK_OK);
    CHECK_EQ(kt_mat_fill(&p[0], QA_AT, GM * NK, false, true, true, 5, 1, false), NPK_OK);
    CHECK_EQ(kt_mat_fill(&p[1], QB_AT, GN * NK, true, true, true, 5, 1, false), NPK_OK);
    CHECK_EQ(kt_mat_gemm(&p[2], GM, GN, NK, false, 5, 5, true, true, 1, false), NPK_OK);
    CHECK_EQ(kt_mat_drain(&p[3], C_AT, 4, 1, false), NPK_OK);
    CHECK_EQ(run_prog(&r, p, 4, &st), NPK_OK);
    CHECK_EQ(check_c(&r, 1, 4), 0);
    uint16_t c[M * N];
    CHECK_EQ(ktsim_dram_read(r.s, C_AT, c, sizeof c), NPK_OK);
    unsigned past = 0;
    for (unsigned i = 4 * 16; i < GM * GN * 16; i++)
        past += c[i] != 0;
    CHECK_EQ(past, 0); /* sub-tiles past n are not written */
    CHECK(ktsim_fault(r.s) == NULL);
    ktsim_destroy(r.s);
}

static void test_emit(void)
{
    run r;
    if (!start(&r))
        return;
    make_operands(&r);
    kt_flit p[8];
    kt_node_status st;
    uint16_t plain[M * N], emitted[M * N];
    product_prog(p, GM * GN);
    CHECK_EQ(run_prog(&r, p, 4, &st), NPK_OK);
    CHECK_EQ(ktsim_dram_read(r.s, C_AT, plain, sizeof plain), NPK_OK);
    uint8_t zero[M * N * 2] = {0};
    CHECK_EQ(ktsim_dram_write(r.s, C_AT, zero, sizeof zero), NPK_OK);
    /* the same product emitted by the sweep, then the fused DRAIN's barrier */
    CHECK_EQ(kt_mat_gemm_emit(&p[0], GM, GN, NK, false, 0, 0, false, false, C_AT, 1, false),
             NPK_OK);
    CHECK_EQ(kt_mat_drain_fused(&p[1], C_AT, GM * GN, 1, false), NPK_OK);
    CHECK_EQ(run_prog(&r, p, 2, &st), NPK_OK);
    CHECK_EQ(st.arg, 6); /* FILL, FILL, GEMM, DRAIN, GEMM, DRAIN */
    CHECK_EQ(ktsim_dram_read(r.s, C_AT, emitted, sizeof emitted), NPK_OK);
    CHECK(!memcmp(plain, emitted, sizeof plain));
    CHECK_EQ(check_c(&r, 1, GM * GN), 0);
    /* a plain sweep, then an emitting one with acc: 2x; then two emitting sweeps back to back
     * (the second acc, waiting for the first's sub-tiles to leave, its words landing last) */
    CHECK_EQ(kt_mat_gemm(&p[0], GM, GN, NK, false, 0, 0, false, false, 1, false), NPK_OK);
    CHECK_EQ(kt_mat_gemm_emit(&p[1], GM, GN, NK, true, 0, 0, false, false, C_AT, 1, false), NPK_OK);
    CHECK_EQ(kt_mat_drain_fused(&p[2], C_AT, GM * GN, 1, false), NPK_OK);
    CHECK_EQ(run_prog(&r, p, 3, &st), NPK_OK);
    CHECK_EQ(check_c(&r, 2, GM * GN), 0);
    CHECK_EQ(kt_mat_gemm_emit(&p[0], GM, GN, NK, false, 0, 0, false, false, C_AT, 1, false),
             NPK_OK);
    CHECK_EQ(kt_mat_gemm_emit(&p[1], GM, GN, NK, true, 0, 0, false, false, C_AT, 1, false), NPK_OK);
    CHECK_EQ(kt_mat_drain_fused(&p[2], C_AT, GM * GN, 1, false), NPK_OK);
    CHECK_EQ(run_prog(&r, p, 3, &st), NPK_OK);
    CHECK_EQ(check_c(&r, 2, GM * GN), 0);
    CHECK(ktsim_fault(r.s) == NULL);
    /* the encoders' limits */
    CHECK_EQ(kt_mat_gemm_emit(&p[0], 1, 1, 1, false, 0, 0, false, false, C_AT, 1, false),
             NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "nk=1 needs acc");
    CHECK_EQ(kt_mat_gemm_emit(&p[0], 1, 1, 2, false, 0, 0, false, false, C_AT + 8, 1, false),
             NPK_EINVAL);
    CHECK_EQ(kt_mat_drain_fused(&p[0], C_AT, 0, 1, false), NPK_ELIMIT);
    ktsim_destroy(r.s);
}

static void test_not_modelled(void)
{
    run r;
    if (!start(&r))
        return;
    make_operands(&r);
    kt_flit p[2];
    kt_node_status st;
    /* nk = 1 emitting without acc: the RTL reports an error and hangs */
    CHECK_EQ(kt_mat_gemm(&p[0], 1, 1, 1, false, 0, 0, false, false, 1, false), NPK_OK);
    kt_flit_set_bits(&p[0], 116, 1, 1); /* emit */
    run_prog(&r, p, 1, &st);
    CHECK_STR_HAS(ktsim_fault(r.s), "no load-and-emit");
    ktsim_destroy(r.s);
    /* a fused DRAIN with nothing emitted waits forever on the card */
    if (!start(&r))
        return;
    CHECK_EQ(kt_mat_drain_fused(&p[0], C_AT, 4, 1, false), NPK_OK);
    run_prog(&r, p, 1, &st);
    CHECK_STR_HAS(ktsim_fault(r.s), "waits forever");
    ktsim_destroy(r.s);
    /* a plain DRAIN while the sweep's sub-tiles are still leaving */
    if (!start(&r))
        return;
    make_operands(&r);
    CHECK_EQ(kt_mat_gemm_emit(&p[0], GM, GN, NK, false, 0, 0, false, false, C_AT, 1, false),
             NPK_OK);
    CHECK_EQ(kt_mat_drain(&p[1], C_AT, GM * GN, 1, false), NPK_OK);
    run_prog(&r, p, 2, &st);
    CHECK_STR_HAS(ktsim_fault(r.s), "still leaving");
    ktsim_destroy(r.s);
}

/* A tiling wider than the resident tile (tiles=4, 3 x 2 sub-tiles): slots wrap, and the sweep's
 * K-blocks-outermost order decides what each slot holds (slot 0 is loaded by sub-tile 0's first
 * block, reloaded by sub-tile 4's, then summed with both second blocks). The drained words
 * against that order computed here on the entries as the cluster holds them, bit for bit. */
static void test_wrapped_tile(void)
{
    enum { TILES = 4 };
    run r;
    if (!start_with(&r, " tiles=4"))
        return;
    make_operands(&r);
    kt_flit p[4];
    kt_node_status st;
    product_prog(p, TILES);
    CHECK_EQ(run_prog(&r, p, 4, &st), NPK_OK);
    static uint8_t buf[M * K * 2];
    uint8_t w[KT_MX_ENTRY_OUT];
    int8_t qa[GM * NK][KT_MX_ENTRY_ELEMS], qb[GN * NK][KT_MX_ENTRY_ELEMS];
    uint8_t fa[GM * NK][KT_MX_LANES], fb[GN * NK][KT_MX_LANES];
    pack(a, GM, buf);
    for (unsigned e = 0; e < GM * NK; e++) {
        kt_mx_quant_entry(buf + e * KT_MX_ENTRY_IN, false, w);
        kt_mx_unpack_q(w, false, qa[e], fa[e]);
    }
    pack(bt, GN, buf);
    for (unsigned e = 0; e < GN * NK; e++) {
        kt_mx_quant_entry(buf + e * KT_MX_ENTRY_IN, true, w);
        kt_mx_unpack_q(w, true, qb[e], fb[e]);
    }
    uint32_t tile[TILES][16] = {{0}};
    for (unsigned kb = 0; kb < NK; kb++)
        for (unsigned g = 0; g < GM; g++)
            for (unsigned h = 0; h < GN; h++)
                kt_mx_subtile_fp22(qa[g * NK + kb], fa[g * NK + kb], qb[h * NK + kb],
                                   fb[h * NK + kb], KT_MX_ANCHOR, kb == 0,
                                   tile[(g * GN + h) % TILES]);
    uint16_t c[TILES * 16];
    CHECK_EQ(ktsim_dram_read(r.s, C_AT, c, sizeof c), NPK_OK);
    unsigned bad = 0;
    for (unsigned t = 0; t < TILES; t++)
        for (unsigned e = 0; e < 16; e++)
            bad += c[t * 16 + e] != kt_mx_fp22_to_fp16(tile[t][e]);
    CHECK_EQ(bad, 0);
    CHECK(ktsim_fault(r.s) == NULL);
    ktsim_destroy(r.s);
}

int main(void)
{
    test_encoding();
    test_gemm();
    test_wrapped_tile();
    test_emit();
    test_not_modelled();
    return check_done();
}
