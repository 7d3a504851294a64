/* SPDX-License-Identifier: MIT */
/* The line-protocol transport: a Verilated card harness (or `npukit kt serve --protocol line`)
 * behind the transport contract, over a child's pipes or a TCP connection. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carrier.h"
#include "hexcodec.h"
#include "peertext.h"
#include "npukit/kt_remote.h"

enum {
    CMD_MAX = 2 * KT_LINE_MAX_BLOCK + 64,
    REPLY_MAX = 2 * KT_LINE_MAX_BLOCK + 4096, /* a reply line, or one line of model output */
    SHOWN = 60,                               /* characters of a command quoted in errors */
    SHOWN_REPLY = 240, /* of a reply (an E line's text is the peer's reason) */
    CHATTER_CHARS = 120,
    MAX_BACKDOOR = 4,
    FINISH_GRACE_MS = 2000,
};

struct kt_line {
    kt_carrier c;
    char banner[256];
    char chatter[KT_LINE_CHATTER_KEEP][CHATTER_CHARS];
    unsigned chat_n; /* lines kept so far (the ring holds the last KT_LINE_CHATTER_KEEP) */
    char cmd[CMD_MAX];
    struct {
        unsigned ch;
        uint64_t base, size;
    } bd[MAX_BACKDOOR];
    unsigned n_bd;
    int bd_offered; /* -1: not asked yet */
    uint64_t bd_words;
    bool finished;
    npk_status finish_status;
    char finish_msg[320];
};

/* ---- replies ---- */

static void keep_chatter(kt_line *l, const char *line)
{
    kt_peer_text(line, strlen(line), CHATTER_CHARS / 4,
                 l->chatter[l->chat_n++ % KT_LINE_CHATTER_KEEP], CHATTER_CHARS);
}

/* "; model output: 'a' | 'b'" for the last lines the peer printed, oldest first. */
static void chatter_text(const kt_line *l, char *buf, size_t len)
{
    buf[0] = '\0';
    unsigned n = l->chat_n < KT_LINE_CHATTER_KEEP ? l->chat_n : KT_LINE_CHATTER_KEEP;
    size_t at = 0;
    for (unsigned i = 0; i < n && at < len; i++) {
        const char *c = l->chatter[(l->chat_n - n + i) % KT_LINE_CHATTER_KEEP];
        int w = snprintf(buf + at, len - at, "%s'%s'", i ? " | " : "; model output: ", c);
        if (w < 0)
            break;
        at += (size_t)w;
    }
}

/* A command or reply cut to `max` characters for a message, the peer's bytes escaped. */
static const char *shown(const char *s, int max, char *buf, size_t len)
{
    return kt_peer_text(s, strlen(s), (size_t)max, buf, len);
}

static npk_status bad_reply(kt_line *l, npk_status st, const char *reply, const char *why)
{
    char c[4 * SHOWN + 40], r[4 * SHOWN_REPLY + 40], chat[4 * CHATTER_CHARS + 64];
    chatter_text(l, chat, sizeof chat);
    return npk_fail(st, "%s: `%s` answered `%s`: %s%s", l->c.what,
                    shown(l->cmd, SHOWN, c, sizeof c), shown(reply, SHOWN_REPLY, r, sizeof r), why,
                    chat);
}

/* The carrier's own failure (timeout, peer gone) with the command it interrupted. */
static npk_status lost(kt_line *l, npk_status st)
{
    char why[512], c[4 * SHOWN + 40], chat[4 * CHATTER_CHARS + 64];
    snprintf(why, sizeof why, "%s", npk_last_error());
    chatter_text(l, chat, sizeof chat);
    return npk_fail(st, "%s, waiting for the reply to `%s`%s", why,
                    shown(l->cmd, SHOWN, c, sizeof c), chat);
}

