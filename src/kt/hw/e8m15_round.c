/* SPDX-License-Identifier: MIT */
/* The lane's last three cycles (see e8m15.h): one leading-one search, one normalising shift and
 * one rounder, which the fused multiply-add (e8m15.c) and the seeds (e8m15_seed.c) share. */
#include "kt/hw/e8m15.h"

enum {
    FRAME = 48, /* the widest magnitude: the fused multiply-add's sum */
    E8_MBITS = 15,
    E8_EMAX = 0xFF,
};

uint32_t kt_e8_round(uint64_t mag, int ebase, bool sticky, unsigned sign)
{
    const uint64_t m48 = (1ull << FRAME) - 1;
    if (!mag)
        return (uint32_t)sign << 23;
    unsigned pos = kt_e8_lead1(mag);
    uint64_t nrm = (mag << (FRAME - 1 - pos)) & m48;
    uint32_t sig = (uint32_t)(nrm >> 32) & 0xFFFF;
    bool g = nrm >> 31 & 1, st = (nrm & 0x7FFFFFFFu) || sticky;
    uint32_t r = sig + (g && (st || (sig & 1)));
    bool carry = r >> 16 & 1;
    int e = (int)pos + ebase + carry;
    if (e >= E8_EMAX)
        return (uint32_t)sign << 23 | (uint32_t)E8_EMAX << E8_MBITS;
    if (e <= 0)
        return (uint32_t)sign << 23;
    return (uint32_t)sign << 23 | (uint32_t)e << E8_MBITS | (carry ? 0 : (r & 0x7FFF));
}
