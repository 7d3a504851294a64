/* SPDX-License-Identifier: MIT */
/* The KohakuTPU side of the trace file: `npukit kt saxpy` (host and engine
 * forms), `kt move` and a saxpy against `kt serve` behind a pipe, each with
 * --trace or NPUKIT_TRACE, and each trace parsed with cJSON against what the
 * command's own --json reports:
 *   - the file is one object whose traceEvents is an array of well-formed
 * events (M, X, i);
 *   - on the simulator, every unit's track holds one "dispatch" per instruction
 * that reached it and one busy span per instruction it retired, adding up to
 * the instructions the run reports, each span's start <= end and inside the
 * run's cycle count;
 *   - the host's transactions after the last "counters reset" are exactly the
 * transactions the command reports, on the simulated timeline in process (wall
 * clock behind a pipe);
 *   - the engine's program spans count the engine commands; the mover's spans
 * the moves;
 *   - every kt command's trace nests: on each track, slices sorted by start
 * (the longer first at an equal start) either end at or before the next one
 * starts or contain it whole — the rule the Chrome trace viewer and Perfetto
 * apply to complete ("X") events (Perfetto drops a slice that breaks it);
 *   - with tracing off nothing is written. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "kt_remote_testlib.h"

static char dir[] = "/tmp/npukit_kt_trace_XXXXXX";

static char *slurp(FILE *f)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n < 2) {
            char *more = realloc(buf, cap *= 2);
            if (!more)
                free(buf);
            buf = more;
        }
    }
    if (buf)
        buf[n] = 0;
    return buf;
}

/* The exact-decimal reading: every "ts" and "dur" in the text is written as a binary fraction
 * of at most 16 bits, digit for digit its double's exact value, so a reader of exact decimals
 * reads the very numbers the double reader does; and those sums (ts + dur, all below 2^37 us) are
 * exact in double. With that, the double reading's nesting is the exact reading's. */
static unsigned inexact_times(const char *text)
{
    unsigned bad = 0;
    for (const char *p = text; (p = strstr(p, "\":")) != NULL; p += 2) {
        bool is_time = (p - text >= 3 && !strncmp(p - 3, "\"ts", 3)) ||
                       (p - text >= 4 && !strncmp(p - 4, "\"dur", 4));
        if (!is_time)
            continue;
        char *end;
        double v = strtod(p + 2, &end);
        char exact[64];
        int n = snprintf(exact, sizeof exact, "%.16f", v);
        while (n > 0 && exact[n - 1] == '0')
            exact[--n] = '\0';
        if (n > 0 && exact[n - 1] == '.')
            exact[--n] = '\0';
        bool ok = ldexp(v, 16) == floor(ldexp(v, 16)) && (size_t)(end - (p + 2)) == strlen(exact) &&
                  !strncmp(p + 2, exact, strlen(exact));
        if (!ok && bad++ < 3)
            fprintf(stderr, "  time '%.*s' is not an exact binary fraction\n", (int)(end - p - 2),
                    p + 2);
    }
    return bad;
}

static cJSON *parse_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = slurp(f);
    fclose(f);
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    if (text)
        CHECK_EQ(inexact_times(text), 0u);
    free(text);
    return j;
}

/* Run `npukit ARGS` with the environment prefix ENV; its stdout parsed as JSON.
 */
static cJSON *run(const char *env, const char *args)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s '%s' %s", env, kt_test_cli(), args);
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    char *out = slurp(p);
    int rc = pclose(p);
    CHECK_EQ(rc, 0);
    cJSON *j = out ? cJSON_Parse(out) : NULL;
    if (!j)
        fprintf(stderr, "not JSON from '%s': %s\n", cmd, out ? out : "(nothing)");
    free(out);
    return j;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}
static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

enum { MAX_TRACKS = 64 };

/* What a trace holds, by track. */
typedef struct track {
    int pid, tid;
    char name[128];
    unsigned dispatch, busy, moves, programs, engine_commands, words_read;
    unsigned tx_total, tx_since_reset, resets, last_tx_bytes;
    double reset_ts; /* the last "counters reset" (held spans reach the file out of time order) */
    double max_end_cycle;
    unsigned bad_spans;
    /* [start, end, file order] as three readings of the file's microseconds give them: whole ns
     * truncating ts * 1000 and dur * 1000 (older Perfetto: int64(us * 1000)), rounding them
     * (newer: llround), and doubles with end = ts + dur (Chrome's trace engine), kept as keys
     * that order as the doubles do */
    long long (*slices)[3][3];
    unsigned n_slices, cap_slices;
} track;

