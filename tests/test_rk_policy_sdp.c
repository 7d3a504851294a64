/* SPDX-License-Identifier: MIT */
/* The state policy's transient row for SDP entry (spec "Mode-transition layer: RC_SDPKW"):
 * keep-warm by default (no reset), a reset with its warm-up when keep-warm is off, and the
 * precision mode left as it was. */
#include "check.h"
#include "rk/runtime/policy.h"

int main(void)
{
    const npk_rk_policy_transient_row *r = npk_rk_policy_transient(NPK_RK_TRANSIENT_SDP);
    CHECK(r != NULL);
    CHECK_STR_HAS(r->name, "RC_SDPKW");
    CHECK(!r->sets_mode);
    CHECK_EQ(npk_rk_policy_on_sdp(true), 0);
    CHECK_EQ(npk_rk_policy_on_sdp(false), NPK_POLICY_RESET | NPK_POLICY_CLEAR_WARM);
    CHECK(npk_rk_policy_transient((npk_rk_transient)7) == NULL);
    /* the matmul rows are unchanged by an SDP in between: int8 after int8 needs nothing */
    CHECK_EQ(npk_rk_policy_on_enter(true, NPK_PREC_INT8, NPK_PREC_INT8), 0);
    return check_done();
}
