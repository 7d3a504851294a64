/* SPDX-License-Identifier: MIT */
/* A bounded text writer for the two printers of a host program (kt_hp_format, kt_hp_to_text):
 * snprintf semantics over the whole text, so a NULL or short buffer still yields the length. */
#ifndef NPUKIT_KT_HOSTPROG_OUT_H
#define NPUKIT_KT_HOSTPROG_OUT_H

#include <stddef.h>

typedef struct kt_hp_out {
    char *buf;
    size_t len, used;
} kt_hp_out;

void kt_hp_outf(kt_hp_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A writer over buf[len], which holds "" until something is written (an empty program prints
 * as an empty string, never as stale bytes). */
static inline kt_hp_out kt_hp_out_start(char *buf, size_t len)
{
    if (buf && len)
        buf[0] = '\0';
    return (kt_hp_out){buf, len, 0};
}

#endif
