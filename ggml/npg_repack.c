/* SPDX-License-Identifier: MIT */
/* Weights the CPU backend keeps repacked. ggml's CPU backend has an extra buffer type,
 * "CPU_REPACK", whose set_tensor stores a weight (Q4_0, Q4_K, IQ4_NL, ... as the CPU's
 * features allow) with the blocks of a group of rows interleaved for its own kernels, and it
 * uses those kernels only for weights in that buffer type: the fast decode path on ARM and
 * x86. llama.cpp puts a weight there unless a device listed before the CPU claims it first.
 *
 * So the device leaves those weights to the CPU (npg_repack_cpu_keeps, used when a weight is
 * being placed), and reads them where they are when a matmul is worth the NPU: it accepts the
 * CPU_REPACK buffer type and rebuilds ggml's own block layout from the interleaved bytes once,
 * when it packs its copy. The interleaved layouts are the ggml version's, so nothing is assumed:
 * the first time a form of the CPU's (its tensor traits, tensor->extra) is met, a small probe
 * of the same type is repacked by the CPU itself and every layout this file knows for the type
 * is tried on it; only the one that gives the probe's own bytes back, exactly, is used for
 * that form. A form none reproduces is declined: those matmuls stay on the CPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npg.h"

/* ---- the CPU backend's repack buffer type ----------------------------------------------- */

/* The name ggml's CPU backend gives its repack buffer type. */
#define NPG_REPACK_NAME "CPU_REPACK"

static pthread_mutex_t buft_lock = PTHREAD_MUTEX_INITIALIZER;
/* the forms met (below): held while one is matched */
static pthread_mutex_t repack_lock = PTHREAD_MUTEX_INITIALIZER;

ggml_backend_buffer_type_t npg_repack_buft(void)
{
    static ggml_backend_buffer_type_t found; /* kept once found: the CPU backend stays loaded */
    pthread_mutex_lock(&buft_lock);
    ggml_backend_dev_t cpu = found ? NULL : ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    ggml_backend_reg_t reg = cpu ? ggml_backend_dev_backend_reg(cpu) : NULL;
    ggml_backend_dev_get_extra_bufts_t extra =
        reg ? (ggml_backend_dev_get_extra_bufts_t)ggml_backend_reg_get_proc_address(
                  reg, "ggml_backend_dev_get_extra_bufts")
            : NULL;
    for (ggml_backend_buffer_type_t *b = extra ? extra(cpu) : NULL; b && *b && !found; b++)
        if (strcmp(ggml_backend_buft_name(*b), NPG_REPACK_NAME) == 0)
            found = *b;
    ggml_backend_buffer_type_t r = found;
    pthread_mutex_unlock(&buft_lock);
    return r;
}

bool npg_repack_held(const struct ggml_tensor *t)
{
    const struct ggml_tensor *base = t->view_src ? t->view_src : t;
    return base->buffer && base->buffer->buft == npg_repack_buft();
}

bool npg_repack_cpu_keeps(const struct ggml_tensor *op)
{
    ggml_backend_buffer_type_t rb = npg_repack_buft();
    ggml_backend_dev_t cpu = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    if (!rb || !cpu || !op->src[0])
        return false;
    /* the same node with its weight in a CPU_REPACK buffer, asked of the CPU device: its
     * answer is the CPU's own choice (the type, the row count, its features) */
    struct ggml_backend_buffer there = {.buft = rb, .usage = GGML_BACKEND_BUFFER_USAGE_WEIGHTS};
    struct ggml_tensor w = *op->src[0], node = *op;
    w.buffer = &there;
    node.src[0] = &w;
    return ggml_backend_dev_supports_op(cpu, &node);
}

/* ---- the interleaved layouts ------------------------------------------------------------ */

/* One interleaved form: `group` rows at a time, every block column of the group stored as one
 * unit (group blocks' bytes): first each row's head (its scales), then the quant bytes of the
 * group's blocks taken `chunk` bytes from each row in turn, every byte XOR `flip`. A block whose
 * quants come in several arrays (Q5_K's high bits and low nibbles, Q6_K's) reads the same way:
 * each array is a multiple of `chunk` per row and interleaved in turn, in the block's order. */
