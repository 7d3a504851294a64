/* SPDX-License-Identifier: MIT */
/* Frames of the card daemon protocol, and exact 64-bit integers through cJSON. */
#include "jsonframe.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/kt_remote.h"

enum { EXACT_DIGITS = 15 /* every integer of up to 15 digits is exact in a double */ };

npk_status kt_frame_length_max(const uint8_t hdr[4], size_t max, size_t *len)
{
    uint32_t n = (uint32_t)hdr[0] << 24 | (uint32_t)hdr[1] << 16 | (uint32_t)hdr[2] << 8 | hdr[3];
    if (n > max)
        return npk_fail(NPK_EPROTO, "a frame of %" PRIu32 " bytes exceeds the limit of %zu bytes",
                        n, max);
    if (n == 0)
        return npk_fail(NPK_EPROTO, "an empty frame (length 0): a frame holds one JSON object");
    *len = n;
    return NPK_OK;
}

npk_status kt_frame_length(const uint8_t hdr[4], size_t *len)
{
    return kt_frame_length_max(hdr, KT_DAEMON_MAX_FRAME, len);
}

/* Where the bytes stop being UTF-8 (len when they all are): no overlong forms, no surrogates,
 * nothing past U+10FFFF. */
size_t kt_utf8_valid_prefix(const char *text, size_t len)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t i = 0;
    while (i < len) {
        unsigned c = s[i];
        size_t n = c < 0x80             ? 1
                   : (c & 0xE0) == 0xC0 ? 2
                   : (c & 0xF0) == 0xE0 ? 3
                   : (c & 0xF8) == 0xF0 ? 4
                                        : 0;
        if (!n || i + n > len || (n == 2 && c < 0xC2) || (n == 4 && c > 0xF4))
            return i;
        for (size_t k = 1; k < n; k++)
            if ((s[i + k] & 0xC0) != 0x80)
                return i;
        if ((n == 3 && c == 0xE0 && s[i + 1] < 0xA0) || (n == 3 && c == 0xED && s[i + 1] >= 0xA0) ||
            (n == 4 && c == 0xF0 && s[i + 1] < 0x90) || (n == 4 && c == 0xF4 && s[i + 1] >= 0x90))
            return i;
        i += n;
    }
    return len;
}

npk_status kt_frame_shape(const char *text, size_t len, unsigned max_depth, size_t max_values)
{
    unsigned depth = 0;
    size_t values = 0;
    bool in_string = false;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (c == '"')
            in_string = true;
        else if (c == '{' || c == '[') {
            if (++depth > max_depth)
                return npk_fail(NPK_ELIMIT,
                                "the request nests deeper than %u levels, which no op uses",
                                max_depth);
        } else if (c == '}' || c == ']') {
            depth -= depth > 0;
        } else if (c == ',' && ++values > max_values) {
            return npk_fail(NPK_ELIMIT, "the request holds more than %zu values, which no op uses",
                            max_values);
        }
    }
    return NPK_OK;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* A copy of the JSON text in which every integer too long to be exact in a double is a string
 * of its digits; strings and other numbers are copied unchanged. */
