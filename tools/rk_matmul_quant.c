/* SPDX-License-Identifier: MIT */
/* `rk matmul --scale-a S --scale-b S --group G`: C = sum over groups of sa * sb * (A.B)_g, each
 * group an exact int32 partial on the NPU, through npk_rk_qweights_pack / npk_rk_matmul_quant. */
#include "rk_matmul_quant.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "npukit/rk.h"
#include "npukit/rk_reference.h"

bool rk_quant_wanted(const rk_quant_opts *q)
{
    return q->scale_a || q->scale_b || q->group || q->per_pass;
}

/* K per group from "channel", 0 or a number. */
static bool parse_group(const char *v, uint32_t *group)
{
    *group = NPK_RK_QGROUP_CHANNEL;
    if (!v || !strcmp(v, "channel"))
        return true;
    char *end;
    unsigned long g = strtoul(v, &end, 10);
    /* A group that is not a multiple of the K granule is a usage error, told here in the
     * option's words (exit 2) rather than by the packer's function after the operands load. */
    if (*v == '-' || *end || end == v || g > UINT32_MAX || g % NPK_RK_QGROUP_ALIGN) {
        fprintf(stderr,
                "npukit rk matmul: --group %s: K per group (a multiple of %u) or "
                "\"channel\"\n",
                v, NPK_RK_QGROUP_ALIGN);
        return false;
    }
    *group = (uint32_t)g;
    return true;
}

/* Scales from `src`: NULL (1), "random" ([2^-8, 2^-2) of either sign, seeded), a number, or a
 * raw float32 file of one of the allowed counts (the first that matches its size). */
static float *load_scales(const char *src, const uint64_t *counts, unsigned ncounts,
                          uint64_t *count, uint64_t *seed, const char *what)
{
    float *v = NULL;
    char *end = NULL;
    float x = src ? strtof(src, &end) : 1.0f;
    bool number = !src || (end != src && !*end);
    bool random = src && !strcmp(src, "random");
    if (number && !isfinite(x)) { /* 1e39 would reach the library as inf */
        fprintf(stderr, "npukit rk matmul: %s scale %s: a finite float32 (|s| <= %g) wanted\n",
                what, src, (double)FLT_MAX);
        return NULL;
    }
    if (number || random) {
        *count = counts[ncounts - 1];
        v = malloc(*count * sizeof *v + 1);
        for (uint64_t i = 0; v && i < *count; i++) {
            *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
            uint32_t r = (uint32_t)(*seed >> 33);
            v[i] = number ? x
                          : ldexpf(1.0f + (float)(r % 1024) / 1024.0f, -8 + (int)(r >> 10) % 6) *
                                (r >> 20 & 1 ? -1.0f : 1.0f);
        }
        return v;
    }
    struct stat sb;
    if (stat(src, &sb)) {
        fprintf(stderr,
                "npukit rk matmul: %s scales %s: no such file (a raw float32 file, "
                "\"random\" or a number)\n",
                what, src);
        return NULL;
    }
    for (unsigned i = 0; i < ncounts; i++)
        if ((uint64_t)sb.st_size == counts[i] * sizeof(float)) {
            *count = counts[i];
            v = malloc(*count * sizeof *v + 1);
            if (v && !rk_read_file(src, v, *count * sizeof *v)) {
                free(v);
                return NULL;
            }
            return v;
        }
    fprintf(stderr, "npukit rk matmul: %s scales %s: %lld bytes; %llu float32 values wanted%s\n",
            what, src, (long long)sb.st_size, (unsigned long long)counts[0],
            ncounts > 1 ? " (or one per row and group)" : "");
    return NULL;
}

