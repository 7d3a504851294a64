/* SPDX-License-Identifier: MIT */
/* The precision and output-stage rows against facts stated independently of them: every
 * weight tile is 1024 bytes (facts D.1), integer operands span their two's-complement range,
 * a LINE_STRIDE unit is 16 bytes of CBUF entry, and the messages built from the rows. */
#include <string.h>

#include "check.h"
#include "npukit/rk_outstage.h"
#include "npukit/rk_synth.h"

int main(void)
{
    const npk_rk_prec inputs[] = {NPK_PREC_FP16, NPK_PREC_INT8, NPK_PREC_INT4};
    for (unsigned i = 0; i < 3; i++) {
        const npk_rk_prec_row *r = npk_rk_input_row(inputs[i]);
        CHECK(r != NULL);
        if (!r)
            continue;
        CHECK_EQ(r->n_tile * 32 * r->bits / 8, 1024);
        /* int4 uses int8's 16-element entries: one unit is 16 CBUF-bytes wide */
        CHECK_EQ(r->line_unit * r->cbuf_bytes, 16);
        if (!r->is_float) {
            CHECK_EQ(r->op_min, -(1 << (r->bits - 1)));
            CHECK_EQ(r->op_max, (1 << (r->bits - 1)) - 1);
        }
        /* the default output is a completing stage whose elements are acc_bits wide */
        const npk_rk_out_stage *st = npk_rk_out_stage_find(inputs[i], r->acc);
        CHECK(st && st->completes);
        CHECK_EQ(st ? st->out_bytes * 8 : 0, r->acc_bits);
        CHECK(npk_rk_host_out_ok(inputs[i], r->host_acc));
    }
    /* every stage's output bytes are its precision's */
    const npk_rk_out_stage *st;
    for (unsigned i = 0; (st = npk_rk_out_stage_at(i)); i++)
        CHECK_EQ(st->out_bytes * 8, npk_rk_prec_bits(st->out));
    CHECK(npk_rk_input_row(NPK_PREC_BF16) == NULL);
    CHECK(npk_rk_input_row((npk_rk_prec)99) == NULL);
    CHECK_EQ(npk_rk_int4_k_max(), 511);

    char buf[64];
    CHECK(!strcmp(npk_rk_host_outs(NPK_PREC_FP16, buf, sizeof buf), "fp32 or fp16"));
    CHECK(!strcmp(npk_rk_host_outs(NPK_PREC_INT4, buf, sizeof buf), "int32"));
    CHECK(!npk_rk_host_out_ok(NPK_PREC_INT4, NPK_PREC_INT16)); /* the host widens int4 */
    CHECK(!npk_rk_host_out_ok(NPK_PREC_INT8, NPK_PREC_INT16));

    /* the refusal lists the stage table's outputs for the input */
    npk_rk_mm mm = npk_rk_mm_default(NPK_PREC_INT8, 4, 64, 32);
    mm.out = NPK_PREC_FP32;
    CHECK_EQ(npk_rk_mm_check(&mm, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "(int32; int16/int8/fp16 never complete)");
    mm = npk_rk_mm_default(NPK_PREC_FP16, 4, 64, 32);
    mm.out = NPK_PREC_INT32;
    CHECK_EQ(npk_rk_mm_check(&mm, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "(fp32 or fp16)");

    /* element encodings against bit patterns stated independently: IEEE half 1.0 = 0x3C00,
     * bfloat16 -2.0 = 0xC000, binary32 0.5 = 0x3F000000, int4 nibbles low first */
    const uint8_t half_one[2] = {0x00, 0x3C}, bf_m2[2] = {0x00, 0xC0};
    const uint8_t f32_half[4] = {0x00, 0x00, 0x00, 0x3F}, nibbles[1] = {0x9F};
    CHECK(npk_rk_prec_load(NPK_PREC_FP16, half_one, 0) == 1.0);
    CHECK(npk_rk_prec_load(NPK_PREC_BF16, bf_m2, 0) == -2.0);
    CHECK(npk_rk_prec_load(NPK_PREC_FP32, f32_half, 0) == 0.5);
    CHECK(npk_rk_prec_load(NPK_PREC_INT4, nibbles, 0) == -1.0); /* 0xF */
    CHECK(npk_rk_prec_load(NPK_PREC_INT4, nibbles, 1) == -7.0); /* 0x9 */
    CHECK(npk_rk_prec_load((npk_rk_prec)99, nibbles, 0) == 0.0);
    uint8_t out[8] = {0};
    npk_rk_prec_store(NPK_PREC_INT16, out, 1, -2.0);
    CHECK_EQ(out[2], 0xFE);
    CHECK_EQ(out[3], 0xFF);
    npk_rk_prec_store(NPK_PREC_INT32, out, 1, 4294967297.0); /* 2^32 + 1 wraps to 1 */
    CHECK_EQ(out[4], 1);
    CHECK_EQ(out[7], 0);
    npk_rk_prec_store(NPK_PREC_INT4, out, 1, 5.0); /* the high nibble only */
    CHECK_EQ(out[0], 0x50);
    npk_rk_prec_store(NPK_PREC_FP16, out, 0, 65520.0); /* rounds to nearest even: inf */
    CHECK_EQ(out[0], 0x00);
    CHECK_EQ(out[1], 0x7C);
    for (unsigned p = 0; npk_rk_prec_name((npk_rk_prec)p); p++) {
        /* every precision round-trips a value its format holds exactly */
        uint8_t e[4] = {0};
        npk_rk_prec_store((npk_rk_prec)p, e, 0, -3.0);
        CHECK(npk_rk_prec_load((npk_rk_prec)p, e, 0) == -3.0);
    }
    return check_done();
}
