/* SPDX-License-Identifier: MIT */
/* Register words as field tables: one generic get/put, decode/encode loops over the rows, the
 * description text generated from the same rows, and the 40-bit inside address. */
#include "npukit/kt_words.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static uint64_t width_mask(unsigned width) { return width >= 64 ? ~0ull : (1ull << width) - 1; }

static const kt_field *field(const kt_word_layout *L, unsigned i) { return &L->fields[i].f; }

uint64_t kt_word_get(const kt_word_layout *L, unsigned i, uint64_t word)
{
    const kt_field *f = field(L, i);
    return word >> f->lo & width_mask(f->width);
}

uint64_t kt_word_bits(const kt_word_layout *L, unsigned i, uint64_t value)
{
    const kt_field *f = field(L, i);
    return (value & width_mask(f->width)) << f->lo;
}

uint64_t kt_word_mask(const kt_word_layout *L, unsigned i) { return kt_word_bits(L, i, ~0ull); }

static bool fits(const kt_wfield *wf, uint64_t value)
{
    unsigned w = wf->f.width;
    if (w >= 64)
        return true;
    if (!wf->is_signed)
        return value <= width_mask(w);
    int64_t s = (int64_t)value, lim = (int64_t)1 << (w - 1);
    return s >= -lim && s < lim;
}

static npk_status misfit(const kt_word_layout *L, const kt_wfield *wf, uint64_t value)
{
    unsigned w = wf->f.width;
    if (wf->is_signed)
        return npk_fail(NPK_ELIMIT,
                        "%s field %s=%" PRId64 " does not fit %u signed bits (%" PRId64 "..%" PRId64
                        ")",
                        L->name, wf->f.name, (int64_t)value, w, -((int64_t)1 << (w - 1)),
                        ((int64_t)1 << (w - 1)) - 1);
    return npk_fail(NPK_ELIMIT,
                    "%s field %s=0x%" PRIx64 " does not fit %u bits (max 0x%" PRIx64 ")", L->name,
                    wf->f.name, value, w, width_mask(w));
}

npk_status kt_word_put(const kt_word_layout *L, unsigned i, uint64_t *word, uint64_t value)
{
    const kt_wfield *wf = &L->fields[i];
    if (!fits(wf, value))
        return misfit(L, wf, value);
    *word = (*word & ~kt_word_mask(L, i)) | kt_word_bits(L, i, value);
    return NPK_OK;
}

/* A member's value widened to 64 bits (sign-extended when the field is signed). */
static uint64_t load_member(const kt_wfield *wf, const void *base)
{
    const unsigned char *p = (const unsigned char *)base + wf->member;
    switch (wf->size) {
    case 1: {
        uint8_t v;
        memcpy(&v, p, 1);
        return wf->is_signed ? (uint64_t)(int64_t)(int8_t)v : v;
    }
    case 2: {
        uint16_t v;
        memcpy(&v, p, 2);
        return wf->is_signed ? (uint64_t)(int64_t)(int16_t)v : v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, p, 4);
        return wf->is_signed ? (uint64_t)(int64_t)(int32_t)v : v;
    }
    default: {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    }
}

static void store_member(const kt_wfield *wf, void *base, uint64_t v)
{
    unsigned char *p = (unsigned char *)base + wf->member;
    switch (wf->size) {
    case 1: {
        uint8_t b = (uint8_t)v;
        memcpy(p, &b, 1);
        break;
    }
    case 2: {
        uint16_t h = (uint16_t)v;
        memcpy(p, &h, 2);
        break;
    }
    case 4: {
        uint32_t x = (uint32_t)v;
        memcpy(p, &x, 4);
        break;
    }
    default: memcpy(p, &v, 8); break;
    }
}

/* The field's bits as the member holds them: sign-extended for a signed field. A bool member
 * is bound only to a one-bit field, so it receives 0 or 1. */
static uint64_t field_value(const kt_wfield *wf, uint64_t word)
{
    unsigned w = wf->f.width;
    uint64_t v = word >> wf->f.lo & width_mask(w);
    if (wf->is_signed && w < 64 && (v >> (w - 1) & 1))
        v |= ~width_mask(w);
    return v;
}

void kt_word_decode(const kt_word_layout *L, uint64_t word, void *out)
{
    for (unsigned i = 0; i < L->n; i++)
        store_member(&L->fields[i], out, field_value(&L->fields[i], word));
}

