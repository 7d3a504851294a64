/* SPDX-License-Identifier: MIT */
/* Large blocks in the card daemon, a bounded share of its loop per turn. A read_block or
 * write_block moves SERVE_TURN_BYTES between the machine and the server per turn, and a
 * read_block's reply goes out as the hex of SERVE_TURN_BYTES per turn as the client takes it, so
 * one client's 4 MiB blocks hold no other client up for longer than one chunk. A read keeps only
 * its bytes and one piece of hex: the 8 MiB reply is never built whole, nor copied as JSON. */
#include <stdlib.h>
#include <string.h>

#include "hexcodec.h"
#include "serve_daemon.h"

enum {
    GRANULE_BYTES = 32, /* card DRAM's write granule */
    /* A read_block reply's frame ends with the closing quote of its value and the object's
     * closing brace. */
    TAIL_BYTES = 2,
};

npk_status kt_block_read_start(block_job *b, uint64_t addr, size_t n)
{
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf)
        return npk_fail(NPK_ENOMEM, "read_block of %zu bytes: out of memory", n);
    *b = (block_job){.active = true, .read = true, .buf = buf, .addr = addr, .len = n};
    return NPK_OK;
}

void kt_block_write_start(block_job *b, cJSON *req, uint8_t *bytes, size_t n, uint64_t addr)
{
    *b = (block_job){.active = true, .req = req, .buf = bytes, .addr = addr, .len = n};
}

bool kt_block_adopt(block_job *b, cJSON *req)
{
    if (!b->active || b->req)
        return false;
    b->req = req;
    return true;
}

/* Chunks end on a granule boundary (card DRAM replaces whole 32-byte granules, so a write chunk
 * that ended inside one would zero what the next writes; reads split alike) except the block's
 * own last byte. */
bool kt_block_step(block_job *b, kt_transport *t, npk_status *s)
{
    uint64_t at = b->addr + b->off;
    size_t n = b->len - b->off;
    if (n > SERVE_TURN_BYTES)
        n = SERVE_TURN_BYTES - (size_t)((at + SERVE_TURN_BYTES) % GRANULE_BYTES);
    *s = b->read ? kt_read_block(t, at, b->buf + b->off, n)
                 : kt_write_block(t, at, b->buf + b->off, n);
    b->off += n;
    return !*s && b->off < b->len;
}

void kt_block_to_stream(block_job *b, hex_stream *h, size_t head_cap)
{
    *h = (hex_stream){.bytes = b->buf, .len = b->len, .cap = head_cap};
    b->buf = NULL;
}

void kt_block_end(block_job *b)
{
    if (!b->active)
        return;
    cJSON_Delete(b->req); /* a write's bytes live inside it */
    if (b->read)
        free(b->buf);
    *b = (block_job){0};
}

bool kt_hex_piece(hex_stream *h, char **out, size_t *len)
{
    size_t n = h->len - h->off;
    if (n > SERVE_TURN_BYTES)
        n = SERVE_TURN_BYTES;
    bool last = h->off + n == h->len;
    /* Grown once to the largest piece (the encoder's NUL, or the tail, after the digits) and
     * reused: a buffer per piece would be 64 allocations per 4 MiB read. */
    size_t need = 2 * SERVE_TURN_BYTES + TAIL_BYTES + 1;
    if (h->cap < need) {
        char *grown = realloc(*out, need);
        if (!grown)
            return false;
        *out = grown;
        h->cap = need;
    }
    char *o = *out;
    kt_hex_encode(h->bytes + h->off, n, o);
    *len = 2 * n;
    h->off += n;
    if (last) {
        memcpy(o + *len, "\"}", TAIL_BYTES);
        *len += TAIL_BYTES;
        kt_hex_end(h);
    }
    return true;
}

size_t kt_hex_left(const hex_stream *h)
{
    return h->bytes ? 2 * (h->len - h->off) + TAIL_BYTES : 0;
}

void kt_hex_end(hex_stream *h)
{
    free(h->bytes);
    *h = (hex_stream){0};
}
