/* SPDX-License-Identifier: MIT */
/* The card-daemon protocol, served: many clients, one operation at a time (a single thread runs
 * every operation to completion before reading the next frame), leases and run tokens that die
 * with their connection. */
#define _POSIX_C_SOURCE 200809L /* accept, poll */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "carrier.h"
#include "hexcodec.h"
#include "jsonframe.h"
#include "npukit/kt_remote.h"
#include "npukit/kt_serve.h"

enum {
    MAX_CLIENTS = 32,
    MAX_LEASES = 64,
    MAX_RUNS = 64,
    SERVE_MAX_BLOCK = 16 << 20, /* bytes of one read_block: its hex must fit one frame */
    SEND_TIMEOUT_MS = 10000,    /* a client that does not read its replies is dropped */
};

typedef struct client {
    kt_carrier c;
    unsigned id;
    uint8_t hdr[4];
    size_t have, need; /* bytes of the header or body read so far, and the body's length */
    char *body;        /* NULL while reading the header */
} client;

typedef struct lease {
    uint64_t id, base, end;
    unsigned client, mesh;
} lease;

typedef struct run_token {
    uint64_t id;
    unsigned client, mesh_mask;
    char level[8];
} run_token;

typedef struct server {
    const kt_serve_target *tg;
    client *cl[MAX_CLIENTS];
    unsigned ncl, next_client;
    lease leases[MAX_LEASES];
    unsigned nleases;
    run_token runs[MAX_RUNS];
    unsigned nruns;
    uint64_t next_lease, next_run;
    bool stop;
    void (*log)(const char *line);
} server;

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

/* ---- request fields ---- */

static npk_status need_u64(const cJSON *req, const char *op, const char *key, uint64_t *v)
{
    if (kt_json_u64(req, key, v))
        return NPK_OK;
    return npk_fail(NPK_EINVAL, "op %s needs '%s', an unsigned integer", op, key);
}

static npk_status need_mesh(server *sv, const cJSON *req, const char *op, unsigned *mesh)
{
    uint64_t m;
    npk_status s = need_u64(req, op, "mesh", &m);
    if (s)
        return s;
    if (m >= sv->tg->meshes)
        return npk_fail(NPK_EINVAL, "op %s: mesh %" PRIu64 " does not exist (the machine has %u)",
                        op, m, sv->tg->meshes);
    *mesh = (unsigned)m;
    return NPK_OK;
}

/* ---- operations: each fills *value (NULL = JSON null) or fails with a message ---- */

typedef npk_status (*op_fn)(server *sv, client *cl, const cJSON *req, cJSON **value);

static npk_status op_hello(server *sv, client *cl, const cJSON *req, cJSON **value)
{
    (void)cl;
    (void)req;
    cJSON *v = cJSON_CreateObject();
    cJSON_AddStringToObject(v, "board", sv->tg->name);
    cJSON_AddNumberToObject(v, "meshes", sv->tg->meshes);
    cJSON_AddStringToObject(v, "backend", "ktsim");
    cJSON_AddNumberToObject(v, "beat_bytes", 8);
    cJSON_AddBoolToObject(v, "governor", 0);
    cJSON_AddBoolToObject(v, "engine", sv->tg->engine);
    *value = v;
    return NPK_OK;
}

static npk_status op_read64(server *sv, client *cl, const cJSON *req, cJSON **value)
{
    (void)cl;
    uint64_t a, v;
    npk_status s = need_u64(req, "read64", "addr", &a);
    if (!s)
        s = kt_read64(sv->tg->t, a, &v);
    if (!s)
        *value = kt_json_u64_item(v);
    return s;
}

static npk_status op_write64(server *sv, client *cl, const cJSON *req, cJSON **value)
{
    (void)cl;
    (void)value;
    uint64_t a, v;
    npk_status s = need_u64(req, "write64", "addr", &a);
    if (!s)
        s = need_u64(req, "write64", "data", &v);
    return s ? s : kt_write64(sv->tg->t, a, v);
}