typedef struct layout_row {
    enum ggml_type type;
    unsigned group, chunk;
    uint8_t flip;
    unsigned head;     /* bytes of a block's head (its scales) */
    bool quants_first; /* ggml's block holds its quants before its head (Q6_K) */
    /* the head of row r of the group from the group's heads (NULL: stored one after another) */
    void (*head_of)(const uint8_t *heads, unsigned r, uint8_t *out);
    const char *where; /* which CPUs the pinned ggml writes it on */
} layout_row;

/* Q4_K's head (d, dmin and 12 bytes of 6-bit scales and mins, ggml's block_q4_K) from the
 * heads of a group of 8: the 8 rows' d, then their dmin, then 12 bytes per sub-block holding
 * its scale and min for every row (rows 0-3 in the low 6 bits of bytes 0-3 and 4-7, rows 4-7
 * split into those bytes' top 2 bits and the nibbles of bytes 8-11). */
static void q4_k_head(const uint8_t *heads, unsigned r, uint8_t *out)
{
    memcpy(out, heads + 2 * r, 2);
    memcpy(out + 2, heads + 16 + 2 * r, 2);
    uint8_t sc[8], mn[8];
    for (unsigned sb = 0; sb < 8; sb++) {
        const uint8_t *q = heads + 32 + 12 * sb;
        if (r < 4) {
            sc[sb] = q[r] & 63;
            mn[sb] = q[4 + r] & 63;
        } else {
            sc[sb] = (uint8_t)((q[r - 4] >> 6) << 4 | (q[8 + r - 4] & 15));
            mn[sb] = (uint8_t)((q[r] >> 6) << 4 | q[8 + r - 4] >> 4);
        }
    }
    /* block_q4_K's own encoding: sub-blocks 0-3 in the low 6 bits of bytes 0-3 (scales) and
     * 4-7 (mins); 4-7 as the top 2 bits of those bytes and the nibbles of bytes 8-11 */
    uint8_t *s = out + 4;
    for (unsigned j = 0; j < 4; j++) {
        s[j] = (uint8_t)(sc[j] | (sc[j + 4] >> 4) << 6);
        s[j + 4] = (uint8_t)(mn[j] | (mn[j + 4] >> 4) << 6);
        s[j + 8] = (uint8_t)((sc[j + 4] & 15) | (mn[j + 4] & 15) << 4);
    }
}

/* Q6_K's head in ggml's block (16 int8 scales, then d) from the heads of a group of 8: the 8
 * rows' d, then scale j of row r at 8 j + r. */
static void q6_k_head(const uint8_t *heads, unsigned r, uint8_t *out)
{
    for (unsigned j = 0; j < 16; j++)
        out[j] = heads[16 + 8 * j + r];
    memcpy(out + 16, heads + 2 * r, 2);
}

/* Every form the pinned ggml's repack.cpp can write for these types; a form the CPU uses that
 * none of these reproduces is declined. Q4_0 stores its nibbles XOR 0x88 (signed). */
