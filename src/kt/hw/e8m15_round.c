/* SPDX-License-Identifier: MIT */
/* The lane's last three cycles (see e8m15.h): one leading-one search, one normalising shift and
 * one rounder, which the fused multiply-add (e8m15.c) and the seeds (e8m15_seed.c) share. */
#include "kt/hw/e8m15.h"

/* the rounder is inline in e8m15.h, for the FMA's shortcut; this is its out-of-line entry */
uint32_t kt_e8_round(uint64_t mag, int ebase, bool sticky, unsigned sign)
{
    return kt_e8_round_inline(mag, ebase, sticky, sign);
}
