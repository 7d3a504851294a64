/* SPDX-License-Identifier: MIT */
/* The card-daemon protocol, served: many clients, one operation at a time (a single thread runs
 * every operation to completion before reading the next frame), leases and run tokens that die
 * with their connection.
 *
 * No client can hold up the others: the loop never blocks on one. Requests are read as bytes
 * arrive (a body's buffer grows with what came, never to the length a header claims), replies
 * are queued and written as the client takes them, and each connection has three deadlines: a
 * started frame must be whole within frame_ms, a queued reply taken within frame_ms, and the next
 * request must start within idle_ms. A client that misses one is told why and dropped; a client
 * that finds the server full is told so and turned away.
 *
 * The idle timeout counts work, not traffic: a connection's idle_ms runs from its last request
 * that reached the machine or its holdings, so hello or status every few minutes does not keep a
 * slot. Slots are shared out by peer address (kt_serve.h): no address holds more than
 * KT_SERVE_MAX_PER_PEER, and the last KT_SERVE_RESERVED slots admit only addresses that hold
 * none, so one host's idle connections cannot lock every other host out. */
#define _POSIX_C_SOURCE 200809L /* accept, poll, clock_gettime */
#include <errno.h>
#include <arpa/inet.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "jsonframe.h"
#include "serve_daemon.h"

enum {
    BODY_CHUNK = 64 * 1024, /* a body's buffer grows by what arrived, at least this much */
    /* A frame this long or longer is parsed on the parsing thread (serve_parse.c): checking
     * and parsing a 4 MiB write_block's 8 MiB of hex here would hold every other client up. */
    PARSE_INLINE_BYTES = 256 * 1024,
    /* The shape of the largest request an op reads: an object holding a list of meshes. */
    REQUEST_DEPTH = 2,
    REQUEST_VALUES = 64,
};

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static unsigned frame_ms(const server *sv)
{
    return sv->tg->frame_ms ? sv->tg->frame_ms : KT_SERVE_FRAME_MS;
}

static unsigned idle_ms(const server *sv)
{
    return sv->tg->idle_ms ? sv->tg->idle_ms : KT_SERVE_DAEMON_IDLE_MS;
}

/* now + ms, or -1 (no deadline) for UINT32_MAX. */
static int64_t after(unsigned ms) { return ms == UINT32_MAX ? -1 : now_ms() + ms; }

static void say(server *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(server *sv, const char *fmt, ...)
{
    if (!sv->log)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    sv->log(line);
}

/* ---- replies: queued, written as the client takes them ---- */

/* Write what the client takes now, and at most one more piece of a read_block's reply (one per
 * turn: encoding the pieces is work too); false when the connection is broken. */
static bool flush(server *sv, client *cl)
{
    for (bool refilled = false;;) {
        while (cl->out_off < cl->out_len) {
            size_t n;
            if (kt_carrier_write_some(&cl->c, cl->out + cl->out_off, cl->out_len - cl->out_off,
                                      &n)) {
                say(sv, "client %u: reply not sent: %s", cl->id, npk_last_error());
                return false;
            }
            if (!n)
                return true; /* the rest when poll says the client has room */
            cl->out_off += n;
        }
        if (!cl->hex.bytes)
            break;
        if (refilled)
            return true; /* the next piece next turn */
        if (!kt_hex_piece(&cl->hex, &cl->out, &cl->out_len)) {
            say(sv, "client %u: out of memory for its reply", cl->id);
            return false;
        }
        cl->out_off = 0;
        refilled = true;
    }
    free(cl->out);
    cl->out = NULL;
    cl->out_len = cl->out_off = 0;
    /* From the last work, not from this reply: a question (hello, status) keeps nothing alive. */
    cl->idle_deadline = cl->work_deadline;
    return true;
}

/* {"id", "ok", "value"} or {"id", "ok": false, "error": "Type: message"} as a frame. */
static npk_status reply_frame(server *sv, const cJSON *id, npk_status s, cJSON *value, char **f,
                              size_t *n)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddItemToObject(r, "id", id ? cJSON_Duplicate(id, 1) : cJSON_CreateNull());
    cJSON_AddBoolToObject(r, "ok", s == NPK_OK);
    if (s) {
        char text[600];
        snprintf(text, sizeof text, "%s: %s", sv->err_type ? sv->err_type : kt_daemon_error_type(s),
                 npk_last_error());
        cJSON_AddStringToObject(r, "error", text);
    } else {
        cJSON_AddItemToObject(r, "value", value ? value : cJSON_CreateNull());
    }
    sv->err_type = NULL;
    npk_status es = kt_frame_encode(r, f, n);
    cJSON_Delete(r);
    return es;
}

