/* SPDX-License-Identifier: MIT */
/* The mover's registers as data: their names, the mode and fault names, AUX_STAT's layout. */
#include <string.h>

#include "npukit/kt_mover_hw.h"

/* ---- the register words (facts §1.10) ---- */

static const kt_wfield ctrl_rows[] = {
    [KT_MV_CTRL_F_MODE] = KT_WF(kt_mv_ctrl_word, mode, "mode", 0, 3),
    [KT_MV_CTRL_F_WIDTH] = KT_WF(kt_mv_ctrl_word, width, "ewidth", 3, 2),
    [KT_MV_CTRL_F_FLAGS] = KT_WF(kt_mv_ctrl_word, flags, "flags", 8, 8),
    [KT_MV_CTRL_F_GO] = KT_WF(kt_mv_ctrl_word, go, "go", 16, 1),
};
static const kt_word_layout ctrl_word = KT_WORD_LAYOUT("mover CTRL", ctrl_rows);

static const kt_wfield hdr_rows[] = {
    [KT_MV_HDR_F_SEL] = KT_WF(kt_mv_hdr_word, sel, "sel", 0, 1),
    [KT_MV_HDR_F_BASE] = KT_WF(kt_mv_hdr_word, base, "base", 4, KT_MV_ADDR_BITS),
    [KT_MV_HDR_F_NDIM] = KT_WF(kt_mv_hdr_word, ndim, "ndim", 44, 3),
    [KT_MV_HDR_F_XFORM_ID] = KT_WF(kt_mv_hdr_word, xform_id, "xform_id", 47, 4),
    [KT_MV_HDR_F_XFORM_MODE] = KT_WF(kt_mv_hdr_word, xform_mode, "xform_mode", 55, 4),
};
static const kt_word_layout hdr_word = KT_WORD_LAYOUT("mover HDR", hdr_rows);

static const kt_wfield dim_rows[] = {
    [KT_MV_DIM_F_SEL] = KT_WF(kt_mv_dim_word, sel, "sel", 0, 1),
    [KT_MV_DIM_F_DIM] = KT_WF(kt_mv_dim_word, dim, "dim", 1, 3),
    [KT_MV_DIM_F_COUNT] = KT_WF(kt_mv_dim_word, count, "count", 4, 16),
    [KT_MV_DIM_F_STRIDE] = KT_WFS(kt_mv_dim_word, stride, "stride", 20, 32),
};
static const kt_word_layout dim_word = KT_WORD_LAYOUT("mover DIM", dim_rows);

static const kt_wfield axis_rows[] = {
    [KT_MV_AXIS_F_AXIS] = KT_WF(kt_mv_axis_word, axis, "axis", 0, 2),
    [KT_MV_AXIS_F_ASTEP] = KT_WFS(kt_mv_axis_word, astep, "astep", 2, 16),
};
static const kt_word_layout axis_word = KT_WORD_LAYOUT("mover AXIS", axis_rows);

static const kt_wfield window_rows[] = {
    [KT_MV_WINDOW_F_SEL] = KT_WF(kt_mv_window_word, sel, "sel", 0, 1),
    [KT_MV_WINDOW_F_AXIS] = KT_WF(kt_mv_window_word, axis, "axis", 1, 1),
    [KT_MV_WINDOW_F_BASE] = KT_WFS(kt_mv_window_word, base, "abase", 2, 16),
    [KT_MV_WINDOW_F_EXTENT] = KT_WF(kt_mv_window_word, extent, "extent", 18, 16),
};
static const kt_word_layout window_word = KT_WORD_LAYOUT("mover WINDOW", window_rows);

static const kt_wfield index_rows[] = {
    [KT_MV_INDEX_F_BASE] = KT_WF(kt_mv_index_word, base, "base", 0, KT_MV_ADDR_BITS),
    [KT_MV_INDEX_F_COUNT] = KT_WF(kt_mv_index_word, count, "count", 40, 16),
};
static const kt_word_layout index_word = KT_WORD_LAYOUT("mover INDEX", index_rows);

static const kt_wfield seed_rows[] = {KT_WF(kt_mv_seed_word, seed, "key", 0, 64)};
static const kt_word_layout seed_word = KT_WORD_LAYOUT("mover SEED", seed_rows);

static const kt_wfield imm_rows[] = {KT_WF(kt_mv_imm_word, imm, "imm", 0, 32)};
static const kt_word_layout imm_word = KT_WORD_LAYOUT("mover IMM", imm_rows);

static const kt_wfield gather_rows[] = {
    [KT_MV_GATHER_F_PITCH] = KT_WF(kt_mv_gather_word, pitch, "pitch", 0, 32),
    [KT_MV_GATHER_F_WORDS] = KT_WF(kt_mv_gather_word, words, "words", 32, 16),
};
static const kt_word_layout gather_word = KT_WORD_LAYOUT("mover GATHER", gather_rows);