/* 32-bit accesses as the word that holds them; a write keeps the other half (read-merge-write). */
static npk_status op_read32(server *sv, client *cl, const cJSON *req, cJSON **value)
{
    (void)cl;
    uint64_t a, w;
    npk_status s = need_u64(req, "read32", "addr", &a);
    if (!s && (a & 3))
        s = npk_fail(NPK_EINVAL, "read32 address 0x%" PRIx64 " is not 4-byte aligned", a);
    if (!s)
        s = kt_read64(sv->tg->t, a & ~(uint64_t)7, &w);
    if (!s)
        *value = kt_json_u64_item((w >> (a & 4 ? 32 : 0)) & 0xFFFFFFFFu);
    return s;
}

static npk_status op_write32(server *sv, client *cl, const cJSON *req, cJSON **value)
{
    (void)cl;
    (void)value;
    uint64_t a, d, w;
    npk_status s = need_u64(req, "write32", "addr", &a);
    if (!s)
        s = need_u64(req, "write32", "data", &d);
    if (!s && ((a & 3) || d > 0xFFFFFFFFu))
        s = npk_fail(NPK_EINVAL,
                     "write32 at 0x%" PRIx64 " of 0x%" PRIx64 ": 4-byte aligned 32-bit values only",
                     a, d);
    if (!s)
        s = kt_read64(sv->tg->t, a & ~(uint64_t)7, &w);
    if (s)
        return s;
    unsigned sh = a & 4 ? 32 : 0;
    w = (w & ~(0xFFFFFFFFull << sh)) | d << sh;
    return kt_write64(sv->tg->t, a & ~(uint64_t)7, w);
}

static npk_status op_read_block(server *sv, client *cl, const cJSON *req, cJSON **value)
{
    (void)cl;
    uint64_t a, n;
    npk_status s = need_u64(req, "read_block", "addr", &a);
    if (!s)
        s = need_u64(req, "read_block", "nbytes", &n);
    if (!s && n > SERVE_MAX_BLOCK)
        s = npk_fail(NPK_ELIMIT, "read_block of %" PRIu64 " bytes exceeds %d", n, SERVE_MAX_BLOCK);
    if (s)
        return s;
    uint8_t *buf = malloc(n ? n : 1);
    char *hex = malloc(2 * n + 1);
    if (!buf || !hex)
        s = npk_fail(NPK_ENOMEM, "read_block of %" PRIu64 " bytes: out of memory", n);
    if (!s)
        s = kt_read_block(sv->tg->t, a, buf, (size_t)n);
    if (!s) {
        kt_hex_encode(buf, (size_t)n, hex);
        *value = cJSON_CreateString(hex);
    }
    free(buf);
    free(hex);
    return s;
}

static npk_status op_write_block(server *sv, client *cl, const cJSON *req, cJSON **value)
{
    (void)cl;
    (void)value;
    uint64_t a;
    npk_status s = need_u64(req, "write_block", "addr", &a);
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(req, "data");
    if (s)
        return s;
    if (!cJSON_IsString(d))
        return npk_fail(NPK_EINVAL, "op write_block needs 'data', a hex string");
    size_t digits = strlen(d->valuestring);
    uint8_t *buf = malloc(digits / 2 + 1);
    if (!buf)
        return npk_fail(NPK_ENOMEM, "write_block of %zu bytes: out of memory", digits / 2);
    if (!kt_hex_decode(d->valuestring, digits, buf))
        s = npk_fail(NPK_EINVAL, "write_block data is not whole bytes of hex (%zu characters)",
                     digits);
    else
        s = kt_write_block(sv->tg->t, a, buf, digits / 2);
    free(buf);
    return s;
}

