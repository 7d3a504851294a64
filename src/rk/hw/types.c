/* The precision rows: every per-dtype fact of the RK NPU in one place. Sources: spec "The
 * precision enum", "The M-tiling scheduler", "0x107c"; facts B.5, C.0, C.1, D.1, E.1, I.1. */
#include <stddef.h>
#include <string.h>

#include "npukit/rk_types.h"

#define NPK_PREC_COUNT 8

static const npk_rk_prec_row rows[NPK_PREC_COUNT] = {
    /* name    bits input float cbuf line ntile refK  tile   bank   op range  acc ... top pad */
    [NPK_PREC_FP16] = {"fp16", 16, true, true, 2, 8, 16, 256, 32768, 16384, 0, 0, 32,
                       NPK_PREC_FP32, NPK_PREC_FP32, NPK_MODE_LINE, false},
    [NPK_PREC_INT8] = {"int8", 8, true, false, 1, 16, 32, 512, 65536, 32768, -128, 127, 32,
                       NPK_PREC_INT32, NPK_PREC_INT32, NPK_MODE_LINE, true},
    /* int4: two per byte; its int16 accumulator (facts E.1, I.1) is widened on the host */
    [NPK_PREC_INT4] = {"int4", 4, true, false, 1, 16, 64, 512, 65536, 16384, -8, 7, 16,
                       NPK_PREC_INT16, NPK_PREC_INT32, NPK_MODE_CUBE, false},
    [NPK_PREC_INT16] = {.name = "int16", .bits = 16},
    [NPK_PREC_BF16] = {.name = "bf16", .bits = 16, .is_float = true},
    [NPK_PREC_INT32] = {.name = "int32", .bits = 32},
    [NPK_PREC_FP32] = {.name = "fp32", .bits = 32, .is_float = true},
    [NPK_PREC_TF32] = {.name = "tf32", .bits = 32, .is_float = true},
};

const npk_rk_prec_row *npk_rk_prec_row_of(npk_rk_prec p)
{
    return (unsigned)p < NPK_PREC_COUNT ? &rows[p] : NULL;
}

const npk_rk_prec_row *npk_rk_input_row(npk_rk_prec p)
{
    const npk_rk_prec_row *r = npk_rk_prec_row_of(p);
    return r && r->input ? r : NULL;
}

const char *npk_rk_prec_name(npk_rk_prec p)
{
    const npk_rk_prec_row *r = npk_rk_prec_row_of(p);
    return r ? r->name : NULL;
}

bool npk_rk_prec_parse(const char *name, npk_rk_prec *out)
{
    for (unsigned i = 0; i < NPK_PREC_COUNT; i++)
        if (name && !strcmp(name, rows[i].name)) {
            *out = (npk_rk_prec)i;
            return true;
        }
    return false;
}

unsigned npk_rk_prec_bits(npk_rk_prec p)
{
    const npk_rk_prec_row *r = npk_rk_prec_row_of(p);
    return r ? r->bits : 0;
}
