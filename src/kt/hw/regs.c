/* The orchestrator register map and the CU_CTRL word layouts, as data plus small decoders. */
#include "npukit/kt_regs.h"

#include <ctype.h>
#include <stdio.h>

/* Reset values and widths are those of the RTL; the staging extent shown is the reference
 * build's (STAGE_FLITS 128 x FLIT_WORDS 5), the decode itself is derived from the parameters. */
const kt_reg_desc kt_orch_regs[] = {
    {KT_CTRL, 1, "CTRL", KT_ACC_RW, 64, 0, "stored and read back; nothing reads it"},
    {KT_STATUS, 1, "STATUS", KT_ACC_RO, 3, 0, "[0] busy [1] error(0) [2] mesh_ready(1)"},
    {KT_CAPS, 1, "CAPS", KT_ACC_RO, 40, 0, "[15:0] FLIT_WIDTH [23:16] POS_WIDTH [31:24] GRID_LO [39:32] GRID_HI"},
    {KT_IRQ_STAT, 1, "IRQ_STAT", KT_ACC_W1C, 64, 0, "write-1-to-clear; nothing sets it"},
    {KT_IRQ_EN, 1, "IRQ_EN", KT_ACC_RW, 64, 0, "stored; no interrupt output exists"},
    {KT_PROG_DST, 1, "PROG_DST", KT_ACC_RW, 8, 0, "[7:0] {y,x} of the dispatch target"},
    {KT_PROG_LEN, 1, "PROG_LEN", KT_ACC_RW, 16, 0, "[15:0] flits to send"},
    {KT_PROG_KICK, 1, "PROG_KICK", KT_ACC_W, 0, 0, "any write starts dispatch"},
    {KT_PROG_STAT, 1, "PROG_STAT", KT_ACC_RO, 33, 0, "[0] run [16:1] flits left [32:17] credit"},
    {KT_PROG_CRED, 1, "PROG_CRED", KT_ACC_RLIVE, 16, 0, "[15:0] credit; write seeds, read is live"},
    {KT_PROG_BASE, 1, "PROG_BASE", KT_ACC_RW, 16, 0, "[15:0] first staging slot"},
    {KT_SIG_DONE, 1, "SIG_DONE", KT_ACC_RCLR, 16, 0, "completions from every node; write clears"},
    {KT_AUX_STAT, 1, "AUX_STAT", KT_ACC_RO, 64, 0, "one word from the attached client"},
    {KT_AUX_STATW, KT_AUX_STATW_WORDS, "AUX_STATW", KT_ACC_RO, 64, 0, "sixteen words from the attached client"},
    {KT_TX_FLIT, KT_FLIT_WORDS, "TX_FLIT", KT_ACC_W, 64, 0, "mailbox flit, low word first, byte-enabled (reads 0)"},
    {KT_TX_KICK, 1, "TX_KICK", KT_ACC_W, 0, 0, "push TX_FLIT into the transmit FIFO"},
    {KT_TX_STATUS, 1, "TX_STATUS", KT_ACC_RO, 17, 0, "[16] tx_full"},
    {KT_RX_FLIT, KT_FLIT_WORDS, "RX_FLIT", KT_ACC_RO, 64, 0, "head of the receive FIFO, low word first"},
    {KT_RX_POP, 1, "RX_POP", KT_ACC_W, 0, 0, "pop the receive FIFO"},
    {KT_RX_STATUS, 1, "RX_STATUS", KT_ACC_RO, 18, 0, "[16] rx_empty [17] rx_overflow (sticky)"},
    {KT_AUX_CFG, KT_AUX_CFG_BYTES / 8, "AUX_CFG", KT_ACC_W, 64, 0, "forwarded verbatim to the client"},
    {KT_NODE_STATUS, KT_NODE_SLOTS * 2, "NODE_STATUS", KT_ACC_RO, 64, 0,
     "[63:56] code [55:24] arg [23:8] count [0] valid; 0x1800+ aliases 0x1000+"},
    {KT_STAGE, KT_STAGE_FLITS_DEFAULT * KT_FLIT_WORDS, "STAGE", KT_ACC_W, 64, 0,
     "instruction staging RAM (reads 0)"},
    {0, 0, NULL, KT_ACC_RO, 0, 0, NULL},
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

kt_agent_caps kt_agent_caps_decode(uint64_t v)
{
    return (kt_agent_caps){(uint16_t)v, (uint8_t)(v >> 16), (uint8_t)(v >> 24), (uint8_t)(v >> 32)};
}

uint64_t kt_agent_caps_encode(const kt_agent_caps *c)
{
    return (uint64_t)c->flit_width | (uint64_t)c->pos_width << 16 | (uint64_t)c->grid_lo << 24 |
           (uint64_t)c->grid_hi << 32;
}

kt_status_reg kt_status_decode(uint64_t v)
{
    return (kt_status_reg){(v & 1) != 0, (v & 2) != 0, (v & 4) != 0};
}

kt_prog_stat kt_prog_stat_decode(uint64_t v)
{
    return (kt_prog_stat){(v & 1) != 0, (uint16_t)(v >> 1), (uint16_t)(v >> 17)};
}

uint64_t kt_prog_stat_encode(const kt_prog_stat *p)
{
    return (uint64_t)p->run | (uint64_t)p->flits_left << 1 | (uint64_t)p->credit << 17;
}

kt_node_status kt_node_status_decode(uint64_t v)
{
    return (kt_node_status){(uint8_t)(v >> 56), (uint32_t)(v >> 24), (uint16_t)(v >> 8), (v & 1) != 0};
}

uint64_t kt_node_status_encode(const kt_node_status *n)
{
    return (uint64_t)n->code << 56 | (uint64_t)n->arg << 24 | (uint64_t)n->count << 8 | (uint64_t)n->valid;
}

kt_cu_caps kt_cu_caps_decode(uint64_t v)
{
    return (kt_cu_caps){(uint16_t)(v >> 48), (uint8_t)(v >> 40), (uint8_t)((v >> 36) & 0xF),
                        (uint16_t)(v >> 20)};
}

uint64_t kt_cu_caps_encode(const kt_cu_caps *c)
{
    return (uint64_t)c->type << 48 | (uint64_t)c->version << 40 | (uint64_t)(c->n_buffers & 0xF) << 36 |
           (uint64_t)c->inst_depth << 20;
}

void kt_cu_type_text(uint16_t type, char out[8])
{
    /* Letters and digits only: the text goes into JSON and tables unquoted and unescaped. */
    char hi = (char)(type >> 8), lo = (char)type;
    if (isalnum((unsigned char)hi) && isalnum((unsigned char)lo))
        snprintf(out, 8, "%c%c", hi, lo);
    else
        snprintf(out, 8, "0x%04x", type);
}

kt_cu_status kt_cu_status_decode(uint64_t v)
{
    return (kt_cu_status){(v >> 63) != 0, ((v >> 62) & 1) != 0, (uint16_t)(v >> 32)};
}

uint64_t kt_cu_status_encode(const kt_cu_status *s)
{
    return (uint64_t)s->busy << 63 | (uint64_t)s->error << 62 | (uint64_t)s->inst_space << 32;
}

kt_cu_counters kt_cu_counters_decode(uint64_t v)
{
    return (kt_cu_counters){(uint32_t)(v >> 32), (uint32_t)v};
}
