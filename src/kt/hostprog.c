/* SPDX-License-Identifier: MIT */
/* Host control programs as data, and the two ways of running one: on the host over a transport,
 * or loaded into the host control-program engine and started with one GO. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostprog_engine.h"
#include "hostprog_out.h"
#include "npukit/kt_hostprog.h"

static const char *const op_names[4] = {"?", "WR", "POLL", "DONE"};
const char *kt_hp_op_name(unsigned op) { return op < 4 ? op_names[op] : "?"; }

void kt_hp_init(kt_hostprog *p) { memset(p, 0, sizeof *p); }

void kt_hp_free(kt_hostprog *p)
{
    for (size_t i = 0; i < p->n_setup; i++)
        free(p->setup[i].bytes);
    free(p->setup);
    free(p->cmds);
    memset(p, 0, sizeof *p);
}

/* `arr` with room for element n (doubling from `first`), or NULL when out of memory (arr intact).
 */
static void *room(void *arr, size_t *cap, size_t n, size_t elem, size_t first)
{
    if (n < *cap)
        return arr;
    size_t want = *cap ? 2 * *cap : first;
    void *more = realloc(arr, want * elem);
    if (more)
        *cap = want;
    return more;
}

npk_status kt_hp_setup(kt_hostprog *p, uint64_t addr, const void *bytes, size_t len)
{
    if (!len || len % 8 || addr % 8)
        return npk_fail(NPK_EINVAL,
                        "setup block 0x%" PRIx64 "+%zu: need an 8-aligned address and a non-zero "
                        "multiple of 8 bytes",
                        addr, len);
    kt_hp_block *blocks = room(p->setup, &p->cap_setup, p->n_setup, sizeof *blocks, 4);
    if (!blocks)
        return npk_fail(NPK_ENOMEM, "setup block: out of memory");
    p->setup = blocks;
    uint8_t *copy = malloc(len);
    if (!copy)
        return npk_fail(NPK_ENOMEM, "setup block of %zu bytes: out of memory", len);
    memcpy(copy, bytes, len);
    p->setup[p->n_setup++] = (kt_hp_block){addr, copy, len};
    return NPK_OK;
}

static npk_status append(kt_hostprog *p, uint8_t op, uint64_t addr, uint64_t data, uint64_t mask,
                         const char *what)
{
    if (addr % 8)
        return npk_fail(NPK_EINVAL, "%s at 0x%" PRIx64 ": not 8-byte aligned", kt_hp_op_name(op),
                        addr);
    kt_hp_cmd *cmds = room(p->cmds, &p->cap_cmds, p->n_cmds, sizeof *cmds, 16);
    if (!cmds)
        return npk_fail(NPK_ENOMEM, "program command: out of memory");
    p->cmds = cmds;
    kt_hp_cmd *c = &p->cmds[p->n_cmds++];
    memset(c, 0, sizeof *c);
    c->op = op;
    c->addr = addr;
    c->data = data;
    c->mask = mask;
    if (what)
        snprintf(c->what, sizeof c->what, "%s", what);
    else if (op != KT_HP_DONE)
        snprintf(c->what, sizeof c->what, "0x%" PRIx64, addr);
    return NPK_OK;
}

npk_status kt_hp_wr(kt_hostprog *p, uint64_t addr, uint64_t data, const char *what)
{
    return append(p, KT_HP_WR, addr, data, 0, what);
}

npk_status kt_hp_poll(kt_hostprog *p, uint64_t addr, uint64_t want, uint64_t mask, const char *what)
{
    if (want & ~mask)
        return npk_fail(NPK_EINVAL,
                        "POLL %s: want 0x%" PRIx64 " has bits outside mask 0x%" PRIx64
                        " and could never match",
                        what ? what : "?", want, mask);
    return append(p, KT_HP_POLL, addr, want, mask, what);
}

npk_status kt_hp_done(kt_hostprog *p, uint64_t code)
{
    return append(p, KT_HP_DONE, 0, code, 0, NULL);
}

void kt_hp_outf(kt_hp_out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(o->buf ? o->buf + (o->used < o->len ? o->used : o->len) : NULL,
                      o->buf && o->used < o->len ? o->len - o->used : 0, fmt, ap);
    va_end(ap);
    if (k > 0)
        o->used += (size_t)k;
}

