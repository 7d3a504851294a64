/* SPDX-License-Identifier: MIT */
/* Looking requests up in a front end's table, and refusing those it has no row for. */
#include "requests.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rksim/sim.h"

/* Both drivers' requests are DRM ioctls: the type 'd' in bits 8..15, the number in bits 0..7. */
enum { DRM_TYPE = 'd' };
static unsigned type_of(unsigned long request) { return (unsigned)(request >> 8) & 0xffu; }
static unsigned nr_of(unsigned long request) { return (unsigned)request & 0xffu; }

const rksim_request *rksim_request_of(const rksim_requests *t, unsigned long request)
{
    if (type_of(request) != DRM_TYPE)
        return NULL;
    for (size_t i = 0; i < t->n; i++)
        if (t->rows[i].nr == nr_of(request))
            return &t->rows[i];
    return NULL;
}

void rksim_report_reject(rksim *s, const char *msg)
{
    memset(&s->report, 0, sizeof s->report);
    s->report.outcome = RKSIM_REJECTED;
    snprintf(s->report.message, sizeof s->report.message, "%s", msg);
}

int rksim_request_refuse(rksim *s, const rksim_requests *t, unsigned long request)
{
    char msg[sizeof s->report.message];
    bool other_type = type_of(request) != DRM_TYPE;
    size_t at;
    if (other_type)
        at = (size_t)snprintf(msg, sizeof msg, "%s ioctl 0x%lx: type 0x%02x is not DRM's 'd'",
                              t->driver, request, type_of(request));
    else
        at = (size_t)snprintf(msg, sizeof msg,
                              "%s ioctl 0x%lx: request number 0x%02x is none the %s node answers; "
                              "it answers",
                              t->driver, request, nr_of(request), t->driver);
    for (size_t i = 0; !other_type && i < t->n && at < sizeof msg; i++)
        at += (size_t)snprintf(msg + at, sizeof msg - at, "%s %s (0x%02x)", i ? "," : "",
                               t->rows[i].name, t->rows[i].nr);
    rksim_report_reject(s, msg);
    return other_type ? -ENOTTY : -EINVAL;
}
