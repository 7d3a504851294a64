/* SPDX-License-Identifier: MIT */
/* Lowercase hex as the remote protocols write it: bytes in address order, and whole tokens as
 * numbers. Decoding accepts either case and refuses anything else (odd lengths, stray
 * characters, numbers wider than 64 bits). */
#ifndef NPUKIT_KT_HEXCODEC_H
#define NPUKIT_KT_HEXCODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 2n digits and a NUL into out. */
void kt_hex_encode(const uint8_t *in, size_t n, char *out);
/* Exactly `nchars` digits (even) into nchars/2 bytes. */
bool kt_hex_decode(const char *in, size_t nchars, uint8_t *out);
/* A whole token of 1..16 digits. */
bool kt_hex_u64(const char *s, uint64_t *v);

#endif
