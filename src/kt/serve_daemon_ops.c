/* SPDX-License-Identifier: MIT */
/* The card daemon's operations, served: the set, arguments and replies of the card daemon
 * (docs/kt-remote.md lists them with their source), each run to completion on the machine. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hexcodec.h"
#include "jsonframe.h"
#include "serve_daemon.h"

/* The meshes some run holds up. */
static unsigned held_meshes(const server *sv)
{
    unsigned held = 0;
    for (unsigned i = 0; i < sv->nruns; i++)
        held |= sv->runs[i].mesh_mask;
    return held;
}

/* ---- request fields ---- */

/* A missing key is a KeyError on the card daemon: the same name here. */
static npk_status need_u64(server *sv, const cJSON *req, const char *op, const char *key,
                           uint64_t *v)
{
    if (kt_json_u64(req, key, v))
        return NPK_OK;
    if (!cJSON_GetObjectItemCaseSensitive(req, key))
        sv->err_type = "KeyError";
    return npk_fail(NPK_EINVAL, "op %s needs '%s', an unsigned integer", op, key);
}

static npk_status need_mesh(server *sv, const cJSON *req, const char *op, unsigned *mesh)
{
    uint64_t m;
    npk_status s = need_u64(sv, req, op, "mesh", &m);
    if (s)
        return s;
    if (m >= sv->tg->meshes)
        return npk_fail(NPK_EINVAL, "op %s: mesh %" PRIu64 " does not exist (the machine has %u)",
                        op, m, sv->tg->meshes);
    *mesh = (unsigned)m;
    return NPK_OK;
}

/* ---- operations: each fills *value (NULL = JSON null) or fails with a message ---- */

static npk_status op_hello(server *sv, client *cl, const cJSON *req, cJSON **value)
{
    (void)cl;
    (void)req;
    cJSON *v = cJSON_CreateObject();
    cJSON_AddStringToObject(v, "board", sv->tg->name);
    cJSON_AddNumberToObject(v, "meshes", sv->tg->meshes);
    cJSON_AddStringToObject(v, "backend", sv->tg->backend ? sv->tg->backend : "ktsim");
    cJSON_AddNumberToObject(v, "beat_bytes", 8);
    cJSON_AddBoolToObject(v, "governor", 1);
    cJSON_AddBoolToObject(v, "engine", sv->tg->engine);
    *value = v;
    return NPK_OK;
}

static npk_status op_read64(server *sv, client *cl, const cJSON *req, cJSON **value)
{
    (void)cl;
    uint64_t a, v;
    npk_status s = need_u64(sv, req, "read64", "addr", &a);
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
    npk_status s = need_u64(sv, req, "write64", "addr", &a);
    if (!s)
        s = need_u64(sv, req, "write64", "data", &v);
    return s ? s : kt_write64(sv->tg->t, a, v);
}