static const layout_row layout_rows[] = {
    {GGML_TYPE_Q4_0, 8, 8, 0x88, 2, false, NULL, "x86 AVX2, SVE 256-bit with i8mm"},
    {GGML_TYPE_Q4_0, 4, 8, 0x88, 2, false, NULL, "NEON with i8mm"},
    {GGML_TYPE_Q4_0, 4, 4, 0x88, 2, false, NULL, "NEON with dotprod"},
    {GGML_TYPE_Q4_0, 16, 1, 0x88, 2, false, NULL, "RISC-V V 256-bit"},
    {GGML_TYPE_Q8_0, 4, 8, 0, 2, false, NULL, "NEON with i8mm"},
    {GGML_TYPE_Q8_0, 4, 4, 0, 2, false, NULL, "NEON with dotprod"},
    {GGML_TYPE_IQ4_NL, 8, 8, 0, 2, false, NULL, "x86 AVX2"},
    {GGML_TYPE_IQ4_NL, 4, 4, 0, 2, false, NULL, "NEON with dotprod"},
    {GGML_TYPE_MXFP4, 8, 8, 0, 1, false, NULL, "x86 AVX2"},
    {GGML_TYPE_MXFP4, 4, 4, 0, 1, false, NULL, "NEON with dotprod"},
    {GGML_TYPE_Q4_K, 8, 8, 0, 16, false, q4_k_head, "x86 AVX2, NEON with i8mm"},
    {GGML_TYPE_Q4_K, 8, 4, 0, 16, false, q4_k_head, "NEON with dotprod"},
    /* Q5_K's scales are packed as Q4_K's; its high bits then its low nibbles interleaved */
    {GGML_TYPE_Q5_K, 8, 8, 0, 16, false, q4_k_head, "NEON with i8mm"},
    {GGML_TYPE_Q5_K, 8, 4, 0, 16, false, q4_k_head, "NEON with dotprod"},
    {GGML_TYPE_Q6_K, 8, 8, 0, 18, true, q6_k_head, "NEON with i8mm"},
    {GGML_TYPE_Q6_K, 8, 4, 0, 18, true, q6_k_head, "NEON with dotprod"},
};

/* The bytes of t (contiguous, its rows a multiple of the group) in ggml's own layout from
 * its interleaved bytes `src`. */
static void unpack_with(const layout_row *l, const struct ggml_tensor *t, const uint8_t *src,
                        uint8_t *dst)
{
    const size_t bs = ggml_type_size(t->type), quants = bs - l->head;
    const int64_t blocks = t->ne[0] / ggml_blck_size(t->type), rows = ggml_nrows(t);
    const size_t chunks = l->group * quants / l->chunk;
    for (int64_t g = 0; g < rows; g += l->group)
        for (int64_t x = 0; x < blocks; x++, src += l->group * bs) {
            for (unsigned r = 0; r < l->group; r++) {
                uint8_t *blk = dst + ((g + r) * blocks + x) * bs + (l->quants_first ? quants : 0);
                if (l->head_of)
                    l->head_of(src, r, blk);
                else
                    memcpy(blk, src + r * l->head, l->head);
            }
            const uint8_t *q = src + l->group * l->head;
            for (size_t c = 0; c < chunks; c++) {
                const unsigned r = (unsigned)(c % l->group);
                uint8_t *to = dst + ((g + r) * blocks + x) * bs + (l->quants_first ? 0 : l->head) +
                              c / l->group * l->chunk;
                for (unsigned i = 0; i < l->chunk; i++)
                    to[i] = q[c * l->chunk + i] ^ l->flip;
            }
        }
}

static bool layout_fits(const layout_row *l, const struct ggml_tensor *t)
{
    const size_t bs = ggml_type_size(t->type);
    return l->type == t->type && bs > l->head && (l->group * (bs - l->head)) % l->chunk == 0 &&
           t->ne[0] % ggml_blck_size(t->type) == 0 && ggml_nrows(t) % l->group == 0 &&
           ggml_is_contiguous(t);
}

/* ---- the CPU's forms, each matched to a layout once ------------------------------------ */

#define NPG_REPACK_FORMS 32

static struct form {
    const void *traits;    /* the CPU's tensor traits for the form (tensor->extra) */
    const layout_row *row; /* NULL: no layout here reproduces it */
} forms[NPG_REPACK_FORMS];
static size_t form_count;

static uint64_t probe_state = 0x9e3779b97f4a7c15ull;

/* A probe of t's type with `rows` rows (two blocks wide, at least 64 elements) repacked by
 * the CPU: true when the CPU gave it t's form; *row then the layout that unpacks it. */
