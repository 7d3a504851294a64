/* SPDX-License-Identifier: MIT */
/* npukit status codes and error messages.
 *
 * Every library function that can fail returns an npk_status. On failure a message that
 * names the bad value and the limit it broke is kept per thread; npk_last_error() reads it.
 */
#ifndef NPUKIT_STATUS_H
#define NPUKIT_STATUS_H

#include <stdarg.h>
#include "npukit/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum npk_status {
    NPK_OK = 0,
    NPK_EINVAL,       /* a bad argument (value named in the message) */
    NPK_ELIMIT,       /* a value beyond a hardware limit (value and limit named) */
    NPK_ENOMEM,       /* allocation failed */
    NPK_EIO,          /* device or transport I/O failed */
    NPK_ETIMEDOUT,    /* the hardware never completed (a wedge) or a poll ran out */
    NPK_EFAULT,       /* a DMA or bus access outside mapped memory */
    NPK_EUNSUPPORTED, /* outside what the hardware (or the simulator's model) is known to do */
    NPK_EBUSY,        /* the device is in use by another caller */
    NPK_ENODEV,       /* no such device */
    NPK_EPARSE,       /* malformed input text or file */
    NPK_EPROTO,       /* the device answered something the protocol does not allow */
    NPK_EMISMATCH,    /* a result differs from its reference */
    NPK_STATUS_COUNT
} npk_status;

/* Short name of a status ("EINVAL", ...). */
NPUKIT_API const char *npk_status_name(npk_status s);

/* Message of this thread's last failure ("" when none). */
NPUKIT_API const char *npk_last_error(void);

/* Record a failure message and return s, so callers can `return npk_fail(...)`. */
NPUKIT_API npk_status npk_fail(npk_status s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
NPUKIT_API npk_status npk_vfail(npk_status s, const char *fmt, va_list ap);
/* The same call, with its result visible to the compiler at the call site: it is s itself. A
 * function that returns npk_fail(NPK_EINVAL, ...) on a path where it leaves an output unwritten
 * is then seen to fail there, instead of gcc -O3 reporting the output "may be used
 * uninitialized" in a caller that reads it only after success. s is evaluated once. */
#if defined(__GNUC__) || defined(__clang__)
#define npk_fail(s, ...)                                                                           \
    __extension__({                                                                                \
        npk_status npk_fail_status_ = (s);                                                         \
        (npk_fail)(npk_fail_status_, __VA_ARGS__);                                                 \
        npk_fail_status_;                                                                          \
    })
#endif

/* Forget the last message. */
NPUKIT_API void npk_clear_error(void);

#ifdef __cplusplus
}
#endif
#endif
