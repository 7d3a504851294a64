/* SPDX-License-Identifier: MIT */
/* SDP task synthesis: the vendor's fp16 per-channel mul capture (spec "0x4070 DPU_EW_CFG +
 * 0x5034 ERDMA_CFG data-mode fields") value for value, the field values the spec names for
 * each op and operand mode, the limits, the fusion rule and the atom layout. */
#include <stdlib.h>

#include "check.h"
#include "npukit/fp16.h"
#include "npukit/rk_regcmd.h"
#include "rk/program/rk_sdp.h"

/* The value of (target, reg) in a body; 0xDEADBEEF when it is absent. */
static uint32_t val(const npk_rk_entry *body, uint16_t target, uint16_t reg)
{
    for (unsigned i = 0; i < NPK_RK_SDP_BODY; i++)
        if (npk_rk_entry_target(body[i]) == target && npk_rk_entry_reg(body[i]) == reg)
            return npk_rk_entry_value(body[i]);
    return 0xDEADBEEFu;
}

#define DPU 0x1001
#define RDMA 0x2001

static void vendor_mul(void)
{
    npk_rk_entry body[NPK_RK_SDP_BODY];
    npk_rk_sdp t = npk_rk_sdp_default(NPK_EW_MUL, NPK_EW_PER_ELEMENT, NPK_PREC_FP16, 64, 256);
    t.a = 0x1000;
    t.b = 0x2000;
    t.c = 0x3000;
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_OK);
    /* the vendor's per-element (compiler-broadcast) fp16 mul */
    CHECK_EQ(val(body, DPU, 0x4070), 0x20800384u);
    CHECK_EQ(val(body, RDMA, 0x5034), 0x8000000au);
    CHECK_EQ(val(body, RDMA, 0x5044), 0x17849u);
    /* fp16 -> fp16 DATA_FORMAT, BS/BN fully bypassed, the SDP's 0x4050 = 0x2, FP32TOFP16_EN */
    CHECK_EQ(val(body, DPU, 0x4010), 0x48000002u);
    CHECK_EQ(val(body, DPU, 0x4040), 0x53u);
    CHECK_EQ(val(body, DPU, 0x4060), 0x53u);
    CHECK_EQ(val(body, DPU, 0x4050), 0x2u);
    CHECK_EQ(val(body, DPU, 0x4084), 0x10001u);
    /* addresses and the RDMA cube W-1, H-1, C-1 (facts C.6) */
    CHECK_EQ(val(body, RDMA, 0x5018), 0x1000u);
    CHECK_EQ(val(body, RDMA, 0x5038), 0x2000u);
    CHECK_EQ(val(body, DPU, 0x4020), 0x3000u);
    CHECK_EQ(val(body, RDMA, 0x500C), 0u);
    CHECK_EQ(val(body, RDMA, 0x5010), 63u);
    CHECK_EQ(val(body, RDMA, 0x5014), 255u);
    CHECK_EQ(val(body, RDMA, 0x5068), 0x01010101u);
    /* ping-pong off for an SDP task */
    CHECK_EQ(val(body, DPU, 0x4004), 0u);
    CHECK_EQ(val(body, RDMA, 0x5004), 0u);

    /* per-channel: clear the data-mode bits */
    t.operand = NPK_EW_PER_CHANNEL;
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_OK);
    CHECK_EQ(val(body, DPU, 0x4070), 0x00800384u);
    CHECK_EQ(val(body, RDMA, 0x5034), 0x0000000au);
    CHECK_EQ(val(body, RDMA, 0x5044), 0x17849u);
    CHECK_EQ(val(body, RDMA, 0x5040), 0u); /* the vector is contiguous, not surface-strided */
}

