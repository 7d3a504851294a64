/* SPDX-License-Identifier: MIT */
/* Reading regcmd programs from captures: binary u64 entries or hex text. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/rk_regcmd.h"
#include "npukit/rk_regs.h"

/* Text is UTF-8 (an optional byte-order mark first) without NUL or control bytes other than
 * blanks: a capture with an accented comment or a BOM is text. Anything else is binary. */
static bool is_text(const uint8_t *b, size_t len)
{
    size_t i = len >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF ? 3 : 0;
    while (i < len) {
        uint8_t c = b[i];
        if (c < 0x80) {
            if (c == 0 || (c < 0x20 && !isspace(c)) || c == 0x7f)
                return false;
            i++;
            continue;
        }
        /* a UTF-8 sequence: lead byte 110xxxxx, 1110xxxx or 11110xxx, then 10xxxxxx bytes */
        size_t more = c >= 0xC2 && c <= 0xDF   ? 1
                      : c >= 0xE0 && c <= 0xEF ? 2
                      : c >= 0xF0 && c <= 0xF4 ? 3
                                               : 0;
        if (!more || len - i <= more)
            return false;
        for (size_t k = 1; k <= more; k++)
            if ((b[i + k] & 0xC0) != 0x80)
                return false;
        i += more + 1;
    }
    return true;
}

/* Binary: little-endian u64 entries. Bytes that are not text must still look like a program:
 * most non-zero entries (zero is a regcmd buffer's padding) write a block the register table
 * knows. Other bytes are refused rather than decoded as garbage; an odd entry with an unknown
 * target in a real program is still shown, as in text. */
static npk_status parse_binary(const uint8_t *b, size_t len, npk_rk_program *out)
{
    if (len % 8)
        return npk_fail(NPK_EPARSE,
                        "neither text (not UTF-8, or control bytes) nor a binary program: %zu "
                        "bytes are not a whole number of 8-byte entries",
                        len);
    size_t nonzero = 0, unknown = 0, first_unknown = 0;
    for (size_t i = 0; i < len; i += 8) {
        uint64_t e = 0;
        for (int k = 7; k >= 0; k--) /* little-endian */
            e = (e << 8) | b[i + (size_t)k];
        npk_rk_unit unit;
        if (e) {
            nonzero++;
            if (!npk_rk_unit_of_target(npk_rk_entry_target(e), &unit) && unknown++ == 0)
                first_unknown = i / 8;
        }
        npk_status s = npk_rk_program_push(out, e);
        if (s)
            return s;
    }
    if (!nonzero)
        return npk_fail(NPK_EPARSE, "no regcmd entries: %zu bytes of zeros", len);
    if (unknown * 2 > nonzero)
        return npk_fail(NPK_EPARSE,
                        "neither text nor a binary program: %zu of %zu entries name a target no "
                        "block has (the first, entry %zu, is 0x%016llx)",
                        unknown, nonzero, first_unknown,
                        (unsigned long long)out->entries[first_unknown]);
    return NPK_OK;
}

/* One hex word found in text: its value, width (32 or 64) and line. */
typedef struct word {
    uint64_t v;
    size_t line;
    bool wide;
} word;

/* Text: every token of exactly 8 hex digits is a u32 word, every token of exactly 16 a whole
 * u64 entry; other tokens (indices, labels) are text, and so is a token followed by ':' and a
 * blank (an address or offset label, as hexdump and many capture printers put before the
 * data; "w0:w1" stays a pair).
 * u32 words pair as word0, word1 within a line: a header line holding a lone 8-digit address
 * used to shift every later pair by one word and turn the whole capture into wrong entries.
 * A line with an odd number of words is therefore an error naming it — unless every line holds
 * exactly one word (a u32-per-line dump), where consecutive lines pair. */
