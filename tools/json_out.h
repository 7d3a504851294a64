/* SPDX-License-Identifier: MIT */
/* The CLI's --json documents: each is a cJSON tree, filled member by member and printed once,
 * whole, on one line (so a command that fails half-way prints no half document). Strings go
 * through the one escaper (common/json_text.h: valid UTF-8, every string escaped, no length
 * limit); integers are written exactly, as their digits (a uint64 such as an exit word past
 * 2^53 would lose bits as the double cJSON keeps numbers in); a measurement keeps the decimals
 * the command has always printed. Every adder ignores a NULL object, so a document whose
 * allocation failed is reported once, by json_print. */
#ifndef NPUKIT_TOOLS_JSON_OUT_H
#define NPUKIT_TOOLS_JSON_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* Each adder takes an object and a key, or an array and key NULL (appended). */
cJSON *json_doc(void);                             /* a new object */
cJSON *json_obj(cJSON *o, const char *key);        /* a new object member */
cJSON *json_arr(cJSON *o, const char *key);        /* a new array member */
cJSON *json_item(cJSON *array);                    /* a new object at the end of an array */
void json_str(cJSON *o, const char *key, const char *s);
void json_bytes(cJSON *o, const char *key, const char *s, size_t n);
void json_u64(cJSON *o, const char *key, uint64_t v);
void json_i64(cJSON *o, const char *key, int64_t v);
void json_bool(cJSON *o, const char *key, bool v);
void json_null(cJSON *o, const char *key);
/* v with `decimals` fixed decimals ("%.3f"); a NaN or infinity (no JSON number) as null. */
void json_fixed(cJSON *o, const char *key, double v, int decimals);
/* v to `digits` significant digits ("%.9g"); NaN or infinity as null. */
void json_sig(cJSON *o, const char *key, double v, int digits);
/* Append to an array: a number, an array of numbers [a, b]. */
void json_push_u64(cJSON *array, uint64_t v);
void json_push_pair(cJSON *array, uint64_t a, uint64_t b);

/* Print doc on stdout as one line and free it. 0, or 1 after saying on stderr (naming cmd)
 * that memory ran out. */
int json_print(cJSON *doc, const char *cmd);

#endif
