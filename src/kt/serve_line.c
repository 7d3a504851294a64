/* SPDX-License-Identifier: MIT */
/* The line protocol, served: what a Verilated card harness answers, from any transport. One
 * client at a time (the harness has one stdin): while one is served, others are told so with an
 * E line and closed; a client is closed after idle_ms with no command and after frame_ms on a
 * half-sent line or an unread reply, each with an E line saying why. */
#define _POSIX_C_SOURCE 200809L /* accept, poll */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
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
    int listen_fd; /* others arrive here while this session runs (-1: none) */
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
 * reads models the bus, not the array). A word outside the DRAM is refused with E. */
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
    uint8_t word[KT_BACKDOOR_WORD] = {0}, msb[KT_BACKDOOR_WORD];
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

/* T: bounded per command (one client must not hold the server for longer than a long command
 * takes) and refused where the cycle counter would wrap. */
static void do_advance(session *ss, uint64_t n)
{
    const kt_serve_target *tg = ss->tg;
    uint64_t now = tg->cycle ? tg->cycle(tg->ctx) : 0;
    char d[120];
    if (n > KT_LINE_MAX_ADVANCE) {
        snprintf(d, sizeof d, "T of 0x%" PRIx64 " cycles exceeds 0x%x per command", n,
                 KT_LINE_MAX_ADVANCE);
        set_error(ss, "E %s", d);
    } else if (n > UINT64_MAX - now) {
        snprintf(d, sizeof d,
                 "T of 0x%" PRIx64 " cycles would wrap the cycle counter at 0x%" PRIx64, n, now);
        set_error(ss, "E %s", d);
    } else {
        tg->advance(tg->ctx, n);
        strcpy(ss->reply, "OK");
    }
}

static void do_status(session *ss)
{
    const kt_serve_target *tg = ss->tg;
    uint64_t cyc = tg->cycle ? tg->cycle(tg->ctx) : 0;
    const char *f = tg->fault ? tg->fault(tg->ctx) : NULL;
    /* sys= as the card harness names the clock, cycle= as earlier servers did */
    snprintf(ss->reply, REPLY_CAP, "V sys=%" PRIx64 " cycle=%" PRIx64 " meshes=%x fault=%x", cyc,
             cyc, tg->meshes, f != NULL);
}

/* ---- public arrays (SC, PE, PK) ----
 * The card harness lets a client find, read and write the model's public arrays by scope and
 * name. The simulator's arrays are the DRAM of each channel, in words of 64 bytes: scope
 * "card.mesh<N>.dram", name "words". Elements travel as hex, each little-endian (address order). */
static const char ARRAY_VAR[] = "words";

static bool array_of(session *ss, const char *scope, const char *var, unsigned *ch)
{
    unsigned n;
    int used = 0;
    if (ss->tg->dram_read && ss->tg->dram_write && !strcmp(var, ARRAY_VAR) &&
        sscanf(scope, "card.mesh%u.dram%n", &n, &used) == 1 && !scope[used] && n < ss->tg->meshes) {
        char canon[40]; /* one spelling only: "card.mesh01.dram" is not an array */
        snprintf(canon, sizeof canon, "card.mesh%u.dram", n);
        if (!strcmp(canon, scope)) {
            *ch = n;
            return true;
        }
    }
    char d[200];
    snprintf(d, sizeof d, "no public array '%.60s' '%.30s' (SC lists them)", scope, var);
    set_error(ss, "E %s", d);
    return false;
}

static void do_scan(session *ss, const char *substr)
{
    const kt_serve_target *tg = ss->tg;
    size_t at = (size_t)snprintf(ss->reply, REPLY_CAP, "V");
    for (unsigned ch = 0; tg->dram_read && tg->dram_write && ch < tg->meshes; ch++) {
        char scope[40];
        snprintf(scope, sizeof scope, "card.mesh%u.dram", ch);
        if (strstr(scope, substr) && at < REPLY_CAP - 100)
            at += (size_t)snprintf(ss->reply + at, REPLY_CAP - at, " %s:%s:%" PRIu64 ":%d", scope,
                                   ARRAY_VAR, tg->dram_bytes / KT_BACKDOOR_WORD, KT_BACKDOOR_WORD);
    }
    if (at == 1)
        strcpy(ss->reply, "V "); /* no array matches: an empty value keeps its space */
}

/* PE scope var index count → V hex; PK scope var index hex → OK. */
static void do_peek_poke(session *ss, char **tok, bool poke)
{
    const kt_serve_target *tg = ss->tg;
    unsigned ch;
    uint64_t index, count;
    if (!array_of(ss, tok[1], tok[2], &ch) || !hexarg(ss, tok[3], "index", &index))
        return;
    size_t digits = strlen(tok[4]);
    if (poke) {
        if (!digits || digits % (2 * KT_BACKDOOR_WORD) || digits / 2 > SERVE_MAX_BLOCK ||
            !kt_hex_decode(tok[4], digits, ss->block)) {
            set_error(ss, "E %s",
                      "PK data is not whole 64-byte elements of hex within 0x10000 bytes");
            return;
        }
        count = digits / (2 * KT_BACKDOOR_WORD);
    } else if (!hexarg(ss, tok[4], "count", &count)) {
        return;
    }
    uint64_t words = tg->dram_bytes / KT_BACKDOOR_WORD;
    char d[160];
    if (!count || count > SERVE_MAX_BLOCK / KT_BACKDOOR_WORD || index > words ||
        count > words - index) {
        snprintf(d, sizeof d,
                 "elements 0x%" PRIx64 "+0x%" PRIx64 " are not within the 0x%" PRIx64
                 " of the array (at most 0x%x per command)",
                 index, count, words, SERVE_MAX_BLOCK / KT_BACKDOOR_WORD);
        set_error(ss, "E %s", d);
        return;
    }
    size_t len = (size_t)count * KT_BACKDOOR_WORD;
    uint64_t off = index * KT_BACKDOOR_WORD;
    if (poke) {
        if (tg->dram_write(tg->ctx, ch, off, ss->block, len))
            return lib_error(ss);
        strcpy(ss->reply, "OK");
        return;
    }
    npk_status s = tg->dram_read(tg->ctx, ch, off, ss->block, len);
    if (s && s != NPK_EFAULT) /* never-written words read as zeros, as through BR */
        return lib_error(ss);
    npk_clear_error();
    memcpy(ss->reply, "V ", 2);
    kt_hex_encode(ss->block, len, ss->reply + 2);
}

