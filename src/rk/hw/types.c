/* Names and sizes of the RK precision enum. */
#include <string.h>

#include "npukit/rk_types.h"

static const struct {
    const char *name;
    unsigned bits;
} precs[8] = {
    [NPK_PREC_INT8] = {"int8", 8},   [NPK_PREC_INT16] = {"int16", 16},
    [NPK_PREC_FP16] = {"fp16", 16},  [NPK_PREC_BF16] = {"bf16", 16},
    [NPK_PREC_INT32] = {"int32", 32}, [NPK_PREC_FP32] = {"fp32", 32},
    [NPK_PREC_INT4] = {"int4", 4},   [NPK_PREC_TF32] = {"tf32", 32},
};

const char *npk_rk_prec_name(npk_rk_prec p)
{
    return (unsigned)p < 8 ? precs[p].name : NULL;
}

bool npk_rk_prec_parse(const char *name, npk_rk_prec *out)
{
    for (unsigned i = 0; i < 8; i++)
        if (name && !strcmp(name, precs[i].name)) {
            *out = (npk_rk_prec)i;
            return true;
        }
    return false;
}

unsigned npk_rk_prec_bits(npk_rk_prec p) { return (unsigned)p < 8 ? precs[p].bits : 0; }
