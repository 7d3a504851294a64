/* SPDX-License-Identifier: MIT */
/* The orchestrator register map and the CU_CTRL word layouts, as data plus small decoders. */
#include "npukit/kt_regs.h"

#include <ctype.h>
#include <stdio.h>

/* ---- register words: the one description of each field ----
 * Orchestrator words: spec §2.2 (STATUS, CAPS, PROG_*, TX/RX_STATUS, SIG_DONE), §2.4 (PROG_STAT's
 * credit), §2.5 (NODE_STATUS); CU_CTRL words: spec §1.3 (CU_CAPS, CU_STATUS, CU_COUNTERS). */

static const kt_wfield status_rows[] = {
    [KT_STATUS_F_BUSY] = KT_WF(kt_status_reg, busy, "busy", 0, 1),
    [KT_STATUS_F_ERROR] = KT_WF(kt_status_reg, error, "error", 1, 1),
    [KT_STATUS_F_MESH_READY] = KT_WF(kt_status_reg, mesh_ready, "mesh_ready", 2, 1),
};
const kt_word_layout kt_word_status = KT_WORD_LAYOUT("STATUS", status_rows);

static const kt_wfield caps_rows[] = {
    [KT_CAPS_F_FLIT_WIDTH] = KT_WF(kt_agent_caps, flit_width, "FLIT_WIDTH", 0, 16),
    [KT_CAPS_F_POS_WIDTH] = KT_WF(kt_agent_caps, pos_width, "POS_WIDTH", 16, 8),
    [KT_CAPS_F_GRID_LO] = KT_WF(kt_agent_caps, grid_lo, "GRID_LO", 24, 8),
    [KT_CAPS_F_GRID_HI] = KT_WF(kt_agent_caps, grid_hi, "GRID_HI", 32, 8),
};
const kt_word_layout kt_word_caps = KT_WORD_LAYOUT("CAPS", caps_rows);

static const kt_wfield prog_stat_rows[] = {
    [KT_PROG_STAT_F_RUN] = KT_WF(kt_prog_stat, run, "run", 0, 1),
    [KT_PROG_STAT_F_FLITS_LEFT] = KT_WF(kt_prog_stat, flits_left, "flits_left", 1, 16),
    [KT_PROG_STAT_F_CREDIT] = KT_WF(kt_prog_stat, credit, "credit", 17, 16),
};
const kt_word_layout kt_word_prog_stat = KT_WORD_LAYOUT("PROG_STAT", prog_stat_rows);

static const kt_wfield node_status_rows[] = {
    [KT_NODE_STATUS_F_CODE] = KT_WF(kt_node_status, code, "code", 56, 8),
    [KT_NODE_STATUS_F_ARG] = KT_WF(kt_node_status, arg, "arg", 24, 32),
    [KT_NODE_STATUS_F_COUNT] = KT_WF(kt_node_status, count, "count", 8, 16),
    [KT_NODE_STATUS_F_VALID] = KT_WF(kt_node_status, valid, "valid", 0, 1),
};
const kt_word_layout kt_word_node_status = KT_WORD_LAYOUT("NODE_STATUS", node_status_rows);

/* {y,x}: y in the high nibble, as the hardware packs every coordinate. */
static const kt_wfield prog_dst_rows[] = {
    [KT_PROG_DST_F_X] = KT_WF(kt_coord, x, "x", 0, KT_POS_WIDTH),
    [KT_PROG_DST_F_Y] = KT_WF(kt_coord, y, "y", KT_POS_WIDTH, KT_POS_WIDTH),
};
const kt_word_layout kt_word_prog_dst = KT_WORD_LAYOUT("PROG_DST", prog_dst_rows);

static const kt_wfield tx_status_rows[] = {
    [KT_TX_STATUS_F_FULL] = KT_WF(kt_tx_status, full, "tx_full", 16, 1),
};
const kt_word_layout kt_word_tx_status = KT_WORD_LAYOUT("TX_STATUS", tx_status_rows);

static const kt_wfield rx_status_rows[] = {
    [KT_RX_STATUS_F_EMPTY] = KT_WF(kt_rx_status, empty, "rx_empty", 16, 1),
    [KT_RX_STATUS_F_OVERFLOW] = KT_WF(kt_rx_status, overflow, "rx_overflow", 17, 1),
};
const kt_word_layout kt_word_rx_status = KT_WORD_LAYOUT("RX_STATUS", rx_status_rows);

