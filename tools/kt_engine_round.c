/* SPDX-License-Identifier: MIT */
#include "kt_engine_round.h"

enum { ROUND_DONE_CODE = 0x524E /* the same on every round, so the DONE word repeats */ };

/* Build the round's program (see the header). */
static npk_status build(kt_dev *d, kt_hostprog *hp, const kt_flit *flits, const kt_unit *units,
                        const unsigned *count, size_t n, kt_ticket *tk)
{
    size_t flit_total = 0;
    for (size_t u = 0; u < n; u++)
        flit_total += count[u];
    kt_hp_free(hp);
    npk_status s = kt_hp_stage(hp, d, 0, flits, flit_total);
    bool again = d->opt.bitstream_current;
    if (!s && again)
        s = kt_hp_signals_start(hp, d);
    unsigned base = 0;
    uint16_t before = 0;
    for (size_t u = 0; u < n && !s; u++) {
        if (!count[u])
            continue;
        if (again)
            s = kt_hp_dispatch_signals(hp, d, &units[u], base, count[u], 0, before, &tk[u]);
        else /* the core's rule: earlier programs' credit back before a new seed */
            s = kt_hp_dispatch(hp, d, &units[u], base, count[u], 0, &tk[u]);
        base += count[u];
        before = (uint16_t)(before + count[u]);
    }
    if (!s && again)
        s = kt_hp_await_signals(hp, d, before);
    for (size_t u = 0; u < n && !s && !again; u++)
        if (count[u])
            s = kt_hp_await(hp, d, &tk[u]);
    return s ? s : kt_hp_done(hp, ROUND_DONE_CODE);
}

npk_status kt_engine_round(kt_dev *d, kt_engine *e, kt_hostprog *hp, const kt_flit *flits,
                           const kt_unit *units, const unsigned *count, size_t n, uint64_t expect,
                           kt_ticket *tk)
{
    npk_status s = build(d, hp, flits, units, count, n, tk);
    if (s)
        return s;
    kt_hp_opts ho = {0};
    kt_hp_result r;
    if ((s = kt_engine_run(e, hp, expect, &ho, &r)))
        return s;
    if (d->opt.bitstream_current)
        kt_hp_signals_ended(d);
    for (size_t u = 0; u < n && !s; u++)
        if (count[u])
            s = kt_hp_check_ticket(d, &tk[u]);
    return s;
}
