/* SPDX-License-Identifier: MIT */
/* The line protocol, served: what a Verilated card harness answers, from any transport. */
#define _POSIX_C_SOURCE 200809L /* accept */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "carrier.h"
#include "hexcodec.h"
#include "npukit/kt_remote.h"
#include "npukit/kt_serve.h"

enum {
    SERVE_MAX_BLOCK = 64 * 1024, /* bytes of one RB/WB served */
    SERVE_LINE_MAX = 2 * SERVE_MAX_BLOCK + 64,
    REPLY_CAP = 2 * SERVE_MAX_BLOCK + 16,
};

typedef struct session {
    const kt_serve_target *tg;
    kt_carrier c;
    char *reply;
    uint8_t *block;
} session;

/* Error text on one line: the protocol has no way to carry a newline. */
static void set_error(session *ss, const char *fmt, const char *detail)
{
    int n = snprintf(ss->reply, REPLY_CAP, fmt, detail);
    for (int i = 0; i < n && i < REPLY_CAP; i++)
        if (ss->reply[i] == '\n' || ss->reply[i] == '\r')
            ss->reply[i] = ' ';
}

static void lib_error(session *ss) { set_error(ss, "E %s", npk_last_error()); }

/* The tokens of a command: exactly `n` after the name, separated by single spaces. */
/* Every slot is written: the ones past the last word are NULL, never left indeterminate. */
static int split(char *line, char **tok, int max)
{
    for (int i = 0; i < max; i++)
        tok[i] = NULL;
    int n = 0;
    for (char *p = line; *p && n < max;) {
        tok[n++] = p;
        char *sp = strchr(p, ' ');
        if (!sp)
            break;
        *sp = '\0';
        p = sp + 1;
    }
    return n;
}

static bool hexarg(session *ss, const char *text, const char *what, uint64_t *v)
{
    if (kt_hex_u64(text, v))
        return true;
    char d[120];
    snprintf(d, sizeof d, "%s '%.40s' is not hex (1 to 16 digits)", what, text);
    set_error(ss, "E %s", d);
    return false;
}

static void do_rb(session *ss, char **tok)
{
    uint64_t a, n;
    if (!hexarg(ss, tok[1], "address", &a) || !hexarg(ss, tok[2], "length", &n))
        return;
    if (n > SERVE_MAX_BLOCK) {
        char d[80];
        snprintf(d, sizeof d, "RB of 0x%" PRIx64 " bytes exceeds 0x%x", n, SERVE_MAX_BLOCK);
        set_error(ss, "E %s", d);
        return;
    }
    if (kt_read_block(ss->tg->t, a, ss->block, (size_t)n))
        return lib_error(ss);
    memcpy(ss->reply, "V ", 2);
    kt_hex_encode(ss->block, (size_t)n, ss->reply + 2);
}

static void do_wb(session *ss, char **tok)
{
    uint64_t a;
    size_t digits = strlen(tok[2]);
    if (!hexarg(ss, tok[1], "address", &a))
        return;
    if (digits / 2 > SERVE_MAX_BLOCK || !kt_hex_decode(tok[2], digits, ss->block)) {
        set_error(ss, "E %s", "WB data is not whole bytes of hex within the block limit");
        return;
    }
    if (kt_write_block(ss->tg->t, a, ss->block, digits / 2))
        return lib_error(ss);
    strcpy(ss->reply, "OK");
}

/* BR/BW: DRAM words of 64 bytes, the number written most significant digit first. A backdoor
 * reads the array as it is: a never-written word reads as zeros (the simulator's refusal of such
 * reads models the bus, not the array). */
static void do_backdoor(session *ss, char **tok, bool write)
{
    uint64_t ch, w;
    if (!hexarg(ss, tok[1], "channel", &ch) || !hexarg(ss, tok[2], "word", &w))
        return;
    const kt_serve_target *tg = ss->tg;
    if (!(write ? tg->dram_write != NULL : tg->dram_read != NULL) || ch >= tg->meshes) {
        char d[80];
        snprintf(d, sizeof d, "no DRAM backdoor on channel %" PRIu64, ch);
        set_error(ss, "E %s", d);
        return;
    }
    uint8_t word[KT_BACKDOOR_WORD], msb[KT_BACKDOOR_WORD];
    if (w > UINT64_MAX / KT_BACKDOOR_WORD) {
        set_error(ss, "E %s", "word index out of range");
        return;
    }
    if (write) {
        if (strlen(tok[3]) != 2 * KT_BACKDOOR_WORD ||
            !kt_hex_decode(tok[3], 2 * KT_BACKDOOR_WORD, msb)) {
            set_error(ss, "E %s", "BW data is not 128 hex digits");
            return;
        }
        for (int i = 0; i < KT_BACKDOOR_WORD; i++)
            word[i] = msb[KT_BACKDOOR_WORD - 1 - i];
        if (tg->dram_write(tg->ctx, (unsigned)ch, w * KT_BACKDOOR_WORD, word, KT_BACKDOOR_WORD))
            return lib_error(ss);
        strcpy(ss->reply, "OK");
        return;
    }
    npk_status s =
        tg->dram_read(tg->ctx, (unsigned)ch, w * KT_BACKDOOR_WORD, word, KT_BACKDOOR_WORD);
    if (s && s != NPK_EFAULT)
        return lib_error(ss);
    npk_clear_error();
    for (int i = 0; i < KT_BACKDOOR_WORD; i++)
        msb[i] = word[KT_BACKDOOR_WORD - 1 - i];
    memcpy(ss->reply, "V ", 2);
    kt_hex_encode(msb, KT_BACKDOOR_WORD, ss->reply + 2);
}