/* The frame queued for the client (one request at a time: nothing else is), and what it takes
 * now written. */
static bool queue(server *sv, client *cl, char *f, size_t n)
{
    cl->out = f;
    cl->out_len = n;
    cl->out_off = 0;
    cl->out_deadline = after(frame_ms(sv));
    return flush(sv, cl);
}

/* The reply queued; false when it cannot be (out of memory, or the connection broke on the first
 * write). */
static bool reply(server *sv, client *cl, const cJSON *id, npk_status s, cJSON *value)
{
    char *f = NULL;
    size_t n = 0;
    if (reply_frame(sv, id, s, value, &f, &n)) {
        say(sv, "client %u: reply not encoded: %s", cl->id, npk_last_error());
        return false;
    }
    return queue(sv, cl, f, n);
}

/* A finished read_block's reply, byte for byte the frame reply() would make of its hex string:
 * the frame of an empty string with the length of the whole, cut before the string's closing
 * quote, then the hex a piece per turn and the tail (flush). */
static bool reply_hex(server *sv, client *cl, const cJSON *id)
{
    char *f = NULL;
    size_t n = 0;
    if (reply_frame(sv, id, NPK_OK, cJSON_CreateString(""), &f, &n)) {
        say(sv, "client %u: reply not encoded: %s", cl->id, npk_last_error());
        return false;
    }
    kt_block_to_stream(&cl->block, &cl->hex, n);
    size_t whole = n - 4 + 2 * cl->hex.len;
    f[0] = (char)(whole >> 24);
    f[1] = (char)(whole >> 16);
    f[2] = (char)(whole >> 8);
    f[3] = (char)whole;
    return queue(sv, cl, f, n - 2); /* the frame ends `""}`: the last two come after the hex */
}

/* An error reply for a request that could not be read, after which the connection ends. */
static bool refuse(server *sv, client *cl, npk_status s)
{
    say(sv, "client %u: %s; connection closed", cl->id, npk_last_error());
    cl->closing = true;
    return reply(sv, cl, NULL, s, NULL);
}

/* ---- requests ---- */

/* The op as upstream's server quotes it in "unknown op ...": Python's repr() of the value
 * (a string in single quotes unless it holds one and no double quote; backslash, the quote and
 * control characters escaped; None, True, False), at most 60 characters of it. Other values
 * are shown as their JSON. */