static char *quote_long_integers(const char *in, size_t len)
{
    char *out = malloc(len + len / 8 + 2); /* a quoted integer has at least 16 digits: +2 per 16 */
    if (!out)
        return NULL;
    size_t o = 0;
    bool in_string = false;
    for (size_t i = 0; i < len; i++) {
        char c = in[i];
        if (in_string) {
            out[o++] = c;
            if (c == '\\' && i + 1 < len)
                out[o++] = in[++i];
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (c == '"') {
            in_string = true;
            out[o++] = c;
            continue;
        }
        if (c == '-' || is_digit(c)) {
            size_t j = i + (c == '-');
            while (j < len && is_digit(in[j]))
                j++;
            size_t digits = j - i - (c == '-');
            bool integer = digits && !(j < len && (in[j] == '.' || in[j] == 'e' || in[j] == 'E'));
            if (integer && digits > EXACT_DIGITS) {
                out[o++] = '"';
                memcpy(out + o, in + i, j - i);
                o += j - i;
                out[o++] = '"';
            } else {
                memcpy(out + o, in + i, j - i);
                o += j - i;
            }
            i = j - 1;
            continue;
        }
        out[o++] = c;
    }
    out[o] = '\0';
    return out;
}

/* Whether a string in the JSON text holds the escape \u0000: cJSON would end the string there,
 * so "status\u0000x" would read as "status" and hex data would lose its tail without a word. */
static bool escapes_nul(const char *text, size_t len)
{
    bool in_string = false;
    for (size_t i = 0; i < len; i++) {
        if (!in_string) {
            in_string = text[i] == '"';
            continue;
        }
        if (text[i] == '"')
            in_string = false;
        else if (text[i] == '\\') {
            if (len - i >= 6 && !memcmp(text + i + 1, "u0000", 5))
                return true;
            i++;
        }
    }
    return false;
}

static int by_key(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* What the parser accepts but a request or reply must not hold: a number beyond a double's
 * range (1e400 parses as infinity) and an object naming a key twice (cJSON reads the first,
 * Python's json the last: the two ends would act on different requests). */
static npk_status check_values(const cJSON *node)
{
    if (cJSON_IsNumber(node) && !isfinite(node->valuedouble))
        return npk_fail(NPK_EPARSE, "malformed frame: %s%sa number beyond a double's range",
                        node->string ? node->string : "", node->string ? ": " : "");
    size_t n = 0;
    for (const cJSON *c = node->child; c; c = c->next) {
        npk_status s = check_values(c);
        if (s)
            return s;
        n++;
    }
    if (!cJSON_IsObject(node) || n < 2)
        return NPK_OK;
    const char **keys = malloc(n * sizeof *keys);
    if (!keys)
        return npk_fail(NPK_ENOMEM, "out of memory checking a frame's %zu keys", n);
    n = 0;
    for (const cJSON *c = node->child; c; c = c->next)
        keys[n++] = c->string ? c->string : "";
    qsort(keys, n, sizeof *keys, by_key);
    npk_status s = NPK_OK;
    for (size_t i = 1; i < n && !s; i++)
        if (!strcmp(keys[i - 1], keys[i]))
            s = npk_fail(NPK_EPARSE, "malformed frame: the key \"%.40s\" appears twice", keys[i]);
    free(keys);
    return s;
}

npk_status kt_frame_parse(const char *body, size_t len, cJSON **out)
{
    *out = NULL;
    if (memchr(body, '\0', len))
        return npk_fail(NPK_EPARSE, "malformed frame: a NUL byte inside the JSON text");
    size_t good = kt_utf8_valid_prefix(body, len);
    if (good < len)
        return npk_fail(NPK_EPARSE, "malformed frame: byte %zu (0x%02x) is not UTF-8", good,
                        (unsigned char)body[good]);
    if (escapes_nul(body, len))
        return npk_fail(NPK_EPARSE, "malformed frame: a string holds \\u0000 (NUL)");
    char *text = quote_long_integers(body, len);
    if (!text)
        return npk_fail(NPK_ENOMEM, "out of memory for a frame of %zu bytes", len);
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(text, strlen(text) + 1, &end, 1);
    if (!j) {
        size_t at = end ? (size_t)(end - text) : 0;
        char near[24];
        snprintf(near, sizeof near, "%.20s", text + (at < strlen(text) ? at : strlen(text)));
        free(text);
        return npk_fail(NPK_EPARSE, "malformed frame: invalid JSON near byte %zu ('%s') of %zu", at,
                        near, len);
    }
    free(text);
    if (!cJSON_IsObject(j)) {
        cJSON_Delete(j);
        return npk_fail(NPK_EPARSE, "malformed frame: the JSON is not an object");
    }
    npk_status s = check_values(j);
    if (s) {
        cJSON_Delete(j);
        return s;
    }
    *out = j;
    return NPK_OK;
}

npk_status kt_frame_encode(const cJSON *obj, char **frame, size_t *len)
{
    char *text = cJSON_PrintUnformatted(obj);
    if (!text)
        return npk_fail(NPK_ENOMEM, "out of memory encoding a frame");
    size_t n = strlen(text);
    if (n > KT_DAEMON_MAX_FRAME) {
        free(text);
        return npk_fail(NPK_ELIMIT, "a message of %zu bytes exceeds the frame limit of %d bytes", n,
                        KT_DAEMON_MAX_FRAME);
    }
    char *f = malloc(n + 4);
    if (!f) {
        free(text);
        return npk_fail(NPK_ENOMEM, "out of memory for a frame of %zu bytes", n);
    }
    f[0] = (char)(n >> 24);
    f[1] = (char)(n >> 16);
    f[2] = (char)(n >> 8);
    f[3] = (char)n;
    memcpy(f + 4, text, n);
    free(text);
    *frame = f;
    *len = n + 4;
    return NPK_OK;
}

npk_status kt_frame_recv_max(kt_carrier *c, size_t max, cJSON **out)
{
    uint8_t hdr[4];
    size_t len;
    *out = NULL;
    npk_status s = kt_carrier_read(c, hdr, 4);
    if (s || (s = kt_frame_length_max(hdr, max, &len)))
        return s;
    char *body = malloc(len);
    if (!body)
        return npk_fail(NPK_ENOMEM, "out of memory for a frame of %zu bytes", len);
    if (!(s = kt_carrier_read(c, body, len)))
        s = kt_frame_parse(body, len, out);
    free(body);
    return s;
}

npk_status kt_frame_recv(kt_carrier *c, cJSON **out)
{
    return kt_frame_recv_max(c, KT_DAEMON_MAX_FRAME, out);
}

npk_status kt_frame_send(kt_carrier *c, const cJSON *obj)
{
    char *f;
    size_t n;
    npk_status s = kt_frame_encode(obj, &f, &n);
    if (s)
        return s;
    s = kt_carrier_send(c, f, n);
    free(f);
    return s;
}

bool kt_json_u64(const cJSON *obj, const char *key, uint64_t *v)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (cJSON_IsNumber(it)) {
        double d = it->valuedouble;
        if (d < 0 || d > 9007199254740992.0 || d != (double)(uint64_t)d)
            return false;
        *v = (uint64_t)d;
        return true;
    }
    if (cJSON_IsString(it) && is_digit(it->valuestring[0])) { /* a long integer, kept as digits */
        char *end;
        errno = 0;
        unsigned long long x = strtoull(it->valuestring, &end, 10);
        if (errno || *end)
            return false;
        *v = x;
        return true;
    }
    return false;
}

cJSON *kt_json_u64_item(uint64_t v)
{
    if (v <= 999999999999999ull) /* 15 digits: exact as a double */
        return cJSON_CreateNumber((double)v);
    char digits[24];
    snprintf(digits, sizeof digits, "%" PRIu64, v);
    return cJSON_CreateRaw(digits);
}

bool kt_json_add_u64(cJSON *obj, const char *key, uint64_t v)
{
    cJSON *it = kt_json_u64_item(v);
    return it && cJSON_AddItemToObject(obj, key, it);
}