static npk_status op_status(server *sv, client *cl, const cJSON *req, cJSON **value)
{
    (void)cl;
    (void)req;
    const kt_serve_target *tg = sv->tg;
    cJSON *v = cJSON_CreateObject();
    cJSON_AddNumberToObject(v, "clients", sv->ncl);
    cJSON *ls = cJSON_AddObjectToObject(v, "leases");
    for (unsigned i = 0; i < sv->nleases; i++) {
        char key[24];
        snprintf(key, sizeof key, "%" PRIu64, sv->leases[i].id);
        cJSON *l = cJSON_AddObjectToObject(ls, key);
        cJSON_AddNumberToObject(l, "client", sv->leases[i].client);
        cJSON_AddNumberToObject(l, "mesh", sv->leases[i].mesh);
        kt_json_add_u64(l, "base", sv->leases[i].base);
        kt_json_add_u64(l, "end", sv->leases[i].end);
    }
    cJSON_AddNumberToObject(v, "runs", sv->nruns);
    cJSON_AddStringToObject(v, "machine", tg->name);
    if (tg->cycle)
        kt_json_add_u64(v, "cycle", tg->cycle(tg->ctx));
    const char *f = tg->fault ? tg->fault(tg->ctx) : NULL;
    if (f)
        cJSON_AddStringToObject(v, "fault", f);
    else
        cJSON_AddNullToObject(v, "fault");
    cJSON_AddNullToObject(v, "governor");
    *value = v;
    return NPK_OK;
}

static npk_status op_claim(server *sv, client *cl, const cJSON *req, cJSON **value)
{
    unsigned mesh = 0;
    uint64_t base = 0, size = 0;
    npk_status s = need_mesh(sv, req, "claim", &mesh);
    if (!s)
        s = need_u64(req, "claim", "base", &base);
    if (!s)
        s = need_u64(req, "claim", "size", &size);
    if (!s && (!size || base + size < base))
        s = npk_fail(NPK_EINVAL, "claim of 0x%" PRIx64 " bytes at 0x%" PRIx64 ": empty or wrapping",
                     size, base);
    if (s)
        return s;
    for (unsigned i = 0; i < sv->nleases; i++) {
        const lease *l = &sv->leases[i];
        if (l->mesh == mesh && base < l->end && l->base < base + size)
            return npk_fail(NPK_EBUSY,
                            "mesh %u already has a lease on [0x%" PRIx64 ", 0x%" PRIx64
                            ") held by client %u, "
                            "overlapping [0x%" PRIx64 ", 0x%" PRIx64 ")",
                            mesh, l->base, l->end, l->client, base, base + size);
    }
    if (sv->nleases == MAX_LEASES)
        return npk_fail(NPK_ELIMIT, "%d leases are live already", MAX_LEASES);
    lease *l = &sv->leases[sv->nleases++];
    *l = (lease){++sv->next_lease, base, base + size, cl->id, mesh};
    *value = kt_json_u64_item(l->id);
    return NPK_OK;
}

static npk_status op_release(server *sv, client *cl, const cJSON *req, cJSON **value)
{
    (void)value;
    uint64_t id;
    npk_status s = need_u64(req, "release", "lease", &id);
    if (s)
        return s;
    for (unsigned i = 0; i < sv->nleases; i++)
        if (sv->leases[i].id == id) {
            if (sv->leases[i].client != cl->id)
                return npk_fail(NPK_EBUSY, "lease %" PRIu64 " is held by client %u, not this one",
                                id, sv->leases[i].client);
            sv->leases[i] = sv->leases[--sv->nleases];
            return NPK_OK;
        }
    return NPK_OK; /* releasing what is not held is harmless, as on the card daemon */
}

/* Clock profiles a run may ask for; the simulator has no clocks to change, so a run is a token
 * that records its meshes and level and dies with its connection. */
static const char *const levels[] = {"low", "mid", "ship", NULL};

static npk_status op_run_begin(server *sv, client *cl, const cJSON *req, cJSON **value)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(req, "meshes");
    const cJSON *lv = cJSON_GetObjectItemCaseSensitive(req, "level");
    if (!cJSON_IsArray(m))
        return npk_fail(NPK_EINVAL, "op run_begin needs 'meshes', a list of mesh numbers");
    unsigned mask = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, m)
    {
        if (!cJSON_IsNumber(it) || it->valuedouble < 0 || it->valuedouble >= sv->tg->meshes ||
            it->valuedouble != (double)(unsigned)it->valuedouble)
            return npk_fail(NPK_EINVAL, "run_begin: mesh %g does not exist (the machine has %u)",
                            cJSON_IsNumber(it) ? it->valuedouble : -1.0, sv->tg->meshes);
        mask |= 1u << (unsigned)it->valuedouble;
    }
    bool known = false;
    for (const char *const *l = levels; *l && cJSON_IsString(lv); l++)
        known |= !strcmp(*l, lv->valuestring);
    if (!known)
        return npk_fail(NPK_EINVAL, "run_begin needs 'level', one of low, mid, ship");
    if (sv->nruns == MAX_RUNS)
        return npk_fail(NPK_ELIMIT, "%d runs are live already", MAX_RUNS);
    run_token *r = &sv->runs[sv->nruns++];
    *r = (run_token){++sv->next_run, cl->id, mask, ""};
    snprintf(r->level, sizeof r->level, "%s", lv->valuestring);
    *value = kt_json_u64_item(r->id);
    return NPK_OK;
}

