/* SPDX-License-Identifier: MIT */
/* Status names and the per-thread last-error message. */
#include "npukit/status.h"

#include <stdio.h>

static _Thread_local char last_error[512];

static const char *const status_names[NPK_STATUS_COUNT] = {
    [NPK_OK] = "OK",
    [NPK_EINVAL] = "EINVAL",
    [NPK_ELIMIT] = "ELIMIT",
    [NPK_ENOMEM] = "ENOMEM",
    [NPK_EIO] = "EIO",
    [NPK_ETIMEDOUT] = "ETIMEDOUT",
    [NPK_EFAULT] = "EFAULT",
    [NPK_EUNSUPPORTED] = "EUNSUPPORTED",
    [NPK_EBUSY] = "EBUSY",
    [NPK_ENODEV] = "ENODEV",
    [NPK_EPARSE] = "EPARSE",
    [NPK_EPROTO] = "EPROTO",
    [NPK_EMISMATCH] = "EMISMATCH",
};

const char *npk_status_name(npk_status s)
{
    if ((unsigned)s >= NPK_STATUS_COUNT)
        return "E?";
    return status_names[s];
}

const char *npk_last_error(void) { return last_error; }

void npk_clear_error(void) { last_error[0] = '\0'; }

npk_status npk_vfail(npk_status s, const char *fmt, va_list ap)
{
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    return s;
}

npk_status(npk_fail)(npk_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    npk_vfail(s, fmt, ap);
    va_end(ap);
    return s;
}
