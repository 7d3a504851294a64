/* SPDX-License-Identifier: MIT */
/* A round of unit programs — one per unit, staged back to back from flit 0 — issued as one host
 * control program run by the control-program engine: the staging block, a dispatch per program,
 * the wait for all of them and DONE, for one GO and the completion check of CTRL; then each
 * program's fault check. The same work as kt_stage + kt_dispatch per unit + kt_wait per ticket. */
#ifndef NPUKIT_TOOLS_KT_ENGINE_ROUND_H
#define NPUKIT_TOOLS_KT_ENGINE_ROUND_H

#include <stddef.h>
#include <stdint.h>

#include "npukit/kt.h"
#include "npukit/kt_hostprog.h"

/* Run count[u] flits on units[u] for u < n (a unit with count 0 gets nothing), the flits of
 * unit u following those of u - 1 in `flits`. On a bitstream that honours strobes the program
 * clears SIG_DONE and waits on its totals; on a pre-strobe one it waits on each program's
 * NODE_STATUS count. `expect`: the round's estimated cycles of work (0: none), pacing the waits
 * on CTRL. hp is rebuilt (the caller frees it); tk receives the n tickets. */
npk_status kt_engine_round(kt_dev *d, kt_engine *e, kt_hostprog *hp, const kt_flit *flits,
                           const kt_unit *units, const unsigned *count, size_t n, uint64_t expect,
                           kt_ticket *tk);

#endif