static npk_status op_run_end(server *sv, client *cl, const cJSON *req, cJSON **value)
{
    (void)cl;
    (void)value;
    uint64_t id;
    npk_status s = need_u64(req, "run_end", "token", &id);
    if (s)
        return s;
    for (unsigned i = 0; i < sv->nruns; i++)
        if (sv->runs[i].id == id) {
            sv->runs[i] = sv->runs[--sv->nruns];
            return NPK_OK;
        }
    return npk_fail(NPK_EINVAL, "run_end: no live run %" PRIu64, id);
}

static npk_status op_shutdown(server *sv, client *cl, const cJSON *req, cJSON **value)
{
    (void)cl;
    (void)req;
    (void)value;
    sv->stop = true;
    return NPK_OK;
}

static const struct {
    const char *name;
    op_fn fn;
} ops[] = {
    {"hello", op_hello},
    {"read64", op_read64},
    {"write64", op_write64},
    {"read32", op_read32},
    {"write32", op_write32},
    {"read_block", op_read_block},
    {"write_block", op_write_block},
    {"status", op_status},
    {"claim", op_claim},
    {"release", op_release},
    {"run_begin", op_run_begin},
    {"run_end", op_run_end},
    {"shutdown", op_shutdown},
};

/* ---- connections ---- */

static bool reply(server *sv, client *cl, const cJSON *id, npk_status s, cJSON *value)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddItemToObject(r, "id", id ? cJSON_Duplicate(id, 1) : cJSON_CreateNull());
    cJSON_AddBoolToObject(r, "ok", s == NPK_OK);
    if (s)
        cJSON_AddStringToObject(r, "error", npk_last_error());
    else
        cJSON_AddItemToObject(r, "value", value ? value : cJSON_CreateNull());
    npk_status ws = kt_frame_send(&cl->c, r);
    cJSON_Delete(r);
    if (ws)
        say(sv, "client %u: reply not sent: %s", cl->id, npk_last_error());
    return ws == NPK_OK;
}

/* Run one request; false when the connection must close. */
static bool handle(server *sv, client *cl, const char *body, size_t len)
{
    cJSON *req;
    npk_status s = kt_frame_parse(body, len, &req);
    if (s) {
        say(sv, "client %u: %s; connection closed", cl->id, npk_last_error());
        reply(sv, cl, NULL, s, NULL);
        return false;
    }
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(req, "id");
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(req, "op");
    cJSON *value = NULL;
    op_fn fn = NULL;
    for (size_t i = 0; cJSON_IsString(op) && i < sizeof ops / sizeof ops[0]; i++)
        if (!strcmp(op->valuestring, ops[i].name))
            fn = ops[i].fn;
    if (!fn)
        s = npk_fail(NPK_EINVAL, "unknown op %.60s",
                     cJSON_IsString(op) ? op->valuestring : "(none)");
    else
        s = fn(sv, cl, req, &value);
    if (s) {
        cJSON_Delete(value);
        value = NULL;
    }
    bool ok = reply(sv, cl, id, s, value);
    cJSON_Delete(req);
    return ok;
}

