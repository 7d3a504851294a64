/* SPDX-License-Identifier: MIT */
/* The one JSON string escaper (common/json_text.h) against literals worked out by hand: quotes,
 * backslashes, every control character, NUL inside a length-given string, well-formed UTF-8 of
 * each length kept, and every kind of ill-formed UTF-8 (RFC 3629) replaced byte by byte with
 * U+FFFD; a string far longer than any fixed buffer kept whole. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "common/json_text.h"

static void expect(const char *in, size_t n, const char *want)
{
    char *got = npk_json_quote(in, n);
    CHECK(got != NULL);
    if (got && strcmp(got, want)) {
        fprintf(stderr, "escaped as %s, expected %s\n", got, want);
        CHECK(0);
    }
    free(got);
}

int main(void)
{
    expect("", 0, "\"\"");
    expect("plain", 5, "\"plain\"");
    expect("a\"b\\c", 5, "\"a\\\"b\\\\c\"");
    expect("\n\t\r\b\f", 5, "\"\\n\\t\\r\\b\\f\"");
    expect("\x01\x1f\x7f", 3, "\"\\u0001\\u001f\\u007f\"");
    expect("a\0b", 3, "\"a\\u0000b\""); /* NUL within the length */
    expect("/", 1, "\"/\"");
    /* well-formed UTF-8 of two, three and four bytes, as it is */
    expect("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9, "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
    /* ill-formed: a lone continuation byte, a lead byte at the end, a lead byte before ASCII */
    expect("\x80", 1, "\"\\ufffd\"");
    expect("a\xc3", 2, "\"a\\ufffd\"");
    expect("\xc3" "A", 2, "\"\\ufffdA\"");
    /* overlong forms, a surrogate, past U+10FFFF, bytes never in UTF-8 */
    expect("\xc0\xaf", 2, "\"\\ufffd\\ufffd\"");
    expect("\xe0\x80\xaf", 3, "\"\\ufffd\\ufffd\\ufffd\"");
    expect("\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\"");
    expect("\xf4\x90\x80\x80", 4, "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
    expect("\xff\xfe", 2, "\"\\ufffd\\ufffd\"");
    /* the largest code points each form allows are kept */
    expect("\xdf\xbf\xef\xbf\xbf\xf4\x8f\xbf\xbf", 9, "\"\xdf\xbf\xef\xbf\xbf\xf4\x8f\xbf\xbf\"");
    /* no fixed buffer: 100000 quotes become 200000 characters plus the two around them */
    size_t n = 100000;
    char *q = malloc(n);
    memset(q, '"', n);
    char *got = npk_json_quote(q, n);
    CHECK(got && strlen(got) == 2 * n + 2 && got[2 * n] == '"' && got[2 * n + 1] == '"');
    free(got);
    free(q);
    return check_done();
}
