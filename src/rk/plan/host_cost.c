/* SPDX-License-Identifier: MIT */
/* The planner's host model (rk_plan.h): the rates as a table of rows with their source, the
 * process's current model, and its text form for the command line. */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/rk_plan.h"

/* One rate: its name on the command line, where it sits in the model, the measured default and
 * where that figure comes from. The defaults are bench/bench_rk_host's least-squares fit of the
 * runtime's own per-phase timers (npk_rk_stats: synth, pack, sync, accumulate) over ten fp16,
 * int8 and int4 shapes on one core, rounded over runs (the fit moves by about 25% from run to
 * run on a shared machine), on an x86-64 host driving the simulator. A board's Cortex-A76 host
 * runs the same loops slower (its clock and memory bandwidth are lower; not measured here), so
 * on a board set the board's figures (npk_rk_set_host_model, rk plan --host-ns/--host-scale). */
static const struct host_row {
    const char *name;
    size_t offset;
    double value;
    const char *unit, *source;
} rows[] = {
    {"task", offsetof(npk_rk_host_model, task_ns), 8000.0, "ns per task",
     "bench_rk_host fit, x86-64: synthesis, placement, the task buffer's sync"},
    {"job", offsetof(npk_rk_host_model, job_ns), 0.0, "ns per submit",
     "the submit's round trip is the timing model's job floor; the rest is in task"},
    {"pack", offsetof(npk_rk_host_model, pack_ns_per_byte), 0.08, "ns per feature byte",
     "bench_rk_host fit, x86-64: packing and syncing the feature"},
    {"out", offsetof(npk_rk_host_model, out_ns_per_elem), 0.6, "ns per output element",
     "bench_rk_host fit, x86-64: syncing, reading back and adding the output"},
    {"core", offsetof(npk_rk_host_model, core_ns), 35000.0, "ns per worker thread",
     "bench_rk_host, x86-64: a thread created and joined"},
};
enum { ROWS = sizeof rows / sizeof rows[0] };

static double *field(npk_rk_host_model *m, const struct host_row *r)
{
    return (double *)((char *)m + r->offset);
}

static double field_of(const npk_rk_host_model *m, const struct host_row *r)
{
    return *(const double *)((const char *)m + r->offset);
}

npk_rk_host_model npk_rk_host_model_scaled(double scale)
{
    npk_rk_host_model m;
    for (unsigned i = 0; i < ROWS; i++)
        *field(&m, &rows[i]) = rows[i].value * scale;
    return m;
}

/* The process's model: planning happens on any thread (each runtime call plans), so it is read
 * and replaced under a lock. */
static pthread_mutex_t current_lock = PTHREAD_MUTEX_INITIALIZER;
static bool current_set;
static npk_rk_host_model current;

npk_rk_host_model npk_rk_host_model_get(void)
{
    pthread_mutex_lock(&current_lock);
    npk_rk_host_model m = current_set ? current : npk_rk_host_model_scaled(1.0);
    pthread_mutex_unlock(&current_lock);
    return m;
}

void npk_rk_set_host_model(const npk_rk_host_model *m)
{
    pthread_mutex_lock(&current_lock);
    current_set = m != NULL;
    if (m)
        current = *m;
    pthread_mutex_unlock(&current_lock);
}

npk_status npk_rk_host_model_scale(npk_rk_host_model *m, double scale)
{
    for (unsigned i = 0; i < ROWS; i++)
        if (!(field_of(m, &rows[i]) * scale <= NPK_RK_HOST_RATE_MAX))
            return npk_fail(NPK_ELIMIT, "host rate %s %g ns times %g is more than %g ns",
                            rows[i].name, field_of(m, &rows[i]), scale, NPK_RK_HOST_RATE_MAX);
    for (unsigned i = 0; i < ROWS; i++)
        *field(m, &rows[i]) *= scale;
    return NPK_OK;
}

npk_status npk_rk_host_model_parse(const char *spec, npk_rk_host_model *m)
{
    npk_rk_host_model out = *m;
    for (const char *p = spec; p && *p;) {
        size_t len = strcspn(p, ",");
        const char *eq = memchr(p, '=', len);
        const struct host_row *row = NULL;
        for (unsigned i = 0; eq && i < ROWS; i++)
            if ((size_t)(eq - p) == strlen(rows[i].name) && !strncmp(p, rows[i].name, eq - p))
                row = &rows[i];
        if (!row)
            return npk_fail(NPK_EINVAL,
                            "host rate '%.*s' is not name=value with a name of task, job, pack, "
                            "out, core",
                            (int)len, p);
        char *end;
        errno = 0;
        double v = strtod(eq + 1, &end);
        if (end != p + len || end == eq + 1 || errno || !(v >= 0) || v > NPK_RK_HOST_RATE_MAX)
            return npk_fail(NPK_EINVAL, "host rate '%.*s': the value must be a number of ns, 0..%g",
                            (int)len, p, NPK_RK_HOST_RATE_MAX);
        *field(&out, row) = v;
        p += len;
        if (*p == ',')
            p++;
    }
    *m = out;
    return NPK_OK;
}

void npk_rk_host_model_print(FILE *out, const npk_rk_host_model *m)
{
    for (unsigned i = 0; i < ROWS; i++)
        fprintf(out, "  host %-4s %10.3f %-22s (default %.3f: %s)\n", rows[i].name,
                field_of(m, &rows[i]), rows[i].unit, rows[i].value, rows[i].source);
}