static const kt_wfield prog_len_rows[] = {KT_WF(kt_reg_count, value, "flits", 0, 16)};
const kt_word_layout kt_word_prog_len = KT_WORD_LAYOUT("PROG_LEN", prog_len_rows);
static const kt_wfield prog_cred_rows[] = {KT_WF(kt_reg_count, value, "credit", 0, 16)};
const kt_word_layout kt_word_prog_cred = KT_WORD_LAYOUT("PROG_CRED", prog_cred_rows);
static const kt_wfield prog_base_rows[] = {KT_WF(kt_reg_count, value, "first_slot", 0, 16)};
const kt_word_layout kt_word_prog_base = KT_WORD_LAYOUT("PROG_BASE", prog_base_rows);
static const kt_wfield sig_done_rows[] = {KT_WF(kt_reg_count, value, "completions", 0, 16)};
const kt_word_layout kt_word_sig_done = KT_WORD_LAYOUT("SIG_DONE", sig_done_rows);

static const kt_wfield cu_caps_rows[] = {
    [KT_CU_CAPS_F_TYPE] = KT_WF(kt_cu_caps, type, "type", 48, 16),
    [KT_CU_CAPS_F_VERSION] = KT_WF(kt_cu_caps, version, "version", 40, 8),
    [KT_CU_CAPS_F_N_BUFFERS] = KT_WF(kt_cu_caps, n_buffers, "n_buffers", 36, 4),
    [KT_CU_CAPS_F_INST_DEPTH] = KT_WF(kt_cu_caps, inst_depth, "inst_depth", 20, 16),
};
const kt_word_layout kt_word_cu_caps = KT_WORD_LAYOUT("CU_CAPS", cu_caps_rows);

static const kt_wfield cu_status_rows[] = {
    [KT_CU_STATUS_F_BUSY] = KT_WF(kt_cu_status, busy, "busy", 63, 1),
    [KT_CU_STATUS_F_ERROR] = KT_WF(kt_cu_status, error, "error", 62, 1),
    [KT_CU_STATUS_F_INST_SPACE] = KT_WF(kt_cu_status, inst_space, "inst_space", 32, 16),
};
const kt_word_layout kt_word_cu_status = KT_WORD_LAYOUT("CU_STATUS", cu_status_rows);

static const kt_wfield cu_counters_rows[] = {
    [KT_CU_COUNTERS_F_RETIRED] = KT_WF(kt_cu_counters, retired, "retired", 32, 32),
    [KT_CU_COUNTERS_F_BUSY_CYCLES] = KT_WF(kt_cu_counters, busy_cycles, "busy_cycles", 0, 32),
};
const kt_word_layout kt_word_cu_counters = KT_WORD_LAYOUT("CU_COUNTERS", cu_counters_rows);

/* ---- the orchestrator map ----
 * Reset values and widths are those of the RTL; the staging extent shown is the reference
 * build's (STAGE_FLITS 128 x FLIT_WORDS 5), the decode itself is derived from the parameters.
 * A row with a layout takes its width and its description from the layout. */
const kt_reg_desc kt_orch_regs[] = {
    {KT_CTRL, 1, "CTRL", KT_ACC_RW, 64, 0, NULL, "stored and read back; nothing reads it"},
    {KT_STATUS, 1, "STATUS", KT_ACC_RO, 0, 0, &kt_word_status, "(error tied 0, mesh_ready tied 1)"},
    {KT_CAPS, 1, "CAPS", KT_ACC_RO, 0, 0, &kt_word_caps, NULL},
    {KT_IRQ_STAT, 1, "IRQ_STAT", KT_ACC_W1C, 64, 0, NULL, "write-1-to-clear; nothing sets it"},
    {KT_IRQ_EN, 1, "IRQ_EN", KT_ACC_RW, 64, 0, NULL, "stored; no interrupt output exists"},
    {KT_PROG_DST, 1, "PROG_DST", KT_ACC_RW, 0, 0, &kt_word_prog_dst, "(the dispatch target)"},
    {KT_PROG_LEN, 1, "PROG_LEN", KT_ACC_RW, 0, 0, &kt_word_prog_len, "(to send)"},
    {KT_PROG_KICK, 1, "PROG_KICK", KT_ACC_W, 0, 0, NULL, "any write starts dispatch"},
    {KT_PROG_STAT, 1, "PROG_STAT", KT_ACC_RO, 0, 0, &kt_word_prog_stat, NULL},
    {KT_PROG_CRED, 1, "PROG_CRED", KT_ACC_RLIVE, 0, 0, &kt_word_prog_cred,
     "(a write seeds, a read is live)"},
    {KT_PROG_BASE, 1, "PROG_BASE", KT_ACC_RW, 0, 0, &kt_word_prog_base, "(in staging)"},
    {KT_SIG_DONE, 1, "SIG_DONE", KT_ACC_RCLR, 0, 0, &kt_word_sig_done,
     "(from every node; a write clears)"},
    {KT_AUX_STAT, 1, "AUX_STAT", KT_ACC_RO, 64, 0, NULL, "one word from the attached client"},
    {KT_AUX_STATW, KT_AUX_STATW_WORDS, "AUX_STATW", KT_ACC_RO, 64, 0, NULL,
     "sixteen words from the attached client"},
    {KT_TX_FLIT, KT_FLIT_WORDS, "TX_FLIT", KT_ACC_W, 64, 0, NULL,
     "mailbox flit, low word first, byte-enabled (reads 0)"},
    {KT_TX_KICK, 1, "TX_KICK", KT_ACC_W, 0, 0, NULL, "push TX_FLIT into the transmit FIFO"},
    {KT_TX_STATUS, 1, "TX_STATUS", KT_ACC_RO, 0, 0, &kt_word_tx_status, NULL},
    {KT_RX_FLIT, KT_FLIT_WORDS, "RX_FLIT", KT_ACC_RO, 64, 0, NULL,
     "head of the receive FIFO, low word first"},
    {KT_RX_POP, 1, "RX_POP", KT_ACC_W, 0, 0, NULL, "pop the receive FIFO"},
    {KT_RX_STATUS, 1, "RX_STATUS", KT_ACC_RO, 0, 0, &kt_word_rx_status, "(overflow sticky)"},
    {KT_AUX_CFG, KT_AUX_CFG_BYTES / 8, "AUX_CFG", KT_ACC_W, 64, 0, NULL,
     "forwarded verbatim to the client"},
    {KT_NODE_STATUS, KT_NODE_SLOTS * 2, "NODE_STATUS", KT_ACC_RO, 0, 0, &kt_word_node_status,
     "(per {y,x}; 0x1800+ aliases 0x1000+)"},
    {KT_STAGE, KT_STAGE_FLITS_DEFAULT *KT_FLIT_WORDS, "STAGE", KT_ACC_W, 64, 0, NULL,
     "instruction staging RAM (reads 0)"},
    {0, 0, NULL, KT_ACC_RO, 0, 0, NULL, NULL},
};

