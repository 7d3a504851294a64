/* SPDX-License-Identifier: MIT */
/* Entry naming and program diffs through the register table. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/rk_decode.h"

typedef struct {
    char *buf;
    size_t len, used;
} sink;

static void put(sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sink *s, const char *fmt, ...)
{
    if (s->used + 1 >= s->len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s->buf + s->used, s->len - s->used, fmt, ap);
    va_end(ap);
    if (n > 0)
        s->used = s->used + (size_t)n < s->len ? s->used + (size_t)n : s->len - 1;
}

static void put_field_value(sink *s, npk_rk_field_id id, uint32_t v)
{
    const npk_rk_field *f = npk_rk_field_info(id);
    const char *name = npk_rk_field_value_name(id, v);
    /* Addresses and wide fields read best in hex; counts and enums in decimal. */
    if (f->hi - f->lo + 1 >= 28)
        put(s, "%s=0x%" PRIx32, f->name, v);
    else
        put(s, "%s=%" PRIu32, f->name, v);
    if (name)
        put(s, "(%s)", name);
}

static const char *block_label(uint16_t target, char tmp[8])
{
    npk_rk_unit b;
    if (npk_rk_unit_of_target(target, &b))
        return npk_rk_unit_name(b);
    snprintf(tmp, 8, "T%04x", target);
    return tmp;
}

size_t npk_rk_entry_describe(npk_rk_entry e, char *buf, size_t len)
{
    sink s = {buf, len, 0};
    if (len)
        buf[0] = '\0';
    if (e == 0) {
        put(&s, "%-9s %-6s %-27s 0x%08x", "NOP", "", "(no-op)", 0u);
        return s.used;
    }
    uint16_t target = npk_rk_entry_target(e), reg = npk_rk_entry_reg(e);
    uint32_t value = npk_rk_entry_value(e);
    char tmp[8];
    const npk_rk_reg *r = npk_rk_reg_lookup(target, reg);
    put(&s, "%-9s 0x%04x %-27s 0x%08" PRIx32, block_label(target, tmp), reg,
        r ? r->name : "UNKNOWN", value);
    if (r) {
        for (unsigned i = 0; i < r->nfields; i++) {
            npk_rk_field_id f = (npk_rk_field_id)(r->first_field + i);
            put(&s, "%s", i ? " " : "  ");
            put_field_value(&s, f, npk_rk_field_get(f, value));
        }
    }
    return s.used;
}

void npk_rk_decode_print(FILE *out, const npk_rk_entry *e, size_t n)
{
    char line[512];
    for (size_t i = 0; i < n; i++) {
        npk_rk_entry_describe(e[i], line, sizeof line);
        fprintf(out, "%4zu  %s\n", i, line);
    }
}

/* The effective register state of a program: the last value written to each
 * (target, offset), and how many times it was written. */
typedef struct {
    uint16_t target, reg;
    uint32_t value;
    unsigned writes;
    size_t first_index;
} reg_state;

static int cmp_state(const void *x, const void *y)
{
    const reg_state *a = x, *b = y;
    uint32_t ka = (uint32_t)a->target << 16 | a->reg, kb = (uint32_t)b->target << 16 | b->reg;
    return ka < kb ? -1 : ka > kb;
}

static size_t build_state(const npk_rk_entry *e, size_t n, reg_state *out)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        if (e[i] == 0)
            continue;
        uint16_t t = npk_rk_entry_target(e[i]), r = npk_rk_entry_reg(e[i]);
        size_t j = 0;
        while (j < count && !(out[j].target == t && out[j].reg == r))
            j++;
        if (j == count)
            out[count++] = (reg_state){t, r, 0, 0, i};
        out[j].value = npk_rk_entry_value(e[i]);
        out[j].writes++;
    }
    qsort(out, count, sizeof *out, cmp_state);
    return count;
}

