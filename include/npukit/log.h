/* SPDX-License-Identifier: MIT */
/* Where the library's own messages go. libnpukit (and the rknn layer, the simulator shim) says
 * very little on its own: a failure is an npk_status with its message in npk_last_error(). The
 * few lines it does print (a trace file that cannot be opened, an rknn_* call that failed, a
 * refused shim setting) pass through one hook, so a program can silence them, raise or lower
 * the level, or take them into its own log:
 *
 *     npk_set_log(NPK_LOG_ERROR, NULL, NULL);          // errors only, on stderr
 *     npk_set_log(NPK_LOG_DEBUG, my_sink, my_logger);  // everything, to my_sink
 *     npk_set_log(NPK_LOG_NONE, NULL, NULL);           // nothing
 *
 * Until a program calls npk_set_log, the level is NPUKIT_LOG_LEVEL's (none, error, warn, info,
 * debug, or 0 to 4; warn when unset) and the lines go to stderr as "COMPONENT: message". The
 * rknn layer's lines follow RKNN_LOG_LEVEL when it is set (docs/rknn.md). */
#ifndef NPUKIT_LOG_H
#define NPUKIT_LOG_H

#include "npukit/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum npk_log_level {
    NPK_LOG_NONE = 0, /* as a threshold: say nothing */
    NPK_LOG_ERROR,    /* an operation failed */
    NPK_LOG_WARN,     /* something the user should fix; the operation went on */
    NPK_LOG_INFO,     /* what happened, for a person watching */
    NPK_LOG_DEBUG     /* detail for finding a fault */
} npk_log_level;

/* A sink: level, the component that speaks ("npukit", "RKNN", "rksim") and the message, one
 * line without its newline. It may be called from any thread the library runs on, one call at a
 * time (the library serialises them), and must not call back into npukit. */
typedef void (*npk_log_fn)(npk_log_level level, const char *component, const char *message,
                           void *user);

/* Messages at `level` or more severe go to fn(…, user); fn NULL means stderr. The call
 * replaces both the level and the sink, and NPUKIT_LOG_LEVEL is no longer read. */
NPUKIT_API void npk_set_log(npk_log_level level, npk_log_fn fn, void *user);

/* The threshold in force (from npk_set_log, else NPUKIT_LOG_LEVEL, else NPK_LOG_WARN). */
NPUKIT_API npk_log_level npk_log_threshold(void);

/* A level's name: "none", "error", "warn", "info", "debug" ("?" for another value). */
NPUKIT_API const char *npk_log_level_name(npk_log_level level);

#ifdef __cplusplus
}
#endif
#endif
