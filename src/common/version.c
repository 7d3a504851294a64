/* SPDX-License-Identifier: MIT */
/* The library's own version, for a program that wants to know which one it runs with. */
#include "npukit/version.h"

const char *npk_version(void) { return NPUKIT_VERSION_STRING; }
