/* SPDX-License-Identifier: MIT */
/* Hex text of the remote protocols. */
#include "hexcodec.h"

static int digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

void kt_hex_encode(const uint8_t *in, size_t n, char *out)
{
    static const char d[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = d[in[i] >> 4];
        out[2 * i + 1] = d[in[i] & 15];
    }
    out[2 * n] = '\0';
}

bool kt_hex_decode(const char *in, size_t nchars, uint8_t *out)
{
    if (nchars & 1)
        return false;
    for (size_t i = 0; i < nchars; i += 2) {
        int hi = digit(in[i]), lo = digit(in[i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        out[i / 2] = (uint8_t)(hi << 4 | lo);
    }
    return true;
}

bool kt_hex_u64(const char *s, uint64_t *v)
{
    uint64_t x = 0;
    size_t n = 0;
    for (; s[n]; n++) {
        int d = digit(s[n]);
        if (d < 0 || n == 16)
            return false;
        x = x << 4 | (uint64_t)d;
    }
    if (!n)
        return false;
    *v = x;
    return true;
}
