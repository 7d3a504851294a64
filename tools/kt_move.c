/* SPDX-License-Identifier: MIT */
/* `npukit kt move copy|fill|gather|generate|transform ...`: describe one move, let the driver
 * validate and issue it on the simulated card, wait for the mover, and check the destination
 * against what the mode promises — a copy of the source (padding where a source window says so,
 * nothing where a destination window does), the fill pattern, the gathered rows, the PRNG's words
 * (a pure function of seed and destination address), or each entry through the transform slot
 * (the MXFP7 quantiser: the library's reference quantiser). Both walkers take dimensions and
 * bound-axis windows. With --dst-mesh the destination is another mesh of the card: the data
 * crosses the interlink and the doorbell is rung after it. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kt_move.h"
#include "kt_card_cli.h"
#include "npukit/kt_hostprog.h"
#include "kt/kt_interlink.h"
#include "kt/hw/kt_interlink_hw.h"
#include "npukit/kt_mover.h"

enum { MAX_INDICES = 256, ARRIVAL_POLLS = 1000, MAX_SOURCE = 64 << 20 };
static const uint64_t INDEX_OFF = 0x30000;

typedef struct move_args {
    kt_mv_mode mode;
    uint64_t words, src, dst, value, seed, pitch, row_words, entries;
    unsigned width_bits, dst_mesh, xform_id, xform_mode;
    bool engine, emit;
    kt_mv_walker src_w, dst_w; /* --src-dims / --dst-dims and the windows */
    bool src_dims, dst_dims, src_win, dst_win, words_given, entries_given;
    bool no_coalesce;
    unsigned burst_cap; /* words, a power of two 1..128 */
    uint32_t indices[MAX_INDICES];
    unsigned n_indices;
} move_args;

static int usage(const char *why)
{
    fprintf(stderr, "npukit kt move: %s (npukit kt move --help lists the options)\n", why);
    return 2;
}

/* "I,J,..": 1..MAX_INDICES row indices, each a 32-bit number (the INDEX buffer's element). */
static bool parse_indices(const cli_opt *row, const char *text, const char *cmd)
{
    move_args *a = row->dest;
    a->n_indices = 0;
    const char *p = text;
    for (;;) {
        size_t len = strcspn(p, ",");
        uint64_t v = 0;
        cli_num r = cli_number_scan(p, len, false, &v);
        if (r == CLI_NUM_BAD || r == CLI_NUM_LEADING_ZERO) {
            fprintf(stderr,
                    "npukit %s: --indices '%s': expected 1 to %d comma-separated decimal numbers\n",
                    cmd, text, MAX_INDICES);
            return false;
        }
        if (r == CLI_NUM_BIG || v > UINT32_MAX) {
            fprintf(stderr, "npukit %s: --indices: index %.*s exceeds the limit %" PRIu32 "\n", cmd,
                    (int)len, p, UINT32_MAX);
            return false;
        }
        if (a->n_indices == MAX_INDICES) {
            fprintf(stderr, "npukit %s: --indices: more than %d indices\n", cmd, MAX_INDICES);
            return false;
        }
        a->indices[a->n_indices++] = (uint32_t)v;
        if (!p[len])
            return true;
        p += len + 1;
    }
}

static bool parse_width(const cli_opt *row, const char *text, const char *cmd)
{
    uint64_t w = 0;
    if (cli_number_scan(text, strlen(text), false, &w) != CLI_NUM_OK ||
        (w != 8 && w != 16 && w != 32)) {
        fprintf(stderr, "npukit %s: --width '%s': the element width is 8, 16 or 32\n", cmd, text);
        return false;
    }
    *(unsigned *)row->dest = (unsigned)w;
    return true;
}