const kt_mv_reg_row kt_mv_regs[] = {
    {KT_MV_CTRL, "CTRL", &ctrl_word},       {KT_MV_HDR, "HDR", &hdr_word},
    {KT_MV_DIM, "DIM", &dim_word},          {KT_MV_AXIS, "AXIS", &axis_word},
    {KT_MV_WINDOW, "WINDOW", &window_word}, {KT_MV_INDEX, "INDEX", &index_word},
    {KT_MV_SEED, "SEED", &seed_word},       {KT_MV_IMM, "IMM", &imm_word},
    {KT_MV_GATHER, "GATHER", &gather_word}, {0, NULL, NULL},
};

/* AUX_STAT: moves completed (24 bits), the memory agent's traffic (16 bits each), fault, busy. */
static const kt_wfield aux_stat_rows[] = {
    [KT_MV_STAT_F_MOVES_DONE] = KT_WF(kt_mv_status, moves_done, "moves_done", 40, 24),
    [KT_MV_STAT_F_READS] = KT_WF(kt_mv_status, reads, "mag_reads", 24, 16),
    [KT_MV_STAT_F_WRITES] = KT_WF(kt_mv_status, writes, "mag_writes", 8, 16),
    [KT_MV_STAT_F_FAULT] = KT_WF(kt_mv_status, fault, "fault", 4, 4),
    [KT_MV_STAT_F_BUSY] = KT_WF(kt_mv_status, busy, "busy", 0, 1),
};
const kt_word_layout kt_word_aux_stat = KT_WORD_LAYOUT("AUX_STAT", aux_stat_rows);

const kt_mv_reg_row *kt_mv_reg_find(unsigned offset)
{
    for (const kt_mv_reg_row *r = kt_mv_regs; r->name; r++)
        if (r->offset == (offset & ~7u))
            return r;
    return NULL;
}

npk_status kt_mv_word_encode(unsigned offset, const kt_mv_word *w, uint64_t *value)
{
    const kt_mv_reg_row *r = kt_mv_reg_find(offset);
    if (!r)
        return npk_fail(NPK_EINVAL, "mover client offset 0x%02x holds no register", offset);
    return kt_word_encode(r->layout, w, value);
}

bool kt_mv_word_decode(unsigned offset, uint64_t value, kt_mv_word *w)
{
    const kt_mv_reg_row *r = kt_mv_reg_find(offset);
    if (!r)
        return false;
    memset(w, 0, sizeof *w);
    kt_word_decode(r->layout, value, w);
    return true;
}

/* KohakuTPU's occupants: slot 0 passes a word through, slot 1 is mx_quant (eight beats of FP16,
 * 4 lanes x 32 K, in; four MXFP7 words out). */
static const kt_mv_slot slots[] = {
    {KT_MV_SLOT_BYPASS, "bypass", 1, 1},
    {KT_MV_SLOT_MXFP7, "MXFP7 quantiser", 8, 4},
};

const kt_mv_slot *kt_mv_slot_find(unsigned id)
{
    for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++)
        if (slots[i].id == id)
            return &slots[i];
    return NULL;
}

unsigned kt_mv_burst_cap(uint8_t flags)
{
    unsigned field = (flags & KT_MV_FLAG_BURST_MASK) >> KT_MV_FLAG_BURST_SHIFT;
    return field ? 1u << (field - 1) : KT_MV_BURST_MAX;
}

int kt_mv_burst_field(unsigned words)
{
    for (int field = 0; field < 8; field++)
        if (kt_mv_burst_cap((uint8_t)(field << KT_MV_FLAG_BURST_SHIFT)) == words)
            return field;
    return -1;
}

static const char *const mode_names[8] = {"copy", "transpose", "gather", "generate",
                                          "fill", "transform", NULL,     NULL};
static const char *const fault_names[8] = {
    "none", "index length",  "range",     "AXI",
    "mode", "element width", "alignment", "bound axis in a transform"};

const char *kt_mv_mode_name(unsigned mode)
{
    return mode < 8 && mode_names[mode] ? mode_names[mode] : "?";
}
const char *kt_mv_fault_name(unsigned code) { return code < 8 ? fault_names[code] : "?"; }

const char *kt_mv_reg_name(unsigned offset)
{
    const kt_mv_reg_row *r = kt_mv_reg_find(offset);
    return r ? r->name : "?";
}

npk_status kt_mv_mode_parse(const char *text, kt_mv_mode *mode)
{
    for (unsigned m = 0; m < 8; m++)
        if (mode_names[m] && !strcmp(text, mode_names[m])) {
            *mode = (kt_mv_mode)m;
            return NPK_OK;
        }
    return npk_fail(
        NPK_EINVAL,
        "mover mode '%s': expected copy, transpose, gather, generate, fill or transform", text);
}

kt_mv_status kt_mv_status_decode(uint64_t v)
{
    kt_mv_status st;
    kt_word_decode(&kt_word_aux_stat, v, &st);
    return st;
}

uint64_t kt_mv_status_encode(const kt_mv_status *s) { return kt_word_pack(&kt_word_aux_stat, s); }
