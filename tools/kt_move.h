/* SPDX-License-Identifier: MIT */
/* `npukit kt move`'s walkers and check: walker options (dimensions and bound-axis windows) as
 * text, the span of memory a walker touches, and the destination a move should leave. */
#ifndef NPUKIT_TOOLS_KT_MOVE_H
#define NPUKIT_TOOLS_KT_MOVE_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"
#include "npukit/kt_mover.h"

enum { KT_MOVE_MAX_ELEMENTS = 1 << 20 }; /* elements a walker may visit for the check */

/* CLI_CUSTOM parsers, `dest` a kt_mv_walker: "C:S[:A:T],..." sets ndim and the dimensions
 * (outermost first: count, signed byte stride, bound axis 0 none / 1 / 2, signed axis step);
 * "BASE:EXTENT[,BASE:EXTENT]" sets bound-axis window 0 (and 1). */
bool kt_move_parse_dims(const cli_opt *row, const char *text, const char *cmd);
bool kt_move_parse_window(const cli_opt *row, const char *text, const char *cmd);

/* What a walker touches: [lo, hi) over its valid elements, each `words` 32-byte words long
 * (hi == lo when none is valid), its element count and how many are valid. */
typedef struct kt_move_span {
    int64_t lo, hi;
    uint64_t elements, valid;
} kt_move_span;
/* False (with one line on stderr naming `which` and the limit) for a walker of more than
 * KT_MOVE_MAX_ELEMENTS elements. */
bool kt_move_span_of(const kt_mv_walker *w, unsigned words, const char *which, kt_move_span *out);

/* The bytes the destination span [dst_lo, dst_lo + len) should hold after move `m`: `want`
 * arrives holding what the span held before (untouched words stay so); `src` holds the source
 * span's bytes from address src_lo. */
void kt_move_expect(const kt_mv_move *m, const uint8_t *src, int64_t src_lo, uint8_t *want,
                    int64_t dst_lo);

#endif