/* EW_ALU_ALGO MAX 0 / MIN 1 / SUM 2 with EW_OP_TYPE 0, for each op; int16 and int8 sizes. */
static void ops_and_sizes(void)
{
    static const struct {
        npk_rk_ew_op op;
        unsigned algo, type;
    } rows[] = {{NPK_EW_ADD, 2, 0}, {NPK_EW_MAX, 0, 0}, {NPK_EW_MIN, 1, 0}, {NPK_EW_MUL, 0, 1}};
    static const struct {
        npk_rk_prec p;
        unsigned size, fmt, rdma_mode;
    } precs[] = {
        /* DATA_FORMAT OUT|IN|PROC and RDMA FEATURE_MODE (IN/PROC precision, burst 15,
         * flying; fp16 adds FP16TOFP32) */
        {NPK_PREC_FP16, 2, 0x48000002u, 0x17849u},
        {NPK_PREC_INT16, 2, 0x24000001u, (1u << 15) | 0x7800u | (1u << 5) | 1u},
        {NPK_PREC_INT8, 1, 0u, 0x7800u | 1u},
    };
    npk_rk_entry body[NPK_RK_SDP_BODY];
    for (size_t p = 0; p < sizeof precs / sizeof precs[0]; p++)
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
            npk_rk_sdp t = npk_rk_sdp_default(rows[i].op, NPK_EW_PER_ELEMENT, precs[p].p, 3, 17);
            CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_OK);
            uint32_t ew = val(body, DPU, 0x4070);
            CHECK_EQ((ew >> 16) & 0xf, rows[i].algo);
            CHECK_EQ((ew >> 2) & 1, rows[i].type);
            CHECK_EQ((ew >> 22) & 3, precs[p].size);
            CHECK_EQ((ew >> 28) & 3, 2u);
            CHECK_EQ(ew & 0x3, 0u); /* EW stage and op active */
            CHECK_EQ(val(body, RDMA, 0x5034), 0x80000002u | precs[p].size << 2);
            CHECK_EQ(val(body, DPU, 0x4010), precs[p].fmt);
            CHECK_EQ(val(body, RDMA, 0x5044), precs[p].rdma_mode);
            CHECK_EQ(val(body, DPU, 0x4084), precs[p].p == NPK_PREC_FP16 ? 0x10001u : 1u);
            CHECK_EQ(val(body, RDMA, 0x5040), 3u * 16u); /* operand surface: M atoms */
            CHECK_EQ(val(body, DPU, 0x4024), 3u * 16u);
        }
}

static void one_input_and_notch(void)
{
    npk_rk_entry body[NPK_RK_SDP_BODY];
    npk_rk_sdp t = npk_rk_sdp_default(NPK_EW_RELU, NPK_EW_NO_OPERAND, NPK_PREC_FP16, 4, 8);
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_OK);
    CHECK_EQ(val(body, RDMA, 0x5034), 1u);    /* ERDMA_DISABLE (facts C.6) */
    CHECK_EQ(val(body, DPU, 0x4070), 0x383u); /* EW bypassed (facts C.1 #79) */
    CHECK_EQ(val(body, DPU, 0x4040), 0x12u);  /* BS: only the ReLU active */
    /* an 8-channel tile of a contiguous [4][64] buffer: LINE_NOTCH_ADDR = N - 8 in [31:19] */
    t.line_notch = 64 - 8;
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_OK);
    CHECK_EQ(val(body, RDMA, 0x5048), 56u << 19);
    t.n = 9; /* wider than one tile */
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_EINVAL);
    t.unchecked = true;
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_OK);

    /* the over-fetch program: int32 feature, RDMA channels 2N-1 = 127 at N=64 (spec) */
    npk_rk_sdp o = npk_rk_sdp_default(NPK_EW_RELU, NPK_EW_NO_OPERAND, NPK_PREC_INT16, 1, 64);
    o.feature = NPK_PREC_INT32;
    o.rdma_channels = 128;
    CHECK_EQ(npk_rk_synth_sdp(&o, body), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "under-fetch");
    o.unchecked = true;
    CHECK_EQ(npk_rk_synth_sdp(&o, body), NPK_OK);
    CHECK_EQ(val(body, RDMA, 0x5014), 127u);
    CHECK_EQ((val(body, RDMA, 0x5044) >> 15) & 7, 4u); /* IN_PRECISION int32 */
    CHECK_EQ(val(body, DPU, 0x403C), (63u << 16) | 63u);
}

/* The BS and BN stages and the EW stage's other operands, field by field (facts B.4 layouts;
 * the operand encodings are the inference rk_sdp.h states: fp32 bits for the 32-bit operands
 * of an fp16 SDP, fp16 bits for its MUL operand, two's complement integers otherwise). */
