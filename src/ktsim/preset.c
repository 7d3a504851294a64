/* SPDX-License-Identifier: MIT */
/* Mesh presets: small text files under data/kt/, one setting per line (data/kt/README.md
 * documents every key and the bundled presets).
 *
 *   # comment
 *   name default
 *   generation current|prestrobe
 *   grid LO HI                 routers at LO..HI on both axes
 *   stage_flits N | tx_depth N | rx_depth N | router_fifo N | recv_depth N | mem_queue N
 *   sync_fifo_extra N
 *   mem_port X Y               repeatable; the first hosts the orchestrator
 *   ctrl_base A | mem_base A | engine_base A | dram_size N | host_access_cycles N | clock_mhz N
 *   host_mem_cycles_x4 N | cdc_tx N | cdc_rx N | cdc_unit N | station_bus 0|1
 *   stale_lanes 0|1 | mover 0|1 | skip_quiet 0|1 | engine 0|1
 *   unit X Y KIND [type=XX|0xNNNN] [version=N] [n_buffers=N] [inst_depth=N]
 *                 [latency=N] [result=N] [reply_delay=N]
 *   timing KIND [setup=N] [read_wait=N] [element=N] [retire=N]     (timing.c)
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/data.h"
#include "npukit/ktsim.h"
#include "rv64.h"
#include "timing.h"

static const char *const bundled[] = {"default", "mesh2x2", "card", "rv64", "rtl_bench", NULL};
const char *const *ktsim_preset_names(void) { return bundled; }

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

typedef struct setting {
    const char *key;
    size_t offset;
    uint8_t size; /* 1, 2, 4 or 8 bytes */
    uint64_t max;
} setting;

#define SETTING(k, field, max)                                                                     \
    {                                                                                              \
        k, offsetof(ktsim_config, field), sizeof(((ktsim_config *)0)->field), max                  \
    }

/* Scalar settings as a table: the key, where it lands, and its limit. */
static const setting settings[] = {
    SETTING("stage_flits", stage_flits, 204),
    SETTING("tx_depth", tx_depth, 4096),
    SETTING("rx_depth", rx_depth, 4096),
    SETTING("router_fifo", router_fifo, 4096),
    SETTING("recv_depth", recv_depth, 4096),
    SETTING("mem_queue", mem_queue, 4096),
    SETTING("sync_fifo_extra", sync_fifo_extra, 64),
    SETTING("ctrl_base", ctrl_base, UINT64_MAX),
    SETTING("mem_base", mem_base, UINT64_MAX),
    SETTING("engine_base", engine_base, UINT64_MAX),
    SETTING("dram_size", dram_size, 1ull << 36),
    SETTING("host_access_cycles", host_access_cycles, 1000000),
    SETTING("host_mem_cycles_x4", host_mem_cycles_x4, 4000000),
    SETTING("cdc_tx", cdc_tx, 64),
    SETTING("cdc_rx", cdc_rx, 64),
    SETTING("cdc_unit", cdc_unit, 64),
    SETTING("station_bus", station_bus, 1),
    SETTING("clock_mhz", clock_mhz, 10000),
    SETTING("stale_lanes", stale_lanes, 1),
    SETTING("mover", mover, 1),
    SETTING("skip_quiet", skip_quiet, 1),
    SETTING("engine", engine, 1),
};