static npk_status parse_text(const uint8_t *b, size_t len, npk_rk_program *out)
{
    word *w = NULL;
    size_t nw = 0, cap = 0, line = 1;
    npk_status s = NPK_OK;
    for (size_t i = 0; i < len && s == NPK_OK;) {
        if (b[i] == '\n')
            line++;
        if (!isalnum(b[i])) {
            i++;
            continue;
        }
        size_t start = i;
        while (i < len && (isalnum(b[i]) || b[i] == '_'))
            i++;
        size_t tlen = i - start;
        const uint8_t *t = b + start;
        if (tlen > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
            t += 2;
            tlen -= 2;
        }
        /* "label: " (a colon then a blank or the line's end) names an address or offset;
         * "w0:w1" is a pair and stays two words. */
        bool label = i < len && b[i] == ':' && (i + 1 == len || isspace(b[i + 1]));
        if ((tlen != 8 && tlen != 16) || label)
            continue;
        bool hex = true;
        for (size_t k = 0; k < tlen && hex; k++)
            hex = isxdigit(t[k]) != 0;
        if (!hex)
            continue;
        uint64_t v = 0;
        for (size_t k = 0; k < tlen; k++) {
            int c = tolower(t[k]);
            v = (v << 4) | (uint64_t)(c <= '9' ? c - '0' : c - 'a' + 10);
        }
        if (nw == cap) {
            size_t ncap = cap ? cap * 2 : 256;
            word *grown = realloc(w, ncap * sizeof *w);
            if (!grown) {
                s = npk_fail(NPK_ENOMEM, "out of memory reading %zu bytes of text", len);
                break;
            }
            w = grown;
            cap = ncap;
        }
        w[nw++] = (word){v, line, tlen == 16};
    }
    /* Does every line with a 32-bit word hold exactly one (a u32-per-line dump)? */
    bool one_per_line = true;
    for (size_t i = 0; s == NPK_OK && i < nw && one_per_line; i++)
        if (!w[i].wide && ((i > 0 && !w[i - 1].wide && w[i - 1].line == w[i].line) ||
                           (i + 1 < nw && !w[i + 1].wide && w[i + 1].line == w[i].line)))
            one_per_line = false;
    for (size_t i = 0; s == NPK_OK && i < nw;) {
        if (w[i].wide) {
            s = npk_rk_program_push(out, w[i].v);
            i++;
            continue;
        }
        bool paired = i + 1 < nw && !w[i + 1].wide && (one_per_line || w[i + 1].line == w[i].line);
        if (!paired) {
            size_t on_line = 0;
            for (size_t k = 0; k < nw; k++)
                on_line += !w[k].wide && w[k].line == w[i].line;
            s = one_per_line
                    ? npk_fail(NPK_EPARSE,
                               "line %zu: odd number of 32-bit words (each entry is a word0, "
                               "word1 pair)",
                               w[i].line)
                    : npk_fail(NPK_EPARSE,
                               "line %zu: odd number of 32-bit words (%zu; each entry is a "
                               "word0, word1 pair on one line: remove or comment out a lone "
                               "address, or end it with ':')",
                               w[i].line, on_line);
            break;
        }
        s = npk_rk_program_push(out,
                                npk_rk_entry_from_words((uint32_t)w[i].v, (uint32_t)w[i + 1].v));
        i += 2;
    }
    free(w);
    return s;
}

npk_status npk_rk_program_parse(const uint8_t *bytes, size_t len, npk_rk_program *out)
{
    npk_rk_program_init(out);
    npk_status s =
        is_text(bytes, len) ? parse_text(bytes, len, out) : parse_binary(bytes, len, out);
    if (s == NPK_OK && out->count == 0)
        s = npk_fail(NPK_EPARSE, "no regcmd entries found (%zu bytes read)", len);
    if (s)
        npk_rk_program_free(out);
    return s;
}

npk_status npk_rk_program_load(const char *path, npk_rk_program *out)
{
    bool is_stdin = !strcmp(path, "-");
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f)
        return npk_fail(NPK_EIO, "%s: %s", path, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    npk_status s = NPK_OK;
    int err = 0;
    while (buf) {
        errno = 0;
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (len < cap) {
            err = ferror(f) ? (errno ? errno : EIO) : 0; /* a directory: EISDIR */
            break;
        }
        if (cap >= NPK_RK_PROGRAM_MAX_BYTES) { /* /dev/zero, or not a capture at all */
            s = npk_fail(NPK_ELIMIT, "%s: larger than %u bytes, the limit of a program file", path,
                         NPK_RK_PROGRAM_MAX_BYTES);
            break;
        }
        uint8_t *grown = realloc(buf, cap * 2);
        if (!grown) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = grown;
        cap *= 2;
    }
    if (!buf)
        s = npk_fail(NPK_ENOMEM, "%s: out of memory while reading", path);
    else if (s == NPK_OK && err)
        s = npk_fail(NPK_EIO, "%s: cannot read: %s", path, strerror(err));
    if (!is_stdin)
        fclose(f);
    if (s == NPK_OK)
        s = npk_rk_program_parse(buf, len, out);
    if (s == NPK_EPARSE) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", npk_last_error());
        npk_fail(NPK_EPARSE, "%s: %s", path, msg);
    }
    free(buf);
    return s;
}
