/* SPDX-License-Identifier: MIT */
/* The CLI's --json documents (json_out.h). */
#include "json_out.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_text.h"

/* Set when an allocation failed: json_print then refuses the document instead of printing one
 * with members missing. */
static bool lost;

static cJSON *kept(cJSON *item)
{
    if (!item)
        lost = true;
    return item;
}

/* A member whose text is already JSON (a number or an escaped string). cJSON copies it. */
static void raw(cJSON *o, const char *key, const char *text)
{
    if (!text) /* the escaped string could not be made */
        lost = true;
    if (!o || !text)
        return;
    cJSON *item = kept(cJSON_CreateRaw(text));
    if (!item)
        return;
    if (key)
        cJSON_AddItemToObject(o, key, item);
    else
        cJSON_AddItemToArray(o, item);
}

cJSON *json_doc(void)
{
    lost = false;
    return kept(cJSON_CreateObject());
}

cJSON *json_obj(cJSON *o, const char *key) { return o ? kept(cJSON_AddObjectToObject(o, key)) : NULL; }

cJSON *json_arr(cJSON *o, const char *key) { return o ? kept(cJSON_AddArrayToObject(o, key)) : NULL; }

cJSON *json_item(cJSON *array)
{
    if (!array)
        return NULL;
    cJSON *item = kept(cJSON_CreateObject());
    if (item)
        cJSON_AddItemToArray(array, item);
    return item;
}

void json_bytes(cJSON *o, const char *key, const char *s, size_t n)
{
    char *q = npk_json_quote(s, n);
    raw(o, key, q);
    free(q);
}

void json_str(cJSON *o, const char *key, const char *s) { json_bytes(o, key, s, strlen(s)); }

void json_u64(cJSON *o, const char *key, uint64_t v)
{
    char text[24];
    snprintf(text, sizeof text, "%" PRIu64, v);
    raw(o, key, text);
}

void json_i64(cJSON *o, const char *key, int64_t v)
{
    char text[24];
    snprintf(text, sizeof text, "%" PRId64, v);
    raw(o, key, text);
}

void json_bool(cJSON *o, const char *key, bool v) { raw(o, key, v ? "true" : "false"); }

void json_null(cJSON *o, const char *key) { raw(o, key, "null"); }

/* (the widest double "%.*f" gives is 309 digits and the point, plus the decimals asked) */
void json_fixed(cJSON *o, const char *key, double v, int decimals)
{
    char text[400];
    if (!isfinite(v) || decimals < 0 || decimals > 40) {
        raw(o, key, "null");
        return;
    }
    snprintf(text, sizeof text, "%.*f", decimals, v);
    raw(o, key, text);
}

void json_sig(cJSON *o, const char *key, double v, int digits)
{
    char text[64];
    if (!isfinite(v) || digits < 1 || digits > 17) {
        raw(o, key, "null");
        return;
    }
    snprintf(text, sizeof text, "%.*g", digits, v);
    raw(o, key, text);
}

void json_push_u64(cJSON *array, uint64_t v) { json_u64(array, NULL, v); }

void json_push_pair(cJSON *array, uint64_t a, uint64_t b)
{
    if (!array)
        return;
    cJSON *pair = kept(cJSON_CreateArray());
    if (!pair)
        return;
    cJSON_AddItemToArray(array, pair);
    json_push_u64(pair, a);
    json_push_u64(pair, b);
}

int json_print(cJSON *doc, const char *cmd)
{
    char *text = doc && !lost ? cJSON_PrintUnformatted(doc) : NULL;
    cJSON_Delete(doc);
    if (!text) {
        fprintf(stderr, "npukit %s: out of memory writing the JSON document\n", cmd);
        return 1;
    }
    puts(text);
    free(text);
    return 0;
}