const kt_reg_desc *kt_orch_reg_find(uint32_t offset)
{
    offset &= KT_WINDOW_BYTES - 1;
    for (const kt_reg_desc *r = kt_orch_regs; r->name; r++)
        if (offset >= r->offset && offset < r->offset + r->words * 8u && (offset & 7) == 0)
            return r;
    return NULL;
}

const char *kt_access_name(kt_access a)
{
    static const char *const n[] = {"RW", "RO", "W1C", "W", "RW(live)", "R/Wclr"};
    return (unsigned)a < sizeof n / sizeof n[0] ? n[a] : "?";
}

unsigned kt_reg_width(const kt_reg_desc *r)
{
    return r->layout ? kt_word_width(r->layout) : r->width;
}

size_t kt_reg_describe(const kt_reg_desc *r, char *buf, size_t len)
{
    if (!len)
        return 0;
    size_t used = r->layout ? kt_word_describe(r->layout, buf, len) : 0;
    if (r->note) {
        int n = snprintf(buf + used, len - used, "%s%s", used ? " " : "", r->note);
        used += n < 0 ? 0 : (size_t)n;
    }
    buf[used < len ? used : len - 1] = 0;
    return used < len ? used : len - 1;
}

/* ---- decoders and encoders: loops over the layouts above ---- */

/* The typed decoder and encoder of one word, both loops over its layout. */
#define WORD_CODEC(type, prefix, layout)                                                           \
    type prefix##_decode(uint64_t v)                                                               \
    {                                                                                              \
        type x;                                                                                    \
        kt_word_decode(&layout, v, &x);                                                            \
        return x;                                                                                  \
    }                                                                                              \
    uint64_t prefix##_encode(const type *x) { return kt_word_pack(&layout, x); }

WORD_CODEC(kt_agent_caps, kt_agent_caps, kt_word_caps)
WORD_CODEC(kt_status_reg, kt_status, kt_word_status)
WORD_CODEC(kt_prog_stat, kt_prog_stat, kt_word_prog_stat)
WORD_CODEC(kt_node_status, kt_node_status, kt_word_node_status)
WORD_CODEC(kt_cu_caps, kt_cu_caps, kt_word_cu_caps)
WORD_CODEC(kt_cu_status, kt_cu_status, kt_word_cu_status)
WORD_CODEC(kt_cu_counters, kt_cu_counters, kt_word_cu_counters)

void kt_cu_type_text(uint16_t type, char out[8])
{
    /* Letters and digits only: the text goes into JSON and tables unquoted and unescaped. */
    char hi = (char)(type >> 8), lo = (char)type;
    if (isalnum((unsigned char)hi) && isalnum((unsigned char)lo))
        snprintf(out, 8, "%c%c", hi, lo);
    else
        snprintf(out, 8, "0x%04x", type);
}
