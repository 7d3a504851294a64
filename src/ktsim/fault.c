/* SPDX-License-Identifier: MIT */
/* The simulator's one model-error formatter. */
#include "fault.h"

#include <stdarg.h>
#include <stdio.h>

void ksim_report(const ksim_fault_sink *s, const char *fmt, ...)
{
    if (!s->fn)
        return;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    s->fn(s->user, msg);
}
