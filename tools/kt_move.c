/* SPDX-License-Identifier: MIT */
/* `npukit kt move copy|fill|gather|generate ...`: describe one move, let the driver validate and
 * issue it on the simulated card, wait for the mover, and check the destination against what the
 * mode promises — a copy of the source, the fill pattern, the gathered rows, or the PRNG's words
 * (a pure function of seed and destination address). With --dst-mesh the destination is another
 * mesh of the card: the data crosses the interlink and the doorbell is rung after it. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kt_card_cli.h"
#include "npukit/kt_hostprog.h"
#include "kt/kt_interlink.h"
#include "kt/hw/kt_interlink_hw.h"
#include "npukit/kt_mover.h"

enum { MAX_INDICES = 256, ARRIVAL_POLLS = 1000, MAX_SOURCE = 64 << 20 };
static const uint64_t INDEX_OFF = 0x30000;

typedef struct move_args {
    kt_mv_mode mode;
    uint64_t words, src, dst, value, seed, pitch, row_words;
    unsigned width_bits, dst_mesh;
    bool engine, emit;
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
         .help = "fill pattern (default 0x5a5a, cut to the width)"},
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
        .synopsis = "copy|fill|gather|generate [options]",
        .about = "run one memory-mover move on the simulated card and check the destination",
        .tables = tables,
        .pos = pos,
        .min_pos = 1,
        .max_pos = 1};
    int rc = cli_parse(&spec, argc, argv);
    if (rc >= 0)
        return rc;
    if (kt_mv_mode_parse(pos[0], &a->mode) != NPK_OK || a->mode == KT_MV_TRANSPOSE ||
        a->mode == KT_MV_XFORM)
        return usage("the mode is one of copy, fill, gather, generate");
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

/* The destination's expected bytes. */
static void expected(const move_args *a, const kt_mv_move *m, const uint8_t *src, uint8_t *want,
                     size_t words)
{
    for (size_t w = 0; w < words; w++) {
        uint8_t *out = want + 32 * w;
        switch (a->mode) {
        case KT_MV_FILL: kt_mv_fill_word(m->width, m->imm, out); break;
        case KT_MV_GENERATE: kt_mv_generate_word(m->seed, m->dst.base + 32 * w, out); break;
        case KT_MV_GATHER_MODE: {
            size_t row = w / a->row_words, k = w % a->row_words;
            memcpy(out, src + a->indices[row] * a->pitch + 32 * k, 32);
            break;
        }
        case KT_MV_COPY:
        case KT_MV_TRANSPOSE:
        case KT_MV_XFORM:
        default: memcpy(out, src + 32 * w, 32); break;
        }
    }
}

/* Bytes of source the move reads, from the source offset. */
static uint64_t source_bytes(const move_args *a)
{
    if (a->mode == KT_MV_COPY)
        return a->words * 32;
    if (a->mode != KT_MV_GATHER_MODE)
        return 0;
    uint64_t top = 0; /* 32-bit index x 32-bit pitch: fits 64 bits */
    for (unsigned i = 0; i < a->n_indices; i++)
        top = a->indices[i] > top ? a->indices[i] : top;
    return top * a->pitch + a->row_words * 32;
}

/* The check compares the destination with what the source held before the move, so the regions
 * the command writes (source, index buffer, destination in mesh 0) must be apart. */
