/* SPDX-License-Identifier: MIT */
/* The mover's walker arithmetic (facts §1.10): an odometer over up to six dimensions, dim
 * ndim-1 innermost, with two bound axes whose windows decide which elements are valid. Shared by
 * the driver's validation and the simulator's model, so both walk the same way. */
#include "npukit/kt_mover_hw.h"

static unsigned live_dims(const kt_mv_walker *w)
{
    return w->ndim > KT_MV_MAX_DIMS ? KT_MV_MAX_DIMS : w->ndim;
}

uint64_t kt_mv_walker_elements(const kt_mv_walker *w)
{
    uint64_t n = 1;
    for (unsigned i = 0; i < live_dims(w); i++)
        n *= w->dims[i].count ? w->dims[i].count : 1u; /* the hardware treats a count of 0 as 1 */
    return n;
}

kt_mv_point kt_mv_walker_point(const kt_mv_walker *w, const uint32_t idx[KT_MV_MAX_DIMS])
{
    int64_t addr = (int64_t)w->base;
    int64_t axis[2] = {w->window[0].base, w->window[1].base};
    for (unsigned i = 0; i < live_dims(w); i++) {
        addr += (int64_t)idx[i] * w->dims[i].stride;
        if (w->dims[i].axis == 1 || w->dims[i].axis == 2)
            axis[w->dims[i].axis - 1] += (int64_t)idx[i] * w->dims[i].astep;
    }
    bool valid = true;
    for (unsigned a = 0; a < 2; a++) /* extent 0 disables the axis */
        if (w->window[a].extent && (axis[a] < 0 || axis[a] >= w->window[a].extent))
            valid = false;
    return (kt_mv_point){addr, valid};
}

bool kt_mv_walker_next(const kt_mv_walker *w, uint32_t idx[KT_MV_MAX_DIMS])
{
    for (int i = (int)live_dims(w) - 1; i >= 0; i--) {
        uint32_t count = w->dims[i].count ? w->dims[i].count : 1u;
        if (++idx[i] < count)
            return true;
        idx[i] = 0;
    }
    return false;
}