static void op_repr(const cJSON *op, char *out, size_t cap)
{
    if (!op || cJSON_IsNull(op)) {
        snprintf(out, cap, "None");
        return;
    }
    if (cJSON_IsBool(op)) {
        snprintf(out, cap, "%s", cJSON_IsTrue(op) ? "True" : "False");
        return;
    }
    if (!cJSON_IsString(op)) {
        char *json = cJSON_PrintUnformatted(op);
        snprintf(out, cap, "%.60s", json ? json : "?");
        free(json);
        return;
    }
    const char *v = op->valuestring;
    char q = strchr(v, '\'') && !strchr(v, '"') ? '"' : '\'';
    size_t o = 0;
    out[o++] = q;
    for (size_t i = 0; v[i] && i < 60 && o + 6 < cap; i++) {
        unsigned char c = (unsigned char)v[i];
        if (c == '\\' || c == (unsigned char)q)
            o += (size_t)snprintf(out + o, cap - o, "\\%c", c);
        else if (c == '\n' || c == '\r' || c == '\t')
            o += (size_t)snprintf(out + o, cap - o, "\\%c", c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
        else if (c < 0x20 || c == 0x7f)
            o += (size_t)snprintf(out + o, cap - o, "\\x%02x", c);
        else
            out[o++] = (char)c;
    }
    out[o++] = q;
    out[o] = '\0';
}

/* Run a parsed request (and delete it); false when the connection must close. */
static bool run_request(server *sv, client *cl, cJSON *req)
{
    npk_status s;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(req, "id");
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(req, "op");
    cJSON *value = NULL;
    bool work = false;
    kt_daemon_op_fn fn = cJSON_IsString(op) ? kt_daemon_op(op->valuestring, &work) : NULL;
    if (!fn) {
        char shown[4 * 60 + 8];
        op_repr(op, shown, sizeof shown);
        sv->err_type = "ValueError";
        s = npk_fail(NPK_EINVAL, "unknown op %s", shown);
    } else {
        s = fn(sv, cl, req, &value);
    }
    cl->asked_only = !work;
    if (work)
        cl->work_deadline = after(idle_ms(sv));
    if (!s && kt_block_adopt(&cl->block, req))
        return true; /* a large read_block, a chunk per turn: its reply once all are read */
    if (s) {
        cJSON_Delete(value);
        value = NULL;
    }
    bool ok = reply(sv, cl, id, s, value);
    cJSON_Delete(req);
    return ok;
}

/* Parse and run one frame here; false when the connection must close. */
static bool handle(server *sv, client *cl, const char *body, size_t len)
{
    cJSON *req;
    npk_status s = kt_frame_shape(body, len, REQUEST_DEPTH, REQUEST_VALUES);
    if (!s)
        s = kt_frame_parse(body, len, &req);
    /* The parsed request holds all of it: the frame's bytes go back before the op runs, so the
     * largest request costs the server its frame once, not twice. */
    free(cl->body);
    cl->body = NULL;
    cl->body_cap = 0;
    return s ? refuse(sv, cl, s) : run_request(sv, cl, req);
}

/* A large frame goes to the parsing thread; false when it cannot (then it is parsed here). */
static bool parse_later(server *sv, client *cl)
{
    parse_job *j;
    if (cl->need < PARSE_INLINE_BYTES || kt_daemon_parser_start(sv) || !(j = calloc(1, sizeof *j)))
        return false;
    j->client = cl->id;
    j->body = cl->body;
    j->len = cl->need;
    cl->body = NULL;
    cl->body_cap = 0;
    cl->parsing = true;
    kt_daemon_parse_later(sv, j);
    return true;
}

/* ---- a read_block or write_block, a bounded chunk per turn ---- */

/* The next chunk of a client's block; its reply once the last is done or one fails (an error
 * names the chunk the machine refused). */
static bool block_chunk(server *sv, client *cl)
{
    npk_status s;
    if (kt_block_step(&cl->block, sv->tg->t, &s))
        return true;
    cl->asked_only = false;
    cl->work_deadline = after(idle_ms(sv));
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(cl->block.req, "id");
    bool ok = !s && cl->block.read ? reply_hex(sv, cl, id) : reply(sv, cl, id, s, NULL);
    kt_block_end(&cl->block);
    return ok;
}

static client *client_by_id(server *sv, unsigned id, unsigned *at)
{
    for (unsigned i = 0; i < sv->ncl; i++)
        if (sv->cl[i]->id == id) {
            *at = i;
            return sv->cl[i];
        }
    return NULL;
}

/* A job back from the parsing thread: refused, a write_block to do chunk by chunk, or any
 * other request run now. False when its client's connection must close. */
static bool parsed(server *sv, client *cl, parse_job *j)
{
    cl->parsing = false;
    if (!j->req) {
        npk_fail(j->status, "%s", j->why);
        return refuse(sv, cl, j->status);
    }
    cJSON *req = j->req;
    j->req = NULL;
    uint64_t addr;
    if (j->blob && j->blob_len && kt_json_u64(req, "addr", &addr)) {
        kt_block_write_start(&cl->block, req, j->blob, j->blob_len, addr);
        return true;
    }
    return run_request(sv, cl, req);
}

/* Room for `more` body bytes, grown by what arrives rather than by what the header claims. */
static bool grow_body(client *cl, size_t more)
{
    size_t want = cl->have + more;
    if (want <= cl->body_cap)
        return true;
    size_t cap = cl->body_cap ? cl->body_cap : BODY_CHUNK;
    while (cap < want)
        cap *= 2;
    if (cap > cl->need)
        cap = cl->need;
    char *b = realloc(cl->body, cap);
    if (!b)
        return false;
    cl->body = b;
    cl->body_cap = cap;
    return true;
}

/* True when a read of fd would not block now. */
static bool readable_now(int fd)
{
    struct pollfd p = {fd, POLLIN, 0};
    return poll(&p, 1, 0) > 0;
}

/* Read what is there; run a whole frame. False when the connection ends. */
static bool client_readable(server *sv, client *cl)
{
    char chunk[BODY_CHUNK];
    size_t want = cl->need ? cl->need - cl->have : 4 - cl->have;
    if (want > sizeof chunk)
        want = sizeof chunk;
    ssize_t n = read(cl->c.rfd, chunk, want);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return true;
    if (n <= 0) {
        if (cl->have || cl->need)
            say(sv, "client %u: closed in the middle of a frame", cl->id);
        return false;
    }
    if (cl->frame_deadline < 0)
        cl->frame_deadline = after(frame_ms(sv));
    cl->idle_deadline = -1;
    if (!cl->need) { /* the header */
        memcpy(cl->hdr + cl->have, chunk, (size_t)n);
        cl->have += (size_t)n;
        if (cl->have < 4)
            return true;
        npk_status s = kt_frame_length_max(cl->hdr, SERVE_MAX_REQUEST, &cl->need);
        cl->have = 0;
        if (s) {
            cl->need = 0;
            return refuse(sv, cl, s);
        }
        /* The body in the same turn when it is there: a small request costs its client one turn
         * of the loop, not two, beside a client whose large block takes a chunk every turn. */
        return !readable_now(cl->c.rfd) || client_readable(sv, cl);
    }
    if (!grow_body(cl, (size_t)n)) {
        say(sv, "client %u: out of memory for a frame of %zu bytes; connection closed", cl->id,
            cl->need);
        return false;
    }
    memcpy(cl->body + cl->have, chunk, (size_t)n);
    cl->have += (size_t)n;
    if (cl->have < cl->need)
        return true;
    bool keep = parse_later(sv, cl) || handle(sv, cl, cl->body, cl->need); /* frees the body */
    cl->have = cl->need = 0;
    cl->frame_deadline = -1;
    return keep;
}

/* ---- connections ---- */

static void drop(server *sv, unsigned i)
{
    client *cl = sv->cl[i];
    for (unsigned k = 0; k < sv->nleases;) /* what a client held dies with it */
        if (sv->leases[k].client == cl->id)
            sv->leases[k] = sv->leases[--sv->nleases];
        else
            k++;
    for (unsigned k = 0; k < sv->nruns;)
        if (sv->runs[k].client == cl->id) {
            kt_gov_touch(&sv->gov, sv->runs[k].mesh_mask);
            sv->runs[k] = sv->runs[--sv->nruns];
        } else {
            k++;
        }
    say(sv, "client %u: disconnected", cl->id);
    kt_block_end(&cl->block); /* a block under way stops here */
    kt_hex_end(&cl->hex);
    kt_carrier_close(&cl->c, 0);
    free(cl->body);
    free(cl->out);
    free(cl);
    sv->cl[i] = sv->cl[--sv->ncl];
}

/* A frame written once without waiting (it is small and the socket new): the reason a client is
 * turned away, so it does not see only a closed connection. */
/* Read and drop what the peer has sent and the server will not serve. A TCP socket closed with
 * unread input resets the connection, and a reset makes the peer's kernel throw away the reason
 * frame still waiting in its receive queue: the client would see "connection reset" instead of
 * why. Bounded: a peer that keeps sending is not waited for. */
static void discard_input(int fd)
{
    char sink[4096];
    for (int i = 0; i < 64 && recv(fd, sink, sizeof sink, MSG_DONTWAIT) > 0; i++)
        ;
}

static void turn_away(int fd, const char *why)
{
    discard_input(fd);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddNullToObject(r, "id");
    cJSON_AddFalseToObject(r, "ok");
    cJSON_AddStringToObject(r, "error", why);
    char *f = NULL;
    size_t n = 0;
    if (!kt_frame_encode(r, &f, &n))
        (void)!send(fd, f, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    free(f);
    cJSON_Delete(r);
    /* the reason, then the end of the stream; whatever arrived meanwhile is dropped too */
    shutdown(fd, SHUT_WR);
    discard_input(fd);
}

/* Why a connection from `peer` cannot have a slot now (false: it can). */
static bool no_slot(const server *sv, const char *peer, char *why, size_t cap)
{
    unsigned same = 0;
    for (unsigned i = 0; i < sv->ncl; i++)
        same += !strcmp(sv->cl[i]->peer, peer);
    if (sv->ncl == KT_SERVE_MAX_CLIENTS)
        snprintf(why, cap,
                 "ConnectionRefusedError: %d clients are connected already (one that does no "
                 "work is dropped after %u ms); try again later",
                 KT_SERVE_MAX_CLIENTS, idle_ms(sv));
    else if (same >= KT_SERVE_MAX_PER_PEER)
        snprintf(why, cap,
                 "ConnectionRefusedError: %s holds %u connections already, the most one address "
                 "may hold; close one or try again later",
                 peer, same);
    else if (same && sv->ncl >= KT_SERVE_MAX_CLIENTS - KT_SERVE_RESERVED)
        snprintf(why, cap,
                 "ConnectionRefusedError: %u of %d slots are taken and the last %d are kept for "
                 "addresses with no connection (%s holds %u); try again later",
                 sv->ncl, KT_SERVE_MAX_CLIENTS, KT_SERVE_RESERVED, peer, same);
    else
        return false;
    return true;
}

/* The peer's address as text ("127.0.0.1", "::1"); "local" for a pipe or stdio. */
static void peer_of(int fd, char *out, size_t cap)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    snprintf(out, cap, "local");
    if (getpeername(fd, (struct sockaddr *)&ss, &len))
        return;
    if (ss.ss_family == AF_INET)
        inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, out, (socklen_t)cap);
    else if (ss.ss_family == AF_INET6)
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, out, (socklen_t)cap);
}

