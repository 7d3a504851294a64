/* SPDX-License-Identifier: MIT */
/* Timing as data: each unit type's row comes from its own file (the unit-type table, shell.h);
 * here the machine's rows are filled from the table and a preset's `timing KIND key=value ...`
 * line changes the keys it gives. The mailbox path's crossings are below. */
#include "timing.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shell.h"

#define ROW(field, v, src)                                                                         \
    {                                                                                              \
#field, offsetof(ktsim_config, field), v, src                                              \
    }

/* The machine's FIFO depths, host costs and the mailbox path's async-FIFO crossings, a row each
 * with its source: a spec section, a facts entry, "measured on RTL" or "inferred". The crossings
 * are measured on the RTL (kick, advance d cycles, one RX_STATUS read; the smallest d that sees
 * the CU_CTRL reply): 9 to the unit one router away, 4 for a loopback, where a model without
 * crossings gives 3 and 1 on the rtl_bench preset — 3 extra cycles on the orchestrator's own
 * path, 3 on the unit's. */
static const ksim_machine_number machine_numbers[] = {
    ROW(tx_depth, 16, "facts: noc_orchestrator TX_DEPTH 16 (one FIFO for mailbox and dispatcher)"),
    ROW(rx_depth, 16, "facts: noc_orchestrator RX_DEPTH 16"),
    ROW(router_fifo, 32, "facts: router input-port FIFO_DEPTH default 32 (512 in generated tops)"),
    ROW(recv_depth, 16, "facts: noc_cu_base RECV_DEPTH 16"),
    ROW(mem_queue, 64, "facts: mag_mem_port Q_DEPTH 64"),
    ROW(sync_fifo_extra, 2,
        "facts: xpm_fifo_sync holds FIFO_WRITE_DEPTH + 2 words at peak (sim/verilator shims)"),
    ROW(host_access_cycles, 8,
        "inferred: a host transaction through a bridge and the station bus; measured on RTL "
        "with a direct AXI master: 3 (the rtl_bench preset's 2 + the beat)"),
    ROW(host_mem_cycles_x4, 4,
        "inferred: a 32-byte beat a cycle; measured on RTL: 3.25 cycles a beat (rtl_bench 13)"),
    ROW(cdc_tx, 2,
        "measured on RTL: loopback d = 4 (model 1 without): TX, a 2-stage write-pointer "
        "synchroniser"),
    ROW(cdc_rx, 1, "measured on RTL: loopback d = 4 (model 1 without): RX, the rest"),
    ROW(cdc_unit, 3,
        "measured on RTL: d = 9 to the unit at one router (model 3 without): the unit's request "
        "and reply"),
};

const ksim_machine_number *ksim_machine_numbers(size_t *count)
{
    *count = sizeof machine_numbers / sizeof machine_numbers[0];
    return machine_numbers;
}

void ksim_machine_defaults(ktsim_config *c)
{
    for (size_t i = 0; i < sizeof machine_numbers / sizeof machine_numbers[0]; i++)
        memcpy((uint8_t *)c + machine_numbers[i].offset, &machine_numbers[i].value,
               sizeof(unsigned));
}

void ksim_timing_defaults(ktsim_config *c)
{
    c->n_timing = 0;
    for (unsigned i = 0; i < ksim_unit_count() && c->n_timing < KTSIM_MAX_TIMINGS; i++) {
        const ksim_unit_ops *u = ksim_unit_at(i);
        if (!u->timing)
            continue;
        ktsim_unit_timing *t = &c->timing[c->n_timing++];
        memset(t, 0, sizeof *t);
        snprintf(t->kind, sizeof t->kind, "%s", u->kind); /* the row is the type's, by name */
        for (unsigned k = 0; k < ksim_unit_keys(u->timing); k++)
            t->value[k] = u->timing[k].def;
    }
}

const ktsim_unit_timing *ktsim_timing_find(const ktsim_config *c, const char *kind)
{
    for (unsigned i = 0; i < c->n_timing; i++)
        if (!strcmp(c->timing[i].kind, kind))
            return &c->timing[i];
    return NULL;
}