/* 32-bit accesses as the word that holds them; a write keeps the other half (read-merge-write). */
static npk_status op_read32(server *sv, client *cl, const cJSON *req, cJSON **value)
{
    (void)cl;
    uint64_t a, w;
    npk_status s = need_u64(sv, req, "read32", "addr", &a);
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
    npk_status s = need_u64(sv, req, "write32", "addr", &a);
    if (!s)
        s = need_u64(sv, req, "write32", "data", &d);
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

/* A block longer than a turn's share is read a chunk per turn of the loop and its reply sent a
 * piece per turn (serve_block.c); a shorter one, or one the transport refuses from its shape
 * alone (an address or length not a multiple of 8), here. */
static npk_status op_read_block(server *sv, client *cl, const cJSON *req, cJSON **value)
{
    uint64_t a, n;
    npk_status s = need_u64(sv, req, "read_block", "addr", &a);
    if (!s)
        s = need_u64(sv, req, "read_block", "nbytes", &n);
    if (!s && n > SERVE_MAX_BLOCK)
        s = npk_fail(NPK_ELIMIT, "read_block of %" PRIu64 " bytes exceeds %d", n, SERVE_MAX_BLOCK);
    if (s)
        return s;
    if (n > SERVE_TURN_BYTES && !((a | n) & 7))
        return kt_block_read_start(&cl->block, a, (size_t)n);
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
    npk_status s = need_u64(sv, req, "write_block", "addr", &a);
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(req, "data");
    if (s)
        return s;
    if (!cJSON_IsString(d))
        return npk_fail(NPK_EINVAL, "op write_block needs 'data', a hex string");
    size_t digits = strlen(d->valuestring);
    /* Decoded in place: byte i is written after digits 2i and 2i+1 are read, and the request
     * is the server's own and dropped after this op. A second buffer would add half the
     * frame to the server's peak for the largest request. */
    uint8_t *buf = (uint8_t *)d->valuestring;
    if (!kt_hex_decode(d->valuestring, digits, buf))
        return npk_fail(NPK_EINVAL, "write_block data is not whole bytes of hex (%zu characters)",
                        digits);
    return kt_write_block(sv->tg->t, a, buf, digits / 2);
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
    kt_gov_tick(&sv->gov, tg->meshes, held_meshes(sv));
    cJSON_AddItemToObject(v, "governor", kt_gov_status(sv));
    *value = v;
    return NPK_OK;
}

static npk_status op_claim(server *sv, client *cl, const cJSON *req, cJSON **value)
{
    unsigned mesh = 0;
    uint64_t base = 0, size = 0;
    npk_status s = need_mesh(sv, req, "claim", &mesh);
    if (!s)
        s = need_u64(sv, req, "claim", "base", &base);
    if (!s)
        s = need_u64(sv, req, "claim", "size", &size);
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
    npk_status s = need_u64(sv, req, "release", "lease", &id);
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

static npk_status op_clocks(server *sv, client *cl, const cJSON *req, cJSON **value)
{
    (void)cl;
    (void)req;
    kt_gov_tick(&sv->gov, sv->tg->meshes, held_meshes(sv));
    *value = kt_gov_clocks(&sv->gov, sv->tg->meshes);
    return NPK_OK;
}

/* A run raises its meshes to a profile and holds them there until it ends or its client goes. */
static npk_status op_run_begin(server *sv, client *cl, const cJSON *req, cJSON **value)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(req, "meshes");
    const cJSON *lv = cJSON_GetObjectItemCaseSensitive(req, "level");
    if (!m || !lv) {
        sv->err_type = "KeyError";
        return npk_fail(NPK_EINVAL, "op run_begin needs '%s'", m ? "level" : "meshes");
    }
    int level = cJSON_IsString(lv) ? kt_gov_level(lv->valuestring) : -1;
    if (level < 0)
        return npk_fail(NPK_EINVAL, "run_begin needs 'level', one of low, mid, ship");
    if (!cJSON_IsArray(m))
        return npk_fail(NPK_EINVAL, "op run_begin needs 'meshes', a list of mesh numbers");
    unsigned mask = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, m)
    {
        if (!cJSON_IsNumber(it) || it->valuedouble < 0 || it->valuedouble >= sv->tg->meshes ||
            it->valuedouble >= GOV_MESHES || it->valuedouble != (double)(unsigned)it->valuedouble)
            return npk_fail(NPK_EINVAL, "run_begin: mesh %g does not exist (the machine has %u)",
                            cJSON_IsNumber(it) ? it->valuedouble : -1.0, sv->tg->meshes);
        mask |= 1u << (unsigned)it->valuedouble;
    }
    if (sv->nruns == MAX_RUNS)
        return npk_fail(NPK_ELIMIT, "%d runs are live already", MAX_RUNS);
    run_token *r = &sv->runs[sv->nruns++];
    *r = (run_token){++sv->next_run, cl->id, mask, level};
    kt_gov_raise(&sv->gov, mask, level);
    *value = kt_json_u64_item(r->id);
    return NPK_OK;
}