/* Which options a mode reads: a source walker only where the mode reads one through it. */
static int walker_options_fit(const move_args *a)
{
    bool src_walked = a->mode == KT_MV_COPY || a->mode == KT_MV_XFORM;
    const char *bad = !src_walked && a->src_dims     ? "--src-dims"
                      : !src_walked && a->src_win    ? "--src-window"
                      : a->mode == KT_MV_XFORM && a->words_given ? "--words"
                      : a->mode != KT_MV_XFORM && a->entries_given ? "--entries"
                      : a->mode == KT_MV_XFORM && (a->dst_win || a->src_win)
                          ? (a->dst_win ? "--dst-window" : "--src-window")
                          : NULL;
    if (!bad)
        return -1;
    const char *why = !strcmp(bad, "--words")   ? "it counts entries (--entries)"
                      : !strcmp(bad, "--entries") ? "it counts words (--words)"
                      : a->mode == KT_MV_XFORM
                          ? "a bound axis in a transform is mover fault 7 (a padded element "
                            "issues no read, so the occupant would wait for its beat forever)"
                      : a->mode == KT_MV_GATHER_MODE
                          ? "a gather reads rows by index from --src, not through a walker"
                          : "it reads no source";
    fprintf(stderr, "npukit kt move: %s does not apply to a %s move: %s\n", bad,
            kt_mv_mode_name(a->mode), why);
    return 2;
}

static bool parse_burst_cap(const cli_opt *row, const char *text, const char *cmd)
{
    uint64_t v = 0;
    if (cli_number_scan(text, strlen(text), false, &v) != CLI_NUM_OK || v > KT_MV_BURST_MAX ||
        kt_mv_burst_field((unsigned)v) < 0) {
        fprintf(stderr,
                "npukit %s: --burst-cap '%s': the mover caps bursts at 1, 2, 4, 8, 16, 32, 64 or "
                "128 words (CTRL flags [7:5])\n",
                cmd, text);
        return false;
    }
    *(unsigned *)row->dest = (unsigned)v;
    return true;
}