static bool add_client(server *sv, int rfd, int wfd)
{
    char peer[64], why[300];
    peer_of(rfd, peer, sizeof peer);
    if (no_slot(sv, peer, why, sizeof why)) {
        turn_away(rfd, why);
        say(sv, "turned a connection from %s away: %s", peer,
            why + strlen("ConnectionRefusedError: "));
        return false;
    }
    client *cl = calloc(1, sizeof *cl);
    if (!cl) {
        say(sv, "turned a connection away: out of memory");
        return false;
    }
    cl->id = ++sv->next_client;
    char what[32];
    snprintf(what, sizeof what, "client %u", cl->id);
    kt_carrier_from_fds(&cl->c, rfd, wfd, what, frame_ms(sv));
    cl->frame_deadline = -1;
    cl->idle_deadline = cl->work_deadline = after(idle_ms(sv));
    snprintf(cl->peer, sizeof cl->peer, "%s", peer);
    sv->cl[sv->ncl++] = cl;
    say(sv, "client %u: connected", cl->id);
    return true;
}

/* The deadline a client is waiting on now (-1: none). */
static int64_t deadline_of(const client *cl)
{
    if (cl->parsing || cl->block.active) /* the server is busy with its request, not the client */
        return -1;
    if (cl->out)
        return cl->out_deadline;
    return cl->frame_deadline >= 0 ? cl->frame_deadline : cl->idle_deadline;
}

