/* SPDX-License-Identifier: MIT */
/* The 288-bit flit codec: field positions as tables, generic bit access, typed encoders. */
#include "npukit/kt_flit.h"

#include "flit_header.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Header at the reference geometry, MSB first: {dst_x, dst_y, src_x, src_y, type, txn, last,
 * rsvd}. Routers read only dst; src must be the sender's own coordinate. The positions are
 * flit_header.h's. */
const kt_field kt_layout_header[] = {
    {"dst_x", KT_H_DST_X, KT_H_POS_W},
    {"dst_y", KT_H_DST_Y, KT_H_POS_W},
    {"src_x", KT_H_SRC_X, KT_H_POS_W},
    {"src_y", KT_H_SRC_Y, KT_H_POS_W},
    {"type", KT_H_TYPE, KT_H_TYPE_W},
    {"txn", KT_H_TXN, KT_H_TXN_W},
    {"last", KT_H_LAST, KT_H_LAST_W},
    {"rsvd", KT_H_RSVD, KT_H_RSVD_W},
    {NULL, 0, 0},
};

/* CU_CTRL: the request's op is not decoded by the shell; the reply carries op 0x02. */
const kt_field kt_layout_ctrl[] = {
    {"op", 248, 8},
    {"index", 240, 8},
    {"value", 176, 64},
    {NULL, 0, 0},
};

const kt_field kt_layout_signal[] = {
    {"code", 248, 8},
    {"arg", 216, 32},
    {NULL, 0, 0},
};

/* The port reads a 40-bit address (an older document shows 34 bits; the RTL reads 40). */
const kt_field kt_layout_mem_req[] = {
    {"addr", 216, 40}, {"len", 208, 8},    {"flags", 200, 8},       {"count", 192, 8},
    {"peer", 168, 24}, {"n_peer", 166, 2}, {"entry_words", 158, 8}, {NULL, 0, 0},
};

const kt_field kt_layout_cu_data[] = {
    {"buf_id", 248, 8}, {"offset", 232, 16}, {"len", 224, 8}, {"flags", 216, 8},
    {"ack_y", 212, 4},  {"ack_x", 208, 4},   {NULL, 0, 0},
};

const kt_field kt_layout_wr_ack[] = {
    {"dropped", 0, 1},
    {NULL, 0, 0},
};

/* Each unit type's instruction layout lives with its type code and encoder in
 * src/kt/hw/units/<kind>.c. */

static const char *const type_names[16] = {
    "MEM_RD_REQ", "MEM_WR_REQ", "MEM_RD_RESP", "MEM_WR_ACK", "MEM_WR_DATA", "CU_INST",
    "CU_SIGNAL",  "CU_CTRL",    "CU_DATA",     "RSVD9",      "RSVDA",       "RSVDB",
    "RSVDC",      "RSVDD",      "RSVDE",       "ERROR",
};

const char *kt_type_name(unsigned type) { return type < 16 ? type_names[type] : "?"; }

const char *kt_signal_name(unsigned code)
{
    static const char *const names[] = {"INST_COMPLETE", "BATCH_COMPLETE", "BARRIER_REACHED",
                                        "DATA_RECEIVED", "FAULT"};
    if (code < sizeof names / sizeof names[0])
        return names[code];
    return code >= 0x40 ? "UNIT_DEFINED" : "RESERVED";
}

const kt_field *kt_layout_for_type(unsigned type)
{
    switch (type) {
    case KT_T_MEM_RD_REQ:
    case KT_T_MEM_WR_REQ: return kt_layout_mem_req;
    case KT_T_MEM_WR_ACK: return kt_layout_wr_ack;
    case KT_T_CU_SIGNAL: return kt_layout_signal;
    case KT_T_CU_CTRL: return kt_layout_ctrl;
    default: return NULL;
    }
}

const kt_field *kt_field_find(const kt_field *layout, const char *name)
{
    for (const kt_field *fl = layout; fl && fl->name; fl++)
        if (!strcmp(fl->name, name))
            return fl;
    return NULL;
}

static npk_status field_too_wide(const kt_field *field, uint64_t value)
{
    return npk_fail(NPK_ELIMIT,
                    "flit field %s=0x%" PRIx64 " does not fit %u bits (max 0x%" PRIx64 ")",
                    field->name, value, field->width, kt_width_mask(field->width));
}

npk_status kt_field_put(kt_flit *f, const kt_field *field, uint64_t value)
{
    if (field->width < 64 && value > kt_width_mask(field->width))
        return field_too_wide(field, value);
    kt_flit_set_bits(f, field->lo, field->width, value);
    return NPK_OK;
}

/* Put a list of values into the fields of `layout` (every one inside the payload, bits
 * 0..255), in table order, the payload cleared first. Every simulated memory request, signal
 * and reply is built here: each value is checked against its field, then ORed into the zeroed
 * bits, in one host word or across two. */
