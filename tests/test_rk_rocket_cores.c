/* SPDX-License-Identifier: MIT */
/* Every core through the rocket interface: one file per core (mainline rocket: one scheduler
 * entity and one IOMMU domain per open file, facts A.2), each core's buffers in its own file,
 * packed weights copied into every core's file. Checked: the device's placement (a buffer for
 * several cores has an address in each of their files, equal bytes after MEM_SYNC, none where
 * it was not placed), matmuls on 1, 2 and 3 cores exactly equal to the CPU reference, and the
 * modelled NPU time of a large matmul falling with the cores (the model's time, not the
 * host's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rk_operands_testlib.h"
#include "npukit/rk.h"
#include "npukit/rk_reference.h"
#include "rk/device/rk_device.h"

static void placement(void)
{
    npk_rk_device *d;
    CHECK_EQ(npk_rk_device_open("sim-rocket", &d), NPK_OK);
    npk_rk_device_info info;
    npk_rk_device_query(d, &info);
    CHECK(info.cores == 3 && info.core_spaces);
    npk_rk_mem one, all;
    CHECK_EQ(npk_rk_mem_create_for(d, 8192, 0, 1u << 2, &one), NPK_OK);
    CHECK_EQ(npk_rk_mem_create_for(d, 8192, 0, 7, &all), NPK_OK);
    /* `one` lives in core 2's file only: core 2 reads it at its IOVA, the others nowhere else */
    CHECK(one.core_shift[0] == 0 && one.core_shift[1] == 0 && one.core_shift[2] == 0);
    /* `all` has an address in each core's file: each file's domain is its own 4 GiB of IOVA,
     * so the copies in files 0 and 1 (which hold nothing else) sit at the same address, and
     * the copy in file 2 below `one` */
    CHECK_EQ(npk_rk_mem_iova_on(&all, 0), all.iova);
    CHECK_EQ(npk_rk_mem_iova_on(&all, 1), all.iova);
    CHECK(npk_rk_mem_iova_on(&all, 2) < one.iova);
    /* a core without a file is refused */
    npk_rk_mem bad;
    CHECK_EQ(npk_rk_mem_create_for(d, 4096, 0, 1u << 3, &bad), NPK_EINVAL);
    memset(all.host, 0x5a, 8192);
    CHECK_EQ(npk_rk_mem_sync(d, &all, 0, 8192, RKNPU_MEM_SYNC_TO_DEVICE), NPK_OK);
    CHECK_EQ(npk_rk_mem_destroy(d, &all), NPK_OK);
    CHECK_EQ(npk_rk_mem_destroy(d, &one), NPK_OK);
    npk_rk_device_close(d);
}

/* One matmul on `cores` cores: exact against the reference; its modelled NPU span. */
static uint64_t run_on(npk_rk *rt, unsigned cores, npk_rk_prec in, npk_rk_prec out, uint32_t m,
                       uint32_t k, uint32_t n, unsigned *used)
{
    CHECK_EQ(npk_rk_set_cores(rt, cores), NPK_OK);
    void *a = rk_test_operands(in, (size_t)m * k), *b = rk_test_operands(in, (size_t)k * n);
    size_t ob = out == NPK_PREC_FP16 ? 2 : 4;
    void *c = calloc((size_t)m * n, ob), *ref = calloc((size_t)m * n, ob);
    CHECK(a && b && c && ref);
    npk_rk_weights *w = NULL;
    npk_rk_stats st = {0};
    CHECK_EQ(npk_rk_weights_pack(rt, in, k, n, b, m, &w), NPK_OK);
    CHECK_EQ(npk_rk_matmul(rt, w, m, a, out, c, &st), NPK_OK);
    CHECK_EQ(npk_rk_reference_matmul(in, out, m, k, n, a, b, ref), NPK_OK);
    CHECK_EQ(npk_rk_compare(out, c, ref, (uint64_t)m * n).mismatches, 0);
    /* the same weights again: the copies in the other files were not disturbed */
    memset(c, 0, (size_t)m * n * ob);
    CHECK_EQ(npk_rk_matmul(rt, w, m, a, out, c, &st), NPK_OK);
    CHECK_EQ(npk_rk_compare(out, c, ref, (uint64_t)m * n).mismatches, 0);
    *used = st.cores_used;
    npk_rk_weights_free(rt, w);
    free(a);
    free(b);
    free(c);
    free(ref);
    return st.npu_span_ns;
}

static void cores(void)
{
    npk_rk *rt;
    CHECK_EQ(npk_rk_open("sim-rocket", &rt), NPK_OK);
    npk_rk_info info;
    CHECK_EQ(npk_rk_query(rt, &info), NPK_OK);
    CHECK_EQ(info.cores, 3);
    unsigned used;
    /* edge shapes on every core count: narrow N, odd M, a K that takes several slices */
    static const struct {
        npk_rk_prec in, out;
        uint32_t m, k, n;
    } cases[] = {{NPK_PREC_INT8, NPK_PREC_INT32, 7, 96, 200},
                 {NPK_PREC_FP16, NPK_PREC_FP32, 33, 1000, 130},
                 {NPK_PREC_INT4, NPK_PREC_INT32, 5, 700, 96},
                 {NPK_PREC_FP16, NPK_PREC_FP16, 1, 64, 16}};
    for (unsigned cc = 1; cc <= 3; cc++)
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            run_on(rt, cc, cases[i].in, cases[i].out, cases[i].m, cases[i].k, cases[i].n, &used);
            CHECK(used >= 1 && used <= cc);
        }
    /* a large matmul: the modelled time over 1 and over 3 cores */
    const uint32_t m = 256, k = 1024, n = 768;
    uint64_t one = run_on(rt, 1, NPK_PREC_INT8, NPK_PREC_INT32, m, k, n, &used);
    CHECK_EQ(used, 1);
    uint64_t three = run_on(rt, 3, NPK_PREC_INT8, NPK_PREC_INT32, m, k, n, &used);
    CHECK_EQ(used, 3);
    printf("int8 %ux%ux%u on rocket: modelled NPU time %.1f us on 1 core, %.1f us on 3 cores "
           "(%.2fx)\n",
           m, k, n, one / 1e3, three / 1e3, (double)one / (double)three);
    CHECK(three > 0 && one > 2.5 * (double)three);
    npk_rk_close(rt);
}

int main(void)
{
    placement();
    cores();
    return check_done();
}
