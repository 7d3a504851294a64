/* SPDX-License-Identifier: MIT */
/* The simulator's one model-error formatter. */
#include "fault.h"

#include <stdarg.h>
#include <stdio.h>

void ksim_vreport(const ksim_fault_sink *s, const char *fmt, va_list ap)
{
    if (!s->fn)
        return;
    char msg[256];
    vsnprintf(msg, sizeof msg, fmt, ap);
    s->fn(s->user, msg);
}

void ksim_report(const ksim_fault_sink *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ksim_vreport(s, fmt, ap);
    va_end(ap);
}
