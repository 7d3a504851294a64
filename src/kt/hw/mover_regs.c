/* The mover's registers as data: their names, the mode and fault names, AUX_STAT's layout. */
#include <string.h>

#include "npukit/kt_mover_hw.h"

static const char *const mode_names[8] = {"copy", "transpose", "gather", "generate", "fill", "transform", NULL, NULL};
static const char *const fault_names[8] = {"none",  "index length", "range",     "AXI",
                                           "mode",  "element width", "alignment", "bound axis in a transform"};

static const struct {
    uint8_t offset;
    const char *name;
} reg_names[] = {
    {KT_MV_CTRL, "CTRL"},     {KT_MV_HDR, "HDR"},    {KT_MV_DIM, "DIM"},   {KT_MV_AXIS, "AXIS"},
    {KT_MV_WINDOW, "WINDOW"}, {KT_MV_INDEX, "INDEX"}, {KT_MV_SEED, "SEED"}, {KT_MV_IMM, "IMM"},
    {KT_MV_GATHER, "GATHER"},
};

const char *kt_mv_mode_name(unsigned mode) { return mode < 8 && mode_names[mode] ? mode_names[mode] : "?"; }
const char *kt_mv_fault_name(unsigned code) { return code < 8 ? fault_names[code] : "?"; }

const char *kt_mv_reg_name(unsigned offset)
{
    for (size_t i = 0; i < sizeof reg_names / sizeof reg_names[0]; i++)
        if (reg_names[i].offset == (offset & ~7u))
            return reg_names[i].name;
    return "?";
}

npk_status kt_mv_mode_parse(const char *text, kt_mv_mode *mode)
{
    for (unsigned m = 0; m < 8; m++)
        if (mode_names[m] && !strcmp(text, mode_names[m])) {
            *mode = (kt_mv_mode)m;
            return NPK_OK;
        }
    return npk_fail(NPK_EINVAL, "mover mode '%s': expected copy, transpose, gather, generate, fill or transform", text);
}

kt_mv_status kt_mv_status_decode(uint64_t v)
{
    return (kt_mv_status){(uint32_t)(v >> 40) & 0xFFFFFF, (uint16_t)(v >> 24), (uint16_t)(v >> 8),
                          (uint8_t)(v >> 4 & 0xF), (v & 1) != 0};
}

uint64_t kt_mv_status_encode(const kt_mv_status *s)
{
    return (uint64_t)(s->moves_done & 0xFFFFFF) << 40 | (uint64_t)s->reads << 24 | (uint64_t)s->writes << 8 |
           (uint64_t)(s->fault & 0xF) << 4 | (s->busy ? 1u : 0u);
}