static int parse(int argc, char **argv, kt_card_cli *c, move_args *a)
{
    bool value_given = false;
    const cli_opt own[] = {
        {.name = "--words",
         .kind = CLI_U64,
         .dest = &a->words,
         .min = 1,
         .max = UINT16_MAX,
         .meta = "N",
         .given = &a->words_given,
         .help = "32-byte words to move (default 16; gather: indices x --row-words)"},
        {.name = "--src",
         .kind = CLI_U64_HEX,
         .dest = &a->src,
         .max = kt_mesh_local_max(),
         .meta = "OFF",
         .help = "source offset in mesh 0's DRAM (default 0x10000)"},
        {.name = "--dst",
         .kind = CLI_U64_HEX,
         .dest = &a->dst,
         .max = kt_mesh_local_max(),
         .meta = "OFF",
         .help = "destination offset (default 0x20000)"},
        {.name = "--value",
         .kind = CLI_U64_HEX,
         .dest = &a->value,
         .max = UINT32_MAX,
         .meta = "V",
         .given = &value_given,
         .help = "fill pattern, and a copy's padding (default 0x5a5a, cut to the width)"},
        {.name = "--width",
         .kind = CLI_CUSTOM,
         .dest = &a->width_bits,
         .parse = parse_width,
         .meta = "8|16|32",
         .help = "element width in bits (default 16)"},
        {.name = "--seed",
         .kind = CLI_U64_HEX,
         .dest = &a->seed,
         .max = UINT64_MAX,
         .meta = "S",
         .help = "generate: the PRNG seed (default 1)"},
        {.name = "--indices",
         .kind = CLI_CUSTOM,
         .dest = a,
         .parse = parse_indices,
         .meta = "I,J,...",
         .help = "gather: the row indices (default 3,1,2,0)"},
        {.name = "--pitch",
         .kind = CLI_U64,
         .dest = &a->pitch,
         .max = UINT32_MAX,
         .meta = "BYTES",
         .help = "gather: bytes between source rows (default 64)"},
        {.name = "--row-words",
         .kind = CLI_U64,
         .dest = &a->row_words,
         .min = 1,
         .max = UINT16_MAX,
         .meta = "N",
         .help = "gather: words per row (default 1)"},
        {.name = "--entries",
         .kind = CLI_U64,
         .dest = &a->entries,
         .min = 1,
         .max = UINT16_MAX,
         .meta = "N",
         .given = &a->entries_given,
         .help = "transform: entries to convert (default 4)"},
        {.name = "--xform-id",
         .kind = CLI_UINT,
         .dest = &a->xform_id,
         .max = 15,
         .meta = "ID",
         .help = "transform: the slot, 0 bypass, 1 the MXFP7 quantiser (default 1)"},
        {.name = "--xform-mode",
         .kind = CLI_UINT,
         .dest = &a->xform_mode,
         .max = 15,
         .meta = "M",
         .help = "transform: the occupant's mode (the quantiser: bit 0 = B packing; default 0)"},
        {.name = "--src-dims",
         .kind = CLI_CUSTOM,
         .dest = &a->src_w,
         .parse = kt_move_parse_dims,
         .given = &a->src_dims,
         .meta = "C:S[:A:T],..",
         .help = "source walker dimensions, outermost first: count, byte stride, bound axis 1|2 "
                 "and its step"},
        {.name = "--dst-dims",
         .kind = CLI_CUSTOM,
         .dest = &a->dst_w,
         .parse = kt_move_parse_dims,
         .given = &a->dst_dims,
         .meta = "C:S[:A:T],..",
         .help = "destination walker dimensions (it defines the iteration space)"},
        {.name = "--src-window",
         .kind = CLI_CUSTOM,
         .dest = &a->src_w,
         .parse = kt_move_parse_window,
         .given = &a->src_win,
         .meta = "B:E[,B:E]",
         .help = "source bound-axis windows 0 (and 1): outside one, an element is padding"},
        {.name = "--dst-window",
         .kind = CLI_CUSTOM,
         .dest = &a->dst_w,
         .parse = kt_move_parse_window,
         .given = &a->dst_win,
         .meta = "B:E[,B:E]",
         .help = "destination bound-axis windows: outside one, the write is suppressed"},
        {.name = "--no-coalesce",
         .kind = CLI_FLAG,
         .dest = &a->no_coalesce,
         .help = "write every word as its own burst (CTRL flags [3] off)"},
        {.name = "--burst-cap",
         .kind = CLI_CUSTOM,
         .dest = &a->burst_cap,
         .parse = parse_burst_cap,
         .meta = "1|2|..|128",
         .help = "longest read or write burst in words (CTRL flags [7:5]; default 128)"},
        {.name = "--dst-mesh",
         .kind = CLI_UINT,
         .dest = &a->dst_mesh,
         .max = KT_IL_MAX_MESHES - 1,
         .meta = "M",
         .help = "write into mesh M of the card, over the interlink"},
        {.name = "--engine",
         .kind = CLI_FLAG,
         .dest = &a->engine,
         .help = "run the move as an engine program"},
        {.name = "--emit",
         .kind = CLI_FLAG,
         .dest = &a->emit,
         .help = "print the move as a `kt prog` program"},
        CLI_END,
    };
    const cli_opt *tables[] = {own, kt_card_cli_rows(c), kt_cli_rows(&c->o),
                               kt_cli_wait_rows(&c->o), NULL};
    const char *pos[1];
    cli_spec spec = {
        .cmd = "kt move",
        .synopsis = "copy|fill|gather|generate|transform [options]",
        .about = "run one memory-mover move on the simulated card and check the destination",
        .tables = tables,
        .pos = pos,
        .min_pos = 1,
        .max_pos = 1};
    int rc = cli_parse(&spec, argc, argv);
    if (rc >= 0)
        return rc;
    if (kt_mv_mode_parse(pos[0], &a->mode) != NPK_OK || a->mode == KT_MV_TRANSPOSE)
        return usage("the mode is one of copy, fill, gather, generate, transform");
    if ((rc = walker_options_fit(a)) >= 0)
        return rc;
    if (a->dst_mesh + 1 > c->meshes) {
        if (c->meshes_given) {
            fprintf(stderr, "npukit kt move: --dst-mesh %u is beyond a card of --meshes %u\n",
                    a->dst_mesh, c->meshes);
            return 2;
        }
        c->meshes = a->dst_mesh + 1;
    }
    if (!value_given && a->width_bits < 32) /* the default pattern, cut to the element */
        a->value &= (1u << a->width_bits) - 1;
    if (a->mode == KT_MV_FILL && a->width_bits < 32 && a->value >> a->width_bits) {
        fprintf(stderr,
                "npukit kt move: --value 0x%" PRIx64 " does not fit a %u-bit element (max 0x%x)\n",
                a->value, a->width_bits, (1u << a->width_bits) - 1);
        return 2;
    }
    if (a->engine && a->dst_mesh)
        return usage("--engine runs a local move (the doorbell ordering is the host's job here)");
    c->engine = a->engine;
    return -1;
}

