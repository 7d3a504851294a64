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

bool rksim_result_dma_fault(rksim_core_result *r, const char *what, uint64_t iova, uint64_t len)
{
    r->fault_iova = iova;
    return rksim_result_fail(r, RKSIM_FAULT,
                             "DMA fault: %s of %llu bytes at IOVA 0x%llx is outside every live "
                             "buffer",
                             what, (unsigned long long)len, (unsigned long long)iova);
}
