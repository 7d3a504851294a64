/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock_t in runtime_internal.h */
/* The runtime's layout and schedule settings: the feature row pitch and the M schedule. */
#include <string.h>

#include "npukit/rk.h"
#include "runtime_internal.h"

/* Settings change under the runtime's lock: never in the middle of a call. */
static npk_status locked(npk_rk *rt, const char *what)
{
    if (!rt)
        return npk_fail(NPK_EINVAL, "%s: NULL runtime", what);
    if (pthread_mutex_trylock(&rt->lock))
        return npk_fail(NPK_EBUSY, "%s: another call is running on this runtime", what);
    return NPK_OK;
}

npk_status npk_rk_set_feature_pitch(npk_rk *rt, unsigned factor)
{
    /* which factors a dtype reads at is checked at the call, where the dtype is known; a
     * factor no dtype has is refused now */
    bool any = factor == 0;
    for (unsigned i = 0; !any && npk_rk_pitch_row_at(i); i++)
        any = npk_rk_pitch_row_at(i)->factor == factor;
    if (!any)
        return npk_fail(NPK_EINVAL,
                        "feature pitch %u: 0 (the dtype's layout) or a described factor (fp16 1, "
                        "2, 4, 8; int8 1; int4 2)",
                        factor);
    npk_status s = locked(rt, "set_feature_pitch");
    if (s)
        return s;
    rt->feature_pitch = factor;
    pthread_mutex_unlock(&rt->lock);
    return NPK_OK;
}

unsigned npk_rk_feature_pitch(const npk_rk *rt) { return rt ? rt->feature_pitch : 0; }

/* The M schedules by name; the value is npk_rk.m_tile_chain. */
static const char *const schedules[] = {"auto", "chain"};

npk_status npk_rk_set_schedule(npk_rk *rt, const char *sched)
{
    int found = -1;
    for (int i = 0; i < 2; i++)
        if (sched && !strcmp(sched, schedules[i]))
            found = i;
    if (found < 0)
        return npk_fail(NPK_EINVAL, "schedule '%s': not auto or chain", sched ? sched : "(null)");
    npk_status s = locked(rt, "set_schedule");
    if (s)
        return s;
    rt->m_tile_chain = found == 1;
    pthread_mutex_unlock(&rt->lock);
    return NPK_OK;
}

const char *npk_rk_schedule(const npk_rk *rt) { return rt ? schedules[rt->m_tile_chain] : NULL; }
