/* SPDX-License-Identifier: MIT */
/* The card daemon's framing: a 4-byte big-endian length, then one UTF-8 JSON object of at most
 * KT_DAEMON_MAX_FRAME bytes. JSON goes through cJSON, which keeps numbers as doubles; register
 * values need all 64 bits, so integers a double cannot hold travel as raw digits on the way out
 * and are read back from their digits on the way in (kt_json_u64), never rounded. */
#ifndef NPUKIT_KT_JSONFRAME_H
#define NPUKIT_KT_JSONFRAME_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "carrier.h"
#include "npukit/status.h"

/* The length a frame header announces, refused (naming it) above the limit. */
npk_status kt_frame_length(const uint8_t hdr[4], size_t *len);
/* The same with a tighter limit (a server's largest request, a client's largest expected reply). */
npk_status kt_frame_length_max(const uint8_t hdr[4], size_t max, size_t *len);
/* How many leading bytes are valid UTF-8 (len when all are). */
size_t kt_utf8_valid_prefix(const char *text, size_t len);
/* Refuse JSON text (before building anything of it) nesting deeper than max_depth or holding
 * more than max_values values: a request's size then bounds the memory its parse can take. */
npk_status kt_frame_shape(const char *text, size_t len, unsigned max_depth, size_t max_values);
/* Parse a frame body into a JSON object: UTF-8, no NUL byte and no \u0000 escape, no number
 * beyond a double's range, no key twice in one object. */
npk_status kt_frame_parse(const char *body, size_t len, cJSON **out);
/* Encode obj as header + text in one malloc'd buffer. */
npk_status kt_frame_encode(const cJSON *obj, char **frame, size_t *len);
/* Read one whole frame from a carrier and parse it. */
npk_status kt_frame_recv(kt_carrier *c, cJSON **out);
/* One frame of at most `max` bytes, refused from its header when longer. */
npk_status kt_frame_recv_max(kt_carrier *c, size_t max, cJSON **out);
npk_status kt_frame_send(kt_carrier *c, const cJSON *obj);

/* obj[key] as an unsigned integer (a JSON integer, exact to 64 bits); false if absent or not one.
 */
bool kt_json_u64(const cJSON *obj, const char *key, uint64_t *v);
/* Add key: v, exactly. */
bool kt_json_add_u64(cJSON *obj, const char *key, uint64_t v);
/* v as an exact JSON integer item. */
cJSON *kt_json_u64_item(uint64_t v);

#endif
