/* SPDX-License-Identifier: MIT */
/* Mesh presets: small text files under data/kt/, one setting per line (data/kt/README.md
 * documents every key and the bundled presets). The board's keys — name, generation,
 * stage_flits, ctrl_base, mem_base, engine_base, dram_size, clock_mhz, mover — are read by the
 * board description (src/kt/hw/board.c) and copied in; the simulator's own keys are read here:
 *
 *   # comment
 *   grid LO HI                 routers at LO..HI on both axes
 *   tx_depth N | rx_depth N | router_fifo N | recv_depth N | mem_queue N | sync_fifo_extra N
 *   mem_port X Y               repeatable; the first hosts the orchestrator
 *   host_access_cycles N | host_mem_cycles_x4 N | cdc_tx N | cdc_rx N | cdc_unit N
 *   station_bus 0|1 | stale_lanes 0|1 | skip_quiet 0|1 | engine 0|1
 *   rv64 X Y | rv64_cost CLASS N
 *   unit X Y KIND [type=XX|0xNNNN] [version=N] [n_buffers=N] [inst_depth=N] [reply_delay=N]
 *                 [KEY=N ...]  the unit type's own settings (its ksim_unit_ops.settings)
 *   timing KIND KEY=N ...      the unit type's own timing keys (timing.c)
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt/hw/board_text.h"
#include "npukit/kt_board.h"
#include "npukit/ktsim.h"
#include "rv64.h"
#include "shell.h"
#include "timing.h"

static const char *const bundled[] = {"default", "mesh2x2",   "card",    "rv64",
                                      "rv32",    "rtl_bench", "mg2_vc2", NULL};
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
    SETTING("tx_depth", tx_depth, 4096),
    SETTING("rx_depth", rx_depth, 4096),
    SETTING("router_fifo", router_fifo, 4096),
    SETTING("recv_depth", recv_depth, 4096),
    SETTING("mem_queue", mem_queue, 4096),
    SETTING("sync_fifo_extra", sync_fifo_extra, 64),
    SETTING("host_access_cycles", host_access_cycles, 1000000),
    SETTING("host_mem_cycles_x4", host_mem_cycles_x4, 4000000),
    SETTING("cdc_tx", cdc_tx, 64),
    SETTING("cdc_rx", cdc_rx, 64),
    SETTING("cdc_unit", cdc_unit, 64),
    SETTING("station_bus", station_bus, 1),
    SETTING("stale_lanes", stale_lanes, 1),
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

/* The shell's settings every unit has, as a table; the unit type's own follow (its settings). */
#define UNIT_SETTING(k, field, max)                                                                \
    {                                                                                              \
        k, offsetof(ktsim_unit_cfg, field), sizeof(((ktsim_unit_cfg *)0)->field), max              \
    }
static const setting shell_settings[] = {
    UNIT_SETTING("type", type, 0xFFFF),
    UNIT_SETTING("version", version, 0xFF),
    UNIT_SETTING("n_buffers", n_buffers, 15),
    UNIT_SETTING("inst_depth", inst_depth, 0xFFFF),
    UNIT_SETTING("reply_delay", reply_delay, 1u << 24),
};
enum { N_SHELL_SETTINGS = sizeof shell_settings / sizeof shell_settings[0] };

