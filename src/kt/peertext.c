/* SPDX-License-Identifier: MIT */
/* Peer text, escaped for terminals and logs. */
#include "peertext.h"

#include <stdio.h>

#include "jsonframe.h"

const char *kt_peer_text(const char *in, size_t len, size_t max, char *out, size_t outlen)
{
    size_t o = 0, i = 0, shown = 0;
    if (!outlen)
        return out;
    while (i < len && shown < max && o + 8 < outlen) {
        unsigned char c = (unsigned char)in[i];
        size_t utf8 = c >= 0x80 ? kt_utf8_valid_prefix(in + i, len - i < 4 ? len - i : 4) : 0;
        if (c >= 0x20 && c < 0x7F && c != '\\') {
            out[o++] = (char)c;
            i++;
        } else if (c >= 0x80 && utf8) { /* one whole UTF-8 character, as it is */
            size_t n = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : 4;
            if (utf8 < n)
                goto escape;
            for (size_t k = 0; k < n; k++)
                out[o++] = in[i++];
        } else {
        escape:
            o += (size_t)snprintf(out + o, outlen - o,
                                  c == '\n'   ? "\\n"
                                  : c == '\t' ? "\\t"
                                  : c == '\\' ? "\\\\"
                                              : "\\x%02x",
                                  c);
            i++;
        }
        shown++;
    }
    out[o] = '\0';
    if (i < len)
        snprintf(out + o, outlen - o, "...(%zu bytes)", len);
    return out;
}