static npk_status put_all(kt_flit *f, const kt_field *layout, const uint64_t *values, size_t n)
{
    kt_payload_clear(f);
    for (size_t i = 0; i < n; i++) {
        const kt_field *fl = &layout[i];
        uint64_t v = values[i];
        if (fl->width < 64 && v > kt_width_mask(fl->width))
            return field_too_wide(fl, v);
        unsigned word = fl->lo / 64, shift = fl->lo % 64;
        f->w[word] |= v << shift;
        if (shift && shift + fl->width > 64)
            f->w[word + 1] |= v >> (64 - shift);
    }
    return NPK_OK;
}

static npk_status coord_too_far(const char *what, kt_coord c)
{
    return npk_fail(NPK_ELIMIT, "%s coordinate (%u,%u) exceeds %u per axis", what, c.x, c.y,
                    KT_COORD_MAX);
}

static inline npk_status check_coord(const char *what, kt_coord c)
{
    return c.x > KT_COORD_MAX || c.y > KT_COORD_MAX ? coord_too_far(what, c) : NPK_OK;
}

/* The header is read and written as host word 4 (flit_header.h); writing goes field by field
 * from the table, so a refused value is named. */
enum { HEADER_WORD = KT_H_WORD, HEADER_LO = KT_H_LO };

_Static_assert(KT_H_TXN_W == 8 && KT_H_LAST_W == 1, "txn and last fill their header fields");

/* The header's word from its constant positions (every flit the simulator sends passes here);
 * a value too wide for its field is named from the table. */
npk_status kt_header_put(kt_flit *f, const kt_header *h)
{
    npk_status s;
    if ((s = check_coord("dst", h->dst)) || (s = check_coord("src", h->src)))
        return s;
    /* the coordinates are checked, txn and last fill their fields: only these two can overflow */
    if (h->type > kt_width_mask(KT_H_TYPE_W))
        return field_too_wide(&kt_layout_header[4], h->type);
    if (h->rsvd > kt_width_mask(KT_H_RSVD_W))
        return field_too_wide(&kt_layout_header[7], h->rsvd);
    f->w[HEADER_WORD] = /* the host word 4 has no bits above 287 */
        (uint64_t)h->dst.x << (KT_H_DST_X - HEADER_LO) |
        (uint64_t)h->dst.y << (KT_H_DST_Y - HEADER_LO) |
        (uint64_t)h->src.x << (KT_H_SRC_X - HEADER_LO) |
        (uint64_t)h->src.y << (KT_H_SRC_Y - HEADER_LO) | (uint64_t)h->type << (KT_H_TYPE - HEADER_LO) |
        (uint64_t)h->txn << (KT_H_TXN - HEADER_LO) | (uint64_t)h->last << (KT_H_LAST - HEADER_LO) |
        (uint64_t)h->rsvd << (KT_H_RSVD - HEADER_LO);
    return NPK_OK;
}

kt_header kt_header_get(const kt_flit *f) { return kt_flit_header(f); }

npk_status kt_ctrl_put(kt_flit *f, const kt_ctrl *c)
{
    uint64_t v[] = {c->op, c->index, c->value};
    return put_all(f, kt_layout_ctrl, v, 3);
}

kt_ctrl kt_ctrl_get(const kt_flit *f)
{
    return (kt_ctrl){(uint8_t)kt_field_get(f, &kt_layout_ctrl[0]),
                     (uint8_t)kt_field_get(f, &kt_layout_ctrl[1]),
                     kt_field_get(f, &kt_layout_ctrl[2])};
}

npk_status kt_signal_put(kt_flit *f, const kt_signal *s)
{
    uint64_t v[] = {s->code, s->arg};
    return put_all(f, kt_layout_signal, v, 2);
}

kt_signal kt_signal_get(const kt_flit *f)
{
    return (kt_signal){(uint8_t)kt_field_get(f, &kt_layout_signal[0]),
                       (uint32_t)kt_field_get(f, &kt_layout_signal[1])};
}

npk_status kt_mem_req_put(kt_flit *f, const kt_mem_req *r)
{
    if (r->n_peer > 3)
        return npk_fail(NPK_ELIMIT, "memory request n_peer=%u exceeds 3", r->n_peer);
    npk_status s;
    uint64_t peers = 0;
    for (int i = 0; i < 3; i++) {
        if ((s = check_coord("peer", r->peer[i])))
            return s;
        peers |= (uint64_t)kt_coord_pack(r->peer[i]) << (8 * i); /* peer0 in the lowest byte */
    }
    uint64_t v[] = {r->addr, r->len, r->flags, r->count, peers, r->n_peer, r->entry_words};
    return put_all(f, kt_layout_mem_req, v, 7);
}

