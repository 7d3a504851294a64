/* SPDX-License-Identifier: MIT */
/* An engine kept across runs: load only the command words that changed, GO without a read when
 * the engine is known idle, and wait with CTRL reads only, paced by the expected work. On a slow
 * transport this is what makes a loaded program cheap to run again. */
#include <inttypes.h>
#include <string.h>

#include "hostprog_engine.h"
#include "npukit/kt_hostprog.h"

void kt_engine_init(kt_engine *e, kt_transport *t, uint64_t base, kt_dev *pace)
{
    memset(e, 0, sizeof *e);
    e->t = t;
    e->base = base;
    e->pace = pace;
}

npk_status kt_engine_load(kt_engine *e, const kt_hostprog *p)
{
    npk_status s = kt_hp_check_engine(p);
    if (s)
        return s;
    for (size_t i = 0; i < p->n_setup; i++)
        if ((s = kt_write_block(e->t, p->setup[i].addr, p->setup[i].bytes, p->setup[i].len)))
            return s;
    for (size_t i = 0; i < p->n_cmds; i++) {
        bool want[4];
        uint64_t v[4];
        kt_hp_cmd_fields(&p->cmds[i], want, v);
        for (unsigned f = 0; f < 4; f++) {
            if (!want[f] || (e->known[i] >> f & 1 && e->words[i][f] == v[f]))
                continue;
            /* Unknown until the write is answered: a failed write may or may not have landed. */
            e->known[i] &= (uint8_t) ~(1u << f);
            if ((s = kt_write64(e->t, e->base + kt_eng_cmd_offset((unsigned)i, f), v[f])))
                return s;
            e->words[i][f] = v[f];
            e->known[i] |= (uint8_t)(1u << f);
            e->cmd_writes++;
        }
    }
    return NPK_OK;
}

npk_status kt_engine_go(kt_engine *e)
{
    if (!e->idle) {
        uint64_t v;
        npk_status s = kt_read64(e->t, e->base + KT_ENG_CTRL, &v);
        if (s)
            return s;
        if (v & 1)
            return npk_fail(
                NPK_EBUSY,
                "engine busy (CTRL 0x%" PRIx64 "): a GO now is lost and there is no abort", v);
    }
    e->idle = false;
    e->go_paused_at = e->pace ? e->pace->waits.paused_cycles : 0;
    if (e->pace) /* the program dispatches behind the kt_dev's back */
        kt_forget_known(e->pace);
    return kt_write64(e->t, e->base + KT_ENG_CTRL, 1);
}

/* The program's DONE code when it has exactly one DONE (the engine latches that one). */
static bool only_done(const kt_hostprog *p, uint64_t *code)
{
    unsigned n = 0;
    for (size_t i = 0; i < p->n_cmds; i++)
        if (p->cmds[i].op == KT_HP_DONE) {
            n++;
            *code = p->cmds[i].data;
        }
    return n == 1;
}

npk_status kt_engine_wait(kt_engine *e, const kt_hostprog *p, uint64_t expect, const kt_hp_opts *o,
                          kt_hp_result *r)
{
    kt_hp_result local;
    if (!r)
        r = &local;
    memset(r, 0, sizeof *r);
    uint32_t budget = o && o->poll_budget ? o->poll_budget : 100000;
    kt_pacer pc;
    if (e->pace)
        pc = kt_pace_start(e->pace, expect, e->go_paused_at);
    uint64_t ctrl = 0;
    npk_status s;
    for (;;) {
        if ((s = kt_read64(e->t, e->base + KT_ENG_CTRL, &ctrl)))
            return s;
        r->waits++;
        bool done = ctrl & 2;
        if (e->pace)
            kt_pace_read(&pc, done);
        if (done)
            break;
        if (r->waits >= budget)
            return kt_hp_engine_stuck(e->t, e->base, p, r->waits);
        if (!e->pace && o && o->idle)
            o->idle(o->idle_user);
    }
    e->idle = true;
    uint64_t v;
    if (ctrl & 4) {
        if ((s = kt_read64(e->t, e->base + KT_ENG_PC, &v)))
            return s;
        r->pc = (unsigned)v;
        return kt_hp_engine_err(v);
    }
    if (only_done(p, &r->code)) {
        for (size_t i = 0; i < p->n_cmds; i++)
            if (p->cmds[i].op == KT_HP_DONE)
                r->pc = (unsigned)i;
        return NPK_OK;
    }
    if ((s = kt_read64(e->t, e->base + KT_ENG_PC, &v)) ||
        (s = kt_read64(e->t, e->base + KT_ENG_CODE, &r->code)))
        return s;
    r->pc = (unsigned)v;
    return NPK_OK;
}

npk_status kt_engine_run(kt_engine *e, const kt_hostprog *p, uint64_t expect, const kt_hp_opts *o,
                         kt_hp_result *r)
{
    npk_status s = kt_engine_load(e, p);
    if (!s)
        s = kt_engine_go(e);
    if (!s)
        s = kt_engine_wait(e, p, expect, o, r);
    return s;
}