typedef struct summary {
    track t[MAX_TRACKS];
    unsigned n, bad_events;
    char process[8][160];
    unsigned slices, overlaps; /* every X event; those that break the nesting rule */
    unsigned late;             /* written after a slice they enclose that starts with them */
} summary;

enum { BY_TRUNCATION, BY_ROUNDING, BY_DOUBLE, CONVERSIONS };
static const char *const reading[CONVERSIONS] = {"truncated", "rounded", "double"};

static long long viewer_ns(double us, int conversion)
{
    return conversion == BY_TRUNCATION ? (long long)(us * 1000.0) : llround(us * 1000.0);
}

/* A double reading as an integer that orders exactly as the double does (a non-negative
 * double's bits do). */
static long long double_key(double us)
{
    long long k;
    memcpy(&k, &us, sizeof k);
    return k;
}

static void add_slice(track *t, double ts, double dur)
{
    if (t->n_slices == t->cap_slices) {
        unsigned cap = t->cap_slices ? 2 * t->cap_slices : 256;
        long long(*grown)[3][3] = realloc(t->slices, cap * sizeof *grown);
        if (!grown)
            return;
        t->slices = grown;
        t->cap_slices = cap;
    }
    for (int c = 0; c < BY_DOUBLE; c++) { /* a viewer's end is its start plus its duration */
        t->slices[t->n_slices][c][0] = viewer_ns(ts, c);
        t->slices[t->n_slices][c][1] = viewer_ns(ts, c) + viewer_ns(dur, c);
    }
    t->slices[t->n_slices][BY_DOUBLE][0] = double_key(ts);
    t->slices[t->n_slices][BY_DOUBLE][1] = double_key(ts + dur);
    for (int c = 0; c < CONVERSIONS; c++)
        t->slices[t->n_slices][c][2] = t->n_slices; /* file order on the track */
    t->n_slices++;
}

static int by_start_longest_first(const void *a, const void *b)
{
    const long long *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    if (x[1] != y[1])
        return x[1] > y[1] ? -1 : 1;
    return (x[2] > y[2]) - (x[2] < y[2]);
}

/* Slices that overlap a neighbour without nesting in it, on one track, once a viewer has
 * converted the times by `conversion`; and, in *late, slices written to the file before one
 * that starts with them and encloses them (a viewer keeping file order at an equal start would
 * make the enclosing one the child). */
static unsigned overlaps(track *t, int conversion, unsigned *late)
{
    enum { DEPTH = 64 };
    long long open_end[DEPTH];
    unsigned depth = 0, bad = 0;
    if (!t->n_slices)
        return 0;
    long long(*sl)[3] = malloc(t->n_slices * sizeof *sl);
    if (!sl)
        return t->n_slices;
    for (unsigned i = 0; i < t->n_slices; i++)
        for (int k = 0; k < 3; k++)
            sl[i][k] = t->slices[i][conversion][k];
    qsort(sl, t->n_slices, sizeof *sl, by_start_longest_first);
    for (unsigned i = 0; i < t->n_slices; i++) {
        long long s0 = sl[i][0], s1 = sl[i][1];
        if (i && sl[i - 1][0] == s0 && sl[i - 1][1] > s1 && sl[i - 1][2] > sl[i][2])
            ++*late;
        while (depth && open_end[depth - 1] <= s0)
            depth--; /* closed before this one starts */
        if (depth && s1 > open_end[depth - 1]) {
            if (bad < 3)
                fprintf(stderr, "  track '%s' (%s): [%lld, %lld) overlaps [.., %lld)\n", t->name,
                        reading[conversion], s0, s1, open_end[depth - 1]);
            bad++;
            continue;
        }
        if (depth < DEPTH)
            open_end[depth++] = s1;
    }
    free(sl);
    return bad;
}

static void summary_free(summary *s)
{
    for (unsigned i = 0; i < s->n; i++)
        free(s->t[i].slices);
    s->n = 0;
}

static track *find(summary *s, int pid, int tid)
{
    for (unsigned i = 0; i < s->n; i++)
        if (s->t[i].pid == pid && s->t[i].tid == tid)
            return &s->t[i];
    if (s->n == MAX_TRACKS)
        return NULL;
    track *t = &s->t[s->n++];
    memset(t, 0, sizeof *t);
    t->pid = pid;
    t->tid = tid;
    return t;
}

static bool is_transaction(const char *name)
{
    return !strncmp(name, "read ", 5) || !strncmp(name, "write ", 6);
}

