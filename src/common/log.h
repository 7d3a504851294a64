/* SPDX-License-Identifier: MIT */
/* The library's side of npukit/log.h: how a module says something. */
#ifndef NPUKIT_COMMON_LOG_H
#define NPUKIT_COMMON_LOG_H

#include <stdarg.h>
#include <stdbool.h>

#include "npukit/log.h"

/* One message from component (a short constant name) at level, formatted as printf does; it
 * goes to the sink when the level passes the threshold. No length limit. */
void npk_log(npk_log_level level, const char *component, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void npk_vlog(npk_log_level level, const char *component, const char *fmt, va_list ap);

/* Whether a message at level from component would be delivered (to skip building a costly
 * one). */
bool npk_log_on(npk_log_level level, const char *component);

/* A component's own threshold from an environment variable with its own scale (the rknn
 * layer's RKNN_LOG_LEVEL): the component's messages follow it instead of the library's level
 * until npk_set_log is called. */
void npk_log_component_threshold(const char *component, npk_log_level level);

#endif
