/* SPDX-License-Identifier: MIT */
/* The board description: its keys as a table, read from preset text; the host address map. */
#define _POSIX_C_SOURCE 200809L /* opendir */
#include "npukit/kt_board.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board_text.h"
#include "common/data.h"
#include "npukit/kt_regs.h"
#include "npukit/kt_words.h"

void kt_board_default(kt_board *b)
{
    memset(b, 0, sizeof *b);
    snprintf(b->name, sizeof b->name, "custom");
    b->bitstream_current = true;
    b->stage_flits = KT_STAGE_FLITS_DEFAULT; /* the parameter's default (facts §1.5) */
    /* The simulation bench map (facts §1.9, driver registers.py): the host engine at ORC_BASE,
     * the orchestrator at MAG_BASE; DRAM of mesh 0 at (0 + 1) << 40 as on the card. */
    b->engine_base = 0x00000000;
    b->ctrl_base = 0x10000000;
    b->mem_base = 1ull << 40;
    b->dram_size = 256ull << 20; /* the bench's DRAM model; a card populates 4 GiB per mesh */
    b->clock_mhz = 300;          /* the noc clock of the boards' ship profile (facts §4.1) */
    b->mover = true;             /* every memory agent carries the mover unless a preset says so */
}

/* ---- keys ---- */

typedef enum key_kind { K_NAME, K_GENERATION, K_NUMBER, K_FLAG } key_kind;

/* One board key: where it lands and its limits (a number's; 0..1 for a flag). */
typedef struct board_key {
    const char *key;
    key_kind kind;
    size_t offset;
    uint8_t size; /* bytes of the field: 1 (bool), 4 (unsigned) or 8 */
    uint64_t min, max;
} board_key;

#define KEY(k, kind, field, min, max)                                                              \
    {                                                                                              \
        k, kind, offsetof(kt_board, field), sizeof(((kt_board *)0)->field), min, max               \
    }

static const board_key keys[] = {
    KEY("name", K_NAME, name, 0, 0),
    KEY("generation", K_GENERATION, bitstream_current, 0, 1),
    KEY("stage_flits", K_NUMBER, stage_flits, 1, KT_BOARD_STAGE_FLITS_MAX),
    KEY("ctrl_base", K_NUMBER, ctrl_base, 0, UINT64_MAX),
    KEY("mem_base", K_NUMBER, mem_base, 0, UINT64_MAX),
    KEY("engine_base", K_NUMBER, engine_base, 0, UINT64_MAX),
    /* [35:0] of an inside address is a mesh's local space (facts §1.9) */
    KEY("dram_size", K_NUMBER, dram_size, 0, 1ull << 36),
    /* 0 is read (the simulator refuses it when it checks its configuration, naming the preset) */
    KEY("clock_mhz", K_NUMBER, clock_mhz, 0, KT_BOARD_CLOCK_MHZ_MAX),
    KEY("mover", K_FLAG, mover, 0, 1),
};
enum { NKEYS = sizeof keys / sizeof keys[0] };

static const board_key *find_key(const char *key)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (!strcmp(keys[i].key, key))
            return &keys[i];
    return NULL;
}

bool kt_board_key(const char *key) { return find_key(key) != NULL; }

static bool parse_u64(const char *t, uint64_t *v)
{
    if (!t || !*t || *t == '-')
        return false;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(t, &end, 0);
    if (errno || *end)
        return false;
    *v = x;
    return true;
}

static void store(kt_board *b, const board_key *k, uint64_t v)
{
    uint8_t *p = (uint8_t *)b + k->offset;
    if (k->size == 1) {
        bool x = v != 0;
        memcpy(p, &x, 1);
    } else if (k->size == 4) {
        unsigned x = (unsigned)v;
        memcpy(p, &x, sizeof x);
    } else {
        memcpy(p, &v, 8);
    }
}