kt_mem_req kt_mem_req_get(const kt_flit *f)
{
    const kt_field *L = kt_layout_mem_req;
    kt_mem_req r;
    memset(&r, 0, sizeof r);
    r.addr = kt_field_get(f, &L[0]);
    r.len = (uint8_t)kt_field_get(f, &L[1]);
    r.flags = (uint8_t)kt_field_get(f, &L[2]);
    r.count = (uint8_t)kt_field_get(f, &L[3]);
    uint64_t peers = kt_field_get(f, &L[4]);
    for (int i = 0; i < 3; i++)
        r.peer[i] = kt_coord_unpack((uint8_t)(peers >> (8 * i)));
    r.n_peer = (uint8_t)kt_field_get(f, &L[5]);
    r.entry_words = (uint8_t)kt_field_get(f, &L[6]);
    return r;
}

npk_status kt_cu_data_put(kt_flit *f, const kt_cu_data *d)
{
    npk_status s;
    if ((s = check_coord("ack", d->ack)))
        return s;
    uint64_t v[] = {d->buf_id, d->offset, d->len, d->flags, d->ack.y, d->ack.x};
    return put_all(f, kt_layout_cu_data, v, 6);
}

kt_cu_data kt_cu_data_get(const kt_flit *f)
{
    const kt_field *L = kt_layout_cu_data;
    kt_cu_data d;
    d.buf_id = (uint8_t)kt_field_get(f, &L[0]);
    d.offset = (uint16_t)kt_field_get(f, &L[1]);
    d.len = (uint8_t)kt_field_get(f, &L[2]);
    d.flags = (uint8_t)kt_field_get(f, &L[3]);
    d.ack.y = (uint8_t)kt_field_get(f, &L[4]);
    d.ack.x = (uint8_t)kt_field_get(f, &L[5]);
    return d;
}

/* A whole single-flit CU_CTRL message: the request and the reply differ only in op and value. */
static npk_status ctrl_flit(kt_flit *f, kt_coord dst, kt_coord src, kt_ctrl c, uint8_t txn)
{
    memset(f, 0, sizeof *f);
    kt_header h = {dst, src, KT_T_CU_CTRL, txn, true, 0};
    npk_status s = kt_ctrl_put(f, &c);
    return s ? s : kt_header_put(f, &h);
}

npk_status kt_flit_ctrl_request(kt_flit *f, kt_coord dst, kt_coord src, uint8_t index, uint8_t txn)
{
    return ctrl_flit(f, dst, src, (kt_ctrl){KT_CTRL_OP_READ, index, 0}, txn);
}

npk_status kt_flit_ctrl_reply(kt_flit *f, kt_coord dst, kt_coord src, uint8_t index, uint8_t txn,
                              uint64_t value)
{
    return ctrl_flit(f, dst, src, (kt_ctrl){KT_CTRL_OP_REPLY, index, value}, txn);
}

npk_status kt_flit_signal(kt_flit *f, kt_coord dst, kt_coord src, uint8_t txn, uint8_t code,
                          uint32_t arg)
{
    memset(f, 0, sizeof *f);
    kt_header h = {dst, src, KT_T_CU_SIGNAL, txn, true, 0};
    kt_signal sg = {code, arg};
    npk_status s = kt_signal_put(f, &sg);
    return s ? s : kt_header_put(f, &h);
}

void kt_flit_to_words(const kt_flit *f, uint64_t out[KT_FLIT_WORDS])
{
    memcpy(out, f->w, sizeof f->w);
    out[4] &= 0xFFFFFFFFull;
}

npk_status kt_flit_from_words(kt_flit *f, const uint64_t in[KT_FLIT_WORDS])
{
    if (in[4] >> 32)
        return npk_fail(NPK_EINVAL,
                        "flit word 4 = 0x%016" PRIx64 " has bits above 287 (upper 32 must be 0)",
                        in[4]);
    memcpy(f->w, in, sizeof f->w);
    return NPK_OK;
}

void kt_flit_to_bytes(const kt_flit *f, uint8_t out[KT_FLIT_WORDS * 8])
{
    for (int w = 0; w < KT_FLIT_WORDS; w++) {
        uint64_t v = w == 4 ? (f->w[w] & 0xFFFFFFFFull) : f->w[w];
        for (int b = 0; b < 8; b++)
            out[w * 8 + b] = (uint8_t)(v >> (8 * b));
    }
}

size_t kt_flit_describe(const kt_flit *f, char *buf, size_t len)
{
    if (!len)
        return 0;
    kt_header h = kt_header_get(f);
    int n =
        snprintf(buf, len, "%s dst=(%u,%u) src=(%u,%u) txn=0x%02x last=%u rsvd=%u",
                 kt_type_name(h.type), h.dst.x, h.dst.y, h.src.x, h.src.y, h.txn, h.last, h.rsvd);
    size_t used = n < 0 ? 0 : (size_t)n;
    const kt_field *layout = kt_layout_for_type(h.type);
    for (const kt_field *fl = layout; fl && fl->name && used < len; fl++) {
        n = snprintf(buf + used, len - used, " %s=0x%" PRIx64, fl->name, kt_field_get(f, fl));
        used += n < 0 ? 0 : (size_t)n;
    }
    if (used >= len)
        used = len - 1;
    return used;
}
