/* SPDX-License-Identifier: MIT */
/* Recording a failure in a core result. */
#include <stdarg.h>
#include <stdio.h>

#include "rksim/result.h"

bool rksim_result_fail(rksim_core_result *r, rksim_outcome o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->message, sizeof r->message, fmt, ap);
    va_end(ap);
    r->outcome = o;
    return false;
}