static void stages(void)
{
    npk_rk_entry body[NPK_RK_SDP_BODY];
    /* relu6: the BS ReLU with RELUX at 6 (RELUX_EN 0x80 | MUL, ALU bypassed) */
    npk_rk_sdp t = npk_rk_sdp_default(NPK_EW_RELU6, NPK_EW_NO_OPERAND, NPK_PREC_FP16, 4, 8);
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_OK);
    CHECK_EQ(val(body, DPU, 0x4040), 0x92u);
    CHECK_EQ(val(body, DPU, 0x404C), 0x40C00000u); /* 6.0f */
    CHECK_EQ(val(body, DPU, 0x4060), 0x53u);       /* BN bypassed */
    CHECK_EQ(val(body, DPU, 0x4070), 0x383u);      /* EW bypassed */
    CHECK_EQ(val(body, RDMA, 0x5034), 1u);         /* no operand read */
    t.prec = t.feature = NPK_PREC_INT8;
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_OK);
    CHECK_EQ(val(body, DPU, 0x404C), 6u);
    /* leakyrelu: the BS MUL in PReLU mode, slope in BS_MUL_OPERAND */
    t = npk_rk_sdp_default(NPK_EW_LEAKYRELU, NPK_EW_IMMEDIATE, NPK_PREC_FP16, 4, 8);
    t.imm[0] = 0.125;
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_OK);
    CHECK_EQ(val(body, DPU, 0x4040), 0x62u);       /* PRELU | RELU, ALU bypassed */
    CHECK_EQ(val(body, DPU, 0x4048), 0x30000000u); /* fp16 0.125 = 0x3000 */
    /* an immediate add in the BS ALU: ALGO SUM, the operand in BS_ALU_CFG */
    t = npk_rk_sdp_default(NPK_EW_ADD, NPK_EW_IMMEDIATE, NPK_PREC_INT16, 4, 8);
    t.imm[0] = -5;
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_OK);
    CHECK_EQ(val(body, DPU, 0x4040), 0x20050u);
    CHECK_EQ(val(body, DPU, 0x4044), 0xFFFFFFFBu);
    CHECK_EQ(val(body, DPU, 0x4070), 0x383u);
    /* batchnorm: BS MUL (scale), then BN ALU SUM (shift) */
    t = npk_rk_sdp_default(NPK_EW_BATCHNORM, NPK_EW_IMMEDIATE, NPK_PREC_FP16, 4, 8);
    t.imm[0] = 2;
    t.imm[1] = -1;
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_OK);
    CHECK_EQ(val(body, DPU, 0x4040), 0x42u);
    CHECK_EQ(val(body, DPU, 0x4048), 0x40000000u); /* fp16 2.0 */
    CHECK_EQ(val(body, DPU, 0x4060), 0x20050u);
    CHECK_EQ(val(body, DPU, 0x4064), 0xBF800000u); /* -1.0f */
    /* the operand checks: whole numbers in an integer SDP, the MUL operand within its field */
    t = npk_rk_sdp_default(NPK_EW_ADD, NPK_EW_IMMEDIATE, NPK_PREC_INT8, 4, 16);
    t.imm[0] = 2.5;
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "not a whole number");
    t.op = NPK_EW_MUL;
    t.imm[0] = 40000;
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "exceeds int16");
    t.prec = t.feature = NPK_PREC_FP16;
    t.imm[0] = 1e6;
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "overflows fp16");
    t = npk_rk_sdp_default(NPK_EW_LEAKYRELU, NPK_EW_NO_OPERAND, NPK_PREC_FP16, 4, 8);
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "leakyrelu takes immediate");
    /* the EW stage's register operand: refused checked (no source gives the register), the
     * inferred encoding unchecked — EW_OP_SRC set, the value in EW_OP_VALUE_0, no ERDMA */
    t = npk_rk_sdp_default(NPK_EW_MAX, NPK_EW_IMMEDIATE, NPK_PREC_INT16, 4, 8);
    t.imm[0] = 7;
    t.ew_imm = true;
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_EUNSUPPORTED);
    CHECK_STR_HAS(npk_last_error(), "EW_OP_SRC");
    t.unchecked = true;
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_OK);
    CHECK_EQ(val(body, DPU, 0x4070), 0x008003C0u); /* EDATA 2 | ALGO MAX | OP_SRC | bypasses */
    CHECK_EQ(val(body, DPU, 0x4090), 7u);
    CHECK_EQ(val(body, RDMA, 0x5034), 1u);
    CHECK_EQ(val(body, DPU, 0x4040), 0x53u);
    /* the EW operand converter: EW_OP_CVT_BYPASS clear, offset and scale/shift in place */
    t = npk_rk_sdp_default(NPK_EW_ADD, NPK_EW_PER_ELEMENT, NPK_PREC_INT16, 4, 8);
    t.ew_cvt.on = true;
    t.ew_cvt.offset = -3;
    t.ew_cvt.scale = 5;
    t.ew_cvt.shift = 2;
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_EUNSUPPORTED);
    CHECK_STR_HAS(npk_last_error(), "converter");
    t.unchecked = true;
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_OK);
    CHECK_EQ(val(body, DPU, 0x4070) & 0x100u, 0u);
    CHECK_EQ(val(body, DPU, 0x4074), 0xFFFFFFFDu);
    CHECK_EQ(val(body, DPU, 0x4078), (2u << 16) | 5u);
    t.ew_cvt.shift = 64;
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_ELIMIT);
    /* EQL: EW_ALU_ALGO 3, emitted only unchecked (its output is in no source) */
    t = npk_rk_sdp_default(NPK_EW_EQL, NPK_EW_PER_ELEMENT, NPK_PREC_FP16, 4, 8);
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_EUNSUPPORTED);
    CHECK_STR_HAS(npk_last_error(), "no source gives its output");
    t.unchecked = true;
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_OK);
    CHECK_EQ((val(body, DPU, 0x4070) >> 16) & 0xF, 3u);
    /* the fusion rule is the ERDMA's: an immediate or 1-input task chains behind anything */
    t = npk_rk_sdp_default(NPK_EW_MUL, NPK_EW_IMMEDIATE, NPK_PREC_FP16, 4, 8);
    CHECK_EQ(npk_rk_sdp_chain_check(NPK_PREC_INT32, &t), NPK_OK);
    t = npk_rk_sdp_default(NPK_EW_RELU6, NPK_EW_NO_OPERAND, NPK_PREC_FP16, 4, 8);
    CHECK_EQ(npk_rk_sdp_chain_check(NPK_PREC_INT32, &t), NPK_OK);
}