static kt_mv_width width_of(unsigned bits)
{
    return bits == 8 ? KT_MV_W8 : bits == 32 ? KT_MV_W32 : KT_MV_W16;
}

/* The regions the command writes and reads, as offsets in their mesh's DRAM: the source span
 * (what the move reads), the index buffer, the destination span (what it may write). `*_lo` is
 * the span's start as the walker addresses it. */
typedef struct regions {
    uint64_t src_at, src_len, dst_at, dst_len;
    int64_t src_lo, dst_lo;
} regions;

/* Bytes of source a gather reads from --src. */
static uint64_t gather_bytes(const move_args *a)
{
    uint64_t top = 0; /* 32-bit index x 32-bit pitch: fits 64 bits */
    for (unsigned i = 0; i < a->n_indices; i++)
        top = a->indices[i] > top ? a->indices[i] : top;
    return top * a->pitch + a->row_words * 32;
}

/* A span as an offset from the option that placed the walker's base; false (with the reason)
 * where it reaches below offset 0. */
static bool place(const char *opt, uint64_t off, uint64_t base, const kt_move_span *sp,
                  uint64_t *at, uint64_t *len)
{
    int64_t rel = sp->lo - (int64_t)base;
    if (sp->valid && rel < 0 && (uint64_t)-rel > off) {
        fprintf(stderr,
                "npukit kt move: the walker reaches %" PRId64 " bytes below %s 0x%" PRIx64
                ", before offset 0\n",
                -rel, opt, off);
        return false;
    }
    *at = sp->valid ? off + (uint64_t)rel : off;
    *len = (uint64_t)(sp->hi - sp->lo);
    return true;
}

static bool find_regions(const move_args *a, const kt_mv_move *m, regions *r)
{
    memset(r, 0, sizeof *r);
    const kt_mv_slot *slot = kt_mv_slot_find(m->src.xform_id);
    unsigned out = a->mode == KT_MV_XFORM && slot ? slot->out_words : 1;
    kt_move_span sp, dp;
    if (!kt_move_span_of(&m->dst, out, "destination", &dp) ||
        !place("--dst", a->dst, m->dst.base, &dp, &r->dst_at, &r->dst_len))
        return false;
    r->dst_lo = dp.lo;
    if (a->mode == KT_MV_GATHER_MODE) {
        r->src_at = a->src;
        r->src_len = (gather_bytes(a) + 31) / 32 * 32;
        r->src_lo = (int64_t)m->src.base;
    } else if (a->mode == KT_MV_COPY || a->mode == KT_MV_XFORM) {
        if (!kt_move_span_of(&m->src, 1, "source", &sp) ||
            !place("--src", a->src, m->src.base, &sp, &r->src_at, &r->src_len))
            return false;
        r->src_lo = sp.lo;
    }
    return true;
}

/* The check compares the destination with what the source held before the move, so the regions
 * the command writes (source, index buffer, destination in mesh 0) must be apart. */