/* A client past its deadline: told why (if it can take a frame now) and dropped. */
static void expire(server *sv, unsigned i)
{
    client *cl = sv->cl[i];
    if (cl->out) {
        say(sv, "client %u: left %zu bytes of its reply untaken for %u ms; dropped", cl->id,
            cl->out_len - cl->out_off + kt_hex_left(&cl->hex), frame_ms(sv));
    } else {
        const char *what = cl->frame_deadline >= 0 ? "finish its frame"
                           : cl->asked_only
                               ? "do any work (hello, status and clocks keep no connection alive)"
                               : "send a request";
        unsigned ms = cl->frame_deadline >= 0 ? frame_ms(sv) : idle_ms(sv);
        char why[200];
        snprintf(why, sizeof why,
                 "TimeoutError: the client did not %s within %u ms; "
                 "connection closed",
                 what, ms);
        turn_away(cl->c.wfd, why);
        say(sv, "client %u: did not %s within %u ms; dropped", cl->id, what, ms);
    }
    drop(sv, i);
}

static int poll_timeout(server *sv)
{
    int64_t first = -1;
    for (unsigned i = 0; i < sv->ncl; i++)
        if (sv->cl[i]->block.active)
            return 0; /* a block under way: its next chunk is due at once */
    for (unsigned i = 0; i < sv->ncl; i++) {
        int64_t d = deadline_of(sv->cl[i]);
        if (d >= 0 && (first < 0 || d < first))
            first = d;
    }
    if (first < 0)
        return -1;
    int64_t left = first - now_ms();
    return left < 0 ? 0 : left > 60000 ? 60000 : (int)left;
}

