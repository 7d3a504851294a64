/* SPDX-License-Identifier: MIT */
/* Where npukit's data files (the KohakuTPU mesh presets) are found at run time. */
#ifndef NPUKIT_DATA_H
#define NPUKIT_DATA_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The path of data file `rel` ("kt/default.mesh") in the first directory that holds it:
 *   1. $NPUKIT_DATA_DIR;
 *   2. share/npukit beside or above the library or program that contains npukit (libnpukit.so in
 *      PREFIX/lib, or a program in PREFIX/bin, finds PREFIX/share/npukit; a build tree's
 *      programs find BUILD/share/npukit, which the build fills), so an installed copy can be
 *      moved to another prefix;
 *   3. the data directory of the prefix npukit was configured for.
 * Writes the path into out and returns true; false when no directory holds it (out then names
 * the directories searched, for a message). */
bool npk_data_path(const char *rel, char *out, size_t len);

#ifdef __cplusplus
}
#endif
#endif