npk_status kt_word_encode(const kt_word_layout *L, const void *in, uint64_t *word)
{
    uint64_t w = 0;
    for (unsigned i = 0; i < L->n; i++) {
        npk_status s = kt_word_put(L, i, &w, load_member(&L->fields[i], in));
        if (s)
            return s;
    }
    *word = w;
    return NPK_OK;
}

uint64_t kt_word_pack(const kt_word_layout *L, const void *in)
{
    uint64_t w = 0;
    for (unsigned i = 0; i < L->n; i++)
        w |= kt_word_bits(L, i, load_member(&L->fields[i], in));
    return w;
}

unsigned kt_word_width(const kt_word_layout *L)
{
    unsigned top = 0;
    for (unsigned i = 0; i < L->n; i++)
        if (L->fields[i].f.lo + L->fields[i].f.width > top)
            top = L->fields[i].f.lo + L->fields[i].f.width;
    return top;
}

/* Field indices in ascending bit order (tables list fields in whatever order reads best). */
static unsigned ascending(const kt_word_layout *L, unsigned *order)
{
    unsigned n = 0;
    for (unsigned i = 0; i < L->n && n < 64; i++) {
        unsigned at = n;
        while (at > 0 && L->fields[order[at - 1]].f.lo > L->fields[i].f.lo) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = i;
        n++;
    }
    return n;
}

static size_t append(size_t len, size_t used, int n)
{
    used += n < 0 ? 0 : (size_t)n;
    return used < len ? used : len - 1;
}

size_t kt_word_describe(const kt_word_layout *L, char *buf, size_t len)
{
    if (!len)
        return 0;
    buf[0] = 0;
    unsigned order[64], n = ascending(L, order);
    size_t used = 0;
    for (unsigned k = 0; k < n; k++) {
        const kt_field *f = &L->fields[order[k]].f;
        const char *sep = k ? " " : "";
        if (f->width == 1)
            used = append(len, used,
                          snprintf(buf + used, len - used, "%s[%u] %s", sep, f->lo, f->name));
        else
            used = append(len, used,
                          snprintf(buf + used, len - used, "%s[%u:%u] %s", sep,
                                   f->lo + f->width - 1, f->lo, f->name));
    }
    return used;
}

size_t kt_word_format(const kt_word_layout *L, uint64_t word, char *buf, size_t len)
{
    if (!len)
        return 0;
    buf[0] = 0;
    size_t used = 0;
    for (unsigned i = 0; i < L->n; i++) {
        const kt_wfield *wf = &L->fields[i];
        uint64_t v = field_value(wf, word);
        const char *sep = i ? " " : "";
        if (wf->is_signed)
            used = append(
                len, used,
                snprintf(buf + used, len - used, "%s%s=%" PRId64, sep, wf->f.name, (int64_t)v));
        else
            used = append(len, used,
                          snprintf(buf + used, len - used, "%s%s=%" PRIu64, sep, wf->f.name, v));
    }
    return used;
}

/* ---- the inside address ---- */

static const kt_wfield mesh_addr_rows[] = {
    [KT_MADDR_LOCAL] = KT_WF(kt_mesh_addr, local, "local", 0, KT_MESH_LOCAL_BITS),
    [KT_MADDR_MESH] = KT_WF(kt_mesh_addr, mesh, "mesh", 36, 2),
    [KT_MADDR_APERTURE] = KT_WF(kt_mesh_addr, aperture, "aperture", 39, 1),
};
const kt_word_layout kt_word_mesh_addr = KT_WORD_LAYOUT("mesh address", mesh_addr_rows);

static const kt_wfield aperture_rows[] = {
    [KT_AADDR_OFFSET] = KT_WF(kt_aperture_addr, offset, "offset", 0, 32),
    [KT_AADDR_INDEX] = KT_WF(kt_aperture_addr, index, "index", 32, 4),
};
const kt_word_layout kt_word_aperture_offset = KT_WORD_LAYOUT("aperture offset", aperture_rows);

uint64_t kt_mesh_addr_make(bool aperture, unsigned mesh, uint64_t local)
{
    kt_mesh_addr a = {aperture, (uint8_t)mesh, local};
    return kt_word_pack(&kt_word_mesh_addr, &a);
}

/* Every address a simulated memory port serves is split here: the rows' bits read directly
 * (field_value), not through the layout's member copy loop. */
kt_mesh_addr kt_mesh_addr_split(uint64_t addr)
{
    const kt_wfield *r = mesh_addr_rows;
    return (kt_mesh_addr){field_value(&r[KT_MADDR_APERTURE], addr) != 0,
                          (uint8_t)field_value(&r[KT_MADDR_MESH], addr),
                          field_value(&r[KT_MADDR_LOCAL], addr)};
}