static bool overlapping(const move_args *a, const regions *g)
{
    struct {
        const char *name;
        uint64_t at, len;
    } r[3] = {{"--src", g->src_at, g->src_len},
              {"the index buffer", INDEX_OFF,
               a->mode == KT_MV_GATHER_MODE ? (a->n_indices * 4ull + 31) / 32 * 32 : 0},
              {"--dst", g->dst_at, a->dst_mesh ? 0 : g->dst_len}};
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (r[i].len && r[j].len && r[i].at < r[j].at + r[j].len &&
                r[j].at < r[i].at + r[i].len) {
                fprintf(stderr,
                        "npukit kt move: %s 0x%" PRIx64 "+%" PRIu64 " overlaps %s 0x%" PRIx64
                        "+%" PRIu64 " (the check needs the source intact)\n",
                        r[i].name, r[i].at, r[i].len, r[j].name, r[j].at, r[j].len);
                return true;
            }
    return false;
}

/* The move as a host control program: its writes, a POLL of AUX_STAT.busy, DONE — loaded into
 * the engine and started with one GO. The host reads AUX_STAT before and after, as kt_mv_run. */
static npk_status run_in_engine(kt_card_cli *c, const kt_mv_move *m, kt_mv_result *r)
{
    uint64_t ctrl = kt_machine_ctrl_base(c->m, 0), v;
    kt_mv_write w[KT_MV_MAX_WRITES];
    size_t n;
    npk_status s = kt_mv_build(m, w, KT_MV_MAX_WRITES, &n);
    if (s || (s = kt_read64(c->t, ctrl + 0x78, &v)))
        return s;
    r->before = kt_mv_status_decode(v);
    kt_hostprog p;
    kt_hp_init(&p);
    kt_hp_result hr;
    kt_cli_idler idler;
    bool paced = kt_cli_idler_init(&idler, c->m, &c->o);
    kt_hp_opts o = {0, paced ? kt_cli_idle : NULL, &idler};
    if (!(s = kt_hp_move(&p, ctrl, w, n)) && !(s = kt_hp_done(&p, 0)))
        s = kt_hp_run_engine(c->t, kt_machine_board(c->m)->engine_base, &p, &o, &hr);
    kt_hp_free(&p);
    if (s || (s = kt_read64(c->t, ctrl + 0x78, &v)))
        return s;
    r->after = kt_mv_status_decode(v);
    r->polls = hr.polls;
    if (r->after.fault)
        return npk_fail(NPK_EFAULT, "mover fault %u (%s) on a %s move", r->after.fault,
                        kt_mv_fault_name(r->after.fault), kt_mv_mode_name(m->mode));
    return NPK_OK;
}

/* A walker of the options' dimensions and windows over `base` (the windows default to off). */
static void apply_walker(kt_mv_walker *w, const kt_mv_walker *given, bool dims, bool windows)
{
    if (dims) {
        w->ndim = given->ndim;
        memcpy(w->dims, given->dims, sizeof w->dims);
    }
    if (windows)
        memcpy(w->window, given->window, sizeof w->window);
}

/* The destination elements a source walk of `beats` words feeds: words for a copy, entries of the
 * slot's IN words for a transform (a partial entry rounds up, for validation to name). */
static uint64_t entries_of(const move_args *a, uint64_t beats)
{
    const kt_mv_slot *slot = kt_mv_slot_find(a->xform_id);
    unsigned in = a->mode == KT_MV_XFORM && slot ? slot->in_beats : 1;
    return (beats + in - 1) / in;
}

