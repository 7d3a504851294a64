/* SPDX-License-Identifier: MIT */
/* The one JSON string escaper: the CLI's --json documents and the trace file (trace_json.c)
 * write every string through it. */
#ifndef NPUKIT_COMMON_JSON_TEXT_H
#define NPUKIT_COMMON_JSON_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* s[0..n) as a JSON string, quotes included, onto f: '"' and '\' escaped, control characters
 * (and NUL) as \n, \t, ... or \u00XX, DEL as \u007f, well-formed UTF-8 as it is, and each
 * byte that is not part of a well-formed UTF-8 sequence (a stray continuation byte, a
 * truncated or overlong sequence, a surrogate, a code point past U+10FFFF) as U+FFFD, so the
 * result is always valid UTF-8 and valid JSON. */
void npk_json_put_string(FILE *f, const char *s, size_t n);

/* The same string in memory of its own size (free() it); NULL when memory runs out. */
char *npk_json_quote(const char *s, size_t n);

#endif
