/* SPDX-License-Identifier: MIT */
/* The JSON string escaper (json_text.h). */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "common/json_text.h"

#include <stdint.h>
#include <stdlib.h>

/* The length of the well-formed UTF-8 sequence at p (at most n bytes), 0 when there is none
 * (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF). Each row: the lead bytes
 * and the range the second byte must fall in; later bytes are 0x80..0xBF. */
static const struct {
    uint8_t lead_lo, lead_hi, len, second_lo, second_hi;
} utf8_rows[] = {
    {0xc2, 0xdf, 2, 0x80, 0xbf},
    {0xe0, 0xe0, 3, 0xa0, 0xbf}, /* no overlong three-byte form */
    {0xe1, 0xec, 3, 0x80, 0xbf},
    {0xed, 0xed, 3, 0x80, 0x9f}, /* no surrogates (U+D800..U+DFFF) */
    {0xee, 0xef, 3, 0x80, 0xbf},
    {0xf0, 0xf0, 4, 0x90, 0xbf}, /* no overlong four-byte form */
    {0xf1, 0xf3, 4, 0x80, 0xbf},
    {0xf4, 0xf4, 4, 0x80, 0x8f}, /* nothing past U+10FFFF */
};

static size_t utf8_len(const unsigned char *p, size_t n)
{
    for (size_t r = 0; r < sizeof utf8_rows / sizeof utf8_rows[0]; r++) {
        if (p[0] < utf8_rows[r].lead_lo || p[0] > utf8_rows[r].lead_hi)
            continue;
        size_t len = utf8_rows[r].len;
        if (n < len || p[1] < utf8_rows[r].second_lo || p[1] > utf8_rows[r].second_hi)
            return 0;
        for (size_t i = 2; i < len; i++)
            if ((p[i] & 0xc0) != 0x80)
                return 0;
        return len;
    }
    return 0;
}

/* The short escapes JSON has; other control characters take \u00XX. */
static const char short_escape[0x20] = {['\b'] = 'b', ['\t'] = 't', ['\n'] = 'n',
                                        ['\f'] = 'f', ['\r'] = 'r'};

void npk_json_put_string(FILE *f, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', f);
    for (size_t i = 0; i < n;) {
        unsigned char c = p[i];
        if (c == '"' || c == '\\') {
            fputc('\\', f);
            fputc(c, f);
            i++;
        } else if (c < 0x20 || c == 0x7f) {
            if (c < 0x20 && short_escape[c])
                fprintf(f, "\\%c", short_escape[c]);
            else
                fprintf(f, "\\u%04x", c);
            i++;
        } else if (c < 0x80) {
            fputc(c, f);
            i++;
        } else {
            size_t len = utf8_len(p + i, n - i);
            if (len) {
                fwrite(p + i, 1, len, f);
                i += len;
            } else {
                fputs("\\ufffd", f); /* this byte is no character */
                i++;
            }
        }
    }
    fputc('"', f);
}

char *npk_json_quote(const char *s, size_t n)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f)
        return NULL;
    npk_json_put_string(f, s, n);
    if (fclose(f)) {
        free(out);
        return NULL;
    }
    return out;
}
