/* SPDX-License-Identifier: MIT */
/* The backend's settings: environment variables, read once (npg_settings_reload re-reads).
 * A bad value is reported on stderr and the default kept: a ggml program has no other way to
 * be told, and a wrong device name must not silently become another device. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "npg.h"

#define NPG_STR(x) #x
#define NPG_XSTR(x) NPG_STR(x)

static const char *const offload_names[] = {"auto", "always", "never"};

const char *npg_offload_name(npg_offload o)
{
    return (unsigned)o < sizeof offload_names / sizeof offload_names[0] ? offload_names[o] : "?";
}

static bool parse_offload(const char *v, void *out)
{
    for (unsigned i = 0; i < sizeof offload_names / sizeof offload_names[0]; i++)
        if (strcmp(v, offload_names[i]) == 0) {
            *(npg_offload *)out = (npg_offload)i;
            return true;
        }
    return false;
}

/* Device names, at most NPG_MAX_DEVICES of them: a list longer than the registry holds is
 * refused whole, so no named device is dropped without a word; so is an empty name (",",
 * "sim,", "sim,,npu"), which would otherwise leave no device, or one fewer, in silence. */
static bool parse_devices(const char *v, void *out)
{
    size_t n = strlen(v), names = 1;
    if (n == 0 || n >= sizeof((npg_settings *)0)->devices)
        return false;
    if (v[0] == ',' || v[n - 1] == ',' || strstr(v, ",,"))
        return false;
    for (const char *c = v; *c; c++)
        names += *c == ',';
    if (names > NPG_MAX_DEVICES)
        return false;
    memcpy(out, v, n + 1);
    return true;
}

/* A CPU rate in GFLOP/s: positive and below any CPU's (1e6 GFLOP/s). */
static bool parse_gflops(const char *v, void *out)
{
    char *end;
    double g = strtod(v, &end);
    if (end == v || *end != '\0' || !(g > 0.0 && g < 1e6))
        return false;
    *(double *)out = g;
    return true;
}

/* Cores: 0 (every core of the SoC) or 1..8 (the runtime refuses more than its SoC has). */
static bool parse_cores(const char *v, void *out)
{
    char *end;
    long c = strtol(v, &end, 10);
    if (end == v || *end != '\0' || c < 0 || c > 8)
        return false;
    *(unsigned *)out = (unsigned)c;
    return true;
}

/* Tasks per SUBMIT: 1 (one task per SUBMIT, the board-validated form) .. NPK_RK_MAX_CHAIN (the
 * row's bound, printed after its text). */
static bool parse_chain(const char *v, void *out)
{
    char *end;
    long c = strtol(v, &end, 10);
    if (end == v || *end != '\0' || c < 1 || c > (long)NPK_RK_MAX_CHAIN)
        return false;
    *(unsigned *)out = (unsigned)c;
    return true;
}

/* A flag: exactly 0 or 1 (any other word is more likely a typo than a wish). */
static bool parse_flag(const char *v, void *out)
{
    if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
        return false;
    *(bool *)out = v[0] == '1';
    return true;
}

/* The weights' forms: "auto" (each type's row in npg_types.c) or "fp16" (every type). */
static bool parse_weights(const char *v, void *out)
{
    if (strcmp(v, "auto") != 0 && strcmp(v, "fp16") != 0)
        return false;
    *(bool *)out = v[0] == 'f';
    return true;
}

typedef struct setting_row {
    const char *env;
    size_t offset;
    bool (*parse)(const char *value, void *field);
    const char *expect;
    unsigned bound; /* when not 0, printed after `expect` (a limit another header owns) */
} setting_row;

static const setting_row setting_rows[] = {
    {"NPUKIT_GGML_DEVICE", offsetof(npg_settings, devices), parse_devices,
     "at most " NPG_XSTR(NPG_MAX_DEVICES) " npk_rk_open names, none empty, separated by commas (auto, sim, sim-rocket, npu, rocket, a node path)"},
    {"NPUKIT_GGML_OFFLOAD", offsetof(npg_settings, offload), parse_offload,
     "auto, always or never"},
    {"NPUKIT_GGML_CPU_GFLOPS", offsetof(npg_settings, cpu_gflops), parse_gflops,
     "a rate in GFLOP/s, > 0 and < 1e6"},
    {"NPUKIT_GGML_CORES", offsetof(npg_settings, cores), parse_cores,
     "0 (every core) or a count 1..8"},
    {"NPUKIT_GGML_VERBOSE", offsetof(npg_settings, verbose), parse_flag, "0 or 1"},
    {"NPUKIT_GGML_BATCH", offsetof(npg_settings, batch), parse_flag, "0 or 1"},
    {"NPUKIT_GGML_CHAIN", offsetof(npg_settings, chain), parse_chain,
     "tasks per SUBMIT, 1..", NPK_RK_MAX_CHAIN},
    {"NPUKIT_GGML_WEIGHTS", offsetof(npg_settings, fp16_only), parse_weights, "auto or fp16"},
};

/* The CPU rate the offload estimate assumes when none is set: four Cortex-A76 cores running
 * ggml's fp16/int8 dot products (a board figure; set NPUKIT_GGML_CPU_GFLOPS to your own). */
#define NPG_DEFAULT_CPU_GFLOPS 40.0

static npg_settings settings;
static pthread_once_t settings_once = PTHREAD_ONCE_INIT;

void npg_settings_reload(void)
{
    npg_settings s = {
        .offload = NPG_OFFLOAD_AUTO,
        .cpu_gflops = NPG_DEFAULT_CPU_GFLOPS,
        .batch = true,
        /* the batched calls' tasks share SUBMITs only when a SUBMIT chains several */
        .chain = NPK_RK_MAX_CHAIN};
    strcpy(s.devices, "auto");
    for (size_t i = 0; i < sizeof setting_rows / sizeof setting_rows[0]; i++) {
        const setting_row *r = &setting_rows[i];
        const char *v = getenv(r->env);
        if (v && !r->parse(v, (char *)&s + r->offset)) {
            char bound[16] = "";
            if (r->bound)
                snprintf(bound, sizeof bound, "%u", r->bound);
            fprintf(stderr, "ggml-npukit: %s=\"%s\" ignored: expected %s%s\n", r->env, v, r->expect,
                    bound);
        }
    }
    s.generation = settings.generation + 1;
    settings = s;
}

static void settings_first(void) { npg_settings_reload(); }

const npg_settings *npg_settings_get(void)
{
    pthread_once(&settings_once, settings_first);
    return &settings;
}

uint64_t npg_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