size_t kt_hp_format(const kt_hostprog *p, char *buf, size_t len)
{
    kt_hp_out o = kt_hp_out_start(buf, len);
    for (size_t i = 0; i < p->n_setup; i++)
        kt_hp_outf(&o, "SETUP 0x%" PRIx64 " <- %zu bytes\n", p->setup[i].addr, p->setup[i].len);
    for (size_t i = 0; i < p->n_cmds; i++) {
        const kt_hp_cmd *c = &p->cmds[i];
        switch (c->op) {
        case KT_HP_WR:
            kt_hp_outf(&o, "%3zu WR   0x%" PRIx64 " <- 0x%" PRIx64 "  %s\n", i, c->addr, c->data,
                       c->what);
            break;
        case KT_HP_POLL:
            kt_hp_outf(&o, "%3zu POLL 0x%" PRIx64 " & 0x%" PRIx64 " == 0x%" PRIx64 "  %s\n", i,
                       c->addr, c->mask, c->data, c->what);
            break;
        default: kt_hp_outf(&o, "%3zu DONE %" PRIu64 "\n", i, c->data); break;
        }
    }
    return o.used;
}

/* ---- running on the host ---- */

static uint32_t budget_of(const kt_hp_opts *o)
{
    return o && o->poll_budget ? o->poll_budget : 100000;
}
static void idle(const kt_hp_opts *o)
{
    if (o && o->idle)
        o->idle(o->idle_user);
}

npk_status kt_hp_run_host(kt_transport *t, const kt_hostprog *p, const kt_hp_opts *o,
                          kt_hp_result *r)
{
    kt_hp_result local;
    if (!r)
        r = &local;
    memset(r, 0, sizeof *r);
    npk_status s;
    for (size_t i = 0; i < p->n_setup; i++)
        if ((s = kt_write_block(t, p->setup[i].addr, p->setup[i].bytes, p->setup[i].len)))
            return s;
    uint32_t budget = budget_of(o);
    for (size_t pc = 0; pc < p->n_cmds; pc++) {
        const kt_hp_cmd *c = &p->cmds[pc];
        r->pc = (unsigned)pc;
        switch (c->op) {
        case KT_HP_WR:
            if ((s = kt_write64(t, c->addr, c->data)))
                return s;
            break;
        case KT_HP_POLL: {
            uint64_t v = 0;
            for (uint32_t n = 0;; n++) {
                if ((s = kt_read64(t, c->addr, &v)))
                    return s;
                r->polls++;
                if ((v & c->mask) == c->data)
                    break;
                if (n + 1 >= budget)
                    return npk_fail(NPK_ETIMEDOUT,
                                    "POLL %s (command %zu, 0x%" PRIx64 "): wanted 0x%" PRIx64
                                    " under mask 0x%" PRIx64 ", last read 0x%016" PRIx64
                                    " after %" PRIu32 " reads",
                                    c->what, pc, c->addr, c->data, c->mask, v, n + 1);
                idle(o);
            }
            break;
        }
        case KT_HP_DONE: r->code = c->data; return NPK_OK;
        default:
            return npk_fail(NPK_EINVAL,
                            "command %zu has opcode %u: only WR (1), POLL (2) and DONE (3) exist",
                            pc, c->op);
        }
    }
    return npk_fail(NPK_EINVAL,
                    "program of %zu commands has no DONE (the engine would run into an empty slot)",
                    p->n_cmds);
}

/* ---- the engine form ---- */

npk_status kt_hp_check_engine(const kt_hostprog *p)
{
    if (p->n_cmds > KT_ENG_NCMD)
        return npk_fail(NPK_ELIMIT, "program of %zu commands: the engine holds %u", p->n_cmds,
                        KT_ENG_NCMD);
    bool has_done = false;
    for (size_t i = 0; i < p->n_cmds; i++) {
        const kt_hp_cmd *c = &p->cmds[i];
        if (c->op < KT_HP_WR || c->op > KT_HP_DONE)
            return npk_fail(NPK_EINVAL, "command %zu has opcode %u: only WR, POLL and DONE exist",
                            i, c->op);
        if (c->op != KT_HP_DONE && c->addr >> KT_ENG_ADDR_BITS)
            return npk_fail(NPK_ELIMIT,
                            "command %zu (%s %s) addresses 0x%" PRIx64
                            ": beyond the engine's %u-bit master",
                            i, kt_hp_op_name(c->op), c->what, c->addr, KT_ENG_ADDR_BITS);
        has_done |= c->op == KT_HP_DONE;
    }
    if (!has_done)
        return npk_fail(
            NPK_EINVAL,
            "program of %zu commands has no DONE: the engine would run into an empty slot "
            "(err) or wrap its 7-bit PC",
            p->n_cmds);
    return NPK_OK;
}

