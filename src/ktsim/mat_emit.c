/* SPDX-License-Identifier: MIT */
/* The matmul cluster's emitting sweep's write-back (see mat_emit.h). */
#include "mat_emit.h"

#include <string.h>

void mg_write_req(kt_flit *f, kt_coord mem, kt_coord self, uint64_t addr, uint32_t len)
{
    memset(f, 0, sizeof *f);
    kt_mem_req r = {0};
    r.addr = addr & ((1ull << KT_MEM_ADDR_BITS) - 1);
    r.len = (uint8_t)(len - 1);
    kt_mem_req_put(f, &r);
    kt_header h = {mem, self, KT_T_MEM_WR_REQ, 0, true, 0};
    kt_header_put(f, &h);
}

void mg_write_data(kt_flit *f, kt_coord mem, kt_coord self, const uint64_t w[MG_WORD_U64],
                   bool last)
{
    memset(f, 0, sizeof *f);
    memcpy(f->w, w, MG_WORD_U64 * sizeof *w);
    kt_header h = {mem, self, KT_T_MEM_WR_DATA, 0, last, 0};
    kt_header_put(f, &h);
}

void mg_emit_start(mg_emit *e, uint64_t base, uint32_t total, uint32_t first_cmd, uint32_t pace,
                   uint32_t hand_lat)
{
    e->base = base;
    e->total = total;
    e->sent = 0;
    e->t0 = e->now;
    e->first_cmd = first_cmd;
    e->pace = pace;
    e->hand_lat = hand_lat;
    e->st = total ? EM_WAIT : EM_IDLE;
}

static uint32_t burst_len(const mg_emit *e)
{
    return e->total - e->sent < MG_WBURST ? e->total - e->sent : MG_WBURST;
}

/* The cycle the next burst can be handed to the sender. */
static uint64_t hand_at(const mg_emit *e)
{
    uint32_t len = burst_len(e), last = e->sent + len - 1;
    uint64_t ready = e->t0 + (uint64_t)(e->first_cmd + last) * e->pace + e->hand_lat +
                     (len < MG_WBURST); /* a short burst closes once nothing is outstanding */
    return ready > e->free_at ? ready : e->free_at;
}

void mg_emit_step(mg_emit *e, ksim_shell *sh, kt_coord mem)
{
    e->now++;
    kt_flit f;
    switch (e->st) {
    case EM_IDLE: break;
    case EM_WAIT:
        if (e->now >= hand_at(e))
            e->st = EM_REQ;
        break;
    case EM_REQ:
        mg_write_req(&f, mem, ksim_shell_coord(sh), e->base + (uint64_t)e->sent * 32, burst_len(e));
        if (ksim_shell_send(sh, &f)) {
            e->burst_left = burst_len(e);
            e->st = EM_DATA;
        }
        break;
    case EM_DATA:
        mg_write_data(&f, mem, ksim_shell_coord(sh), e->word[e->sent % e->cap], e->burst_left == 1);
        if (!ksim_shell_send(sh, &f))
            break;
        e->sent++;
        if (--e->burst_left)
            break;
        e->free_at = e->now + 1;
        e->st = e->sent == e->total ? EM_IDLE : EM_WAIT;
        break;
    }
}

uint64_t mg_emit_quiet_busy(const mg_emit *e)
{
    switch (e->st) {
    case EM_IDLE: return UINT64_MAX;
    case EM_WAIT: {
        /* a tick moves the clock first: the one that reaches hand_at hands the burst over */
        uint64_t at = hand_at(e);
        return at > e->now + 1 ? at - e->now - 1 : 0;
    }
    case EM_REQ:
    case EM_DATA: return 0;
    }
    return 0;
}

void mg_emit_skip(mg_emit *e, uint64_t n) { e->now += n; }
