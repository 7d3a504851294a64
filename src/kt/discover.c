/* SPDX-License-Identifier: MIT */
/* Discovery over the mailbox: CU_CTRL reads with a reply budget and strict matching, CU_CAPS
 * confirmed by two agreeing reads, and the row-major walk of the mesh's span. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/kt.h"

enum { CAPS_TRIES = 4 };

/* What came back for our request. */
typedef enum reply_kind { R_OURS, R_LOOPED, R_OTHER } reply_kind;

static reply_kind classify(const kt_flit *f, kt_coord at, uint8_t index, uint8_t txn)
{
    kt_header h = kt_header_get(f);
    kt_ctrl c = kt_ctrl_get(f);
    if (h.type != KT_T_CU_CTRL || h.txn != txn || c.index != index)
        return R_OTHER; /* a stale reply, or someone else's traffic */
    if (c.op != KT_CTRL_OP_REPLY)
        return kt_coord_eq(h.dst, at) ? R_LOOPED : R_OTHER; /* a memory port hands requests back */
    /* The router clamp makes an edge coordinate reach a neighbour, which answers with its own
     * source: only a reply from the coordinate asked is this coordinate's. */
    return kt_coord_eq(h.src, at) ? R_OURS : R_OTHER;
}

/* The CU_CTRL requests of an enumeration that ran out of reply budget, so that a reply arriving
 * later tells a slow unit from an empty coordinate (which never answers). */
enum { MAX_TIMED_OUT = (KT_COORD_MAX + 1) * (KT_COORD_MAX + 1) };
typedef struct late_watch {
    struct {
        kt_coord at;
        uint8_t index, txn;
        bool answered;
    } req[MAX_TIMED_OUT];
    unsigned n;
} late_watch;

/* A reply that is not the one awaited: is it a timed-out request's, arriving late? */
static void note_late(late_watch *w, const kt_flit *f)
{
    if (!w)
        return;
    kt_header h = kt_header_get(f);
    kt_ctrl c = kt_ctrl_get(f);
    if (h.type != KT_T_CU_CTRL || c.op != KT_CTRL_OP_REPLY)
        return;
    for (unsigned i = 0; i < w->n; i++)
        if (w->req[i].txn == h.txn && w->req[i].index == c.index &&
            kt_coord_eq(w->req[i].at, h.src))
            w->req[i].answered = true;
}

/* Empty the mailbox of earlier traffic, watching for late replies. */
static npk_status drain(kt_dev *d, unsigned limit, late_watch *w)
{
    for (unsigned n = 0; n < limit; n++) {
        kt_flit f;
        bool got;
        npk_status s = kt_mailbox_recv(d, &f, &got);
        if (s || !got)
            return s;
        note_late(w, &f);
    }
    return NPK_OK;
}

static npk_status ctrl_read(kt_dev *d, kt_coord at, uint8_t index, uint64_t *value, bool *present,
                            late_watch *w)
{
    *present = false;
    uint8_t txn = d->next_txn++;
    if (!d->next_txn)
        d->next_txn = 1;
    kt_flit req;
    npk_status s = kt_flit_ctrl_request(&req, at, d->opt.reply_to, index, txn);
    if (s || (s = drain(d, 64, w)) || (s = kt_mailbox_send(d, &req)))
        return s;
    /* Poll: the reply takes mesh time to arrive, and the transport may be faster than the mesh. */
    for (uint32_t i = 0; i < d->opt.reply_budget; i++) {
        kt_flit f;
        bool got;
        if ((s = kt_mailbox_recv(d, &f, &got)))
            return s;
        if (!got)
            continue;
        switch (classify(&f, at, index, txn)) {
        case R_OURS:
            *value = kt_ctrl_get(&f).value;
            *present = true;
            return NPK_OK;
        case R_LOOPED: return NPK_OK;          /* a memory port, not a unit */
        case R_OTHER: note_late(w, &f); break; /* dropped; keep waiting for ours */
        }
    }
    if (w && w->n < MAX_TIMED_OUT) {
        w->req[w->n].at = at;
        w->req[w->n].index = index;
        w->req[w->n].txn = txn;
        w->req[w->n].answered = false;
        w->n++;
    }
    return NPK_OK;
}

npk_status kt_ctrl_read(kt_dev *d, kt_coord at, uint8_t index, uint64_t *value, bool *present)
{
    return ctrl_read(d, at, index, value, present, NULL);
}

static npk_status unit_caps(kt_dev *d, kt_coord at, kt_cu_caps *caps, bool *present, late_watch *w)
{
    uint64_t prev = 0;
    bool have_prev = false;
    *present = false;
    for (int i = 0; i < CAPS_TRIES; i++) {
        uint64_t v;
        bool p;
        npk_status s = ctrl_read(d, at, KT_CU_CAPS, &v, &p, w);
        if (s)
            return s;
        if (!p) {
            if (!have_prev)
                return NPK_OK; /* nobody there */
            continue;
        }
        /* A wrong value with the right source has been seen on hardware: demand agreement. */
        if (have_prev && v == prev) {
            *caps = kt_cu_caps_decode(v);
            *present = true;
            return NPK_OK;
        }
        prev = v;
        have_prev = true;
    }
    return npk_fail(NPK_EPROTO, "CU_CAPS at (%u,%u): no two of %d reads agreed (last 0x%016llx)",
                    at.x, at.y, CAPS_TRIES, (unsigned long long)prev);
}