static void store(void *base, const setting *s, uint64_t v)
{
    uint8_t *p = (uint8_t *)base + s->offset;
    switch (s->size) {
    case 1: *p = (uint8_t)v; break;
    case 2: {
        uint16_t x = (uint16_t)v;
        memcpy(p, &x, 2);
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

static npk_status bad(const char *origin, int line, const char *what)
{
    return npk_fail(NPK_EPARSE, "%s:%d: %s", origin, line, what);
}

static npk_status parse_unit(char **tok, int ntok, const char *origin, int line, ktsim_config *c)
{
    if (ntok < 4)
        return bad(origin, line, "unit needs X Y KIND");
    if (c->n_units >= KTSIM_MAX_UNITS)
        return npk_fail(NPK_ELIMIT, "%s:%d: more than %d units", origin, line, KTSIM_MAX_UNITS);
    ktsim_unit_cfg *u = &c->units[c->n_units];
    memset(u, 0, sizeof *u);
    uint64_t x, y;
    if (!parse_u64(tok[1], &x) || !parse_u64(tok[2], &y) || x > 15 || y > 15)
        return npk_fail(NPK_EPARSE, "%s:%d: unit coordinate '%s %s' is not two numbers 0..15",
                        origin, line, tok[1], tok[2]);
    u->at = (kt_coord){(uint8_t)x, (uint8_t)y};
    snprintf(u->kind, sizeof u->kind, "%s", tok[3]);
    u->version = 1;
    u->inst_depth = 32; /* the RTL default INST_DEPTH */
    u->latency = 16;
    unsigned given = 0; /* bit j: unit setting j of the limit table below was given */
    for (int i = 4; i < ntok; i++) {
        char *eq = strchr(tok[i], '=');
        if (!eq)
            return npk_fail(NPK_EPARSE, "%s:%d: '%s' is not key=value", origin, line, tok[i]);
        *eq = '\0';
        const char *k = tok[i], *val = eq + 1;
        uint64_t v = 0;
        if (!strcmp(k, "type") && strlen(val) == 2 && isprint((unsigned char)val[0]) &&
            isprint((unsigned char)val[1])) {
            if (given & 1u)
                return npk_fail(NPK_EPARSE, "%s:%d: unit setting 'type' given twice", origin, line);
            given |= 1u;
            u->type = (uint16_t)((uint8_t)val[0] << 8 | (uint8_t)val[1]);
            continue;
        }
        if (!parse_u64(val, &v))
            return npk_fail(NPK_EPARSE, "%s:%d: %s='%s' is not a number", origin, line, k, val);
        struct {
            const char *k;
            uint64_t max;
        } lim[] = {{"type", 0xFFFF},         {"version", 0xFF},     {"n_buffers", 15},
                   {"inst_depth", 0xFFFF},   {"latency", 1u << 24}, {"result", UINT32_MAX},
                   {"reply_delay", 1u << 24}};
        size_t j;
        for (j = 0; j < sizeof lim / sizeof lim[0]; j++)
            if (!strcmp(k, lim[j].k))
                break;
        if (j == sizeof lim / sizeof lim[0])
            return npk_fail(NPK_EPARSE, "%s:%d: unknown unit setting '%s'", origin, line, k);
        if (v > lim[j].max)
            return npk_fail(NPK_ELIMIT, "%s:%d: %s=%" PRIu64 " exceeds %" PRIu64, origin, line, k,
                            v, lim[j].max);
        if (given & (1u << j))
            return npk_fail(NPK_EPARSE, "%s:%d: unit setting '%s' given twice", origin, line, k);
        given |= 1u << j;
        switch (j) {
        case 0: u->type = (uint16_t)v; break;
        case 1: u->version = (uint8_t)v; break;
        case 2: u->n_buffers = (uint8_t)v; break;
        case 3: u->inst_depth = (uint16_t)v; break;
        case 4: u->latency = (uint32_t)v; break;
        case 5: u->result = (uint32_t)v; break;
        default: u->reply_delay = (uint32_t)v; break;
        }
    }
    c->n_units++;
    return NPK_OK;
}

/* The scalar keys beyond the settings table; each key may appear once (a second value used to
 * win silently). */
enum { KEY_NAME, KEY_GENERATION, KEY_GRID, OTHER_KEYS };

static const char *const other_keys[OTHER_KEYS] = {"name", "generation", "grid"};

/* The slot of a key that may appear once, or -1 (unit and mem_port lines repeat). */
static int once_slot(const char *key)
{
    for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++)
        if (!strcmp(settings[i].key, key))
            return (int)i;
    for (int i = 0; i < OTHER_KEYS; i++)
        if (!strcmp(other_keys[i], key))
            return (int)(sizeof settings / sizeof settings[0]) + i;
    return -1;
}

npk_status ktsim_preset_parse(const char *text, const char *origin, ktsim_config *c)
{
    ktsim_config_default(c);
    enum { NSETTINGS = sizeof settings / sizeof settings[0] };
    int first[NSETTINGS + OTHER_KEYS] = {0}; /* the line a key was first given on */
    bool ports_given = false;
    int timing_line[KTSIM_MAX_TIMINGS] = {0};
    int line = 0;
    const char *p = text;
    while (*p) {
        line++;
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char buf[512];
        if (n >= sizeof buf)
            return bad(origin, line, "line longer than 511 characters");
        memcpy(buf, p, n);
        buf[n] = '\0';
        p += n + (nl ? 1 : 0);
        char *hash = strchr(buf, '#');
        if (hash)
            *hash = '\0';
        char *tok[24];
        int ntok = 0;
        for (char *t = strtok(buf, " \t\r"); t && ntok < 24; t = strtok(NULL, " \t\r"))
            tok[ntok++] = t;
        if (!ntok)
            continue;
        const char *key = tok[0];
        npk_status st = NPK_OK;
        int slot = once_slot(key);
        if (slot >= 0 && first[slot])
            return npk_fail(NPK_EPARSE,
                            "%s:%d: '%s' given again (first on line %d); each setting once", origin,
                            line, key, first[slot]);
        if (slot >= 0)
            first[slot] = line;
        uint64_t a, b;
        if (!strcmp(key, "unit")) {
            st = parse_unit(tok, ntok, origin, line, c);
        } else if (!strcmp(key, "timing")) {
            st = ksim_timing_parse(tok, ntok, origin, line, c, timing_line);
        } else if (!strcmp(key, "name") && ntok == 2) {
            /* Printed unescaped in text and JSON: letters, digits, '-', '_' and '.' only. */
            if (strspn(tok[1],
                       "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.") !=
                strlen(tok[1]))
                st =
                    npk_fail(NPK_EPARSE, "%s:%d: name '%s': letters, digits, '-', '_' and '.' only",
                             origin, line, tok[1]);
            else if (strlen(tok[1]) >= sizeof c->name)
                st = npk_fail(NPK_ELIMIT, "%s:%d: name of %zu characters (limit %zu)", origin, line,
                              strlen(tok[1]), sizeof c->name - 1);
            else
                snprintf(c->name, sizeof c->name, "%s", tok[1]);
        } else if (!strcmp(key, "generation") && ntok == 2) {
            if (!strcmp(tok[1], "current"))
                c->gen = KTSIM_GEN_CURRENT;
            else if (!strcmp(tok[1], "prestrobe"))
                c->gen = KTSIM_GEN_PRESTROBE;
            else
                st = npk_fail(NPK_EPARSE, "%s:%d: generation '%s' is not current or prestrobe",
                              origin, line, tok[1]);
        } else if (!strcmp(key, "grid") && ntok == 3) {
            if (!parse_u64(tok[1], &a) || !parse_u64(tok[2], &b) || a < 1 || b < a || b > 14)
                st = npk_fail(NPK_EPARSE, "%s:%d: grid '%s %s' needs 1 <= LO <= HI <= 14", origin,
                              line, tok[1], tok[2]);
            else {
                c->grid_lo = (uint8_t)a;
                c->grid_hi = (uint8_t)b;
            }
        } else if (!strcmp(key, "rv64") && ntok == 3) {
            if (!parse_u64(tok[1], &a) || !parse_u64(tok[2], &b) || a > 15 || b > 15)
                st = npk_fail(NPK_EPARSE, "%s:%d: rv64 '%s %s' is not two numbers 0..15", origin,
                              line, tok[1], tok[2]);
            else {
                c->cpu_rv64 = true;
                c->rv64_at = (kt_coord){(uint8_t)a, (uint8_t)b};
            }
        } else if (!strcmp(key, "rv64_cost") && ntok == 3) {
            int k = ksim_rv64_class_find(tok[1]);
            if (k < 0)
                st = npk_fail(NPK_EPARSE, "%s:%d: rv64_cost: no instruction class '%s'", origin,
                              line, tok[1]);
            else if (!parse_u64(tok[2], &a) || a < 1 || a > 1000)
                st = npk_fail(NPK_EPARSE, "%s:%d: rv64_cost %s '%s' is not a number 1..1000",
                              origin, line, tok[1], tok[2]);
            else
                c->rv64_cost[k] = (uint32_t)a;
        } else if (!strcmp(key, "mem_port") && ntok == 3) {
            if (!ports_given)
                c->n_mem_ports = 0;
            ports_given = true;
            if (!parse_u64(tok[1], &a) || !parse_u64(tok[2], &b) || a > 15 || b > 15)
                st = npk_fail(NPK_EPARSE, "%s:%d: mem_port '%s %s' is not two numbers 0..15",
                              origin, line, tok[1], tok[2]);
            else if (c->n_mem_ports >= KTSIM_MAX_MEM_PORTS)
                st = npk_fail(NPK_ELIMIT, "%s:%d: more than %d memory ports", origin, line,
                              KTSIM_MAX_MEM_PORTS);
            else
                c->mem_port[c->n_mem_ports++] = (kt_coord){(uint8_t)a, (uint8_t)b};
        } else {
            size_t i;
            for (i = 0; i < sizeof settings / sizeof settings[0]; i++)
                if (!strcmp(settings[i].key, key))
                    break;
            if (i == sizeof settings / sizeof settings[0] || ntok != 2)
                st = npk_fail(NPK_EPARSE, "%s:%d: unknown setting '%s' (or wrong number of values)",
                              origin, line, key);
            else if (!parse_u64(tok[1], &a))
                st = npk_fail(NPK_EPARSE, "%s:%d: %s='%s' is not a number", origin, line, key,
                              tok[1]);
            else if (a > settings[i].max)
                st = npk_fail(NPK_ELIMIT, "%s:%d: %s=%" PRIu64 " exceeds %" PRIu64, origin, line,
                              key, a, settings[i].max);
            else
                store(c, &settings[i], a);
        }
        if (st)
            return st;
    }
    return NPK_OK;
}

npk_status ktsim_preset_load(const char *name_or_path, ktsim_config *cfg)
{
    char path[4096];
    if (strchr(name_or_path, '/') || strchr(name_or_path, '.')) {
        snprintf(path, sizeof path, "%s", name_or_path);
    } else {
        char rel[256];
        snprintf(rel, sizeof rel, "kt/%s.mesh", name_or_path);
        if (!npk_data_path(rel, path, sizeof path))
            return npk_fail(NPK_ENODEV, "mesh preset '%s' not found: %s", name_or_path, path);
    }
    FILE *f = fopen(path, "rb");
    if (!f)
        return npk_fail(NPK_ENODEV, "mesh preset '%s' not found (looked for %s)", name_or_path,
                        path);
    char *text = malloc(65536);
    if (!text) {
        fclose(f);
        return npk_fail(NPK_ENOMEM, "preset: out of memory");
    }
    errno = 0;
    size_t n = fread(text, 1, 65535, f);
    int err = ferror(f) ? (errno ? errno : EIO) : 0; /* a directory opens, then fails: EISDIR */
    bool more = !err && fgetc(f) != EOF;
    fclose(f);
    text[n] = '\0';
    const char *nul = memchr(text, '\0', n);
    npk_status st =
        err    ? npk_fail(NPK_EIO, "preset %s: cannot read: %s", path, strerror(err))
        : more ? npk_fail(NPK_ELIMIT, "preset %s is larger than 64 KiB", path)
        : nul ? npk_fail(NPK_EPARSE, "preset %s: a NUL byte at offset %zu (a preset is text)", path,
                         (size_t)(nul - text))
              : ktsim_preset_parse(text, path, cfg);
    free(text);
    return st;
}