/* The result as text, or as one JSON document; false when the document could not be made. */
static bool print(bool json, const npk_rk_info *info, const rk_operands *o,
                  const npk_rk_qweights_info *qi, const npk_rk_stats *st, bool checked,
                  const npk_rk_verdict *v)
{
    const char *label = info->simulated ? "modelled" : "measured";
    bool ok = v->outside == 0;
    if (json) {
        cJSON *doc = json_doc();
        rk_json_shape(doc, o);
        json_u64(doc, "group", qi->group);
        json_u64(doc, "groups", qi->groups);
        json_u64(doc, "groups_per_pass", qi->groups_per_pass);
        json_u64(doc, "passes", qi->passes);
        json_str(doc, "device", info->device);
        json_u64(doc, "tasks", st->tasks);
        json_u64(doc, "submits", st->submits);
        json_fixed(doc, "npu_ms", st->npu_span_ns / 1e6, 6);
        json_str(doc, "npu_time", label);
        json_fixed(doc, "host_ms", st->host_ns / 1e6, 6);
        json_fixed(doc, "model_us", qi->chosen_us, 3);
        json_fixed(doc, "ksliced_model_us", qi->ksliced_us, 3);
        if (checked) {
            cJSON *c = json_obj(doc, "check");
            json_sig(c, "max_abs", v->max_abs, 9);
            json_sig(c, "max_rel", v->max_rel, 9);
            json_u64(c, "outside_bound", v->outside);
            json_bool(c, "ok", ok);
        }
        return json_print(doc, "rk matmul") == 0;
    }
    printf("%s %ux%ux%u -> %s, scales per %s on %s (%s, %u used)\n", npk_rk_prec_name(o->in), o->m,
           o->k, o->n, npk_rk_prec_name(o->out), qi->groups > 1 ? "group" : "output channel",
           info->device, info->soc, st->cores_used);
    printf("  %u group%s of K=%u, %u per NPU pass (%s), %u pass%s; modelled at M=%u: %.1f us "
           "(K-sliced tasks: %.1f us)\n",
           qi->groups, qi->groups == 1 ? "" : "s", qi->groups > 1 ? qi->group : o->k,
           qi->groups_per_pass,
           qi->groups == 1            ? "one int32 matmul"
           : qi->groups_per_pass == 1 ? "K-sliced tasks"
                                      : "A expanded per group",
           qi->passes, qi->passes == 1 ? "" : "es", qi->m_hint, qi->chosen_us, qi->ksliced_us);
    printf("  tasks %u, submits %u (warm-ups %u, resets %u)\n", st->tasks, st->submits, st->warmups,
           st->resets);
    printf("  NPU time %.3f ms (%s), host time %.3f ms (accumulate %.3f ms)\n",
           st->npu_span_ns / 1e6, label, st->host_ns / 1e6, st->accumulate_ns / 1e6);
    if (checked)
        printf("  check vs CPU: max abs error %.3g, max rel error %.3g; %llu of %llu elements "
               "outside the bound (exact int32 partials, fp32 scaling and adding): %s\n",
               v->max_abs, v->max_rel, (unsigned long long)v->outside,
               (unsigned long long)o->m * o->n, ok ? "ok" : "MISMATCH");
    return true;
}

int rk_matmul_quant(const rk_shape_opts *so, rk_operands *o, const rk_quant_opts *q, bool check,
                    bool json)
{
    uint32_t group;
    if (!parse_group(q->group, &group))
        return 2;
    uint32_t groups = group && group < o->k ? (o->k + group - 1) / group : 1;
    uint64_t seed = so->seed ^ 0x9a17u, na = 0, nb = 0;
    const uint64_t a_counts[2] = {o->m, (uint64_t)o->m * groups};
    const uint64_t b_counts[1] = {(uint64_t)groups * o->n};
    float *sa = load_scales(q->scale_a, a_counts, groups > 1 ? 2 : 1, &na, &seed, "A");
    float *sb = sa ? load_scales(q->scale_b, b_counts, 1, &nb, &seed, "B") : NULL;
    npk_rk *rt = NULL;
    npk_rk_qweights *w = NULL;
    npk_rk_info info;
    npk_rk_qweights_info qi;
    npk_rk_stats st;
    npk_rk_verdict v = {0};
    int rc = 1;
    npk_rk_qweights_desc d = {o->in, o->k, o->n, o->b, NPK_RK_ROWS,
                              group, sb,   nb,   o->m, q->per_pass};
    if (!sa || !sb || !rk_runtime_open(so, &rt, &info, "rk matmul"))
        goto out;
    if (npk_rk_qweights_pack(rt, &d, &w) || npk_rk_qweights_query(w, &qi) ||
        npk_rk_matmul_quant(rt, w, o->m, o->a, sa, na, o->out, o->c, &st)) {
        cli_lib_error("rk matmul");
        goto out;
    }
    if (check) {
        npk_rk_quant_ref ref = {o->in, o->m, o->k, o->n, group, o->a, sa, na, o->b, sb};
        if (npk_rk_check_matmul_quant(&ref, o->out, o->c, &v)) {
            cli_lib_error("rk matmul --check");
            goto out;
        }
    }
    bool printed = print(json, &info, o, &qi, &st, check, &v);
    rc = v.outside || !printed ? 1 : 0;
out:
    npk_rk_qweights_free(rt, w);
    npk_rk_close(rt);
    free(sa);
    free(sb);
    return rc;
}