/* Replies still queued at shutdown get one more deadline to go out, piece by piece. */
static void drain(server *sv)
{
    for (unsigned i = 0; i < sv->ncl; i++) {
        client *cl = sv->cl[i];
        while (cl->out && !kt_carrier_send(&cl->c, cl->out + cl->out_off, cl->out_len - cl->out_off)
               && cl->hex.bytes && kt_hex_piece(&cl->hex, &cl->out, &cl->out_len))
            cl->out_off = 0;
    }
}

npk_status kt_serve_daemon(const kt_serve_target *tg, int listen_fd, int in_fd, int out_fd,
                           void (*log)(const char *line))
{
    server *sv = calloc(1, sizeof *sv);
    if (!sv)
        return npk_fail(NPK_ENOMEM, "daemon server: out of memory");
    sv->tg = tg;
    sv->log = log;
    kt_gov_init(&sv->gov, tg->governor_idle_ms);
    npk_status s = NPK_OK;
    if (listen_fd < 0)
        add_client(sv, in_fd, out_fd);
    sv->wake[0] = sv->wake[1] = -1;
    while (!sv->stop && (listen_fd >= 0 || sv->ncl)) {
        struct pollfd p[KT_SERVE_MAX_CLIENTS + 2];
        unsigned np = 0;
        if (listen_fd >= 0)
            p[np++] = (struct pollfd){listen_fd, POLLIN, 0};
        unsigned wake = np;
        p[np++] = (struct pollfd){sv->wake[0], POLLIN, 0}; /* -1 (ignored) until it starts */
        unsigned first = np;
        /* A client with a reply queued is not read from until it takes the reply; nor is one
         * whose request is being parsed or written (one request at a time): fd -1. */
        for (unsigned i = 0; i < sv->ncl; i++) {
            client *cl = sv->cl[i];
            p[np++] = cl->out                           ? (struct pollfd){cl->c.wfd, POLLOUT, 0}
                      : cl->parsing || cl->block.active ? (struct pollfd){-1, 0, 0}
                                                        : (struct pollfd){cl->c.rfd, POLLIN, 0};
        }
        if (poll(p, np, poll_timeout(sv)) < 0) {
            if (errno == EINTR)
                continue;
            s = npk_fail(NPK_EIO, "daemon server: poll: %s", strerror(errno));
            break;
        }
        /* Clients first, from the last so a drop does not disturb the ones still to visit. */
        int64_t t = now_ms();
        for (unsigned i = sv->ncl; i-- > 0 && !sv->stop;) {
            client *cl = sv->cl[i];
            bool keep = true;
            if (p[first + i].revents)
                keep = cl->out ? flush(sv, cl) : client_readable(sv, cl);
            if (keep && cl->closing && !cl->out)
                keep = false;
            if (!keep) {
                drop(sv, i);
                continue;
            }
            int64_t d = deadline_of(cl);
            if (d >= 0 && t >= d)
                expire(sv, i);
        }
        /* Bounded work per turn: one chunk of each block under way, between the other clients'
         * requests. */
        for (unsigned i = sv->ncl; i-- > 0 && !sv->stop;)
            if (sv->cl[i]->block.active && !block_chunk(sv, sv->cl[i]))
                drop(sv, i);
        if (p[wake].revents & POLLIN)
            for (parse_job *j = kt_daemon_parsed(sv), *next; j; j = next) {
                next = j->next;
                unsigned at;
                client *cl = client_by_id(sv, j->client, &at); /* gone: nothing to answer */
                if (cl && !sv->stop && !parsed(sv, cl, j))
                    drop(sv, at);
                kt_daemon_parse_job_free(j);
            }
        if (listen_fd >= 0 && (p[0].revents & POLLIN)) {
            int fd = accept(listen_fd, NULL, NULL);
            if (fd >= 0 && !add_client(sv, fd, fd))
                close(fd);
        }
    }
    kt_daemon_parser_stop(sv);
    drain(sv);
    while (sv->ncl)
        drop(sv, sv->ncl - 1);
    free(sv);
    return s;
}
