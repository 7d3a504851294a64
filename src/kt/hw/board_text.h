/* SPDX-License-Identifier: MIT */
/* A preset file's text, for the board description and the simulator that both read it. */
#ifndef NPUKIT_KT_HW_BOARD_TEXT_H
#define NPUKIT_KT_HW_BOARD_TEXT_H

#include <stddef.h>

#include "npukit/status.h"

/* Resolve a preset name (<data>/kt/<name>.mesh) or path (anything with '/' or '.') into `path`
 * and read it: text of at most KT_BOARD_PRESET_MAX_BYTES with no NUL byte. *text is malloc'd
 * (the caller frees it) and NULL on failure. */
npk_status kt_board_read_text(const char *name_or_path, char **text, char *path, size_t path_len);

#endif