static void limits(void)
{
    npk_rk_entry body[NPK_RK_SDP_BODY];
    npk_rk_sdp t = npk_rk_sdp_default(NPK_EW_ADD, NPK_EW_PER_ELEMENT, NPK_PREC_FP32, 4, 8);
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "fp32");
    t = npk_rk_sdp_default(NPK_EW_ADD, NPK_EW_PER_ELEMENT, NPK_PREC_FP16, 0, 8);
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "M=0");
    t = npk_rk_sdp_default(NPK_EW_ADD, NPK_EW_PER_ELEMENT, NPK_PREC_FP16, 8193, 8);
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "M=8193");
    t = npk_rk_sdp_default(NPK_EW_ADD, NPK_EW_PER_ELEMENT, NPK_PREC_FP16, 8192, 8192);
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_OK);
    t.n = 8193;
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "N=8193");
    t = npk_rk_sdp_default(NPK_EW_RELU, NPK_EW_PER_CHANNEL, NPK_PREC_FP16, 4, 8);
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "relu takes no operand, not per-channel");
    t = npk_rk_sdp_default(NPK_EW_MUL, NPK_EW_NO_OPERAND, NPK_PREC_FP16, 4, 8);
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "mul takes per-element/per-channel/immediate, not none");
    t = npk_rk_sdp_default((npk_rk_ew_op)99, NPK_EW_PER_CHANNEL, NPK_PREC_FP16, 4, 8);
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_EINVAL);
    t = npk_rk_sdp_default(NPK_EW_ADD, NPK_EW_PER_ELEMENT, NPK_PREC_FP16, 4, 8);
    t.c = 0x1008; /* not an atom boundary */
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "16-byte aligned");
    t.c = 0;
    t.operand = NPK_EW_PER_CHANNEL;
    t.b = 0x1001;
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_EINVAL);
    t.b = 0x1002; /* a per-channel vector needs only its element's alignment */
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_OK);
    t.rdma_channels = 9;
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_EINVAL);
    CHECK_EQ(npk_rk_sdp_check(NULL), NPK_EINVAL);
}