static bool probe(const struct ggml_tensor *t, int64_t rows, const layout_row **row)
{
    ggml_backend_buffer_type_t rb = npg_repack_buft();
    const int64_t blk = ggml_blck_size(t->type), k = blk * 2 < 64 ? 64 : blk * 2;
    struct ggml_init_params params = {ggml_tensor_overhead(), NULL, true};
    struct ggml_context *ctx = ggml_init(params);
    struct ggml_tensor *p = ctx ? ggml_new_tensor_2d(ctx, t->type, k, rows) : NULL;
    ggml_backend_buffer_t buf =
        p ? ggml_backend_buft_alloc_buffer(rb, ggml_backend_buft_get_alloc_size(rb, p)) : NULL;
    bool same = buf &&
                ggml_backend_tensor_alloc(buf, p, ggml_backend_buffer_get_base(buf)) ==
                    GGML_STATUS_SUCCESS &&
                p->extra == t->extra;
    const size_t bytes = same ? ggml_nbytes(p) : 0;
    uint8_t *src = same ? malloc(bytes) : NULL, *back = same ? malloc(bytes) : NULL;
    *row = NULL;
    if (src && back) {
        for (size_t i = 0; i < bytes; i++) {
            probe_state ^= probe_state << 13, probe_state ^= probe_state >> 7,
                probe_state ^= probe_state << 17;
            src[i] = (uint8_t)(probe_state >> 32);
        }
        ggml_backend_tensor_set(p, src, 0, bytes);
        for (size_t i = 0; i < sizeof layout_rows / sizeof layout_rows[0] && !*row; i++) {
            if (!layout_fits(&layout_rows[i], p))
                continue;
            unpack_with(&layout_rows[i], p, p->data, back);
            if (memcmp(back, src, bytes) == 0)
                *row = &layout_rows[i];
        }
    }
    free(src), free(back);
    if (buf)
        ggml_backend_buffer_free(buf);
    if (ctx)
        ggml_free(ctx);
    return same;
}

/* The layout of t's form (repack_lock held): found, or matched now. */
static const layout_row *layout_locked(const struct ggml_tensor *t)
{
    for (size_t i = 0; i < form_count; i++)
        if (forms[i].traits == t->extra)
            return forms[i].row;
    /* the smallest probe the CPU gives the same form: the forms differ by rows interleaved */
    static const int64_t probe_rows[] = {4, 8, 16};
    const layout_row *row = NULL;
    bool met = false;
    for (size_t i = 0; i < sizeof probe_rows / sizeof probe_rows[0] && !met; i++)
        met = probe(t, probe_rows[i], &row);
    if (form_count < NPG_REPACK_FORMS)
        forms[form_count++] = (struct form){t->extra, row};
    if (npg_settings_get()->verbose && row)
        fprintf(stderr, "ggml-npukit: the CPU's %s form of %s: %u rows x %u bytes (%s)\n",
                ggml_type_name(t->type), t->name, row->group, row->chunk, row->where);
    else if (npg_settings_get()->verbose)
        fprintf(stderr, "ggml-npukit: the CPU's %s form of %s: no layout here reproduces it (left "
                        "to the CPU)\n", ggml_type_name(t->type), t->name);
    return row;
}

static const layout_row *layout_of(const struct ggml_tensor *t)
{
    if (!t->extra || t->view_src || !npg_repack_held(t))
        return NULL;
    pthread_mutex_lock(&repack_lock);
    const layout_row *row = layout_locked(t);
    pthread_mutex_unlock(&repack_lock);
    return row && layout_fits(row, t) ? row : NULL;
}

bool npg_repack_readable(const struct ggml_tensor *t) { return layout_of(t) != NULL; }

bool npg_repack_unpack(const struct ggml_tensor *t, void *out)
{
    const layout_row *row = layout_of(t);
    if (!row) {
        fprintf(stderr, "ggml-npukit: %s: no known layout for the CPU's repacked %s\n", t->name,
                ggml_type_name(t->type));
        return false;
    }
    unpack_with(row, t, t->data, out);
    return true;
}

const uint8_t *npg_weights_plain(const struct ggml_tensor *t, void **owned)
{
    *owned = NULL;
    if (!npg_repack_held(t))
        return t->data;
    void *plain = malloc(ggml_nbytes(t));
    if (!plain || !npg_repack_unpack(t, plain)) {
        free(plain);
        return NULL;
    }
    *owned = plain;
    return plain;
}