static bool overlapping(const move_args *a, uint64_t sbytes)
{
    struct {
        const char *name;
        uint64_t at, len;
    } r[3] = {{"--src", a->src, sbytes},
              {"the index buffer", INDEX_OFF,
               a->mode == KT_MV_GATHER_MODE ? (a->n_indices * 4ull + 31) / 32 * 32 : 0},
              {"--dst", a->dst, a->dst_mesh ? 0 : a->words * 32}};
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
    static const uint32_t default_indices[] = {3, 1, 2, 0};
    memcpy(a.indices, default_indices, sizeof default_indices);
    a.n_indices = 4;
    int rc = parse(argc, argv, &c, &a);
    if (rc >= 0)
        return rc;

    kt_mv_move m;
    uint64_t dst = a.dst_mesh ? kt_il_dram_addr(a.dst_mesh, a.dst) : a.dst;
    switch (a.mode) {
    case KT_MV_FILL:
        m = kt_mv_fill(dst, (uint16_t)a.words, width_of(a.width_bits), (uint32_t)a.value);
        break;
    case KT_MV_GENERATE: m = kt_mv_generate(dst, (uint16_t)a.words, a.seed); break;
    case KT_MV_GATHER_MODE:
        a.words = (uint64_t)a.n_indices * a.row_words;
        if (a.words > 0xFFFF)
            return usage("--indices x --row-words exceeds 65535 words");
        m = kt_mv_gather(dst, a.src, a.indices, (uint16_t)a.n_indices, INDEX_OFF, (uint32_t)a.pitch,
                         (uint16_t)a.row_words);
        break;
    case KT_MV_COPY:
    case KT_MV_TRANSPOSE:
    case KT_MV_XFORM:
    default: m = kt_mv_copy(dst, a.src, (uint16_t)a.words); break;
    }
    if (a.mode != KT_MV_FILL)
        m.width = width_of(a.width_bits);
    if (kt_mv_validate(&m) != NPK_OK)
        return cli_lib_error("kt move");

    uint64_t sbytes = (source_bytes(&a) + 31) / 32 * 32;
    if (sbytes > MAX_SOURCE)
        return usage("the source would be larger than the 64 MiB this command fills (indices x "
                     "pitch too large)");
    if (overlapping(&a, sbytes))
        return 2;
    if ((rc = kt_card_cli_open(&c)))
        return rc;
    /* Both ends inside the mesh's DRAM: the host writes the source, the check reads the result. */
    uint64_t dram = kt_machine_board(c.m)->dram_size;
    const char *end_name = a.src + sbytes > dram         ? "--src"
                           : a.dst + a.words * 32 > dram ? "--dst"
                                                         : NULL;
    if (end_name) {
        uint64_t at = end_name[2] == 's' ? a.src : a.dst,
                 len = end_name[2] == 's' ? sbytes : a.words * 32;
        fprintf(stderr,
                "npukit kt move: %s 0x%" PRIx64 " + %" PRIu64
                " bytes ends past the mesh's DRAM of 0x%" PRIx64 " bytes\n",
                end_name, at, len, dram);
        kt_card_cli_close(&c);
        return 2;
    }
    size_t words = (size_t)a.words;
    uint8_t *src = calloc(sbytes ? sbytes : 32, 1), *want = calloc(words, 32),
            *got = calloc(words, 32);
    if (!src || !want || !got) {
        fprintf(stderr, "npukit kt move: out of memory\n");
        free(src);
        free(want);
        free(got);
        kt_card_cli_close(&c);
        return 1;
    }
    uint64_t ctrl = kt_machine_ctrl_base(c.m, 0), mem0 = kt_machine_mem_base(c.m, 0);
    /* The source and the index buffer go in through the host memory window, in whole granules. */
    for (size_t i = 0; i < sbytes; i++)
        src[i] = (uint8_t)(i * 29 + 7);
    npk_status s = NPK_OK;
    if (sbytes)
        s = kt_write_block(c.t, mem0 + a.src, src, sbytes);
    if (!s && a.mode == KT_MV_GATHER_MODE) {
        uint32_t idx[MAX_INDICES + 8] = {0};
        memcpy(idx, a.indices, a.n_indices * 4);
        size_t ib = ((size_t)a.n_indices * 4 + 31) / 32 * 32;
        s = kt_write_block(c.t, mem0 + INDEX_OFF, idx, ib);
    }
    if (s) {
        rc = cli_lib_error("kt move: writing the source and indices");
        free(src);
        free(want);
        free(got);
        kt_card_cli_close(&c);
        return rc;
    }
    if (a.emit) { /* the move as a host control program, as text for `kt prog` */
        kt_mv_write w[KT_MV_MAX_WRITES];
        size_t n;
        kt_hostprog p;
        kt_hp_init(&p);
        npk_status es = kt_mv_build(&m, w, KT_MV_MAX_WRITES, &n);
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
        free(src);
        free(want);
        free(got);
        kt_card_cli_close(&c);
        return es ? cli_lib_error("kt move --emit") : 0;
    }
    kt_cli_span_begin(c.m); /* the move itself: descriptor, polls, and the doorbell */

    kt_mv_result r = {0};
    kt_cli_idler idler;
    if (a.dst_mesh)
        s = kt_il_write_and_ring(c.t, ctrl, &m, a.dst_mesh, 1, 0);
    else if (a.engine)
        s = run_in_engine(&c, &m, &r);
    else if (kt_cli_idler_init(&idler, c.m, &c.o))
        s = kt_mv_run_idle(c.t, ctrl, &m, 0, kt_cli_idle, &idler, &r);
    else
        s = kt_mv_run(c.t, ctrl, &m, 0, &r);
    if (s != NPK_OK) {
        rc = cli_lib_error("kt move");
        free(src);
        free(want);
        free(got);
        kt_card_cli_close(&c);
        return rc;
    }
    kt_counters move_traffic = c.t->count;
    kt_cli_span_end(c.m);
    if (a.dst_mesh) {
        /* The ring left after the data: once it is heard on the far side, the data is there. */
        kt_il_doorbells db = {0};
        for (int i = 0; i < ARRIVAL_POLLS && !db.received[0]; i++)
            kt_il_read_doorbells(c.t, kt_machine_ctrl_base(c.m, a.dst_mesh), &db);
        uint64_t v;
        kt_read64(c.t, ctrl + 0x78, &v);
        r.after = kt_mv_status_decode(v);
    }
    c.t->count = move_traffic; /* the check below is not part of the move */
    expected(&a, &m, src, want, words);
    if (kt_read_block(c.t, kt_machine_mem_base(c.m, a.dst_mesh) + a.dst, got, words * 32) !=
        NPK_OK) {
        rc = cli_lib_error("kt move: reading the destination");
        free(src);
        free(want);
        free(got);
        kt_card_cli_close(&c);
        return rc;
    }
    c.t->count = move_traffic;
    size_t bad = 0;
    for (size_t w = 0; w < words; w++)
        bad += memcmp(got + 32 * w, want + 32 * w, 32) != 0;
    bool fault = kt_card_cli_report_fault(&c, "kt move");
    int out = 0;
    if (c.o.json) {
        cJSON *doc = json_doc();
        json_str(doc, "mode", kt_mv_mode_name(a.mode));
        json_u64(doc, "words", words);
        json_u64(doc, "src", a.src);
        json_u64(doc, "dst", a.dst);
        json_u64(doc, "dst_mesh", a.dst_mesh);
        json_str(doc, "form", a.engine ? "engine" : "host");
        json_u64(doc, "moves_done", r.after.moves_done);
        json_str(doc, "fault", kt_mv_fault_name(r.after.fault));
        json_u64(doc, "polls", r.polls);
        json_u64(doc, "mismatched_words", bad);
        json_bool(doc, "ok", !bad && !fault);
        kt_card_cli_json_counts(doc, &c);
        out = json_print(doc, "kt move");
    } else {
        printf("move %s: %zu words -> 0x%" PRIx64 " in mesh %u%s\n", kt_mv_mode_name(a.mode), words,
               a.dst, a.dst_mesh,
               a.dst_mesh ? " (over the interlink, doorbell after the data)"
               : a.engine ? " (one engine program: writes, poll, DONE)"
                          : "");
        printf("mover: %u moves completed, fault %u (%s)\n", r.after.moves_done, r.after.fault,
               kt_mv_fault_name(r.after.fault));
        printf("check: %s (%zu of %zu words differ)\n", bad ? "MISMATCH" : "ok", bad, words);
        kt_card_cli_print_counts(&c);
    }
    free(src);
    free(want);
    free(got);
    return kt_card_cli_close(&c) || bad || fault || out ? 1 : 0;
}
