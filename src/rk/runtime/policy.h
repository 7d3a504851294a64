/* SPDX-License-Identifier: MIT */
/* The runtime's state policy as data (spec "State gotchas", facts E.4): which precision
 * transitions need an ACT_RESET, when a throwaway warm-up submit is due, and how a wedge is
 * recovered. The runtime consults these tables; it has no policy of its own. */
#ifndef NPUKIT_RK_POLICY_H
#define NPUKIT_RK_POLICY_H

#include <stdbool.h>

#include "npukit/rk_types.h"

enum {
    NPK_POLICY_RESET = 1u << 0,      /* issue RKNPU_ACT_RESET before the next submit */
    NPK_POLICY_CLEAR_WARM = 1u << 1, /* every output buffer needs a warm-up again */
};

/* Actions on entering precision `to` after `from` (from_known false: nothing ran yet). */
unsigned npk_rk_policy_on_enter(bool from_known, npk_rk_prec from, npk_rk_prec to);

/* Transient operations run between matmuls, one policy row each (spec "Mode-transition layer:
 * RC_SDPKW"): what entering one does, and whether it changes the precision mode the matmul
 * table above keys on. */
typedef enum npk_rk_transient { NPK_RK_TRANSIENT_SDP } npk_rk_transient;
typedef struct npk_rk_policy_transient_row {
    npk_rk_transient op;
    const char *name;      /* the row's name in the spec ("RC_SDPKW") */
    unsigned actions;      /* by default */
    unsigned no_keep_warm; /* when keep-warm is turned off */
    bool sets_mode;        /* false: the precision mode stays what it was */
} npk_rk_policy_transient_row;
const npk_rk_policy_transient_row *npk_rk_policy_transient(npk_rk_transient op);
/* Actions on entering an SDP task: none by default (keep-warm). */
unsigned npk_rk_policy_on_sdp(bool keep_warm);

/* Actions after a submit that wedged (timed out): reset before anything else is submitted, so
 * submits never storm over a wedged core. */
unsigned npk_rk_policy_on_wedge(void);

/* A fresh (newly created or re-created) output buffer needs one throwaway submit. */
bool npk_rk_policy_warmup_fresh_output(void);

/* Retries of a wedged submit after its recovery reset; then the error is reported. */
unsigned npk_rk_policy_retries(void);

/* Submit timeouts in ms: the warm-up (short) and the real submit (facts E.4). */
unsigned npk_rk_policy_timeout_ms(bool warmup);

#endif
