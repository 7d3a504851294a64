/* SPDX-License-Identifier: MIT */
/* The state-policy tables. */
#include "policy.h"

#include <stddef.h>

/* Rows: the precision being entered; columns: the precision that ran before (NONE = nothing
 * yet). int8 and int4 regcmd modes are stateful: the first submit after entering them wedges
 * unless ACT_RESET primes the NPU, and the reset invalidates the warm-up state (spec "int8
 * cold-start wedge", facts E.4). fp16 never wedges, so entering it needs nothing. */
enum { FROM_NONE, FROM_FP16, FROM_INT8, FROM_INT4, FROM_COUNT };
enum { TO_FP16, TO_INT8, TO_INT4, TO_COUNT };

#define RESET_CLEAR (NPK_POLICY_RESET | NPK_POLICY_CLEAR_WARM)
static const unsigned char enter_table[TO_COUNT][FROM_COUNT] = {
    /*            NONE         FP16         INT8         INT4 */
    [TO_FP16] = {0, 0, 0, 0},
    [TO_INT8] = {RESET_CLEAR, RESET_CLEAR, 0, RESET_CLEAR},
    [TO_INT4] = {RESET_CLEAR, RESET_CLEAR, RESET_CLEAR, 0},
};

static int from_index(bool known, npk_rk_prec p)
{
    if (!known)
        return FROM_NONE;
    return p == NPK_PREC_INT8 ? FROM_INT8 : p == NPK_PREC_INT4 ? FROM_INT4 : FROM_FP16;
}

unsigned npk_rk_policy_on_enter(bool from_known, npk_rk_prec from, npk_rk_prec to)
{
    int t = to == NPK_PREC_INT8 ? TO_INT8 : to == NPK_PREC_INT4 ? TO_INT4 : TO_FP16;
    return enter_table[t][from_index(from_known, from)];
}

/* RC_SDPKW: an SDP entry resets only when keep-warm is turned off (the default skips the
 * ~105 us reset: "NEVER set XP_SDP to RC_ALWAYS"), and leaves the last precision (setdt=0:
 * the SDP is transient, it puts no integer-mode marker). */
static const npk_rk_policy_transient_row transients[] = {
    {NPK_RK_TRANSIENT_SDP, "RC_SDPKW", 0, RESET_CLEAR, false},
};

const npk_rk_policy_transient_row *npk_rk_policy_transient(npk_rk_transient op)
{
    for (size_t i = 0; i < sizeof transients / sizeof transients[0]; i++)
        if (transients[i].op == op)
            return &transients[i];
    return NULL;
}

unsigned npk_rk_policy_on_sdp(bool keep_warm)
{
    const npk_rk_policy_transient_row *r = npk_rk_policy_transient(NPK_RK_TRANSIENT_SDP);
    return keep_warm ? r->actions : r->no_keep_warm;
}

/* A timed-out job leaves the queue state dirty: reset after ANY wedge before the next submit
 * (spec "Keep the per-submit RKNPU_ACT_RESET as wedge recovery"). */
unsigned npk_rk_policy_on_wedge(void) { return NPK_POLICY_RESET | NPK_POLICY_CLEAR_WARM; }

bool npk_rk_policy_warmup_fresh_output(void) { return true; }

unsigned npk_rk_policy_retries(void) { return 1; }

/* ork submits the warm-up with 1000 ms and the real job with 6000 ms (facts E.4). */
unsigned npk_rk_policy_timeout_ms(bool warmup) { return warmup ? 1000 : 6000; }