static void summarise_events(const cJSON *root, summary *s);

static void summarise(const cJSON *root, summary *s)
{
    memset(s, 0, sizeof *s);
    summarise_events(root, s);
    for (unsigned i = 0; i < s->n; i++) {
        s->slices += s->t[i].n_slices;
        unsigned late = 0;
        for (int c = 0; c < CONVERSIONS; c++)
            s->overlaps += overlaps(&s->t[i], c, c == BY_DOUBLE ? &late : &(unsigned){0});
        s->late += late;
    }
    CHECK_EQ(s->overlaps, 0u);
    CHECK_EQ(s->late, 0u);
}

static void summarise_events(const cJSON *root, summary *s)
{
    CHECK(cJSON_IsObject(root));
    const cJSON *events = cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
    CHECK(cJSON_IsArray(events));
    const cJSON *e;
    /* each track's last "counters reset": what comes after it is by time, not file order */
    cJSON_ArrayForEach(e, events)
    {
        const cJSON *pid = cJSON_GetObjectItemCaseSensitive(e, "pid");
        const cJSON *tid = cJSON_GetObjectItemCaseSensitive(e, "tid");
        track *t = cJSON_IsNumber(pid) && cJSON_IsNumber(tid) && !strcmp(str(e, "ph"), "i") &&
                           !strcmp(str(e, "name"), "counters reset")
                       ? find(s, pid->valueint, tid->valueint)
                       : NULL;
        if (t && num(e, "ts") > t->reset_ts)
            t->reset_ts = num(e, "ts");
    }
    cJSON_ArrayForEach(e, events)
    {
        const cJSON *pid = cJSON_GetObjectItemCaseSensitive(e, "pid");
        const cJSON *tid = cJSON_GetObjectItemCaseSensitive(e, "tid");
        const char *ph = str(e, "ph"), *name = str(e, "name");
        const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
        if (!cJSON_IsNumber(pid) || !cJSON_IsNumber(tid) || !*name) {
            s->bad_events++;
            continue;
        }
        track *t = find(s, pid->valueint, tid->valueint);
        if (!t)
            continue;
        if (!strcmp(ph, "M")) {
            const char *label = str(args, "name");
            if (!strcmp(name, "thread_name"))
                snprintf(t->name, sizeof t->name, "%s", label);
            else if (!strcmp(name, "process_name") && pid->valueint > 0 && pid->valueint < 8)
                snprintf(s->process[pid->valueint], sizeof s->process[0], "%s", label);
            else
                s->bad_events++;
            continue;
        }
        double ts = num(e, "ts");
        if (ts < 0) {
            s->bad_events++;
            continue;
        }
        if (!strcmp(ph, "i")) {
            t->dispatch += !strcmp(name, "dispatch");
            t->resets += !strcmp(name, "counters reset"); /* its time: the pre-pass */
            continue;
        }
        if (strcmp(ph, "X") || num(e, "dur") < 0) {
            s->bad_events++;
            continue;
        }
        add_slice(t, ts, num(e, "dur"));
        if (is_transaction(name)) {
            t->tx_total++;
            t->tx_since_reset += ts >= t->reset_ts;
            t->last_tx_bytes = (unsigned)num(args, "bytes");
            continue;
        }
        const cJSON *c0 = cJSON_GetObjectItemCaseSensitive(args, "start_cycle");
        const cJSON *c1 = cJSON_GetObjectItemCaseSensitive(args, "end_cycle");
        if (cJSON_IsNumber(c0) && cJSON_IsNumber(c1)) {
            if (c0->valuedouble > c1->valuedouble)
                t->bad_spans++;
            if (c1->valuedouble > t->max_end_cycle)
                t->max_end_cycle = c1->valuedouble;
        }
        if (!strcmp(name, "saxpy"))
            t->busy++;
        else if (!strcmp(name, "move")) {
            t->moves++;
            t->words_read += (unsigned)num(args, "words_read");
        } else if (!strcmp(name, "program")) {
            t->programs++;
            t->engine_commands += (unsigned)num(args, "commands");
        }
    }
    CHECK_EQ(s->bad_events, 0u);
}

/* The machine's clock where the command's span ended: its start plus the cycles over it. */
static double run_end_cycle(const cJSON *out)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(out, "transport");
    return num(t, "span_start_cycle") + num(t, "cycles");
}

static bool has(const char *hay, const char *needle) { return strstr(hay, needle) != NULL; }