static void print_field_changes(FILE *out, const npk_rk_reg *r, uint32_t va, uint32_t vb)
{
    if (!r || !r->nfields)
        return;
    for (unsigned i = 0; i < r->nfields; i++) {
        npk_rk_field_id f = (npk_rk_field_id)(r->first_field + i);
        uint32_t fa = npk_rk_field_get(f, va), fb = npk_rk_field_get(f, vb);
        if (fa != fb)
            fprintf(out, "    %s: %" PRIu32 " (0x%" PRIx32 ") -> %" PRIu32 " (0x%" PRIx32 ")\n",
                    npk_rk_field_info(f)->name, fa, fa, fb, fb);
    }
    uint32_t covered = 0;
    for (unsigned i = 0; i < r->nfields; i++)
        covered |= npk_rk_field_mask((npk_rk_field_id)(r->first_field + i));
    if ((va ^ vb) & ~covered)
        fprintf(out, "    undocumented bits: 0x%08" PRIx32 " -> 0x%08" PRIx32 "\n", va & ~covered,
                vb & ~covered);
}

size_t npk_rk_diff_print(FILE *out, const npk_rk_entry *a, size_t na, const npk_rk_entry *b,
                         size_t nb)
{
    char la[512], lb[512];
    size_t first = 0, common = na < nb ? na : nb;
    while (first < common && a[first] == b[first])
        first++;
    if (first == common && na == nb) {
        fprintf(out, "identical: %zu entries\n", na);
        return 0;
    }
    fprintf(out, "first divergence at entry %zu (A has %zu entries, B has %zu)\n", first, na, nb);
    if (first < na) {
        npk_rk_entry_describe(a[first], la, sizeof la);
        fprintf(out, "  A %4zu  %s\n", first, la);
    } else {
        fprintf(out, "  A ends\n");
    }
    if (first < nb) {
        npk_rk_entry_describe(b[first], lb, sizeof lb);
        fprintf(out, "  B %4zu  %s\n", first, lb);
    } else {
        fprintf(out, "  B ends\n");
    }

    reg_state *sa = calloc(na ? na : 1, sizeof *sa), *sb = calloc(nb ? nb : 1, sizeof *sb);
    if (!sa || !sb) {
        free(sa);
        free(sb);
        fprintf(out, "out of memory for the register diff\n");
        return 1;
    }
    size_t ca = build_state(a, na, sa), cb = build_state(b, nb, sb);
    size_t i = 0, j = 0, differing = 0;
    fprintf(out, "registers whose effective value differs (the later copy counts):\n");
    while (i < ca || j < cb) {
        int c = i == ca ? 1 : j == cb ? -1 : cmp_state(&sa[i], &sb[j]);
        const reg_state *x = c <= 0 ? &sa[i] : &sb[j];
        char tmp[8];
        const npk_rk_reg *r = npk_rk_reg_lookup(x->target, x->reg);
        npk_rk_unit blk;
        const char *bname = npk_rk_unit_of_target(x->target, &blk)
                                ? npk_rk_unit_name(blk)
                                : (snprintf(tmp, sizeof tmp, "T%04x", x->target), tmp);
        const char *rname = r ? r->name : "UNKNOWN";
        if (c < 0) {
            fprintf(out, "  %-8s 0x%04x %-27s A=0x%08" PRIx32 "  B: not written\n", bname, x->reg,
                    rname, x->value);
            differing++;
            i++;
        } else if (c > 0) {
            fprintf(out, "  %-8s 0x%04x %-27s A: not written  B=0x%08" PRIx32 "\n", bname, x->reg,
                    rname, x->value);
            differing++;
            j++;
        } else {
            if (sa[i].value != sb[j].value) {
                fprintf(out, "  %-8s 0x%04x %-27s A=0x%08" PRIx32 "  B=0x%08" PRIx32 "\n", bname,
                        x->reg, rname, sa[i].value, sb[j].value);
                print_field_changes(out, r, sa[i].value, sb[j].value);
                differing++;
            } else if (sa[i].writes != sb[j].writes) {
                fprintf(out, "  %-8s 0x%04x %-27s same value, written %u times in A, %u in B\n",
                        bname, x->reg, rname, sa[i].writes, sb[j].writes);
            }
            i++;
            j++;
        }
    }
    if (!differing)
        fprintf(out, "  (none: the programs differ only in order or in repeated writes)\n");
    free(sa);
    free(sb);
    return differing;
}