/* Read what is there; run every whole frame. False when the connection ends. */
static bool client_readable(server *sv, client *cl)
{
    size_t want = cl->body ? cl->need - cl->have : 4 - cl->have;
    char *dst = cl->body ? cl->body + cl->have : (char *)cl->hdr + cl->have;
    ssize_t n = read(cl->c.rfd, dst, want);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return true;
    if (n <= 0) {
        if (cl->have || cl->body)
            say(sv, "client %u: closed in the middle of a frame", cl->id);
        return false;
    }
    cl->have += (size_t)n;
    if (!cl->body && cl->have == 4) {
        if (kt_frame_length(cl->hdr, &cl->need)) {
            say(sv, "client %u: %s; connection closed", cl->id, npk_last_error());
            reply(sv, cl, NULL, NPK_EPROTO, NULL);
            return false;
        }
        cl->body = malloc(cl->need);
        cl->have = 0;
        if (!cl->body) {
            say(sv, "client %u: out of memory for a frame of %zu bytes; connection closed", cl->id,
                cl->need);
            return false;
        }
    } else if (cl->body && cl->have == cl->need) {
        bool keep = handle(sv, cl, cl->body, cl->need);
        free(cl->body);
        cl->body = NULL;
        cl->have = 0;
        return keep;
    }
    return true;
}

static void drop(server *sv, unsigned i)
{
    client *cl = sv->cl[i];
    for (unsigned k = 0; k < sv->nleases;) /* what a client held dies with it */
        if (sv->leases[k].client == cl->id)
            sv->leases[k] = sv->leases[--sv->nleases];
        else
            k++;
    for (unsigned k = 0; k < sv->nruns;)
        if (sv->runs[k].client == cl->id)
            sv->runs[k] = sv->runs[--sv->nruns];
        else
            k++;
    say(sv, "client %u: disconnected", cl->id);
    kt_carrier_close(&cl->c, 0);
    free(cl->body);
    free(cl);
    sv->cl[i] = sv->cl[--sv->ncl];
}

static bool add_client(server *sv, int rfd, int wfd)
{
    client *cl = calloc(1, sizeof *cl);
    if (!cl || sv->ncl == MAX_CLIENTS) {
        say(sv, "refused a connection: %d clients are connected already", MAX_CLIENTS);
        free(cl);
        return false;
    }
    cl->id = ++sv->next_client;
    char what[32];
    snprintf(what, sizeof what, "client %u", cl->id);
    kt_carrier_from_fds(&cl->c, rfd, wfd, what, SEND_TIMEOUT_MS);
    sv->cl[sv->ncl++] = cl;
    say(sv, "client %u: connected", cl->id);
    return true;
}

npk_status kt_serve_daemon(const kt_serve_target *tg, int listen_fd, int in_fd, int out_fd,
                           void (*log)(const char *line))
{
    server *sv = calloc(1, sizeof *sv);
    if (!sv)
        return npk_fail(NPK_ENOMEM, "daemon server: out of memory");
    sv->tg = tg;
    sv->log = log;
    npk_status s = NPK_OK;
    if (listen_fd < 0)
        add_client(sv, in_fd, out_fd);
    while (!sv->stop && (listen_fd >= 0 || sv->ncl)) {
        struct pollfd p[MAX_CLIENTS + 1];
        unsigned np = 0;
        if (listen_fd >= 0)
            p[np++] = (struct pollfd){listen_fd, POLLIN, 0};
        unsigned first = np;
        for (unsigned i = 0; i < sv->ncl; i++)
            p[np++] = (struct pollfd){sv->cl[i]->c.rfd, POLLIN, 0};
        if (poll(p, np, -1) < 0) {
            if (errno == EINTR)
                continue;
            s = npk_fail(NPK_EIO, "daemon server: poll: %s", strerror(errno));
            break;
        }
        /* Clients first, from the last so a drop does not disturb the ones still to visit. */
        for (unsigned i = sv->ncl; i-- > 0 && !sv->stop;)
            if (p[first + i].revents && !client_readable(sv, sv->cl[i]))
                drop(sv, i);
        if (listen_fd >= 0 && (p[0].revents & POLLIN)) {
            int fd = accept(listen_fd, NULL, NULL);
            if (fd >= 0 && !add_client(sv, fd, fd))
                close(fd);
        }
    }
    while (sv->ncl)
        drop(sv, sv->ncl - 1);
    free(sv);
    return s;
}