/* The host transactions' track (exactly one). */
static const track *host_track(const summary *s)
{
    const track *h = NULL;
    unsigned n = 0;
    for (unsigned i = 0; i < s->n; i++)
        if (has(s->t[i].name, "host transactions")) {
            h = &s->t[i];
            n++;
        }
    CHECK_EQ(n, 1u);
    return h;
}

/* Per-unit counts against the run's: instructions, cycles. */
static void check_units(const summary *s, const cJSON *out)
{
    double cycles = run_end_cycle(out);
    CHECK(cycles > 0);
    unsigned dispatched = 0, busy = 0, units_with_work = 0;
    for (unsigned i = 0; i < s->n; i++) {
        const track *t = &s->t[i];
        if (!has(t->name, "CU ("))
            continue;
        CHECK_EQ(t->dispatch, t->busy); /* every instruction that arrived retired */
        CHECK_EQ(t->bad_spans, 0u);
        CHECK(t->max_end_cycle <= cycles);
        dispatched += t->dispatch;
        busy += t->busy;
        units_with_work += t->busy > 0;
    }
    CHECK_EQ(dispatched, (unsigned)num(out, "instructions"));
    CHECK_EQ(busy, (unsigned)num(out, "instructions"));
    CHECK_EQ(units_with_work, (unsigned)num(out, "units"));
}

static void check_host(const summary *s, const cJSON *out, const char *timeline)
{
    const track *h = host_track(s);
    if (!h)
        return;
    CHECK_STR_HAS(h->name, timeline);
    CHECK(h->resets >= 1);
    CHECK_EQ(h->tx_since_reset, (unsigned)num(out, "transactions"));
    CHECK(h->tx_total > h->tx_since_reset); /* opening the window came before the reset */
}

static void trace_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", dir, name);
}

/* Run `npukit ENV ARGS` (ARGS with %s for the trace file FILE); its --json
 * output in *out and its trace summarised into s. False (reported) when either
 * is missing; the caller frees *out. */
static bool traced_run(const char *file, bool by_env, const char *args_fmt, cJSON **out, summary *s)
{
    char path[256], env[320] = "", args[1024];
    trace_path(path, sizeof path, file);
    if (by_env) /* the variable, not the option */
        snprintf(env, sizeof env, "NPUKIT_TRACE='%s'", path);
    snprintf(args, sizeof args, args_fmt, by_env ? "" : path);
    *out = run(env, args);
    cJSON *tr = parse_file(path);
    CHECK(*out && tr);
    if (tr)
        summarise(tr, s);
    cJSON_Delete(tr);
    return *out && tr;
}

static void saxpy_host(void)
{
    cJSON *out;
    summary s;
    if (traced_run("host.json", false, "kt saxpy -n 1000 --json --trace '%s'", &out, &s)) {
        CHECK_STR_HAS(s.process[1], "simulated time");
        check_units(&s, out);
        check_host(&s, out, "simulated time");
    }
    summary_free(&s);
    cJSON_Delete(out);
}

static void saxpy_engine(void)
{
    cJSON *out;
    summary s;
    if (traced_run("engine.json", true, "kt saxpy -n 700 --engine --json%s", &out, &s)) {
        check_units(&s, out);
        check_host(&s, out, "simulated time");
        unsigned programs = 0, commands = 0;
        for (unsigned i = 0; i < s.n; i++)
            if (!strcmp(s.t[i].name, "engine")) {
                programs += s.t[i].programs;
                commands += s.t[i].engine_commands;
            }
        CHECK(programs >= 1);
        CHECK_EQ(commands, (unsigned)num(out, "engine_commands"));
    }
    summary_free(&s);
    cJSON_Delete(out);
}

static void move(void)
{
    cJSON *out;
    summary s;
    if (!traced_run("move.json", false, "kt move copy --words 40 --json --trace '%s'", &out, &s)) {
        cJSON_Delete(out);
        summary_free(&s);
        return;
    }
    unsigned moves = 0, words = 0;
    double cycles = run_end_cycle(out);
    for (unsigned i = 0; i < s.n; i++)
        if (!strcmp(s.t[i].name, "mover")) {
            moves += s.t[i].moves;
            words += s.t[i].words_read;
            CHECK_EQ(s.t[i].bad_spans, 0u);
            CHECK(s.t[i].max_end_cycle <= cycles);
        }
    CHECK_EQ(moves, (unsigned)num(out, "moves_done"));
    CHECK_EQ(words, 40u);
    /* kt move leaves its reading of the destination (one block of the 40 words,
     * last) out of its count */
    const track *h = host_track(&s);
    if (h) {
        CHECK_EQ(h->tx_since_reset, (unsigned)num(out, "transactions") + 1);
        CHECK_EQ(h->last_tx_bytes, 40u * 32);
    }
    summary_free(&s);
    cJSON_Delete(out);
}

