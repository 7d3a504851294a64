/* SPDX-License-Identifier: MIT */
/* Shared pieces of the RV64 tests: where the built RV64 programs are, the skip rule when the
 * RISC-V toolchain is absent, and a bare core with a console-and-exit control region for
 * running a program on the processor alone. */
#ifndef NPUKIT_TESTS_RV64_TESTLIB_H
#define NPUKIT_TESTS_RV64_TESTLIB_H

#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ktsim/rv64.h"
#include "kt/hw/kt_rv64.h"
#include "npukit/kt_rv64_load.h"

enum { RV64_TEST_SKIP = 77 };

/* build/rv64/NAME (the CLI lives in the build directory); NULL when it was not built. */
static inline const char *rv64_test_program(const char *name, char *buf, size_t size)
{
    const char *cli = getenv("NPUKIT_CLI");
    if (!cli)
        return NULL;
    const char *slash = strrchr(cli, '/');
    int dir = slash ? (int)(slash - cli) : 1;
    snprintf(buf, size, "%.*s/rv64/%s", dir, slash ? cli : ".", name);
    return access(buf, R_OK) == 0 ? buf : NULL;
}

/* Read build/rv64/NAME into img; false when it was not built. */
static inline bool rv64_test_image(const char *name, kt_rv64_image *img)
{
    char path[4096];
    if (!rv64_test_program(name, path, sizeof path))
        return false;
    CHECK_EQ(kt_rv64_image_read(path, NULL, img), NPK_OK);
    return true;
}

static inline int rv64_test_skip(const char *what)
{
    printf("SKIP: %s not built. RV64 programs need gcc-riscv64-unknown-elf and "
           "picolibc-riscv64-unknown-elf%s (scripts/deps.sh installs them as root)\n", what,
           strstr(what, "linux") ? ", the Linux build gcc-riscv64-linux-gnu and qemu-user" : "");
    return RV64_TEST_SKIP;
}

/* A bare core whose control region keeps the console and stops at R_EXIT. */
typedef struct rv64_bare {
    ksim_rv64 core;
    char *console;
    size_t len, cap;
    bool exited;
    uint64_t exit_word;
} rv64_bare;

static inline uint64_t rv64_bare_load(void *ctx, uint32_t off, unsigned width)
{
    (void)ctx, (void)off, (void)width;
    return 0;
}

static inline bool rv64_bare_store(void *ctx, uint32_t off, unsigned width, uint64_t v)
{
    rv64_bare *b = ctx;
    (void)width;
    if ((off & ~7u) == KT_RV64_R_CONSOLE) {
        if (b->len + 1 >= b->cap) {
            b->cap = b->cap ? 2 * b->cap : 4096;
            b->console = realloc(b->console, b->cap);
        }
        b->console[b->len++] = (char)v;
        b->console[b->len] = '\0';
    } else if ((off & ~7u) == KT_RV64_R_EXIT) {
        b->exited = true;
        b->exit_word = v;
        return true;
    }
    return false;
}

/* Load an image straight into the memories and reset the core. */
static inline bool rv64_bare_init(rv64_bare *b, const kt_rv64_image *img)
{
    memset(b, 0, sizeof *b);
    ksim_rv64_cfg cfg;
    ksim_rv64_cfg_default(&cfg);
    ksim_rv64_bus bus = {b, rv64_bare_load, rv64_bare_store};
    if (!ksim_rv64_init(&b->core, &cfg, &bus))
        return false;
    for (unsigned i = 0; img && i < img->n_seg; i++) {
        const kt_rv64_segment *s = &img->seg[i];
        for (uint64_t k = 0; k < s->memsz; k++) {
            uint8_t byte = k < s->filesz ? s->data[k] : 0;
            uint64_t at = s->offset + k;
            if (s->region == KT_RV64_IMEM) {
                uint32_t w = b->core.imem[at / 4];
                w = (w & ~(0xffu << (8 * (at % 4)))) | ((uint32_t)byte << (8 * (at % 4)));
                ksim_rv64_imem_write(&b->core, (uint32_t)(at / 4), w);
            } else {
                ksim_rv64_spad_write(&b->core, (uint32_t)(at / 8), (uint64_t)byte << (8 * (at % 8)),
                                     (uint8_t)(1u << (at % 8)), KSIM_RV64_NO_CYCLE);
            }
        }
    }
    ksim_rv64_reset(&b->core);
    return true;
}

static inline void rv64_bare_free(rv64_bare *b)
{
    ksim_rv64_free(&b->core);
    free(b->console);
}

#endif