/* Set one unit setting: the shell's, or its type's own (bit N_SHELL_SETTINGS + i of *given). */
static npk_status unit_set(ktsim_unit_cfg *u, const char *key, uint64_t v, unsigned *given)
{
    for (unsigned j = 0; j < N_SHELL_SETTINGS; j++) {
        if (strcmp(key, shell_settings[j].key))
            continue;
        if (v > shell_settings[j].max)
            return npk_fail(NPK_ELIMIT, "%s=%" PRIu64 " exceeds %" PRIu64, key, v,
                            shell_settings[j].max);
        store(u, &shell_settings[j], v);
        *given |= 1u << j;
        return NPK_OK;
    }
    const ksim_unit_ops *ops = ksim_unit_find(u->kind);
    const ktsim_unit_key *keys = ops ? ops->settings : NULL;
    for (unsigned i = 0; keys && keys[i].name; i++) {
        if (strcmp(key, keys[i].name))
            continue;
        if (v < keys[i].min || v > keys[i].max)
            return npk_fail(NPK_ELIMIT, "%s=%" PRIu64 " outside %" PRIu32 "..%" PRIu32 " (unit %s)",
                            key, v, keys[i].min, keys[i].max, u->kind);
        u->setting[i] = (uint32_t)v;
        u->settings_given |= 1u << i;
        *given |= 1u << (N_SHELL_SETTINGS + i);
        return NPK_OK;
    }
    char kinds[256];
    ksim_unit_kinds(kinds, sizeof kinds, false);
    if (!ops)
        return npk_fail(NPK_EPARSE, "unknown unit setting '%s' (unit kind '%s' is not one of %s)",
                        key, u->kind, kinds);
    return npk_fail(NPK_EPARSE,
                    "unknown unit setting '%s' (the shell's: type, version, n_buffers, "
                    "inst_depth, reply_delay; unit %s's: %u more)",
                    key, u->kind, ksim_unit_keys(keys));
}

npk_status ktsim_unit_set(ktsim_unit_cfg *u, const char *key, uint64_t value)
{
    unsigned given = 0;
    return unit_set(u, key, value, &given);
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
    unsigned given = 0; /* bit j: shell setting j, or the type's setting j - N_SHELL_SETTINGS */
    for (int i = 4; i < ntok; i++) {
        char *eq = strchr(tok[i], '=');
        if (!eq)
            return npk_fail(NPK_EPARSE, "%s:%d: '%s' is not key=value", origin, line, tok[i]);
        *eq = '\0';
        const char *k = tok[i], *val = eq + 1;
        uint64_t v = 0;
        /* a type given as its two characters, as CU_CAPS shows them ("SX") */
        if (!strcmp(k, "type") && strlen(val) == 2 && isprint((unsigned char)val[0]) &&
            isprint((unsigned char)val[1]))
            v = (uint64_t)((uint8_t)val[0] << 8 | (uint8_t)val[1]);
        else if (!parse_u64(val, &v))
            return npk_fail(NPK_EPARSE, "%s:%d: %s='%s' is not a number", origin, line, k, val);
        unsigned now = 0;
        npk_status s = unit_set(u, k, v, &now);
        if (s) {
            char msg[512];
            snprintf(msg, sizeof msg, "%s", npk_last_error());
            return npk_fail(s, "%s:%d: %s", origin, line, msg);
        }
        if (given & now)
            return npk_fail(NPK_EPARSE, "%s:%d: unit setting '%s' given twice", origin, line, k);
        given |= now;
    }
    const ksim_unit_ops *ops = ksim_unit_find(u->kind);
    if (ops) /* the type's defaults, as the machine would fill them */
        ksim_unit_settings_defaults(u, ops);
    c->n_units++;
    return NPK_OK;
}

/* The scalar keys beyond the settings table; each key may appear once (a second value used to
 * win silently). The board's keys (kt_board.h) are the board description's to check. */
enum { KEY_GRID, OTHER_KEYS };

static const char *const other_keys[OTHER_KEYS] = {"grid"};

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
    /* The board description first: the address map, DRAM, STAGE_FLITS, generation, clock and
     * capabilities are its keys; the machine is built on it. */
    kt_board board;
    npk_status bs = kt_board_parse(text, origin, &board);
    if (bs)
        return bs;
    ktsim_config_set_board(c, &board);
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
        if (kt_board_key(key)) {
            continue; /* read by kt_board_parse above */
        } else if (!strcmp(key, "unit")) {
            st = parse_unit(tok, ntok, origin, line, c);
        } else if (!strcmp(key, "timing")) {
            st = ksim_timing_parse(tok, ntok, origin, line, c, timing_line);
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
    char path[4096], *text;
    npk_status st = kt_board_read_text(name_or_path, &text, path, sizeof path);
    if (st)
        return st;
    st = ktsim_preset_parse(text, path, cfg);
    free(text);
    return st;
}