const ktsim_unit_key *ktsim_unit_timing_keys(const char *kind)
{
    const ksim_unit_ops *u = kind ? ksim_unit_find(kind) : NULL;
    return u ? u->timing : NULL;
}

bool ktsim_timing_get(const ktsim_config *c, const char *kind, const char *key, uint32_t *value)
{
    const ktsim_unit_timing *t = ktsim_timing_find(c, kind);
    const ktsim_unit_key *keys = ktsim_unit_timing_keys(kind);
    for (unsigned k = 0; t && k < ksim_unit_keys(keys); k++)
        if (!strcmp(keys[k].name, key)) {
            *value = t->value[k];
            return true;
        }
    return false;
}

/* "setup, read_wait, ..." */
static void key_names(const ktsim_unit_key *keys, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (unsigned k = 0; k < ksim_unit_keys(keys) && at < len; k++) {
        int n = snprintf(buf + at, len - at, "%s%s", k ? ", " : "", keys[k].name);
        at += n > 0 ? (size_t)n : 0;
    }
}

npk_status ksim_unit_key_value(const ktsim_unit_key *keys, const char *what, const char *key,
                               const char *text, const char *origin, int line, unsigned *index,
                               uint32_t *value)
{
    unsigned n = ksim_unit_keys(keys), k;
    for (k = 0; k < n; k++)
        if (!strcmp(keys[k].name, key))
            break;
    if (k == n) {
        char names[256];
        key_names(keys, names, sizeof names);
        return npk_fail(NPK_EPARSE, "%s:%d: unknown %s key '%s' (%s)", origin, line, what, key,
                        n ? names : "it has none");
    }
    char *end;
    unsigned long long x = strtoull(text, &end, 0);
    if (!*text || *text == '-' || *end)
        return npk_fail(NPK_EPARSE, "%s:%d: %s='%s' is not a number", origin, line, key, text);
    if (x < keys[k].min || x > keys[k].max)
        return npk_fail(NPK_ELIMIT, "%s:%d: %s=%llu outside %" PRIu32 "..%" PRIu32, origin, line,
                        key, x, keys[k].min, keys[k].max);
    *index = k;
    *value = (uint32_t)x;
    return NPK_OK;
}

npk_status ksim_timing_parse(char **tok, int ntok, const char *origin, int line, ktsim_config *c,
                             int first_line[KTSIM_MAX_TIMINGS])
{
    if (ntok < 3)
        return npk_fail(NPK_EPARSE, "%s:%d: timing needs KIND key=value ...", origin, line);
    unsigned row;
    for (row = 0; row < c->n_timing; row++)
        if (!strcmp(c->timing[row].kind, tok[1]))
            break;
    const ktsim_unit_key *keys = ktsim_unit_timing_keys(tok[1]);
    if (row == c->n_timing || !keys) {
        char kinds[256];
        ksim_unit_kinds(kinds, sizeof kinds, true);
        return npk_fail(NPK_EPARSE, "%s:%d: timing: unit kind '%s' has no timing row (%s %s)",
                        origin, line, tok[1], kinds, strchr(kinds, ',') ? "have" : "has");
    }
    if (first_line[row])
        return npk_fail(NPK_EPARSE, "%s:%d: timing %s given again (first on line %d); once a kind",
                        origin, line, tok[1], first_line[row]);
    first_line[row] = line;
    ktsim_unit_timing *t = &c->timing[row];
    unsigned given = 0;
    for (int i = 2; i < ntok; i++) {
        char *eq = strchr(tok[i], '=');
        if (!eq)
            return npk_fail(NPK_EPARSE, "%s:%d: '%s' is not key=value", origin, line, tok[i]);
        *eq = '\0';
        unsigned k;
        uint32_t v;
        npk_status s = ksim_unit_key_value(keys, "timing", tok[i], eq + 1, origin, line, &k, &v);
        if (s)
            return s;
        if (given & 1u << k)
            return npk_fail(NPK_EPARSE, "%s:%d: timing key '%s' given twice", origin, line, tok[i]);
        given |= 1u << k;
        t->value[k] = v;
    }
    return NPK_OK;
}