static bool starts(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

/* Send l->cmd and return the reply's payload: the text after "V " when `value`, else nothing
 * (an OK). Model output in between is kept, an E line is an error quoting the peer's text. */
static npk_status exchange(kt_line *l, bool value, char **payload)
{
    size_t n = strlen(l->cmd);
    l->cmd[n] = '\n';
    int64_t deadline = kt_carrier_deadline(&l->c); /* one for the command and its reply */
    npk_status s = kt_carrier_send(&l->c, l->cmd, n + 1);
    l->cmd[n] = '\0';
    if (s)
        return lost(l, s);
    for (;;) {
        char *line;
        if ((s = kt_carrier_line_by(&l->c, REPLY_MAX, &line, NULL, deadline)))
            return lost(l, s);
        if (starts(line, "E "))
            return bad_reply(l, NPK_EIO, line, "the peer refused it");
        if (starts(line, "V ")) {
            if (!value)
                return bad_reply(l, NPK_EPROTO, line, "expected OK");
            *payload = line + 2;
            return NPK_OK;
        }
        if (starts(line, "OK")) {
            if (value || line[2])
                return bad_reply(l, NPK_EPROTO, line,
                                 value ? "expected a value (V ...)" : "expected a bare OK");
            return NPK_OK;
        }
        if (starts(line, "READY"))
            return bad_reply(l, NPK_EPROTO, line, "the peer started over (a second READY)");
        keep_chatter(l, line);
    }
}

/* A reply of exactly `len` bytes as hex, in address order. */
static npk_status value_bytes(kt_line *l, size_t len, uint8_t *out)
{
    char *v;
    npk_status s = exchange(l, true, &v);
    if (s)
        return s;
    if (strlen(v) != 2 * len || !kt_hex_decode(v, 2 * len, out)) {
        char why[80];
        snprintf(why, sizeof why, "expected %zu bytes as %zu hex digits", len, 2 * len);
        return bad_reply(l, NPK_EPROTO, v - 2, why);
    }
    return NPK_OK;
}

/* ---- the contract ---- */

static npk_status line_read64(void *ctx, uint64_t addr, uint64_t *value)
{
    kt_line *l = ctx;
    snprintf(l->cmd, sizeof l->cmd, "R %" PRIx64, addr);
    char *v;
    npk_status s = exchange(l, true, &v);
    if (s)
        return s;
    if (!kt_hex_u64(v, value))
        return bad_reply(l, NPK_EPROTO, v - 2, "expected one 64-bit hex value");
    return NPK_OK;
}

static npk_status line_write64(void *ctx, uint64_t addr, uint64_t value)
{
    kt_line *l = ctx;
    snprintf(l->cmd, sizeof l->cmd, "W %" PRIx64 " %" PRIx64, addr, value);
    return exchange(l, false, NULL);
}

/* The backdoor window holding [addr, addr + len) whole, if any and if the peer offers BR/BW. */
static int backdoor_for(kt_line *l, uint64_t addr, size_t len)
{
    for (unsigned i = 0; i < l->n_bd; i++)
        if (addr >= l->bd[i].base && addr - l->bd[i].base + len <= l->bd[i].size) {
            if (l->bd_offered < 0) { /* ask once: a peer without BR/BW answers E */
                uint8_t probe[KT_BACKDOOR_WORD];
                l->bd_offered = kt_line_backdoor_read(l, l->bd[i].ch, 0, probe) == NPK_OK;
                npk_clear_error();
            }
            return l->bd_offered ? (int)i : -1;
        }
    return -1;
}

/* Split [addr, addr+len) into a bus head, whole backdoor words, and a bus tail. */
typedef struct bd_span {
    int win;
    size_t head, words; /* bytes before the first whole word; whole words */
} bd_span;

static bd_span backdoor_span(kt_line *l, uint64_t addr, size_t len)
{
    bd_span sp = {-1, 0, 0};
    if (!l->n_bd || len < KT_BACKDOOR_WORD)
        return sp;
    int w = backdoor_for(l, addr, len);
    if (w < 0)
        return sp;
    uint64_t off = addr - l->bd[w].base;
    sp.head = (size_t)((KT_BACKDOOR_WORD - off % KT_BACKDOOR_WORD) % KT_BACKDOOR_WORD);
    if (sp.head >= len)
        return sp;
    sp.words = (len - sp.head) / KT_BACKDOOR_WORD;
    if (sp.words)
        sp.win = w;
    return sp;
}

static npk_status bus_read(kt_line *l, uint64_t addr, uint8_t *buf, size_t len)
{
    for (size_t off = 0; off < len; off += KT_LINE_MAX_BLOCK) {
        size_t n = len - off < KT_LINE_MAX_BLOCK ? len - off : KT_LINE_MAX_BLOCK;
        snprintf(l->cmd, sizeof l->cmd, "RB %" PRIx64 " %zx", addr + off, n);
        npk_status s = value_bytes(l, n, buf + off);
        if (s)
            return s;
    }
    return NPK_OK;
}

static npk_status bus_write(kt_line *l, uint64_t addr, const uint8_t *buf, size_t len)
{
    for (size_t off = 0; off < len; off += KT_LINE_MAX_BLOCK) {
        size_t n = len - off < KT_LINE_MAX_BLOCK ? len - off : KT_LINE_MAX_BLOCK;
        int h = snprintf(l->cmd, sizeof l->cmd, "WB %" PRIx64 " ", addr + off);
        kt_hex_encode(buf + off, n, l->cmd + h);
        npk_status s = exchange(l, false, NULL);
        if (s)
            return s;
    }
    return NPK_OK;
}

static npk_status bus(kt_line *l, bool write, uint64_t addr, uint8_t *p, size_t len)
{
    return write ? bus_write(l, addr, p, len) : bus_read(l, addr, p, len);
}

/* A block: through the bus, or its whole DRAM words through the backdoor and the ragged ends
 * through the bus. `p` is only read when writing. */
static npk_status block(kt_line *l, bool write, uint64_t addr, uint8_t *p, size_t len)
{
    bd_span sp = backdoor_span(l, addr, len);
    if (sp.win < 0)
        return bus(l, write, addr, p, len);
    npk_status s = sp.head ? bus(l, write, addr, p, sp.head) : NPK_OK;
    unsigned ch = l->bd[sp.win].ch;
    uint64_t word0 = (addr + sp.head - l->bd[sp.win].base) / KT_BACKDOOR_WORD;
    for (size_t i = 0; i < sp.words && !s; i++) {
        uint8_t *w = p + sp.head + i * KT_BACKDOOR_WORD;
        s = write ? kt_line_backdoor_write(l, ch, word0 + i, w)
                  : kt_line_backdoor_read(l, ch, word0 + i, w);
    }
    size_t done = sp.head + sp.words * KT_BACKDOOR_WORD;
    if (!s && done < len)
        s = bus(l, write, addr + done, p + done, len - done);
    return s;
}

static npk_status line_read_block(void *ctx, uint64_t addr, void *buf, size_t len)
{
    return block(ctx, false, addr, buf, len);
}

static npk_status line_write_block(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    return block(ctx, true, addr, (uint8_t *)(uintptr_t)buf, len); /* never written through */
}

static void line_close(void *ctx)
{
    kt_line *l = ctx;
    kt_line_finish(l);
    free(l);
}

static const kt_transport_ops line_ops = {line_read64, line_write64, line_read_block,
                                          line_write_block, line_close};

/* ---- opening ---- */

static npk_status await_ready(kt_line *l)
{
    snprintf(l->cmd, sizeof l->cmd, "(start-up)");
    int64_t deadline = kt_carrier_deadline(&l->c); /* start-up chatter does not extend it */
    for (;;) {
        char *line;
        npk_status s = kt_carrier_line_by(&l->c, REPLY_MAX, &line, NULL, deadline);
        if (s) {
            char why[512], chat[4 * CHATTER_CHARS];
            snprintf(why, sizeof why, "%s", npk_last_error());
            chatter_text(l, chat, sizeof chat);
            return npk_fail(s, "%s, waiting for READY%s", why, chat);
        }
        if (starts(line, "READY")) {
            kt_peer_text(line, strlen(line), 120, l->banner, sizeof l->banner);
            return NPK_OK;
        }
        if (starts(line, "V ") || starts(line, "OK") || starts(line, "E "))
            return bad_reply(l, NPK_EPROTO, line, "expected the READY line first");
        keep_chatter(l, line);
    }
}

static npk_status finish_open(kt_line *l, npk_status s, const char *name, kt_line **out,
                              kt_transport *t)
{
    if (!s)
        s = await_ready(l);
    if (s) {
        char why[512];
        snprintf(why, sizeof why, "%s", npk_last_error());
        l->finished = true; /* nothing to say Q to: close and reap */
        kt_carrier_close(&l->c, 0);
        free(l);
        return npk_fail(s, "%s", why);
    }
    kt_transport_init(t, name, &line_ops, l);
    t->bulk = true;
    t->max_block = KT_LINE_MAX_BLOCK;
    *out = l;
    return NPK_OK;
}

static kt_line *line_new(void)
{
    kt_line *l = calloc(1, sizeof *l);
    if (l)
        l->bd_offered = -1;
    return l;
}

static unsigned timeout_of(const kt_remote_opts *o)
{
    return o && o->timeout_ms ? o->timeout_ms : KT_REMOTE_TIMEOUT_MS;
}

npk_status kt_line_spawn(const char *cmd, const kt_remote_opts *o, kt_line **out, kt_transport *t)
{
    if (!cmd || !*cmd)
        return npk_fail(NPK_EINVAL, "line protocol: an empty command line");
    kt_line *l = line_new();
    if (!l)
        return npk_fail(NPK_ENOMEM, "line protocol: out of memory");
    return finish_open(l, kt_carrier_spawn(&l->c, cmd, timeout_of(o)), "line(pipe)", out, t);
}

npk_status kt_line_connect(const char *host_port, const kt_remote_opts *o, kt_line **out,
                           kt_transport *t)
{
    kt_line *l = line_new();
    if (!l)
        return npk_fail(NPK_ENOMEM, "line protocol: out of memory");
    return finish_open(l, kt_carrier_connect(&l->c, host_port, timeout_of(o)), "line(tcp)", out, t);
}

const char *kt_line_banner(const kt_line *l) { return l->banner; }

npk_status kt_line_advance(kt_line *l, uint64_t cycles)
{
    do { /* in commands a served card accepts */
        uint64_t n = cycles < KT_LINE_MAX_ADVANCE ? cycles : KT_LINE_MAX_ADVANCE;
        snprintf(l->cmd, sizeof l->cmd, "T %" PRIx64, n);
        npk_status s = exchange(l, false, NULL);
        if (s)
            return s;
        cycles -= n;
    } while (cycles);
    return NPK_OK;
}

bool kt_line_status_cycle(const char *status, uint64_t *cycle)
{
    static const char *const keys[] = {"sys=", "cycle="}; /* the card harness's name first */
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        for (const char *at = status; (at = strstr(at, keys[k])); at++) {
            if (at != status && at[-1] != ' ')
                continue; /* a longer key that ends in this one */
            const char *v = at + strlen(keys[k]);
            char token[20];
            size_t n = strcspn(v, " ");
            if (n && n < sizeof token) {
                memcpy(token, v, n);
                token[n] = '\0';
                if (kt_hex_u64(token, cycle))
                    return true;
            }
        }
    return false;
}

npk_status kt_line_status(kt_line *l, char *buf, size_t len)
{
    snprintf(l->cmd, sizeof l->cmd, "S");
    char *v;
    npk_status s = exchange(l, true, &v);
    if (!s)
        snprintf(buf, len, "%s", v);
    return s;
}

/* BR/BW carry the word as one 512-bit number, most significant digit first: the reverse of the
 * address-order bytes. */
npk_status kt_line_backdoor_read(kt_line *l, unsigned ch, uint64_t word,
                                 uint8_t out[KT_BACKDOOR_WORD])
{
    snprintf(l->cmd, sizeof l->cmd, "BR %x %" PRIx64, ch, word);
    uint8_t msb_first[KT_BACKDOOR_WORD];
    npk_status s = value_bytes(l, KT_BACKDOOR_WORD, msb_first);
    if (s)
        return s;
    for (int i = 0; i < KT_BACKDOOR_WORD; i++)
        out[i] = msb_first[KT_BACKDOOR_WORD - 1 - i];
    l->bd_words++;
    return NPK_OK;
}

npk_status kt_line_backdoor_write(kt_line *l, unsigned ch, uint64_t word,
                                  const uint8_t in[KT_BACKDOOR_WORD])
{
    uint8_t msb_first[KT_BACKDOOR_WORD];
    for (int i = 0; i < KT_BACKDOOR_WORD; i++)
        msb_first[i] = in[KT_BACKDOOR_WORD - 1 - i];
    int h = snprintf(l->cmd, sizeof l->cmd, "BW %x %" PRIx64 " ", ch, word);
    kt_hex_encode(msb_first, KT_BACKDOOR_WORD, l->cmd + h);
    npk_status s = exchange(l, false, NULL);
    if (!s)
        l->bd_words++;
    return s;
}

npk_status kt_line_use_backdoor(kt_line *l, unsigned ch, uint64_t host_base, uint64_t size)
{
    if (l->n_bd == MAX_BACKDOOR)
        return npk_fail(NPK_ELIMIT, "line protocol: at most %d backdoor windows", MAX_BACKDOOR);
    if (host_base % KT_BACKDOOR_WORD || !size)
        return npk_fail(NPK_EINVAL,
                        "backdoor window at 0x%" PRIx64 " (size 0x%" PRIx64
                        ") must be non-empty and start on a "
                        "%d-byte DRAM word",
                        host_base, size, KT_BACKDOOR_WORD);
    l->bd[l->n_bd].ch = ch;
    l->bd[l->n_bd].base = host_base;
    l->bd[l->n_bd++].size = size;
    return NPK_OK;
}

uint64_t kt_line_backdoor_words(const kt_line *l) { return l->bd_words; }

npk_status kt_line_finish(kt_line *l)
{
    if (l->finished) {
        if (l->finish_status)
            npk_fail(l->finish_status, "%s", l->finish_msg);
        return l->finish_status;
    }
    l->finished = true;
    if (l->c.wfd >= 0)
        kt_carrier_send(&l->c, "Q\n", 2); /* a peer already gone is found out below */
    bool child = l->c.pid != 0;
    kt_carrier_close(&l->c, FINISH_GRACE_MS);
    char st[64];
    kt_carrier_exit_text(&l->c, st, sizeof st);
    npk_clear_error();
    if (child && !kt_carrier_exited_ok(&l->c)) {
        snprintf(l->finish_msg, sizeof l->finish_msg, "%.200s: %.64s", l->c.what, st);
        l->finish_status = NPK_EIO;
        return npk_fail(NPK_EIO, "%s", l->finish_msg);
    }
    return NPK_OK;
}
