/* SPDX-License-Identifier: MIT */
/* The scheduler's choice: the formulas it weighs are the hardware's (hw/cbuf.c). */
#include "rk_sched.h"

int npk_rk_sched_choose(const npk_rk_soc *soc, npk_rk_prec p, uint32_t m, uint32_t k)
{
    if (m <= npk_rk_m_ceiling(soc, p, k, NPK_SCHED_0))
        return NPK_SCHED_0;
    if (m <= npk_rk_m_ceiling(soc, p, k, NPK_SCHED_1))
        return NPK_SCHED_1;
    return NPK_SCHED_AUTO;
}
