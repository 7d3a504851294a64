/* SPDX-License-Identifier: MIT */
/* Shared by the server fuzz targets: one simulated card served for the whole run, and the fuzz
 * input offered to a server as a client's whole byte stream (a pipe the input fills, then
 * closes), with the replies going to /dev/null. */
#ifndef NPUKIT_FUZZ_SERVE_FUZZLIB_H
#define NPUKIT_FUZZ_SERVE_FUZZLIB_H

#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npukit/kt_serve.h"
#include "npukit/ktsim.h"
#include "ktsim/ktsim_card.h"

enum { FUZZ_STREAM_MAX = 60000 }; /* fits a pipe's buffer: written whole before serving */

/* T is bounded here far below the server's own bound, so an input costs milliseconds. */
static void fuzz_advance(void *ctx, uint64_t n) { ktsim_card_step(ctx, n < 4096 ? n : 4096); }
static uint64_t fuzz_cycle(void *ctx) { return ktsim_card_cycle(ctx); }

static npk_status fuzz_dram_read(void *ctx, unsigned ch, uint64_t off, void *buf, size_t len)
{
    ktsim *m = ktsim_card_mesh(ctx, ch);
    if (!m)
        return npk_fail(NPK_EINVAL, "no mesh %u", ch);
    uint64_t size = ktsim_get_config(m)->dram_size;
    if (off > size || len > size - off)
        return npk_fail(NPK_ELIMIT, "outside DRAM");
    memset(buf, 0, len);
    return ktsim_dram_read(m, off, buf, len);
}

static npk_status fuzz_dram_write(void *ctx, unsigned ch, uint64_t off, const void *buf, size_t len)
{
    ktsim *m = ktsim_card_mesh(ctx, ch);
    return m ? ktsim_dram_write(m, off, buf, len) : npk_fail(NPK_EINVAL, "no mesh %u", ch);
}

/* The served card, made once. */
static const kt_serve_target *fuzz_target(void)
{
    static kt_serve_target tg;
    static ktsim_card *card;
    if (!card) {
        ktsim_card_opts o = {2, false, true, 0, 0, 0};
        if (ktsim_card_open_preset("default", false, &o, &card))
            abort();
        tg = (kt_serve_target){.t = ktsim_card_transport(card),
                               .name = "fuzz",
                               .meshes = 2,
                               .ctx = card,
                               .advance = fuzz_advance,
                               .cycle = fuzz_cycle,
                               .dram_read = fuzz_dram_read,
                               .dram_write = fuzz_dram_write,
                               .dram_bytes = 256u << 20,
                               .engine = true,
                               .frame_ms = 1000,
                               .idle_ms = 1000};
    }
    return &tg;
}

/* A read end holding the whole input, its write end closed; and a /dev/null to write to. */
static int fuzz_stream(const uint8_t *data, size_t size, int *out_fd)
{
    int p[2];
    if (pipe(p))
        abort();
    if (size > FUZZ_STREAM_MAX)
        size = FUZZ_STREAM_MAX;
    if (size && write(p[1], data, size) != (ssize_t)size)
        abort();
    close(p[1]);
    *out_fd = open("/dev/null", O_WRONLY);
    return p[0];
}

#endif
