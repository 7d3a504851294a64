/* SPDX-License-Identifier: MIT */
/* The card daemon's clock governor, modelled: the profiles a board's clocking wizards switch
 * between, which mesh sits at which, and the policy that raises meshes only for a run and drops
 * them back after an idle window. It answers `clocks`, `run_begin`/`run_end` and the governor part
 * of `status` the way the card daemon does; the simulated meshes run at the preset's clock
 * whatever the profile says. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "jsonframe.h"
#include "serve_daemon.h"

/* The board profiles (facts: clocks of the v6.7/v7 boards; VCO 1200 MHz). The first is the
 * idle one. */
static const struct profile {
    const char *name;
    unsigned noc, mat2x, vec, mag; /* MHz */
} profiles[] = {
    {"low", 100, 200, 100, 100},
    {"mid", 200, 400, 200, 200},
    {"ship", 300, 600, 300, 300},
};
/* GOV_IDLE_MS: upstream's daemon's default idle_seconds, 10 s. */
enum { IDLE_LEVEL = 0, NPROFILES = sizeof profiles / sizeof profiles[0], GOV_IDLE_MS = 10000 };

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void kt_gov_init(governor *g, unsigned idle_ms)
{
    int64_t t = now_ms();
    for (unsigned m = 0; m < GOV_MESHES; m++) {
        g->current[m] = IDLE_LEVEL; /* the daemon idles every mesh when it starts */
        g->last_active[m] = t;
    }
    g->idle_ms = idle_ms ? idle_ms : GOV_IDLE_MS;
}

int kt_gov_level(const char *name)
{
    for (int i = 0; name && i < NPROFILES; i++)
        if (!strcmp(name, profiles[i].name))
            return i;
    return -1;
}

const char *kt_gov_level_name(int level)
{
    return level >= 0 && level < NPROFILES ? profiles[level].name : "?";
}

void kt_gov_raise(governor *g, unsigned mask, int level)
{
    int64_t t = now_ms();
    for (unsigned m = 0; m < GOV_MESHES; m++)
        if (mask >> m & 1) {
            g->current[m] = level;
            g->last_active[m] = t;
        }
}

void kt_gov_touch(governor *g, unsigned mask)
{
    int64_t t = now_ms();
    for (unsigned m = 0; m < GOV_MESHES; m++)
        if (mask >> m & 1)
            g->last_active[m] = t;
}

void kt_gov_tick(governor *g, unsigned meshes, unsigned held)
{
    int64_t t = now_ms();
    for (unsigned m = 0; m < meshes && m < GOV_MESHES; m++)
        if (!(held >> m & 1) && t - g->last_active[m] >= (int64_t)g->idle_ms)
            g->current[m] = IDLE_LEVEL;
}

cJSON *kt_gov_clocks(const governor *g, unsigned meshes)
{
    cJSON *v = cJSON_CreateObject();
    for (unsigned m = 0; v && m < meshes && m < GOV_MESHES; m++) {
        char key[12];
        snprintf(key, sizeof key, "%u", m);
        const struct profile *p = &profiles[g->current[m]];
        /* upstream's reply exactly: each wizard output's rate in MHz, nothing else (its client
         * compares every member against a profile) */
        cJSON *c = cJSON_AddObjectToObject(v, key);
        cJSON_AddNumberToObject(c, "noc", p->noc);
        cJSON_AddNumberToObject(c, "mat2x", p->mat2x);
        cJSON_AddNumberToObject(c, "vec", p->vec);
        cJSON_AddNumberToObject(c, "mag", p->mag);
    }
    return v;
}

cJSON *kt_gov_status(const server *sv)
{
    const governor *g = &sv->gov;
    cJSON *v = cJSON_CreateObject();
    cJSON *cur = cJSON_AddObjectToObject(v, "current");
    for (unsigned m = 0; m < sv->tg->meshes && m < GOV_MESHES; m++) {
        char key[12];
        snprintf(key, sizeof key, "%u", m);
        cJSON_AddStringToObject(cur, key, profiles[g->current[m]].name);
    }
    cJSON *runs = cJSON_AddObjectToObject(v, "runs");
    for (unsigned i = 0; i < sv->nruns; i++) {
        char key[24];
        snprintf(key, sizeof key, "%" PRIu64, sv->runs[i].id);
        cJSON *pair = cJSON_AddArrayToObject(runs, key); /* [sorted meshes, level] */
        cJSON *ms = cJSON_CreateArray();
        for (unsigned m = 0; m < GOV_MESHES; m++)
            if (sv->runs[i].mesh_mask >> m & 1)
                cJSON_AddItemToArray(ms, cJSON_CreateNumber(m));
        cJSON_AddItemToArray(pair, ms);
        cJSON_AddItemToArray(pair, cJSON_CreateString(kt_gov_level_name(sv->runs[i].level)));
    }
    cJSON_AddNumberToObject(v, "idle_seconds", g->idle_ms / 1000.0);
    cJSON_AddStringToObject(v, "idle_level", profiles[IDLE_LEVEL].name);
    return v;
}