/* The move the options describe; -1 to go on, or an exit code. */
static int build_move(move_args *a, kt_mv_move *m)
{
    uint64_t dst = a->dst_mesh ? kt_il_dram_addr(a->dst_mesh, a->dst) : a->dst;
    /* A walker given alone sets the other's length: the two step in lockstep (a transform's
     * destination counts entries of the slot's IN source words). */
    uint64_t n = a->dst_dims ? kt_mv_walker_elements(&a->dst_w)
                 : a->src_dims ? entries_of(a, kt_mv_walker_elements(&a->src_w))
                 : a->mode == KT_MV_XFORM ? a->entries
                                          : a->words;
    bool src_walked = a->mode == KT_MV_COPY || a->mode == KT_MV_XFORM;
    bool n_kept = src_walked ? !(a->src_dims && a->dst_dims) : !a->dst_dims; /* a default walker */
    if (!n_kept)
        n = 1; /* both walkers are given */
    if (n > UINT16_MAX && a->mode != KT_MV_GATHER_MODE)
        return usage("the given walker has more than 65535 elements: give the other walker's "
                     "dimensions too (--src-dims and --dst-dims)");
    switch (a->mode) {
    case KT_MV_FILL:
        *m = kt_mv_fill(dst, (uint16_t)n, width_of(a->width_bits), (uint32_t)a->value);
        break;
    case KT_MV_GENERATE: *m = kt_mv_generate(dst, (uint16_t)n, a->seed); break;
    case KT_MV_GATHER_MODE:
        if ((uint64_t)a->n_indices * a->row_words > UINT16_MAX)
            return usage("--indices x --row-words exceeds 65535 words");
        *m = kt_mv_gather(dst, a->src, a->indices, (uint16_t)a->n_indices, INDEX_OFF,
                          (uint32_t)a->pitch, (uint16_t)a->row_words);
        break;
    case KT_MV_XFORM:
        *m = kt_mv_transform(dst, a->src, (uint16_t)n, (uint8_t)a->xform_id,
                             (uint8_t)a->xform_mode);
        break;
    case KT_MV_COPY: *m = kt_mv_copy(dst, a->src, (uint16_t)n); break;
    case KT_MV_TRANSPOSE: return usage("the mode is one of copy, fill, gather, generate, transform");
    }
    if (a->mode != KT_MV_FILL) {
        m->width = width_of(a->width_bits);
        m->imm = (uint32_t)a->value; /* a copy's padding */
    }
    m->flags = (uint8_t)((a->no_coalesce ? 0 : KT_MV_FLAG_WCOAL) |
                         kt_mv_burst_field(a->burst_cap) << KT_MV_FLAG_BURST_SHIFT);
    apply_walker(&m->dst, &a->dst_w, a->dst_dims, a->dst_win);
    apply_walker(&m->src, &a->src_w, a->src_dims, a->src_win);
    return -1;
}

static void free3(void *x, void *y, void *z)
{
    free(x);
    free(y);
    free(z);
}

/* Print the move as a host control program, as text for `kt prog`. */
static int emit_program(uint64_t ctrl, const kt_mv_move *m)
{
    kt_mv_write w[KT_MV_MAX_WRITES];
    size_t n;
    kt_hostprog p;
    kt_hp_init(&p);
    npk_status es = kt_mv_build(m, w, KT_MV_MAX_WRITES, &n);
    if (!es && !(es = kt_hp_move(&p, ctrl, w, n)))
        es = kt_hp_done(&p, 0);
    size_t need = kt_hp_to_text(&p, NULL, 0) + 1;
    char *text = malloc(need);
    if (!es && text) {
        kt_hp_to_text(&p, text, need);
        fputs(text, stdout);
    }
    free(text);
    kt_hp_free(&p);
    return es ? cli_lib_error("kt move --emit") : 0;
}

