/* SPDX-License-Identifier: MIT */
/* Naming regcmd entries through the register table, and the capture -> diff methodology:
 * find the first divergence of two programs and every register whose effective value (the
 * later copy wins, as on the NPU) differs, field by field. */
#ifndef NPUKIT_RK_DECODE_H
#define NPUKIT_RK_DECODE_H

#include "npukit/export.h"
#include <stddef.h>
#include <stdio.h>

#include "npukit/rk_regcmd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "CNA       0x1040 CNA_CBUF_CON0              0x000000b1  WEIGHT_BANK=11 DATA_BANK=1".
 * Unknown registers are named UNKNOWN, unknown targets T0xNNNN; never dropped. Returns the
 * length written (truncated to len - 1). */
NPUKIT_API size_t npk_rk_entry_describe(npk_rk_entry e, char *buf, size_t len);

/* One line per entry: index, then npk_rk_entry_describe. */
NPUKIT_API void npk_rk_decode_print(FILE *out, const npk_rk_entry *e, size_t n);

/* Print the diff of programs a and b; returns the number of registers whose effective value
 * differs (0 and identical entry lists print "identical"). */
NPUKIT_API size_t npk_rk_diff_print(FILE *out, const npk_rk_entry *a, size_t na, const npk_rk_entry *b,
                         size_t nb);

#ifdef __cplusplus
}
#endif
#endif
