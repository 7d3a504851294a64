/* SPDX-License-Identifier: MIT */
/* Text a peer sent, made safe to quote in a message that reaches a terminal or a log: control
 * characters and bytes that are not UTF-8 become escapes, and long text is cut with its length
 * said, so a peer can neither drive the user's terminal nor flood it. */
#ifndef NPUKIT_KT_PEERTEXT_H
#define NPUKIT_KT_PEERTEXT_H

#include <stddef.h>

/* At most `max` characters of the `len` bytes at `in`, escaped (\n, \t, \xHH), NUL-terminated in
 * out[outlen]; "...(N bytes)" follows a cut. Returns out. */
const char *kt_peer_text(const char *in, size_t len, size_t max, char *out, size_t outlen);

#endif