static void print_result(kt_card_cli *c, const move_args *a, const kt_mv_move *m,
                         const kt_mv_result *r, size_t words, size_t bad, bool fault, int *out)
{
    const kt_mv_slot *slot = kt_mv_slot_find(m->src.xform_id);
    bool xf = a->mode == KT_MV_XFORM && slot;
    if (c->o.json) {
        cJSON *doc = json_doc();
        json_str(doc, "mode", kt_mv_mode_name(a->mode));
        json_u64(doc, "words", words);
        json_u64(doc, "src", a->src);
        json_u64(doc, "dst", a->dst);
        json_u64(doc, "dst_mesh", a->dst_mesh);
        if (xf) {
            json_u64(doc, "entries", kt_mv_walker_elements(&m->dst));
            json_u64(doc, "xform_id", slot->id);
            json_str(doc, "occupant", slot->name);
            json_u64(doc, "xform_mode", m->src.xform_mode);
        }
        json_u64(doc, "flags", m->flags);
        json_str(doc, "form", a->engine ? "engine" : "host");
        json_u64(doc, "moves_done", r->after.moves_done);
        json_str(doc, "fault", kt_mv_fault_name(r->after.fault));
        json_u64(doc, "polls", r->polls);
        json_u64(doc, "mismatched_words", bad);
        json_bool(doc, "ok", !bad && !fault);
        kt_card_cli_json_counts(doc, c);
        *out = json_print(doc, "kt move");
        return;
    }
    printf("move %s: %zu words -> 0x%" PRIx64 " in mesh %u%s\n", kt_mv_mode_name(a->mode), words,
           a->dst, a->dst_mesh,
           a->dst_mesh ? " (over the interlink, doorbell after the data)"
           : a->engine ? " (one engine program: writes, poll, DONE)"
                       : "");
    if (xf)
        printf("transform: slot %u (%s), mode 0x%x: %" PRIu64 " entries of %u words in, %u out\n",
               slot->id, slot->name, m->src.xform_mode, kt_mv_walker_elements(&m->dst),
               slot->in_beats, slot->out_words);
    printf("mover: %u moves completed, fault %u (%s); flags 0x%02x: write coalescing %s, bursts "
           "of at most %u words\n",
           r->after.moves_done, r->after.fault, kt_mv_fault_name(r->after.fault), m->flags,
           m->flags & KT_MV_FLAG_WCOAL ? "on" : "off", kt_mv_burst_cap(m->flags));
    printf("check: %s (%zu of %zu words differ)\n", bad ? "MISMATCH" : "ok", bad, words);
    kt_card_cli_print_counts(c);
}

/* Write the source (and indices), run the move, read the destination span back and compare. */
static int run_and_check(kt_card_cli *c, const move_args *a, const kt_mv_move *m, const regions *g)
{
    size_t words = (size_t)(g->dst_len / 32);
    uint8_t *src = calloc(g->src_len ? g->src_len : 32, 1), *want = calloc(words ? words : 1, 32),
            *got = calloc(words ? words : 1, 32);
    if (!src || !want || !got) {
        fprintf(stderr, "npukit kt move: out of memory\n");
        free3(src, want, got);
        return 1;
    }
    uint64_t ctrl = kt_machine_ctrl_base(c->m, 0), mem0 = kt_machine_mem_base(c->m, 0),
             memd = kt_machine_mem_base(c->m, a->dst_mesh);
    /* The source and the index buffer go in through the host memory window, in whole granules.
     * The pattern does not repeat within a transform entry's 256 bytes or across entries. */
    for (size_t i = 0; i < g->src_len; i++)
        src[i] = (uint8_t)((i * 29 + 7) ^ (i >> 8) * 113);
    npk_status s = NPK_OK;
    if (g->src_len)
        s = kt_write_block(c->t, mem0 + g->src_at, src, g->src_len);
    if (!s && a->mode == KT_MV_GATHER_MODE) {
        uint32_t idx[MAX_INDICES + 8] = {0};
        memcpy(idx, a->indices, a->n_indices * 4);
        size_t ib = ((size_t)a->n_indices * 4 + 31) / 32 * 32;
        s = kt_write_block(c->t, mem0 + INDEX_OFF, idx, ib);
    }
    /* Walkers with gaps or windows leave words of the span unwritten: give them known bytes. */
    bool holes = a->src_dims || a->dst_dims || a->src_win || a->dst_win;
    memset(want, 0xE5, words * 32);
    if (!s && holes && words)
        s = kt_write_block(c->t, memd + g->dst_at, want, words * 32);
    if (s) {
        free3(src, want, got);
        return cli_lib_error("kt move: writing the source and indices");
    }
    if (a->emit) {
        free3(src, want, got);
        return emit_program(ctrl, m);
    }
    kt_cli_span_begin(c->m); /* the move itself: descriptor, polls, and the doorbell */
    kt_mv_result r = {0};
    kt_cli_idler idler;
    if (a->dst_mesh)
        s = kt_il_write_and_ring(c->t, ctrl, m, a->dst_mesh, 1, 0);
    else if (a->engine)
        s = run_in_engine(c, m, &r);
    else if (kt_cli_idler_init(&idler, c->m, &c->o))
        s = kt_mv_run_idle(c->t, ctrl, m, 0, kt_cli_idle, &idler, &r);
    else
        s = kt_mv_run(c->t, ctrl, m, 0, &r);
    if (s != NPK_OK) {
        free3(src, want, got);
        return cli_lib_error("kt move");
    }
    kt_counters move_traffic = c->t->count;
    kt_cli_span_end(c->m);
    if (a->dst_mesh) {
        /* The ring left after the data: once it is heard on the far side, the data is there. */
        kt_il_doorbells db = {0};
        for (int i = 0; i < ARRIVAL_POLLS && !db.received[0]; i++)
            kt_il_read_doorbells(c->t, kt_machine_ctrl_base(c->m, a->dst_mesh), &db);
        uint64_t v;
        kt_read64(c->t, ctrl + 0x78, &v);
        r.after = kt_mv_status_decode(v);
    }
    c->t->count = move_traffic; /* the check below is not part of the move */
    kt_move_expect(m, src, g->src_lo, want, g->dst_lo);
    if (words && kt_read_block(c->t, memd + g->dst_at, got, words * 32) != NPK_OK) {
        free3(src, want, got);
        return cli_lib_error("kt move: reading the destination");
    }
    c->t->count = move_traffic;
    size_t bad = 0;
    for (size_t w = 0; w < words; w++)
        bad += memcmp(got + 32 * w, want + 32 * w, 32) != 0;
    bool fault = kt_card_cli_report_fault(c, "kt move");
    int out = 0;
    print_result(c, a, m, &r, words, bad, fault, &out);
    free3(src, want, got);
    return bad || fault || out ? 1 : 0;
}

