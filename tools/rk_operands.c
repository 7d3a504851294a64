/* SPDX-License-Identifier: MIT */
/* Operand setup and the CPU check for rk matmul / bench / demo. */
#include "rk_operands.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/big_alloc.h"
#include "npukit/fp16.h"
#include "npukit/rk.h"
#include "rk/layout/rk_layout.h"
#include "cli.h"
#include "rk_opts.h"

void rk_operands_from_opts(rk_operands *o, const rk_shape_opts *so)
{
    o->in = so->in;
    o->out = so->have_out ? so->out : so->in == NPK_PREC_FP16 ? NPK_PREC_FP32 : NPK_PREC_INT32;
    o->m = so->m;
    o->k = so->k;
    o->n = so->n;
}

unsigned rk_elem_bytes(npk_rk_prec p)
{
    switch (p) {
    case NPK_PREC_FP16:
    case NPK_PREC_INT16: return 2;
    case NPK_PREC_FP32:
    case NPK_PREC_INT32: return 4;
    case NPK_PREC_INT8:
    case NPK_PREC_BF16:
    case NPK_PREC_INT4:
    case NPK_PREC_TF32:
    default: return 1;
    }
}

bool rk_read_file(const char *path, void *dst, uint64_t bytes)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "npukit: %s: %s\n", path, strerror(errno));
        return false;
    }
    size_t got = fread(dst, 1, (size_t)bytes, f);
    int extra = fgetc(f);
    if (ferror(f)) { /* e.g. a directory: say why rather than "holds 0 bytes" */
        fprintf(stderr, "npukit: %s: %s\n", path, strerror(errno ? errno : EIO));
        fclose(f);
        return false;
    }
    fclose(f);
    if (got != bytes || extra != EOF) {
        fprintf(stderr, "npukit: %s holds %s%zu bytes; the shape needs exactly %llu\n", path,
                extra != EOF ? "more than " : "", got, (unsigned long long)bytes);
        return false;
    }
    return true;
}

bool rk_operands_make(rk_operands *o, const char *a_file, const char *b_file, uint64_t seed)
{
    /* The runtime refuses larger shapes; checking first keeps a huge M, K or N from
     * allocating and filling gigabytes of operands before that error (it used to take minutes
     * and tens of GB of memory). */
    const uint32_t dims[3] = {o->m, o->k, o->n};
    for (unsigned i = 0; i < 3; i++)
        if (dims[i] > NPK_RK_LAYOUT_MAX_DIM) {
            fprintf(stderr, "npukit: %c=%u exceeds the runtime's limit %zu\n", "MKN"[i], dims[i],
                    (size_t)NPK_RK_LAYOUT_MAX_DIM);
            return false;
        }
    uint64_t na = (uint64_t)o->m * o->k, nb = (uint64_t)o->k * o->n, nc = (uint64_t)o->m * o->n;
    unsigned eb = rk_elem_bytes(o->in), ob = rk_elem_bytes(o->out);
    /* on huge pages where the system has them: a large B is tens of MiB of first touches */
    o->a_bytes = (size_t)(na * eb), o->b_bytes = (size_t)(nb * eb), o->c_bytes = (size_t)(nc * ob);
    o->a = npk_big_alloc(o->a_bytes);
    o->b = npk_big_alloc(o->b_bytes);
    o->c = npk_big_alloc(o->c_bytes);
    if (!o->a || !o->b || !o->c) {
        fprintf(stderr, "npukit: out of memory for %ux%ux%u operands\n", o->m, o->k, o->n);
        return false;
    }
    uint64_t s = seed;
    if (a_file ? !rk_read_file(a_file, o->a, na * eb)
               : (rk_fill_random(o->in, o->a, na, &s), false))
        return false;
    if (b_file ? !rk_read_file(b_file, o->b, nb * eb)
               : (rk_fill_random(o->in, o->b, nb, &s), false))
        return false;
    return true;
}

void rk_operands_free(rk_operands *o)
{
    npk_big_free(o->a, o->a_bytes);
    npk_big_free(o->b, o->b_bytes);
    npk_big_free(o->c, o->c_bytes);
    o->a = o->b = o->c = NULL;
}

bool rk_operands_check(const rk_operands *o, npk_rk_verdict *v)
{
    if (npk_rk_check_matmul(o->in, o->out, o->m, o->k, o->n, o->a, o->b, o->c, v) != NPK_OK) {
        fprintf(stderr, "npukit: the CPU check failed: %s\n", npk_last_error());
        return false;
    }
    return true;
}

bool rk_runtime_setup(const rk_shape_opts *so, const rk_operands *o, npk_rk **rt,
                      npk_rk_weights **w, npk_rk_info *info, const char *cmd)
{
    *w = NULL;
    if (!rk_runtime_open(so, rt, info, cmd))
        return false;
    if (npk_rk_weights_pack(*rt, o->in, o->k, o->n, o->b, o->m, w)) {
        cli_lib_error(cmd);
        return false;
    }
    return true;
}

bool rk_runtime_open(const rk_shape_opts *so, npk_rk **rt, npk_rk_info *info, const char *cmd)
{
    *rt = NULL;
    if (npk_rk_open(so->device, rt) || (so->cores && npk_rk_set_cores(*rt, (unsigned)so->cores)) ||
        (so->chain && npk_rk_set_chain(*rt, (unsigned)so->chain)) ||
        (so->submit && npk_rk_set_submission(*rt, so->submit)) || npk_rk_query(*rt, info)) {
        cli_lib_error(cmd);
        return false;
    }
    return rk_soc_matches(so, info->soc, cmd);
}

void rk_json_shape(cJSON *doc, const rk_operands *o)
{
    json_str(doc, "dtype", npk_rk_prec_name(o->in));
    json_str(doc, "out", npk_rk_prec_name(o->out));
    json_u64(doc, "m", o->m);
    json_u64(doc, "k", o->k);
    json_u64(doc, "n", o->n);
}
