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
    CHECK_STR_HAS(npk_last_error(), "(int32; int16/int8 never complete)");
    mm = npk_rk_mm_default(NPK_PREC_FP16, 4, 64, 32);
    mm.out = NPK_PREC_INT32;
    CHECK_EQ(npk_rk_mm_check(&mm, NULL), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "(fp32 or fp16)");
    return check_done();
}
