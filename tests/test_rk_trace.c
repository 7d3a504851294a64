/* SPDX-License-Identifier: MIT */
/* NPUKIT_TRACE: a runtime matmul on the simulator over two cores writes a trace that parses as
 * JSON in the Chrome trace-event format: every host phase on each core's track, one modelled
 * NPU span per job whose durations add up to the call's NPU time and never overlap on a core,
 * the warm-ups as instants; an element-wise call's SDP jobs appear too (its submit on the host
 * track, its NPU time on the model's); after the trace is closed, calls still run and write
 * nothing. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "npukit/rk.h"
#include "rk/runtime/trace.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf)
        buf[n] = 0;
    fclose(f);
    return buf;
}

static npk_status one_call(npk_rk *rt, npk_rk_stats *st)
{
    enum { M = 300, K = 904, N = 128 }; /* N: two int8 groups of 32 per core */
    int8_t *a = calloc((size_t)M * K, 1), *b = calloc((size_t)K * N, 1);
    int32_t *c = calloc((size_t)M * N, 4);
    for (size_t i = 0; i < (size_t)M * K; i++)
        a[i] = (int8_t)(i * 7);
    for (size_t i = 0; i < (size_t)K * N; i++)
        b[i] = (int8_t)(i * 3);
    npk_rk_weights *w = NULL;
    npk_status s = npk_rk_weights_pack(rt, NPK_PREC_INT8, K, N, b, M, &w);
    if (s == NPK_OK)
        s = npk_rk_matmul(rt, w, M, a, NPK_PREC_INT32, c, st);
    npk_rk_weights_free(rt, w);
    free(a), free(b), free(c);
    return s;
}

int main(void)
{
    char path[] = "/tmp/npukit_trace_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    setenv("NPUKIT_TRACE", path, 1);
    setenv("NPUKIT_RKSIM_TIMEOUT_SCALE", "0", 1);
    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    CHECK(npk_rk_trace_on());
    CHECK_EQ(npk_rk_set_cores(rt, 2), NPK_OK);
    npk_rk_stats st;
    CHECK_EQ(one_call(rt, &st), NPK_OK);
    CHECK_EQ(st.cores_used, 2);
    /* an element-wise add: its jobs go through the same submit path */
    enum { EM = 64, EN = 256 };
    uint16_t *ea = calloc(EM * EN, 2), *eb = calloc(EM * EN, 2), *ec = calloc(EM * EN, 2);
    npk_rk_stats est;
    CHECK_EQ(npk_rk_ew(rt, &(npk_rk_ew_args){.op = NPK_EW_ADD, .prec = NPK_PREC_FP16, .m = EM, .n = EN, .operand = NPK_EW_PER_ELEMENT, .a = ea, .b = eb, .c = ec}, &est),
             NPK_OK);
    CHECK(est.npu_ns > 0);
    free(ea), free(eb), free(ec);
    npk_rk_trace_close();
    CHECK(!npk_rk_trace_on());

    char *text = slurp(path);
    CHECK(text != NULL);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    CHECK(root != NULL);
    const cJSON *events = cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
    CHECK(cJSON_IsArray(events));
    static const char *const phases[] = {"pack", "synth", "sync", "submit", "accumulate"};
    int seen[2][5] = {{0}}, warmups = 0, bad = 0;
    double npu_us = 0, npu_end[2] = {0, 0};
    const cJSON *e;
    cJSON_ArrayForEach(e, events)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name");
        const cJSON *ph = cJSON_GetObjectItemCaseSensitive(e, "ph");
        const cJSON *pid = cJSON_GetObjectItemCaseSensitive(e, "pid");
        const cJSON *tid = cJSON_GetObjectItemCaseSensitive(e, "tid");
        if (!cJSON_IsString(name) || !cJSON_IsString(ph) || !cJSON_IsNumber(pid)) {
            bad++;
            continue;
        }
        if (!strcmp(ph->valuestring, "M"))
            continue;
        const cJSON *ts = cJSON_GetObjectItemCaseSensitive(e, "ts");
        if (!cJSON_IsNumber(ts) || ts->valuedouble < 0 || !cJSON_IsNumber(tid) ||
            tid->valueint < 0 || tid->valueint > 1) {
            bad++;
            continue;
        }
        int core = tid->valueint;
        if (!strcmp(ph->valuestring, "i")) {
            warmups += !strcmp(name->valuestring, "warm-up");
            continue;
        }
        const cJSON *dur = cJSON_GetObjectItemCaseSensitive(e, "dur");
        if (strcmp(ph->valuestring, "X") || !cJSON_IsNumber(dur) || dur->valuedouble < 0) {
            bad++;
            continue;
        }
        if (pid->valueint == 2) { /* the model's timeline: jobs in order, never overlapping */
            CHECK_STR_HAS(name->valuestring, "job");
            CHECK(ts->valuedouble >= npu_end[core] - 1e-3);
            npu_end[core] = ts->valuedouble + dur->valuedouble;
            npu_us += dur->valuedouble;
            continue;
        }
        for (int p = 0; p < 5; p++)
            seen[core][p] += !strcmp(name->valuestring, phases[p]);
    }
    CHECK_EQ(bad, 0);
    for (int c = 0; c < 2; c++)
        for (int p = 0; p < 5; p++)
            CHECK(seen[c][p] > 0);
    CHECK(warmups >= 1); /* fresh output buffers */
    CHECK(npu_us > 0);
    const double want_us = (st.npu_ns + est.npu_ns) / 1e3; /* the matmul's and the add's */
    CHECK(npu_us > want_us * 0.999 && npu_us < want_us * 1.001);
    cJSON_Delete(root);
    free(text);

    /* closed: the next call runs and the file stays as it was */
    char *before = slurp(path);
    CHECK_EQ(one_call(rt, &st), NPK_OK);
    char *after = slurp(path);
    CHECK(before && after && !strcmp(before, after));
    free(before), free(after);
    npk_rk_close(rt);
    unlink(path);
    return check_done();
}