npk_status kt_unit_caps(kt_dev *d, kt_coord at, kt_cu_caps *caps, bool *present)
{
    return unit_caps(d, at, caps, present, NULL);
}

/* After the walk: one more reply budget of polls for replies still under way, then an error
 * naming every coordinate that answered too late — a missed unit is not an empty one. */
static npk_status report_late(kt_dev *d, late_watch *w)
{
    npk_status s = NPK_OK;
    for (uint32_t i = 0; w->n && i < d->opt.reply_budget && !s; i++) {
        kt_flit f;
        bool got;
        if (!(s = kt_mailbox_recv(d, &f, &got)) && got)
            note_late(w, &f);
    }
    if (s)
        return s;
    char list[256] = "";
    size_t used = 0;
    unsigned late = 0;
    for (unsigned i = 0; i < w->n; i++)
        if (w->req[i].answered && late++ < 8 && used < sizeof list)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s(%u,%u)",
                                     late > 1 ? ", " : "", w->req[i].at.x, w->req[i].at.y);
    if (!late)
        return NPK_OK;
    return npk_fail(
        NPK_ETIMEDOUT,
        "CU_CTRL replies from %s%s arrived after the reply budget of %u mailbox reads: those units "
        "were not enumerated; raise kt_options.reply_budget (--reply-budget N on npukit kt enum, "
        "status, saxpy)",
        list, late > 8 ? " and more" : "", d->opt.reply_budget);
}

/* The row-major walk of the span, one CU_CAPS per coordinate. */
static npk_status walk(kt_dev *d, kt_unit *units, size_t max, size_t *n, late_watch *w)
{
    int lo = d->caps.grid_lo - 1, hi = d->caps.grid_hi + 1;
    uint8_t version = d->opt.expect_version;
    kt_coord version_from = {0, 0};
    for (int y = lo; y <= hi; y++) {
        for (int x = lo; x <= hi; x++) {
            bool xedge = x == lo || x == hi, yedge = y == lo || y == hi;
            /* Mesh corners hold no endpoint, but (0,0) is the system node's own coordinate: with
             * the RV32 complex its processor answers there (§6); elsewhere the request comes
             * back from the memory agent's port at once. */
            if (xedge && yedge && (x || y))
                continue;
            if (x < 0 || y < 0 || x > KT_COORD_MAX || y > KT_COORD_MAX)
                continue;
            kt_coord at = {(uint8_t)x, (uint8_t)y};
            kt_cu_caps caps;
            bool present;
            npk_status s = unit_caps(d, at, &caps, &present, w);
            if (s)
                return s;
            if (!present)
                continue;
            /* Every endpoint of an image carries the same build number; a different one is a
             * stale bitstream silently running something else with new programs' bits. */
            if (!version) {
                version = caps.version;
                version_from = at;
            } else if (caps.version != version && d->opt.expect_version) {
                return npk_fail(NPK_EMISMATCH,
                                "unit at (%u,%u) reports cu_version %u, expected %u "
                                "(kt_options.expect_version): "
                                "refusing a bitstream built for another program",
                                x, y, caps.version, version);
            } else if (caps.version != version) {
                return npk_fail(
                    NPK_EMISMATCH,
                    "unit at (%u,%u) reports cu_version %u but the unit at (%u,%u) reports %u: "
                    "refusing a mixed image",
                    x, y, caps.version, version_from.x, version_from.y, version);
            }
            if (*n >= max)
                return npk_fail(NPK_ELIMIT, "more than %zu units in the mesh", max);
            kt_unit *u = &units[(*n)++];
            u->at = at;
            u->caps = caps;
            kt_cu_type_text(caps.type, u->type_text);
        }
    }
    return NPK_OK;
}

npk_status kt_enumerate(kt_dev *d, kt_unit *units, size_t max, size_t *n)
{
    *n = 0;
    late_watch *w = calloc(1, sizeof *w);
    if (!w)
        return npk_fail(NPK_ENOMEM, "enumeration: out of memory");
    npk_status s = walk(d, units, max, n, w);
    if (!s)
        s = report_late(d, w);
    memset(d->silent, 0, sizeof d->silent);
    for (unsigned i = 0; !s && i < w->n; i++) {
        bool found = false; /* a unit whose later CAPS read answered is not silent */
        for (size_t k = 0; k < *n && !found; k++)
            found = kt_coord_eq(units[k].at, w->req[i].at);
        uint8_t c = kt_coord_pack(w->req[i].at);
        if (!w->req[i].answered && !found)
            d->silent[c / 8] |= (uint8_t)(1u << (c % 8));
    }
    free(w);
    return s;
}

size_t kt_silent_coords(const kt_dev *d, kt_coord *out, size_t max)
{
    size_t n = 0;
    for (unsigned y = 0; y <= KT_COORD_MAX; y++)
        for (unsigned x = 0; x <= KT_COORD_MAX; x++) {
            uint8_t c = kt_coord_pack((kt_coord){(uint8_t)x, (uint8_t)y});
            if (d->silent[c / 8] >> (c % 8) & 1) {
                if (n < max)
                    out[n] = (kt_coord){(uint8_t)x, (uint8_t)y};
                n++;
            }
        }
    return n;
}

const kt_unit *kt_find_unit(const kt_unit *units, size_t n, uint16_t type)
{
    for (size_t i = 0; i < n; i++)
        if (units[i].caps.type == type)
            return &units[i];
    return NULL;
}
