/* SPDX-License-Identifier: MIT */
/* How a simulator part reports what the model cannot represent (a model error, not a hardware
 * fault): one callback and its user, and one formatter every part shares. */
#ifndef NPUKIT_KTSIM_FAULT_H
#define NPUKIT_KTSIM_FAULT_H

#include <stdarg.h>

typedef void (*ksim_fault_fn)(void *user, const char *msg);

typedef struct ksim_fault_sink {
    ksim_fault_fn fn; /* NULL: reports go nowhere */
    void *user;
} ksim_fault_sink;

/* Format the message and hand it to the sink's callback, if any. */
void ksim_report(const ksim_fault_sink *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void ksim_vreport(const ksim_fault_sink *s, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

#endif
