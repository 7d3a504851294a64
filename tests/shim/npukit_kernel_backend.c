/* SPDX-License-Identifier: MIT */
/* npukit's kernel backend (ioctl + mmap on the rknpu node) running against the simulator
 * through the LD_PRELOAD shim: node auto-detection by DRM_IOCTL_VERSION, buffers, actions,
 * and synthesized fp16 / int8 / int4 tasks checked against a CPU reference. */
#include <stdlib.h>

#include "check.h"
#include "npukit/fp16.h"
#include "rk/device/rk_device.h"
#include "rk/device/rk_device_sim.h"
#include "npukit/rk_regcmd.h"

static int run_task(npk_rk_device *d, npk_rk_prec in, uint32_t m, uint32_t k, uint32_t n)
{
    int16_t *a = calloc((size_t)m * k, 2), *b = calloc((size_t)k * n, 2);
    int32_t *c = calloc((size_t)m * n, 4);
    for (size_t i = 0; i < (size_t)m * k; i++) {
        int v = (int)(i * 7 % 5) - 2;
        if (in == NPK_PREC_FP16)
            ((uint16_t *)a)[i] = npk_f32_to_f16((float)v);
        else
            ((int8_t *)a)[i] = (int8_t)v;
    }
    for (size_t i = 0; i < (size_t)k * n; i++) {
        int v = (int)(i * 3 % 7) - 3;
        if (in == NPK_PREC_FP16)
            ((uint16_t *)b)[i] = npk_f32_to_f16((float)v);
        else
            ((int8_t *)b)[i] = (int8_t)v;
    }
    npk_rk_mm mm = npk_rk_mm_default(in, m, k, n);
    npk_rk_devtask t;
    /* the driver's defences: reset on entering integer mode (and it clears cached rows) */
    CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    CHECK_EQ(npk_rk_devtask_create(d, &mm, 0, &t), NPK_OK);
    CHECK_EQ(npk_rk_devtask_load(d, &t, a, b), NPK_OK);
    struct rknpu_submit s;
    npk_status st = npk_rk_devtask_submit(d, &t, 1, 6000, &s);
    CHECK_EQ(st, NPK_OK);
    if (st)
        fprintf(stderr, "%s\n", npk_last_error());
    CHECK_EQ(npk_rk_devtask_read(d, &t, c), NPK_OK);
    size_t bad = 0;
    for (uint32_t i = 0; i < m; i++)
        for (uint32_t j = 0; j < n; j++) {
            long ref = 0;
            for (uint32_t p = 0; p < k; p++) {
                double x = in == NPK_PREC_FP16 ? npk_f16_to_f32(((uint16_t *)a)[i * k + p])
                                               : ((int8_t *)a)[i * k + p];
                double y = in == NPK_PREC_FP16 ? npk_f16_to_f32(((uint16_t *)b)[p * n + j])
                                               : ((int8_t *)b)[p * n + j];
                ref += (long)(x * y);
            }
            double got = in == NPK_PREC_FP16   ? ((float *)c)[i * n + j]
                         : in == NPK_PREC_INT8 ? c[i * n + j]
                                               : ((int16_t *)c)[i * n + j];
            bad += got != (double)ref;
        }
    CHECK_EQ(bad, 0);
    npk_rk_devtask_destroy(d, &t);
    free(a);
    free(b);
    free(c);
    return 0;
}

/* A job outside the model (CORE_DATAOUT_SIZE_1 no longer matching the CNA, which the model
 * refuses to guess about) is answered with what the kernel says of a job that never completes,
 * ETIMEDOUT, not the EOPNOTSUPP the rknpu driver never returns; the device says it is simulated. */
static void test_unmodelled_job(npk_rk_device *d)
{
    npk_rk_device_info info;
    npk_rk_device_query(d, &info);
    CHECK(info.simulated);
    npk_rk_mm mm = npk_rk_mm_default(NPK_PREC_FP16, 4, 64, 32);
    npk_rk_devtask t;
    CHECK_EQ(npk_rk_devtask_create(d, &mm, 0, &t), NPK_OK);
    for (unsigned i = 0; i < NPK_RK_MATMUL_BODY; i++)
        if (npk_rk_entry_target(t.body[i]) ==
                npk_rk_reg_info(NPK_REG_CORE_DATAOUT_SIZE_1)->target &&
            npk_rk_entry_reg(t.body[i]) == npk_rk_reg_info(NPK_REG_CORE_DATAOUT_SIZE_1)->offset)
            t.body[i] = npk_rk_entry_reg_write(NPK_REG_CORE_DATAOUT_SIZE_1, 7);
    CHECK_EQ(npk_rk_devtask_write_program(d, &t), NPK_OK);
    CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    struct rknpu_submit s;
    CHECK_EQ(npk_rk_devtask_submit(d, &t, 0, 6000, &s), NPK_ETIMEDOUT);
    CHECK_STR_HAS(npk_last_error(), "timed out");
    npk_rk_devtask_destroy(d, &t);
}

int main(void)
{
    npk_rk_device *d = NULL;
    /* auto-detection opens card0 (absent) then card1, which answers "rknpu" */
    CHECK_EQ(npk_rk_device_open_kernel(NULL, &d), NPK_OK);
    if (!d) {
        fprintf(stderr, "%s\n", npk_last_error());
        return check_done();
    }
    CHECK_STR_HAS(npk_rk_device_name(d), "/dev/dri/card");
    CHECK(npk_rk_device_sim(d) == NULL); /* the device layer does not know */
    uint32_t v = 0;
    CHECK_EQ(npk_rk_action(d, RKNPU_GET_DRV_VERSION, &v), NPK_OK);
    CHECK_EQ(v, 908);
    run_task(d, NPK_PREC_FP16, 4, 64, 32);
    run_task(d, NPK_PREC_INT8, 8, 128, 64);
    run_task(d, NPK_PREC_INT4, 1, 64, 64);
    test_unmodelled_job(d);
    npk_rk_mem mem;
    CHECK_EQ(npk_rk_mem_create(d, 0, 0, &mem), NPK_EINVAL);
    npk_rk_device_close(d);
    /* "auto" picks the kernel when an rknpu node exists */
    CHECK_EQ(npk_rk_device_open("auto", &d), NPK_OK);
    CHECK(npk_rk_device_sim(d) == NULL);
    npk_rk_device_close(d);
    return check_done();
}
