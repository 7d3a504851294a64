/* SPDX-License-Identifier: MIT */
/* `npukit kt move`'s walker options, spans and expected destination (kt_move.h). The check walks
 * the library's walker (kt_mv_walker_point/next), the description the driver validates against:
 * what it checks is that the card did what the descriptor says. */
#include "kt_move.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "kt/hw/mxfp.h"

/* One decimal number with an optional leading '-', inside [lo, hi]. */
static bool signed_field(const char *p, size_t len, int64_t lo, int64_t hi, int64_t *out)
{
    bool neg = len && p[0] == '-';
    uint64_t v = 0;
    if (cli_number_scan(p + neg, len - neg, false, &v) != CLI_NUM_OK || v > (uint64_t)INT64_MAX)
        return false;
    int64_t s = neg ? -(int64_t)v : (int64_t)v;
    if (s < lo || s > hi)
        return false;
    *out = s;
    return true;
}

/* Split `text` at `sep` into at most `max` fields of at most `width` characters each. */
static int split(const char *text, char sep, const char **f, size_t *len, int max)
{
    int n = 0;
    for (const char *p = text;; p++) {
        size_t l = strcspn(p, (char[]){sep, 0});
        if (n == max)
            return -1;
        f[n] = p;
        len[n++] = l;
        p += l;
        if (!*p)
            return n;
    }
}

bool kt_move_parse_dims(const cli_opt *row, const char *text, const char *cmd)
{
    kt_mv_walker *w = row->dest;
    const char *dim[KT_MV_MAX_DIMS + 1];
    size_t dlen[KT_MV_MAX_DIMS + 1];
    int n = split(text, ',', dim, dlen, KT_MV_MAX_DIMS);
    if (n < 0) {
        fprintf(stderr, "npukit %s: %s '%s': more than %d dimensions\n", cmd, row->name, text,
                KT_MV_MAX_DIMS);
        return false;
    }
    for (int i = 0; i < n; i++) {
        char one[96];
        const char *f[5];
        size_t fl[5];
        int64_t v[4] = {0, 0, 0, 0};
        int k = dlen[i] < sizeof one ? (snprintf(one, sizeof one, "%.*s", (int)dlen[i], dim[i]),
                                        split(one, ':', f, fl, 4))
                                     : -1;
        /* count 1..65535, stride a signed 32-bit byte count, axis 0..2, step signed 16 bits */
        static const int64_t lo[4] = {1, INT32_MIN, 0, INT16_MIN},
                             hi[4] = {UINT16_MAX, INT32_MAX, 2, INT16_MAX};
        bool good = k == 2 || k == 4;
        for (int j = 0; good && j < k; j++)
            good = signed_field(f[j], fl[j], lo[j], hi[j], &v[j]);
        if (!good) {
            fprintf(stderr,
                    "npukit %s: %s: dimension %d '%.*s': expected COUNT:STRIDE[:AXIS:STEP] with "
                    "COUNT 1..65535, STRIDE a signed 32-bit byte count, AXIS 0 (none), 1 or 2, "
                    "STEP -32768..32767\n",
                    cmd, row->name, i, (int)dlen[i], dim[i]);
            return false;
        }
        w->dims[i] = (kt_mv_dim){(uint16_t)v[0], (int32_t)v[1], (uint8_t)v[2], (int16_t)v[3]};
    }
    w->ndim = (unsigned)n;
    return true;
}

bool kt_move_parse_window(const cli_opt *row, const char *text, const char *cmd)
{
    kt_mv_walker *w = row->dest;
    const char *win[3];
    size_t wl[3];
    int n = split(text, ',', win, wl, 2);
    for (int i = 0; n > 0 && i < n; i++) {
        char one[64];
        const char *f[3];
        size_t fl[3];
        int64_t base = 0, extent = 0;
        if (wl[i] >= sizeof one)
            n = -1;
        else if (snprintf(one, sizeof one, "%.*s", (int)wl[i], win[i]),
                 split(one, ':', f, fl, 2) != 2 ||
                     !signed_field(f[0], fl[0], INT16_MIN, INT16_MAX, &base) ||
                     !signed_field(f[1], fl[1], 0, UINT16_MAX, &extent))
            n = -1;
        else
            w->window[i] = (kt_mv_window){(int16_t)base, (uint16_t)extent};
    }
    if (n < 0)
        fprintf(stderr,
                "npukit %s: %s '%s': expected BASE:EXTENT[,BASE:EXTENT] (bound axis 0, then 1) "
                "with BASE -32768..32767 and EXTENT 0..65535 (0: the axis is off)\n",
                cmd, row->name, text);
    return n > 0;
}