/* One board line: the key's value(s) in tok[1..ntok-1]. */
static npk_status set_key(kt_board *b, const board_key *k, char **tok, int ntok, const char *origin,
                          int line)
{
    if (ntok != 2)
        return npk_fail(NPK_EPARSE, "%s:%d: '%s' takes one value, not %d", origin, line, k->key,
                        ntok - 1);
    const char *v = tok[1];
    uint64_t x = 0;
    switch (k->kind) {
    case K_NAME:
        /* Printed unescaped in text and JSON: letters, digits, '-', '_' and '.' only. */
        if (strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.") !=
            strlen(v))
            return npk_fail(NPK_EPARSE, "%s:%d: name '%s': letters, digits, '-', '_' and '.' only",
                            origin, line, v);
        if (strlen(v) >= sizeof b->name)
            return npk_fail(NPK_ELIMIT, "%s:%d: name of %zu characters (limit %zu)", origin, line,
                            strlen(v), sizeof b->name - 1);
        snprintf(b->name, sizeof b->name, "%s", v);
        return NPK_OK;
    case K_GENERATION:
        if (strcmp(v, "current") && strcmp(v, "prestrobe"))
            return npk_fail(NPK_EPARSE, "%s:%d: generation '%s' is not current or prestrobe",
                            origin, line, v);
        b->bitstream_current = !strcmp(v, "current");
        return NPK_OK;
    case K_NUMBER:
    case K_FLAG:
        if (!parse_u64(v, &x))
            return npk_fail(NPK_EPARSE, "%s:%d: %s='%s' is not a number", origin, line, k->key, v);
        if (x > k->max)
            return npk_fail(NPK_ELIMIT, "%s:%d: %s=%" PRIu64 " exceeds %" PRIu64, origin, line,
                            k->key, x, k->max);
        if (x < k->min)
            return npk_fail(NPK_ELIMIT, "%s:%d: %s=%" PRIu64 " is below %" PRIu64, origin, line,
                            k->key, x, k->min);
        store(b, k, x);
        return NPK_OK;
    }
    return NPK_OK;
}

npk_status kt_board_parse(const char *text, const char *origin, kt_board *b)
{
    kt_board_default(b);
    int first[NKEYS] = {0}; /* the line a key was first given on: each key once */
    int line = 0;
    for (const char *p = text; *p;) {
        line++;
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char buf[512];
        if (n >= sizeof buf)
            return npk_fail(NPK_EPARSE, "%s:%d: line longer than 511 characters", origin, line);
        memcpy(buf, p, n);
        buf[n] = '\0';
        p += n + (nl ? 1 : 0);
        char *hash = strchr(buf, '#');
        if (hash)
            *hash = '\0';
        char *tok[4];
        int ntok = 0;
        for (char *t = strtok(buf, " \t\r"); t; t = strtok(NULL, " \t\r"))
            if (ntok < 4)
                tok[ntok++] = t;
            else
                ntok = 4; /* too many values: set_key says so */
        if (!ntok)
            continue;
        if (!strcmp(tok[0], "rv64")) { /* the simulator checks the position */
            b->cpu_rv64 = true;
            continue;
        }
        const board_key *k = find_key(tok[0]);
        if (!k)
            continue; /* one of the simulator's keys */
        size_t i = (size_t)(k - keys);
        if (first[i])
            return npk_fail(NPK_EPARSE,
                            "%s:%d: '%s' given again (first on line %d); each setting once", origin,
                            line, k->key, first[i]);
        first[i] = line;
        npk_status s = set_key(b, k, tok, ntok, origin, line);
        if (s)
            return s;
    }
    return NPK_OK;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The preset names in the data directory's kt/, sorted ("card, default, ..."; as many as
 * fit), or "" when it cannot be listed. */