npk_status kt_hp_load(kt_transport *t, uint64_t eng, const kt_hostprog *p)
{
    npk_status s = kt_hp_check_engine(p);
    if (s)
        return s;
    for (size_t i = 0; i < p->n_setup; i++)
        if ((s = kt_write_block(t, p->setup[i].addr, p->setup[i].bytes, p->setup[i].len)))
            return s;
    for (size_t i = 0; i < p->n_cmds; i++) {
        const kt_hp_cmd *c = &p->cmds[i];
        bool want[4];
        uint64_t v[4];
        kt_hp_cmd_fields(c, want, v);
        for (unsigned f = 0; f < 4; f++)
            if (want[f] && (s = kt_write64(t, eng + kt_eng_cmd_offset((unsigned)i, f), v[f])))
                return s;
    }
    return NPK_OK;
}

npk_status kt_hp_go(kt_transport *t, uint64_t eng)
{
    uint64_t v;
    npk_status s = kt_read64(t, eng + KT_ENG_CTRL, &v);
    if (s)
        return s;
    if (v & 1)
        return npk_fail(NPK_EBUSY,
                        "engine busy (CTRL 0x%" PRIx64 "): a GO now is lost and there is no abort",
                        v);
    return kt_write64(t, eng + KT_ENG_CTRL, 1);
}

npk_status kt_hp_engine_err(uint64_t pc)
{
    return npk_fail(NPK_EPROTO,
                    "engine stopped with err at command %" PRIu64 ": an invalid opcode (never "
                    "written, or overwritten)",
                    pc);
}

npk_status kt_hp_engine_stuck(kt_transport *t, uint64_t eng, const kt_hostprog *p, uint32_t reads)
{
    uint64_t pc = 0, polls = 0;
    kt_read64(t, eng + KT_ENG_PC, &pc);
    kt_read64(t, eng + KT_ENG_POLLS, &polls);
    const kt_hp_cmd *c = p && pc < p->n_cmds ? &p->cmds[pc] : NULL;
    uint64_t now = 0;
    if (c && c->op == KT_HP_POLL && kt_read64(t, c->addr, &now) == NPK_OK)
        return npk_fail(NPK_ETIMEDOUT,
                        "engine still busy after %" PRIu32 " reads: at command %" PRIu64
                        " POLL %s (0x%" PRIx64 ") wanting 0x%" PRIx64 " under mask 0x%" PRIx64
                        "; the register reads 0x%016" PRIx64 " now; %" PRIu64 " polls so far",
                        reads, pc, c->what, c->addr, c->data, c->mask, now, polls);
    return npk_fail(NPK_ETIMEDOUT,
                    "engine still busy after %" PRIu32 " reads: at command %" PRIu64
                    " (%s), %" PRIu64 " polls so far",
                    reads, pc, c ? kt_hp_op_name(c->op) : "?", polls);
}

npk_status kt_hp_wait_engine(kt_transport *t, uint64_t eng, const kt_hostprog *p,
                             const kt_hp_opts *o, kt_hp_result *r)
{
    kt_hp_result local;
    if (!r)
        r = &local;
    memset(r, 0, sizeof *r);
    uint32_t budget = budget_of(o);
    uint64_t ctrl = 0, pc = 0, polls = 0;
    npk_status s;
    for (;;) {
        if ((s = kt_read64(t, eng + KT_ENG_CTRL, &ctrl)))
            return s;
        r->waits++;
        if (ctrl & 2)
            break;
        if (r->waits >= budget)
            return kt_hp_engine_stuck(t, eng, p, r->waits);
        idle(o);
    }
    if ((s = kt_read64(t, eng + KT_ENG_PC, &pc)))
        return s;
    r->pc = (unsigned)pc;
    if (ctrl & 4)
        return kt_hp_engine_err(pc);
    if ((s = kt_read64(t, eng + KT_ENG_CODE, &r->code)))
        return s;
    if ((s = kt_read64(t, eng + KT_ENG_POLLS, &polls)))
        return s;
    r->polls = (uint32_t)polls;
    return NPK_OK;
}

npk_status kt_hp_run_engine(kt_transport *t, uint64_t eng, const kt_hostprog *p,
                            const kt_hp_opts *o, kt_hp_result *r)
{
    npk_status s = kt_hp_load(t, eng, p);
    if (!s)
        s = kt_hp_go(t, eng);
    if (!s)
        s = kt_hp_wait_engine(t, eng, p, o, r);
    return s;
}