int kt_move_main(int argc, char **argv)
{
    kt_card_cli c = {0};
    c.meshes = 1;
    move_args a = {0};
    a.words = 16;
    a.src = 0x10000;
    a.dst = 0x20000;
    a.value = 0x5A5A;
    a.seed = 1;
    a.pitch = 64;
    a.row_words = 1;
    a.width_bits = 16;
    a.entries = 4;
    a.burst_cap = KT_MV_BURST_MAX;
    a.xform_id = KT_MV_SLOT_MXFP7;
    static const uint32_t default_indices[] = {3, 1, 2, 0};
    memcpy(a.indices, default_indices, sizeof default_indices);
    a.n_indices = 4;
    int rc = parse(argc, argv, &c, &a);
    if (rc >= 0)
        return rc;

    kt_mv_move m;
    if ((rc = build_move(&a, &m)) >= 0)
        return rc;
    if (kt_mv_validate(&m) != NPK_OK)
        return cli_lib_error("kt move");
    regions g;
    if (!find_regions(&a, &m, &g))
        return 2;
    if (g.src_len > MAX_SOURCE || g.dst_len > MAX_SOURCE)
        return usage(g.src_len > MAX_SOURCE
                         ? "the source would be larger than the 64 MiB this command fills "
                           "(indices x pitch or the walker's strides too large)"
                         : "the destination spans more than the 64 MiB this command checks");
    if (overlapping(&a, &g))
        return 2;
    if ((rc = kt_card_cli_open(&c)))
        return rc;
    /* Both ends inside the mesh's DRAM: the host writes the source, the check reads the result. */
    uint64_t dram = kt_machine_board(c.m)->dram_size;
    const char *end_name = g.src_at + g.src_len > dram   ? "--src"
                           : g.dst_at + g.dst_len > dram ? "--dst"
                                                         : NULL;
    if (end_name) {
        bool is_src = end_name[2] == 's';
        fprintf(stderr,
                "npukit kt move: %s 0x%" PRIx64 " + %" PRIu64
                " bytes ends past the mesh's DRAM of 0x%" PRIx64 " bytes\n",
                end_name, is_src ? g.src_at : g.dst_at, is_src ? g.src_len : g.dst_len, dram);
        kt_card_cli_close(&c);
        return 2;
    }
    rc = run_and_check(&c, &a, &m, &g);
    return kt_card_cli_close(&c) || rc ? (rc ? rc : 1) : 0;
}
