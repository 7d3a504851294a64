/* SPDX-License-Identifier: MIT */
/* Matmuls whose K is split into slices, each output region's partial sums added on the host:
 * a region's slices in one job are summed in one pass, and the region's first slice writes C,
 * which is therefore never zeroed first. Checked exactly against the CPU reference with C
 * filled beforehand with all-ones bytes (a NaN in every float, -1 in every int32), so a region
 * left unwritten, a slice added to C's old contents or a slice missed shows:
 *   - fp16 weights into fp32 C and into fp16 C (partials summed in a float scratch, narrowed at
 *     the end), int8 and int4 weights into int32 C;
 *   - one task per submit (every slice its own job), a few (a region's slices split over jobs)
 *     and all of a core's tasks in one job; one core and three;
 *   - both front ends (rknpu and rocket), a batch of two items, and M = 1;
 * and the call's stats name the cores its tasks ran on (one, for one row of a narrow N). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "npukit/rk.h"
#include "npukit/rk_reference.h"
#include "rk_operands_testlib.h"

static void one(npk_rk *rt, npk_rk_prec in, npk_rk_prec out, uint32_t m, uint32_t k, uint32_t n,
                const char *what)
{
    void *a = rk_test_operands(in, (size_t)m * k), *b = rk_test_operands(in, (size_t)k * n);
    const size_t ob = out == NPK_PREC_FP16 ? 2 : 4, bytes = (size_t)m * n * ob;
    void *c = malloc(bytes), *ref = calloc((size_t)m * n, ob);
    CHECK(a && b && c && ref);
    memset(c, 0xff, bytes);
    npk_rk_weights *w = NULL;
    CHECK_EQ(npk_rk_weights_pack(rt, in, k, n, b, m, &w), NPK_OK);
    npk_rk_stats st = {0};
    CHECK_EQ(npk_rk_matmul(rt, w, m, a, out, c, &st), NPK_OK);
    CHECK_EQ(npk_rk_reference_matmul(in, out, m, k, n, a, b, ref), NPK_OK);
    /* the stats name the cores the tasks ran on: one per core the plan used, all the runtime's */
    CHECK_EQ((unsigned)__builtin_popcount(st.core_mask), st.cores_used);
    CHECK_EQ(st.core_mask & ~npk_rk_core_mask(rt), 0u);
    const uint64_t bad = npk_rk_compare(out, c, ref, (uint64_t)m * n).mismatches;
    CHECK_EQ(bad, 0);
    if (bad)
        fprintf(stderr, "  %s %s->%s %ux%ux%u: %u tasks, %llu of %llu wrong\n", what,
                npk_rk_prec_name(in), npk_rk_prec_name(out), m, k, n, st.tasks,
                (unsigned long long)bad, (unsigned long long)m * n);
    npk_rk_weights_free(rt, w);
    free(a), free(b), free(c), free(ref);
}

/* Two items of different shapes in one batch, both C filled with all-ones bytes. */
static void batch(npk_rk *rt)
{
    const uint32_t m[2] = {40, 7}, k = 4100, n[2] = {96, 200};
    void *a[2], *b[2], *c[2], *ref[2];
    npk_rk_weights *w[2];
    npk_rk_matmul_item items[2];
    for (int i = 0; i < 2; i++) {
        a[i] = rk_test_operands(NPK_PREC_FP16, (size_t)m[i] * k);
        b[i] = rk_test_operands(NPK_PREC_FP16, (size_t)k * n[i]);
        c[i] = malloc((size_t)m[i] * n[i] * 4);
        ref[i] = calloc((size_t)m[i] * n[i], 4);
        CHECK(a[i] && b[i] && c[i] && ref[i]);
        memset(c[i], 0xff, (size_t)m[i] * n[i] * 4);
        CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_FP16, k, n[i], b[i], m[i], &w[i]), NPK_OK);
        items[i] = (npk_rk_matmul_item){.w = w[i], .m = m[i], .a = a[i], .c = c[i]};
    }
    CHECK_EQ(npk_rk_matmul_batch(rt, items, 2, NPK_PREC_FP32, NULL), NPK_OK);
    for (int i = 0; i < 2; i++) {
        CHECK_EQ(npk_rk_reference_matmul(NPK_PREC_FP16, NPK_PREC_FP32, m[i], k, n[i], a[i], b[i],
                                         ref[i]),
                 NPK_OK);
        CHECK_EQ(npk_rk_compare(NPK_PREC_FP32, c[i], ref[i], (uint64_t)m[i] * n[i]).mismatches, 0);
        npk_rk_weights_free(rt, w[i]);
        free(a[i]), free(b[i]), free(c[i]), free(ref[i]);
    }
}

int main(void)
{
    static const char *const devices[] = {"sim", "sim-rocket"};
    static const unsigned cores[] = {1, 3}, chains[] = {1, 3, 64};
    /* K past one slice for every input (fp16 slices are at most 1024 deep at these M; the
     * int4 partials' slices are shorter still), M with several tiles per core */
    static const struct {
        npk_rk_prec in, out;
        uint32_t m, k, n;
    } shapes[] = {
        {NPK_PREC_FP16, NPK_PREC_FP32, 300, 4100, 200}, {NPK_PREC_FP16, NPK_PREC_FP16, 300, 4100, 200},
        {NPK_PREC_FP16, NPK_PREC_FP32, 1, 4100, 200},   {NPK_PREC_INT8, NPK_PREC_INT32, 130, 9000, 96},
        {NPK_PREC_INT4, NPK_PREC_INT32, 70, 5000, 64},
        {NPK_PREC_FP16, NPK_PREC_FP32, 200, 2100, 16}, /* narrow N: the cores split M */
        {NPK_PREC_FP16, NPK_PREC_FP32, 1, 20000, 16},  /* one row, narrow N: one core */
    };
    for (size_t d = 0; d < sizeof devices / sizeof devices[0]; d++) {
        npk_rk *rt;
        CHECK_EQ(npk_rk_open(devices[d], &rt), NPK_OK);
        for (size_t ci = 0; ci < sizeof cores / sizeof cores[0]; ci++)
            for (size_t hi = 0; hi < sizeof chains / sizeof chains[0]; hi++) {
                CHECK_EQ(npk_rk_set_cores(rt, cores[ci]), NPK_OK);
                CHECK_EQ(npk_rk_set_chain(rt, chains[hi]), NPK_OK);
                for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
                    one(rt, shapes[s].in, shapes[s].out, shapes[s].m, shapes[s].k, shapes[s].n,
                        devices[d]);
            }
        batch(rt);
        npk_rk_close(rt);
    }
    return check_done();
}