/* One command line into ss->reply; returns false for Q (no reply). */
static bool command(session *ss, char *line)
{
    char *tok[6];
    int n = split(line, tok, 6);
    const char *name = n ? tok[0] : "";
    const kt_serve_target *tg = ss->tg;
    uint64_t a, v;
    ss->reply[0] = '\0';
    /* Each row: the name, how many arguments it takes, and how many of the last may be left out
     * ("SC" alone, or "SC " with an empty substring, lists every array). */
    static const struct {
        const char *name;
        int args, optional;
    } forms[] = {{"R", 1, 0}, {"W", 2, 0},  {"RB", 2, 0}, {"WB", 2, 0}, {"T", 1, 0},  {"S", 0, 0},
                 {"Q", 0, 0}, {"BR", 2, 0}, {"BW", 3, 0}, {"SC", 1, 1}, {"PE", 4, 0}, {"PK", 4, 0}};
    int want = -1, optional = 0;
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
        if (!strcmp(name, forms[i].name)) {
            want = forms[i].args;
            optional = forms[i].optional;
        }
    if (want < 0) {
        set_error(ss, "E unknown command '%.40s'", name);
        return true;
    }
    for (int k = n; k <= want && n + optional > want; k++)
        tok[k] = ""; /* what was left out is empty */
    if (n + optional > want && n <= want)
        n = want + 1;
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
        else if (hexarg(ss, tok[1], "cycles", &v))
            do_advance(ss, v);
    } else if (!strcmp(name, "S")) {
        do_status(ss);
    } else if (!strcmp(name, "SC")) {
        do_scan(ss, tok[1]);
    } else if (!strcmp(name, "PE") || !strcmp(name, "PK")) {
        do_peek_poke(ss, tok, !strcmp(name, "PK"));
    } else {
        do_backdoor(ss, tok, !strcmp(name, "BW"));
    }
    return true;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One line written to a peer without waiting for it (small, and the socket new). */
static void say_and_close(int fd, const char *line)
{
    (void)!send(fd, line, strlen(line), MSG_NOSIGNAL | MSG_DONTWAIT);
    close(fd);
}

/* Wait for the next command to start, turning away whoever else connects meanwhile. False (and
 * the client told why) when it does not come within idle_ms; true when bytes or the end of the
 * stream are there. */
static bool await_command(session *ss, unsigned idle_ms)
{
    if (kt_carrier_buffered(&ss->c))
        return true;
    int64_t deadline = idle_ms == UINT32_MAX ? -1 : now_ms() + idle_ms;
    for (;;) {
        struct pollfd p[2] = {{ss->c.rfd, POLLIN, 0}, {ss->listen_fd, POLLIN, 0}};
        int64_t left = deadline < 0 ? -1 : deadline - now_ms();
        int r = poll(p, ss->listen_fd >= 0 ? 2 : 1, left < 0 && deadline >= 0 ? 0 : (int)left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 || p[0].revents)
            return true; /* the read says what happened */
        if (r > 0 && p[1].revents) {
            int fd = accept(ss->listen_fd, NULL, NULL);
            if (fd >= 0)
                say_and_close(fd, "E busy: another client is connected (one at a time; an idle "
                                  "one is closed after its idle timeout)\n");
            continue;
        }
        if (deadline >= 0 && now_ms() >= deadline) {
            char why[100];
            int n = snprintf(why, sizeof why, "E idle for %u ms; connection closed\n", idle_ms);
            kt_carrier_send(&ss->c, why, (size_t)n);
            return false;
        }
    }
}

static npk_status serve(const kt_serve_target *tg, int in_fd, int out_fd, int listen_fd)
{
    unsigned frame_ms = tg->frame_ms ? tg->frame_ms : KT_SERVE_FRAME_MS;
    unsigned idle_ms = tg->idle_ms ? tg->idle_ms : KT_SERVE_IDLE_MS;
    session ss = {tg, listen_fd, {0}, calloc(1, REPLY_CAP + 1), calloc(1, SERVE_MAX_BLOCK)};
    kt_carrier_from_fds(&ss.c, in_fd, out_fd, "line client", frame_ms == UINT32_MAX ? 0 : frame_ms);
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
        if (!await_command(&ss, idle_ms))
            break;
        if ((s = kt_carrier_line(&ss.c, SERVE_LINE_MAX, &line, &eof))) {
            if (s == NPK_EPROTO) /* a line too long: say so, then give up on the stream */
                kt_carrier_send(&ss.c, "E line too long\n", 16);
            else if (s == NPK_ETIMEDOUT) {
                char why[100];
                int n = snprintf(why, sizeof why,
                                 "E a command line not finished within %u ms; connection closed\n",
                                 frame_ms);
                kt_carrier_send(&ss.c, why, (size_t)n);
            }
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

npk_status kt_serve_line_session(const kt_serve_target *tg, int in_fd, int out_fd)
{
    return serve(tg, in_fd, out_fd, -1);
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
        serve(tg, fd, fd, listen_fd); /* a broken session ends only that connection */
    }
}