/* Behind a pipe the host side is on the wall clock, and the served simulator
 * (which inherits no trace) leaves the file whole. */
static void saxpy_remote(void)
{
    char fmt[512];
    snprintf(fmt, sizeof fmt,
             "kt saxpy -n 300 --json --trace '%%s' --card pipe:\"'%s' kt serve "
             "--protocol line "
             "--stdio\"",
             kt_test_cli());
    cJSON *out;
    summary s;
    if (traced_run("remote.json", false, fmt, &out, &s)) {
        check_host(&s, out, "wall clock");
        CHECK_STR_HAS(s.process[1], "wall clock");
        for (unsigned i = 0; i < s.n; i++)
            CHECK(!has(s.t[i].name, "CU (")); /* the units are in the other process */
    }
    summary_free(&s);
    cJSON_Delete(out);
}

/* Off (no option, NPUKIT_TRACE empty): the run writes no file. */
static void off(void)
{
    char env[512];
    snprintf(env, sizeof env, "cd '%s' && NPUKIT_TRACE=", dir);
    cJSON *out = run(env, "kt saxpy -n 200 --json");
    CHECK(out != NULL);
    cJSON_Delete(out);
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    unsigned files = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        files += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    CHECK_EQ(files, 0u);
}

/* The commands not checked above, each traced: its slices must nest (summarise checks). The
 * rv64 program is the one the build puts beside the CLI. */
static void every_command(void)
{
    char elf[1024], prog[512];
    snprintf(elf, sizeof elf, "%s", kt_test_cli());
    char *slash = strrchr(elf, '/');
    snprintf(slash ? slash + 1 : elf, sizeof elf - (size_t)(slash ? slash + 1 - elf : 0),
             "rv64/saxpy_dispatch.elf");
    trace_path(prog, sizeof prog, "prog.txt");
    FILE *f = fopen(prog, "w");
    CHECK(f != NULL);
    if (f) {
        fputs("WR 0x10000020 5 IRQ_EN\nPOLL 0x10000020 5 0xf IRQ_EN\nDONE 0\n", f);
        fclose(f);
    }
    char rv64[1200], progs[2][700];
    snprintf(rv64, sizeof rv64, "kt rv64 run '%s' --json --trace '%%s'", elf);
    snprintf(progs[0], sizeof progs[0], "kt prog '%s' --json --trace '%%s'", prog);
    snprintf(progs[1], sizeof progs[1], "kt prog '%s' --engine --json --trace '%%s'", prog);
    const char *const runs[] = {
        "kt enum --json --trace '%s'",
        "kt status --json --trace '%s'",
        "kt enum --sim rtl_bench --json --trace '%s'",
        "kt saxpy -n 5000 --sim rtl_bench --json --trace '%s'",
        "kt saxpy -n 3000 --sim mesh2x2 --json --trace '%s'",
        "kt move fill --json --trace '%s'",
        "kt move gather --json --trace '%s'",
        "kt move generate --sim rtl_bench --json --trace '%s'",
        "kt move copy --engine --json --trace '%s'",
        "kt link --meshes 2 --ring 0:1 --json --trace '%s'",
        progs[0],
        progs[1],
        rv64,
    };
    size_t nruns = sizeof runs / sizeof runs[0];
    if (access(elf, R_OK)) { /* the build's RV64 programs come with the whole build */
        printf("%s: not built, kt rv64 run not traced\n", elf);
        nruns--;
    }
    for (size_t i = 0; i < nruns; i++) {
        cJSON *out;
        summary s;
        if (traced_run("every.json", false, runs[i], &out, &s)) {
            CHECK(s.slices > 0);
            printf("%-60.60s %5u slices, %u overlapping\n", runs[i], s.slices, s.overlaps);
        }
        cJSON_Delete(out);
        summary_free(&s);
    }
    unlink(prog);
}

static void clean(void)
{
    static const char *const names[] = {"host.json", "engine.json", "move.json", "remote.json",
                                        "every.json"};
    char path[256];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        trace_path(path, sizeof path, names[i]);
        unlink(path);
    }
}

int main(void)
{
    CHECK(mkdtemp(dir) != NULL);
    off();
    saxpy_host();
    saxpy_engine();
    move();
    saxpy_remote();
    every_command();
    clean();
    rmdir(dir);
    return check_done();
}