/* Only the client that began a run may end it (its connection's death ends it too). */
static npk_status op_run_end(server *sv, client *cl, const cJSON *req, cJSON **value)
{
    (void)value;
    uint64_t id;
    npk_status s = need_u64(sv, req, "run_end", "token", &id);
    if (s)
        return s;
    for (unsigned i = 0; i < sv->nruns; i++)
        if (sv->runs[i].id == id) {
            if (sv->runs[i].client != cl->id) {
                sv->err_type = "PermissionError";
                return npk_fail(NPK_EBUSY, "run %" PRIu64 " belongs to client %u, not this one", id,
                                sv->runs[i].client);
            }
            kt_gov_touch(&sv->gov, sv->runs[i].mesh_mask);
            sv->runs[i] = sv->runs[--sv->nruns];
            return NPK_OK;
        }
    sv->err_type = "KeyError";
    return npk_fail(NPK_EINVAL, "run_end: no live run %" PRIu64, id);
}

/* Loading a bitstream: the card daemon refuses it unless started to allow it, and a simulated
 * card has no fabric to load; refused in the daemon's words. */
static npk_status op_program(server *sv, client *cl, const cJSON *req, cJSON **value)
{
    (void)cl;
    (void)req;
    (void)value;
    sv->err_type = "PermissionError";
    return npk_fail(NPK_EUNSUPPORTED, "daemon started without --allow-program");
}

/* Resetting the host's bus bridge after a wedge: the simulated bus never wedges, so there is
 * nothing to reset and the op succeeds, as on a card whose bridge is healthy. */
static npk_status op_reset_core(server *sv, client *cl, const cJSON *req, cJSON **value)
{
    (void)sv;
    (void)cl;
    (void)req;
    (void)value;
    return NPK_OK;
}

static npk_status op_shutdown(server *sv, client *cl, const cJSON *req, cJSON **value)
{
    (void)cl;
    (void)req;
    (void)value;
    if (!sv->tg->allow_shutdown) {
        sv->err_type = "PermissionError";
        return npk_fail(NPK_EUNSUPPORTED, "daemon started without --allow-shutdown");
    }
    sv->stop = true;
    return NPK_OK;
}

/* work: the op reaches the machine or what the client holds, and so keeps its connection
 * alive; one that only asks about the server (hello, status, clocks) does not, so a client
 * that only keeps itself alive is still dropped at the idle timeout. */
static const struct {
    const char *name;
    kt_daemon_op_fn fn;
    bool work;
} ops[] = {
    {"hello", op_hello, false},
    {"read64", op_read64, true},
    {"write64", op_write64, true},
    {"read32", op_read32, true},
    {"write32", op_write32, true},
    {"read_block", op_read_block, true},
    {"write_block", op_write_block, true},
    {"clocks", op_clocks, false},
    {"run_begin", op_run_begin, true},
    {"run_end", op_run_end, true},
    {"claim", op_claim, true},
    {"release", op_release, true},
    {"status", op_status, false},
    {"program", op_program, true},
    {"reset_core", op_reset_core, true},
    {"shutdown", op_shutdown, true},
};

kt_daemon_op_fn kt_daemon_op(const char *name, bool *work)
{
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (!strcmp(name, ops[i].name)) {
            *work = ops[i].work;
            return ops[i].fn;
        }
    *work = false;
    return NULL;
}

/* The exception each status is reported as, as the card daemon names its errors. */
static const char *const error_types[] = {
    [NPK_EINVAL] = "ValueError",
    [NPK_ELIMIT] = "ValueError",
    [NPK_ENOMEM] = "MemoryError",
    [NPK_EIO] = "OSError",
    [NPK_ETIMEDOUT] = "TimeoutError",
    [NPK_EFAULT] = "OSError",
    [NPK_EUNSUPPORTED] = "NotImplementedError",
    [NPK_EBUSY] = "ValueError",
    [NPK_ENODEV] = "OSError",
    [NPK_EPARSE] = "ProtocolError",
    [NPK_EPROTO] = "ProtocolError",
};

const char *kt_daemon_error_type(npk_status s)
{
    if ((size_t)s < sizeof error_types / sizeof error_types[0] && error_types[s])
        return error_types[s];
    return "RuntimeError";
}