static void do_status(session *ss)
{
    const kt_serve_target *tg = ss->tg;
    uint64_t cyc = tg->cycle ? tg->cycle(tg->ctx) : 0;
    const char *f = tg->fault ? tg->fault(tg->ctx) : NULL;
    snprintf(ss->reply, REPLY_CAP, "V cycle=%" PRIx64 " meshes=%x fault=%x", cyc, tg->meshes,
             f != NULL);
}

/* One command line into ss->reply; returns false for Q (no reply). */
static bool command(session *ss, char *line)
{
    char *tok[5];
    int n = split(line, tok, 5);
    const char *name = n ? tok[0] : "";
    const kt_serve_target *tg = ss->tg;
    uint64_t a, v;
    ss->reply[0] = '\0';
    /* Each row: the name and how many arguments it takes. */
    static const struct {
        const char *name;
        int args;
    } forms[] = {{"R", 1}, {"W", 2}, {"RB", 2}, {"WB", 2}, {"T", 1},
                 {"S", 0}, {"Q", 0}, {"BR", 2}, {"BW", 3}};
    int want = -1;
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
        if (!strcmp(name, forms[i].name))
            want = forms[i].args;
    if (want < 0) {
        set_error(ss, "E unknown command '%.40s'", name);
        return true;
    }
    if (n != want + 1) {
        char d[80];
        snprintf(d, sizeof d, "%s takes %d arguments, got %d", name, want, n - 1);
        set_error(ss, "E %s", d);
        return true;
    }
    if (!strcmp(name, "Q"))
        return false;
    if (!strcmp(name, "R")) {
        if (hexarg(ss, tok[1], "address", &a)) {
            if (kt_read64(tg->t, a, &v))
                lib_error(ss);
            else
                snprintf(ss->reply, REPLY_CAP, "V %" PRIx64, v);
        }
    } else if (!strcmp(name, "W")) {
        if (hexarg(ss, tok[1], "address", &a) && hexarg(ss, tok[2], "data", &v)) {
            if (kt_write64(tg->t, a, v))
                lib_error(ss);
            else
                strcpy(ss->reply, "OK");
        }
    } else if (!strcmp(name, "RB")) {
        do_rb(ss, tok);
    } else if (!strcmp(name, "WB")) {
        do_wb(ss, tok);
    } else if (!strcmp(name, "T")) {
        if (!tg->advance)
            set_error(ss, "E %s", "this machine cannot advance its clock");
        else if (hexarg(ss, tok[1], "cycles", &v)) {
            tg->advance(tg->ctx, v);
            strcpy(ss->reply, "OK");
        }
    } else if (!strcmp(name, "S")) {
        do_status(ss);
    } else {
        do_backdoor(ss, tok, !strcmp(name, "BW"));
    }
    return true;
}

npk_status kt_serve_line_session(const kt_serve_target *tg, int in_fd, int out_fd)
{
    session ss = {tg, {0}, malloc(REPLY_CAP + 1), malloc(SERVE_MAX_BLOCK)};
    kt_carrier_from_fds(&ss.c, in_fd, out_fd, "line client", 0);
    npk_status s = NPK_OK;
    if (!ss.reply || !ss.block) {
        s = npk_fail(NPK_ENOMEM, "line server: out of memory");
        goto out;
    }
    snprintf(ss.reply, REPLY_CAP, "READY model=ktsim machine=%s meshes=%x backdoor=%d engine=%d\n",
             tg->name, tg->meshes, tg->dram_read && tg->dram_write, tg->engine);
    if ((s = kt_carrier_send(&ss.c, ss.reply, strlen(ss.reply))))
        goto out;
    for (;;) {
        char *line;
        bool eof;
        if ((s = kt_carrier_line(&ss.c, SERVE_LINE_MAX, &line, &eof))) {
            if (s == NPK_EPROTO) /* a line too long: say so, then give up on the stream */
                kt_carrier_send(&ss.c, "E line too long\n", 16);
            break;
        }
        if (eof || !command(&ss, line))
            break;
        size_t n = strlen(ss.reply);
        ss.reply[n] = '\n';
        if ((s = kt_carrier_send(&ss.c, ss.reply, n + 1)))
            break;
    }
out:
    kt_carrier_close(&ss.c, 0);
    free(ss.reply);
    free(ss.block);
    return s;
}

npk_status kt_serve_line_listen(const kt_serve_target *tg, int listen_fd)
{
    for (;;) {
        int fd = accept(listen_fd, NULL, NULL);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            return npk_fail(NPK_EIO, "line server: accept: %s", strerror(errno));
        }
        kt_serve_line_session(tg, fd, fd); /* a broken session ends only that connection */
    }
}