static void preset_names(char *out, size_t cap)
{
    char dir[4096];
    out[0] = '\0';
    if (!npk_data_path("kt", dir, sizeof dir))
        return;
    DIR *d = opendir(dir);
    if (!d)
        return;
    char *names[64];
    size_t count = 0;
    for (struct dirent *e; count < 64 && (e = readdir(d)) != NULL;) {
        size_t n = strlen(e->d_name);
        if (n > 5 && !strcmp(e->d_name + n - 5, ".mesh") && (names[count] = strdup(e->d_name)))
            names[count++][n - 5] = '\0';
    }
    closedir(d);
    qsort(names, count, sizeof names[0], by_name);
    size_t used = 0;
    for (size_t i = 0; i < count; i++) {
        int w = snprintf(out + used, cap - used, "%s%s", i ? ", " : "", names[i]);
        if (w > 0 && (size_t)w < cap - used)
            used += (size_t)w;
        free(names[i]);
    }
}

npk_status kt_board_read_text(const char *name_or_path, char **text, char *path, size_t path_len)
{
    *text = NULL;
    if (strchr(name_or_path, '/') || strchr(name_or_path, '.')) {
        snprintf(path, path_len, "%s", name_or_path);
    } else {
        char rel[256];
        snprintf(rel, sizeof rel, "kt/%s.mesh", name_or_path);
        if (!npk_data_path(rel, path, path_len)) {
            char names[512];
            preset_names(names, sizeof names);
            if (names[0])
                return npk_fail(NPK_ENODEV, "no mesh preset '%s': the presets are %s (or give a "
                                "preset file's path)", name_or_path, names);
            return npk_fail(NPK_ENODEV, "mesh preset '%s' not found: %s", name_or_path, path);
        }
    }
    FILE *f = fopen(path, "rb");
    if (!f)
        return npk_fail(NPK_ENODEV, "mesh preset '%s' not found (looked for %s)", name_or_path,
                        path);
    char *t = malloc(KT_BOARD_PRESET_MAX_BYTES + 1);
    if (!t) {
        fclose(f);
        return npk_fail(NPK_ENOMEM, "preset: out of memory");
    }
    errno = 0;
    size_t n = fread(t, 1, KT_BOARD_PRESET_MAX_BYTES, f);
    int err = ferror(f) ? (errno ? errno : EIO) : 0; /* a directory opens, then fails: EISDIR */
    bool more = !err && fgetc(f) != EOF;
    fclose(f);
    t[n] = '\0';
    const char *nul = memchr(t, '\0', n);
    npk_status st =
        err    ? npk_fail(NPK_EIO, "preset %s: cannot read: %s", path, strerror(err))
        : more ? npk_fail(NPK_ELIMIT, "preset %s is larger than 64 KiB", path)
        : nul ? npk_fail(NPK_EPARSE, "preset %s: a NUL byte at offset %zu (a preset is text)", path,
                         (size_t)(nul - t))
              : NPK_OK;
    if (st)
        free(t);
    else
        *text = t;
    return st;
}

npk_status kt_board_load(const char *name_or_path, kt_board *b)
{
    char path[4096], *text;
    npk_status s = kt_board_read_text(name_or_path, &text, path, sizeof path);
    if (s)
        return s;
    s = kt_board_parse(text, path, b);
    free(text);
    return s;
}

/* ---- the map ---- */

uint64_t kt_board_ctrl_base(const kt_board *b, unsigned mesh)
{
    return b->ctrl_base + (uint64_t)mesh * KT_BOARD_MESH_STRIDE;
}

/* (mesh + 1) << 40 | the inside address, whose [37:36] carry the mesh (facts §1.9). */
uint64_t kt_board_mem_base(const kt_board *b, unsigned mesh)
{
    return b->mem_base + ((uint64_t)mesh << 40) + kt_mesh_addr_make(false, mesh, 0);
}

uint64_t kt_board_stage_base(const kt_board *b, unsigned mesh)
{
    (void)b; /* the staging apertures sit at fixed places on every card */
    return ((uint64_t)mesh + 1) << 40 | kt_mesh_addr_make(true, mesh, 0);
}