static void chain_rule(void)
{
    npk_rk_sdp mul = npk_rk_sdp_default(NPK_EW_MUL, NPK_EW_PER_CHANNEL, NPK_PREC_FP16, 1, 64);
    CHECK_EQ(npk_rk_sdp_chain_check(NPK_PREC_FP16, &mul), NPK_OK);
    CHECK_EQ(npk_rk_sdp_chain_check(NPK_PREC_INT16, &mul), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "dtype-path rule");
    CHECK_EQ(npk_rk_sdp_chain_check(NPK_PREC_FP32, &mul), NPK_EINVAL);
    npk_rk_sdp relu = npk_rk_sdp_default(NPK_EW_RELU, NPK_EW_NO_OPERAND, NPK_PREC_FP16, 1, 64);
    CHECK_EQ(npk_rk_sdp_chain_check(NPK_PREC_INT16, &relu), NPK_OK); /* 1-input: regardless */
}

/* Pack, compare every element with the layout formula, unpack, compare with the source. */
static void atom_round_trip(npk_rk_prec p, size_t m, size_t n, size_t pitch)
{
    const size_t eb = p == NPK_PREC_INT8 ? 1 : 2, c2 = 16 / eb;
    uint8_t *src = malloc(m * pitch * eb), *back = calloc(m * pitch, eb);
    uint64_t bytes = npk_rk_atom_bytes(p, m, n);
    CHECK_EQ(bytes, ((n + c2 - 1) / c2) * m * 16);
    uint8_t *atom = malloc(bytes);
    for (size_t i = 0; i < m * pitch * eb; i++)
        src[i] = (uint8_t)(rand() & 0xff);
    CHECK_EQ(npk_rk_atom_pack(p, m, n, src, pitch, atom, bytes), NPK_OK);
    size_t bad = 0;
    for (size_t r = 0; r < m; r++)
        for (size_t c = 0; c < (n + c2 - 1) / c2 * c2; c++) {
            const uint8_t *at = atom + ((c / c2) * m + r) * 16 + (c % c2) * eb;
            for (size_t b = 0; b < eb; b++)
                bad += at[b] != (c < n ? src[(r * pitch + c) * eb + b] : 0);
        }
    CHECK_EQ(bad, 0);
    CHECK_EQ(npk_rk_atom_unpack(p, m, n, atom, bytes, back, pitch), NPK_OK);
    for (size_t r = 0; r < m; r++)
        bad += memcmp(back + r * pitch * eb, src + r * pitch * eb, n * eb) != 0;
    CHECK_EQ(bad, 0);
    /* too small a buffer names both sizes; nothing is written */
    CHECK_EQ(npk_rk_atom_pack(p, m, n, src, pitch, atom, bytes - 1), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "needs");
    free(src);
    free(back);
    free(atom);
}

static void atom_layout(void)
{
    static const size_t shapes[][2] = {{1, 1}, {1, 3}, {3, 17}, {64, 33}, {65, 8}, {2, 8192}};
    static const npk_rk_prec precs[] = {NPK_PREC_FP16, NPK_PREC_INT16, NPK_PREC_INT8};
    for (size_t p = 0; p < 3; p++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            atom_round_trip(precs[p], shapes[s][0], shapes[s][1], shapes[s][1]);
            atom_round_trip(precs[p], shapes[s][0], shapes[s][1], shapes[s][1] + 5);
        }
    uint16_t x[4] = {0};
    uint8_t out[64];
    CHECK_EQ(npk_rk_atom_pack(NPK_PREC_FP32, 1, 4, x, 4, out, sizeof out), NPK_EINVAL);
    CHECK_EQ(npk_rk_atom_pack(NPK_PREC_FP16, 1, 4, x, 3, out, sizeof out), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "pitch");
    CHECK_EQ(npk_rk_atom_pack(NPK_PREC_FP16, 0, 4, x, 4, out, sizeof out), NPK_EINVAL);
    CHECK_EQ(npk_rk_atom_unpack(NPK_PREC_FP16, 1, 4, NULL, 64, x, 4), NPK_EINVAL);
    CHECK_EQ(npk_rk_atom_bytes(NPK_PREC_FP32, 1, 1), 0);
}

int main(void)
{
    srand(11);
    vendor_mul();
    ops_and_sizes();
    one_input_and_notch();
    stages();
    limits();
    chain_rule();
    atom_layout();
    return check_done();
}
