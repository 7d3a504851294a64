/* Reading regcmd programs from captures: binary u64 entries or hex text. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/rk_regcmd.h"

static bool looks_binary(const uint8_t *b, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (b[i] == 0 || (b[i] < 0x20 && !isspace(b[i])) || b[i] >= 0x7f)
            return true;
    return false;
}

static npk_status parse_binary(const uint8_t *b, size_t len, npk_rk_program *out)
{
    if (len % 8)
        return npk_fail(NPK_EPARSE,
                        "binary program of %zu bytes is not a whole number of 8-byte entries",
                        len);
    for (size_t i = 0; i < len; i += 8) {
        uint64_t e = 0;
        for (int k = 7; k >= 0; k--) /* little-endian */
            e = (e << 8) | b[i + (size_t)k];
        npk_status s = npk_rk_program_push(out, e);
        if (s)
            return s;
    }
    return NPK_OK;
}

/* Text: every token of exactly 8 hex digits is a u32 word (paired word0, word1); every token
 * of exactly 16 hex digits is a whole u64 entry. Other tokens (indices, labels) are text. */
static npk_status parse_text(const uint8_t *b, size_t len, npk_rk_program *out)
{
    size_t i = 0, line = 1, pending_line = 0;
    uint32_t pending = 0;
    bool have_pending = false;
    while (i < len) {
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
        if (tlen != 8 && tlen != 16)
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
        npk_status s;
        if (tlen == 16) {
            if (have_pending)
                return npk_fail(NPK_EPARSE,
                                "line %zu: a 64-bit entry follows an unpaired 32-bit word "
                                "(line %zu)",
                                line, pending_line);
            s = npk_rk_program_push(out, v);
        } else if (!have_pending) {
            pending = (uint32_t)v;
            pending_line = line;
            have_pending = true;
            continue;
        } else {
            s = npk_rk_program_push(out, npk_rk_entry_from_words(pending, (uint32_t)v));
            have_pending = false;
        }
        if (s)
            return s;
    }
    if (have_pending)
        return npk_fail(NPK_EPARSE,
                        "line %zu: odd number of 32-bit words (each entry is a word0, word1 pair)",
                        pending_line);
    return NPK_OK;
}

npk_status npk_rk_program_parse(const uint8_t *bytes, size_t len, npk_rk_program *out)
{
    npk_rk_program_init(out);
    npk_status s = looks_binary(bytes, len) ? parse_binary(bytes, len, out)
                                            : parse_text(bytes, len, out);
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
    while (buf) {
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (len < cap)
            break;
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
    else if (ferror(f))
        s = npk_fail(NPK_EIO, "%s: read error", path);
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
