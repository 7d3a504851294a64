/* SPDX-License-Identifier: MIT */
/* The card daemon client: the daemon's JSON-frame protocol behind the transport contract, plus
 * the daemon's own operations (leases, runs, status). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carrier.h"
#include "hexcodec.h"
#include "jsonframe.h"
#include "peertext.h"
#include "npukit/kt_remote.h"

struct kt_daemon {
    kt_carrier c;
    uint64_t next_id;
    unsigned beat_bytes;
    char *hello;
    char op[32]; /* the operation in flight, for messages */
    bool dead;   /* the connection failed; every later call repeats why */
    char dead_why[400];
};

/* A failure that leaves the stream at an unknown point: no later reply could be trusted. */
static npk_status kill_conn(kt_daemon *d, npk_status s)
{
    snprintf(d->dead_why, sizeof d->dead_why, "%s", npk_last_error());
    d->dead = true;
    kt_carrier_close(&d->c, 0);
    return npk_fail(s, "daemon %s, op %s: %s (connection closed)", d->c.what + 4, d->op,
                    d->dead_why);
}

/* A JSON value quoted in a message: a string's first characters (escaped) and its length, anything
 * else printed and cut, so a lying peer's huge value costs no more than the quote. */
static const char *quote_value(const cJSON *v, char *buf, size_t len)
{
    if (cJSON_IsString(v))
        return kt_peer_text(v->valuestring, strlen(v->valuestring), 80, buf, len);
    char *text = v ? cJSON_PrintUnformatted(v) : NULL;
    kt_peer_text(text ? text : "(none)", text ? strlen(text) : 6, 80, buf, len);
    free(text);
    return buf;
}

/* Send {"id", "op", ...args} and return the reply object (caller deletes) once it says ok. A
 * reply longer than `max` bytes is refused from its header. */
static npk_status call_max(kt_daemon *d, const char *op, cJSON *req, size_t max, cJSON **reply)
{
    *reply = NULL;
    snprintf(d->op, sizeof d->op, "%s", op);
    if (!req)
        req = cJSON_CreateObject();
    if (d->dead) {
        cJSON_Delete(req);
        return npk_fail(NPK_EIO, "daemon op %s: the connection was closed earlier: %s", op,
                        d->dead_why);
    }
    uint64_t id = ++d->next_id;
    if (!req || !kt_json_add_u64(req, "id", id) || !cJSON_AddStringToObject(req, "op", op)) {
        cJSON_Delete(req);
        return npk_fail(NPK_ENOMEM, "daemon op %s: out of memory", op);
    }
    npk_status s = kt_frame_send(&d->c, req);
    cJSON_Delete(req);
    if (s)
        return kill_conn(d, s);
    cJSON *r;
    if ((s = kt_frame_recv_max(&d->c, max, &r)))
        return kill_conn(d, s);
    uint64_t rid;
    const cJSON *ok = cJSON_GetObjectItemCaseSensitive(r, "ok");
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(r, "error");
    /* {"id": null, "ok": false, "error": ...} answers no request: the server speaks for the
     * connection (turned away when full, dropped after a timeout) and closes it. Its reason is
     * what the user needs, not a complaint about the reply's shape. */
    if (cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(r, "id")) && cJSON_IsFalse(ok) &&
        cJSON_IsString(err)) {
        char text[400];
        npk_fail(NPK_EBUSY, "the server closed the connection: %s",
                 kt_peer_text(err->valuestring, strlen(err->valuestring), 240, text, sizeof text));
        cJSON_Delete(r);
        return kill_conn(d, NPK_EBUSY);
    }
    if (!kt_json_u64(r, "id", &rid) || rid != id || !cJSON_IsBool(ok)) {
        char text[400];
        npk_fail(NPK_EPROTO, "the reply %s is not {\"id\": %" PRIu64 ", \"ok\": true|false, ...}",
                 quote_value(r, text, sizeof text), id);
        cJSON_Delete(r);
        return kill_conn(d, NPK_EPROTO);
    }
    if (cJSON_IsFalse(ok)) {
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(r, "error");
        char text[1100];
        npk_fail(NPK_EIO, "daemon %s refused %s: %s", d->c.what + 4, op,
                 cJSON_IsString(e)
                     ? kt_peer_text(e->valuestring, strlen(e->valuestring), 240, text, sizeof text)
                     : "(no error text)");
        cJSON_Delete(r);
        return NPK_EIO;
    }
    *reply = r;
    return NPK_OK;
}

static npk_status call(kt_daemon *d, const char *op, cJSON *req, cJSON **reply)
{
    return call_max(d, op, req, KT_DAEMON_MAX_REPLY, reply);
}

static npk_status bad_value(kt_daemon *d, cJSON *r, const char *want)
{
    char text[400];
    npk_fail(NPK_EPROTO, "daemon %s answered %s with value %s: expected %s", d->c.what + 4, d->op,
             quote_value(cJSON_GetObjectItemCaseSensitive(r, "value"), text, sizeof text), want);
    cJSON_Delete(r);
    return NPK_EPROTO;
}

static npk_status call_u64(kt_daemon *d, const char *op, cJSON *req, uint64_t *v)
{
    cJSON *r;
    npk_status s = call(d, op, req, &r);
    if (s)
        return s;
    if (!kt_json_u64(r, "value", v))
        return bad_value(d, r, "an unsigned integer");
    cJSON_Delete(r);
    return NPK_OK;
}

static npk_status call_void(kt_daemon *d, const char *op, cJSON *req)
{
    cJSON *r;
    npk_status s = call(d, op, req, &r);
    cJSON_Delete(r);
    return s;
}

