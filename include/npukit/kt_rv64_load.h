/* SPDX-License-Identifier: MIT */
/* Running programs on the KohakuTPU RV64 control complex from the host.
 *
 * An image is the PT_LOAD segments of an RV64 ELF executable, each checked to lie wholly in
 * the complex's instruction memory or its scratchpad. kt_rv64_run streams an image through
 * the load window (control window + 0x8000), preloads stdin, boots, drains the console while
 * polling HR_STATUS, and reads the exit word and halt state. It never writes the scratchpad
 * while the core runs. */
#ifndef NPUKIT_KT_RV64_LOAD_H
#define NPUKIT_KT_RV64_LOAD_H

#include "npukit/export.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npukit/kt_transport.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where programs may be placed: the complex's memories (the reference build by default). */
typedef struct kt_rv64_limits {
    uint32_t imem_bytes; /* instruction memory at address 0 */
    uint64_t spad_base;
    uint32_t spad_bytes;
} kt_rv64_limits;
NPUKIT_API void kt_rv64_limits_default(kt_rv64_limits *l);

enum { KT_RV64_MAX_SEGMENTS = 16 };

typedef enum kt_rv64_region { KT_RV64_IMEM = 0, KT_RV64_SPAD = 1 } kt_rv64_region;

typedef struct kt_rv64_segment {
    unsigned phdr; /* its index among the program headers */
    kt_rv64_region region;
    uint32_t offset; /* byte offset inside the region */
    uint64_t vaddr;
    uint64_t filesz, memsz; /* bytes past filesz up to memsz are zero */
    const uint8_t *data;    /* filesz bytes, inside the image's copy of the file */
} kt_rv64_segment;

typedef struct kt_rv64_image {
    kt_rv64_segment seg[KT_RV64_MAX_SEGMENTS];
    unsigned n_seg;
    uint64_t entry;
    uint8_t *file; /* owned copy of the file */
    size_t size;
} kt_rv64_image;

/* Parse an ELF held in memory (copied) or read from a file. Refuses, naming the value and
 * the limit: anything not a little-endian 64-bit RISC-V executable, an entry point other than
 * 0 (the core always starts there), a segment whose file bytes lie outside the file, one that
 * does not fit the instruction memory or the scratchpad, a writable segment in the
 * instruction memory (the core cannot store there) or an executable one in the scratchpad
 * (it cannot fetch there), and an image with no loadable bytes. */
NPUKIT_API npk_status kt_rv64_image_parse(const void *data, size_t size, const char *origin,
                               const kt_rv64_limits *lim, kt_rv64_image *img);
NPUKIT_API npk_status kt_rv64_image_read(const char *path, const kt_rv64_limits *lim, kt_rv64_image *img);
NPUKIT_API void kt_rv64_image_free(kt_rv64_image *img);

/* ---- running ---- */

typedef struct kt_rv64_run_opts {
    const char *stdin_text; /* preloaded before boot (at most 64 bytes: the queue's depth) */
    size_t stdin_len;
    uint32_t timeout_ms; /* wall-clock budget for the program (0 = 10 s) */
} kt_rv64_run_opts;

typedef struct kt_rv64_result {
    bool exited, halted, timed_out;
    unsigned cause; /* HR_STATUS[1:0] when halted */
    uint64_t exit_word, halt_pc, cycles, retired;
    char *console; /* NUL-terminated, owned: kt_rv64_result_free */
    size_t console_len;
    unsigned rings, clears; /* HR_DBELL writes the program asked for (KT_RV64_REQ) */
} kt_rv64_result;
NPUKIT_API void kt_rv64_result_free(kt_rv64_result *r);
/* The model's names for the two-bit halt cause (ecall, ebreak, illegal, fault). */
NPUKIT_API const char *kt_rv64_cause_name(unsigned cause);

/* Stop the core, stream the image through the load window at node_base + 0x8000 (every word
 * of the memories a segment touches; bytes no segment names are zero), preload stdin, boot,
 * drain the console while polling HR_STATUS, then read HR_EXIT, HR_HALTPC and the counters.
 * Requests on the console (KT_RV64_REQ) are acted on as they are drained: ring or clear HR_DBELL;
 * an unknown request fails the run naming it. A program still running at the timeout is stopped (HR_BOOT = 0) and the result is
 * NPK_ETIMEDOUT with what was seen; the machine can be loaded and booted again. */
NPUKIT_API npk_status kt_rv64_run(kt_transport *t, uint64_t node_base, const kt_rv64_image *img,
                       const kt_rv64_run_opts *opt, kt_rv64_result *r);

#ifdef __cplusplus
}
#endif
#endif