bool kt_move_span_of(const kt_mv_walker *w, unsigned words, const char *which, kt_move_span *out)
{
    memset(out, 0, sizeof *out);
    out->elements = kt_mv_walker_elements(w);
    if (out->elements > KT_MOVE_MAX_ELEMENTS) {
        fprintf(stderr,
                "npukit kt move: the %s walker visits %" PRIu64
                " elements; this command checks at most %d\n",
                which, out->elements, KT_MOVE_MAX_ELEMENTS);
        return false;
    }
    uint32_t idx[KT_MV_MAX_DIMS] = {0};
    for (uint64_t e = 0; e < out->elements; e++, kt_mv_walker_next(w, idx)) {
        kt_mv_point p = kt_mv_walker_point(w, idx);
        if (!p.valid)
            continue;
        int64_t end = p.addr + (int64_t)words * KT_MV_WORD;
        if (!out->valid++ || p.addr < out->lo)
            out->lo = p.addr;
        if (out->valid == 1 || end > out->hi)
            out->hi = end;
    }
    return true;
}

/* A transform: the source walks entries of the slot's IN beats; each entry's OUT words land back
 * to back at the destination element the entry steps to. */
static void expect_transform(const kt_mv_move *m, const uint8_t *src, int64_t src_lo,
                             uint8_t *want, int64_t dst_lo)
{
    const kt_mv_slot *slot = kt_mv_slot_find(m->src.xform_id);
    uint8_t in[KT_MX_ENTRY_IN], out[KT_MX_ENTRY_OUT];
    uint32_t si[KT_MV_MAX_DIMS] = {0}, di[KT_MV_MAX_DIMS] = {0};
    uint64_t entries = kt_mv_walker_elements(&m->dst);
    for (uint64_t e = 0; slot && e < entries; e++, kt_mv_walker_next(&m->dst, di)) {
        for (unsigned b = 0; b < slot->in_beats; b++, kt_mv_walker_next(&m->src, si))
            memcpy(in + b * KT_MV_WORD, src + (kt_mv_walker_point(&m->src, si).addr - src_lo),
                   KT_MV_WORD);
        if (slot->id == KT_MV_SLOT_MXFP7)
            kt_mx_quant_entry(in, (m->src.xform_mode & KT_MV_XMODE_B_LAYOUT) != 0, out);
        else
            memcpy(out, in, (size_t)slot->out_words * KT_MV_WORD);
        memcpy(want + (kt_mv_walker_point(&m->dst, di).addr - dst_lo), out,
               (size_t)slot->out_words * KT_MV_WORD);
    }
}

void kt_move_expect(const kt_mv_move *m, const uint8_t *src, int64_t src_lo, uint8_t *want,
                    int64_t dst_lo)
{
    if (m->mode == KT_MV_XFORM) {
        expect_transform(m, src, src_lo, want, dst_lo);
        return;
    }
    uint32_t si[KT_MV_MAX_DIMS] = {0}, di[KT_MV_MAX_DIMS] = {0};
    uint64_t n = kt_mv_walker_elements(&m->dst);
    /* The destination defines the iteration space; the source steps in lockstep. */
    for (uint64_t e = 0; e < n; e++, kt_mv_walker_next(&m->src, si), kt_mv_walker_next(&m->dst, di)) {
        kt_mv_point d = kt_mv_walker_point(&m->dst, di), s = kt_mv_walker_point(&m->src, si);
        if (!d.valid)
            continue; /* the write is suppressed */
        uint8_t *out = want + (d.addr - dst_lo);
        switch (m->mode) {
        case KT_MV_GENERATE: kt_mv_generate_word(m->seed, (uint64_t)d.addr, out); break;
        case KT_MV_GATHER_MODE: {
            uint64_t row = e / m->gather_words, k = e % m->gather_words;
            memcpy(out,
                   src + ((int64_t)m->src.base + (int64_t)m->indices[row] * m->gather_pitch +
                          (int64_t)k * KT_MV_WORD - src_lo),
                   KT_MV_WORD);
            break;
        }
        case KT_MV_COPY:
            if (s.valid) {
                memcpy(out, src + (s.addr - src_lo), KT_MV_WORD);
                break;
            }
            /* an invalid source element is padding: the immediate, by width */
            kt_mv_fill_word(m->width, m->imm, out);
            break;
        case KT_MV_FILL: kt_mv_fill_word(m->width, m->imm, out); break;
        case KT_MV_TRANSPOSE: /* refused by validation */
        case KT_MV_XFORM: break; /* expect_transform */
        }
    }
}