/* A request holding key: v (NULL when out of memory; call() then fails cleanly). */
static cJSON *req_u64(const char *key, uint64_t v)
{
    cJSON *q = cJSON_CreateObject();
    if (q && !kt_json_add_u64(q, key, v)) {
        cJSON_Delete(q);
        q = NULL;
    }
    return q;
}

static cJSON *req_addr(uint64_t addr) { return req_u64("addr", addr); }

static npk_status d_read64(void *ctx, uint64_t addr, uint64_t *value)
{
    return call_u64(ctx, "read64", req_addr(addr), value);
}

static npk_status d_write64(void *ctx, uint64_t addr, uint64_t value)
{
    cJSON *q = req_addr(addr);
    if (q)
        kt_json_add_u64(q, "data", value);
    return call_void(ctx, "write64", q);
}

static npk_status d_read_block(void *ctx, uint64_t addr, void *buf, size_t len)
{
    kt_daemon *d = ctx;
    cJSON *q = req_addr(addr), *r;
    if (q)
        kt_json_add_u64(q, "nbytes", len);
    npk_status s = call_max(d, "read_block", q, 2 * len + KT_DAEMON_MAX_REPLY, &r);
    if (s)
        return s;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, "value");
    if (!cJSON_IsString(v) || strlen(v->valuestring) != 2 * len ||
        !kt_hex_decode(v->valuestring, 2 * len, buf)) {
        char want[64];
        snprintf(want, sizeof want, "%zu bytes as %zu hex digits", len, 2 * len);
        return bad_value(d, r, want);
    }
    cJSON_Delete(r);
    return NPK_OK;
}

static npk_status d_write_block(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    char *hex = malloc(2 * len + 1);
    if (!hex)
        return npk_fail(NPK_ENOMEM, "daemon write_block of %zu bytes: out of memory", len);
    kt_hex_encode(buf, len, hex);
    cJSON *q = req_addr(addr);
    if (q)
        cJSON_AddStringToObject(q, "data", hex);
    free(hex);
    return call_void(ctx, "write_block", q);
}

static void d_close(void *ctx)
{
    kt_daemon *d = ctx;
    if (!d->dead)
        kt_carrier_close(&d->c, 0); /* the daemon drops this client's leases and runs */
    free(d->hello);
    free(d);
}

static const kt_transport_ops daemon_ops = {d_read64, d_write64, d_read_block, d_write_block,
                                            d_close};

npk_status kt_daemon_connect(const char *host_port, const kt_remote_opts *o, kt_daemon **out,
                             kt_transport *t)
{
    char def[32];
    if (!host_port) {
        snprintf(def, sizeof def, "127.0.0.1:%d", KT_DAEMON_PORT);
        host_port = def;
    }
    kt_daemon *d = calloc(1, sizeof *d);
    if (!d)
        return npk_fail(NPK_ENOMEM, "daemon client: out of memory");
    npk_status s = kt_carrier_connect(&d->c, host_port,
                                      o && o->timeout_ms ? o->timeout_ms : KT_REMOTE_TIMEOUT_MS);
    cJSON *r = NULL;
    if (!s)
        s = call(d, "hello", NULL, &r);
    if (s) {
        char why[512];
        snprintf(why, sizeof why, "%s", npk_last_error());
        if (!d->dead)
            kt_carrier_close(&d->c, 0);
        free(d);
        return npk_fail(s, "%s", why);
    }
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, "value");
    uint64_t bb = 0;
    if (cJSON_IsObject(v) && kt_json_u64(v, "beat_bytes", &bb) && bb <= 4096)
        d->beat_bytes = (unsigned)bb;
    d->hello = cJSON_PrintUnformatted(v ? v : r);
    cJSON_Delete(r);
    kt_transport_init(t, "daemon", &daemon_ops, d);
    t->bulk = true;
    t->max_block = KT_DAEMON_MAX_BLOCK;
    *out = d;
    return NPK_OK;
}

const char *kt_daemon_hello(const kt_daemon *d) { return d->hello ? d->hello : "{}"; }
unsigned kt_daemon_beat_bytes(const kt_daemon *d) { return d->beat_bytes; }

npk_status kt_daemon_claim(kt_daemon *d, unsigned mesh, uint64_t base, uint64_t size,
                           uint64_t *lease)
{
    cJSON *q = req_u64("mesh", mesh);
    if (q && !(kt_json_add_u64(q, "base", base) && kt_json_add_u64(q, "size", size))) {
        cJSON_Delete(q);
        q = NULL;
    }
    return call_u64(d, "claim", q, lease);
}

npk_status kt_daemon_release(kt_daemon *d, uint64_t lease)
{
    return call_void(d, "release", req_u64("lease", lease));
}

npk_status kt_daemon_run_begin(kt_daemon *d, unsigned mesh_mask, const char *level, uint64_t *token)
{
    cJSON *q = cJSON_CreateObject();
    cJSON *m = cJSON_AddArrayToObject(q, "meshes");
    for (unsigned i = 0; m && i < 32; i++)
        if (mesh_mask >> i & 1)
            cJSON_AddItemToArray(m, cJSON_CreateNumber(i));
    cJSON_AddStringToObject(q, "level", level ? level : "ship");
    return call_u64(d, "run_begin", q, token);
}

npk_status kt_daemon_run_end(kt_daemon *d, uint64_t token)
{
    return call_void(d, "run_end", req_u64("token", token));
}

npk_status kt_daemon_status(kt_daemon *d, char *buf, size_t len)
{
    cJSON *r;
    npk_status s = call(d, "status", NULL, &r);
    if (s)
        return s;
    char *text = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(r, "value"));
    snprintf(buf, len, "%s", text ? text : "null");
    free(text);
    cJSON_Delete(r);
    return NPK_OK;
}
