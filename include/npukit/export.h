/* SPDX-License-Identifier: MIT */
/* What libnpukit.so exports. The library is compiled with hidden visibility by default, so a
 * function or object is part of the shared library's interface only when its declaration in an
 * installed header carries NPUKIT_API:
 *
 *     NPUKIT_API npk_status npk_rk_open(const char *device, npk_rk **out);
 *     NPUKIT_API extern const struct rksim_hazard rksim_hazards[];
 *
 * Internal headers (not installed) declare without it; their functions stay callable inside the
 * library, the CLI and the tests (which link the static archive) but are not exported. */
#ifndef NPUKIT_EXPORT_H
#define NPUKIT_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define NPUKIT_API __attribute__((visibility("default")))
#else
#define NPUKIT_API
#endif

#endif
