/* SPDX-License-Identifier: MIT */
/* The render node as the spec describes it ("Submission model": raw RKNPU_SUBMIT only works on
 * the card node): the simulator's render node accepts a SUBMIT and runs no task (0,
 * task_counter 0, the output untouched) while the same job on the card node computes the
 * matmul (checked against a CPU reference); the device layer turns "accepted, ran nothing"
 * into an error and never opens a render node for submission. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "npukit/fp16.h"
#include "rk/device/rk_device.h"
#include "rk/device/rk_device_sim.h"
#include "npukit/rknpu_uapi.h"
#include "npukit/rksim.h"

enum { M = 4, K = 64, N = 32, SENTINEL = 0x5a };

static struct rknpu_submit job(const npk_rk_devtask *t)
{
    struct rknpu_submit s = {.flags = RKNPU_JOB_PC | RKNPU_JOB_PINGPONG,
                             .timeout = 6000,
                             .task_number = 1,
                             .task_obj_addr = t->task.obj_addr,
                             .core_mask = RKNPU_CORE0_MASK,
                             .fence_fd = -1};
    for (unsigned i = 0; i < 5; i++)
        s.subcore_task[i] = (struct rknpu_subcore_task){0, 1};
    return s;
}

static bool output_untouched(const npk_rk_devtask *t)
{
    const uint8_t *p = t->c.host;
    for (uint64_t i = 0; i < t->c.size; i++)
        if (p[i] != SENTINEL)
            return false;
    return true;
}

static void test_render_runs_nothing(void)
{
    npk_rk_device *d;
    CHECK_EQ(npk_rk_device_open_sim(NULL, &d), NPK_OK);
    rksim *sim = npk_rk_device_sim(d);
    uint16_t a[M * K], b[K * N];
    for (int i = 0; i < M * K; i++)
        a[i] = npk_f32_to_f16((float)(i * 5 % 7 - 3));
    for (int i = 0; i < K * N; i++)
        b[i] = npk_f32_to_f16((float)(i * 3 % 5 - 2));
    npk_rk_mm mm = npk_rk_mm_default(NPK_PREC_FP16, M, K, N);
    npk_rk_devtask t;
    CHECK_EQ(npk_rk_devtask_create(d, &mm, 0, &t), NPK_OK);
    CHECK_EQ(npk_rk_devtask_load(d, &t, a, b), NPK_OK);
    memset(t.c.host, SENTINEL, t.c.size);

    /* the render node: accepted, nothing run, nothing written */
    struct rknpu_submit s = job(&t);
    s.task_counter = 77;
    CHECK_EQ(rksim_node_ioctl(sim, RKSIM_NODE_RENDER, DRM_IOCTL_RKNPU_SUBMIT, &s), 0);
    CHECK_EQ(s.task_counter, 0);
    CHECK_EQ(s.u48_.hw_elapse_time, 0);
    CHECK_EQ(rksim_last_report(sim)->ops, 0);
    CHECK_STR_HAS(rksim_last_report(sim)->message, "render node");
    CHECK(output_untouched(&t));
    /* every other request answers as on the card node */
    struct rknpu_action act = {.flags = RKNPU_GET_HW_VERSION};
    CHECK_EQ(rksim_node_ioctl(sim, RKSIM_NODE_RENDER, DRM_IOCTL_RKNPU_ACTION, &act), 0);
    CHECK_EQ(act.value, 0x46495245u);
    /* the kernel's argument checks still apply there */
    struct rknpu_submit bad = job(&t);
    bad.task_number = 0;
    CHECK_EQ(rksim_node_ioctl(sim, RKSIM_NODE_RENDER, DRM_IOCTL_RKNPU_SUBMIT, &bad), -EINVAL);
    CHECK_EQ(rksim_node_ioctl(sim, (rksim_node)7, DRM_IOCTL_RKNPU_SUBMIT, &s), -ENODEV);

    /* the card node runs the same job: the CPU reference */
    s = job(&t);
    CHECK_EQ(rksim_node_ioctl(sim, RKSIM_NODE_CARD, DRM_IOCTL_RKNPU_SUBMIT, &s), 0);
    CHECK_EQ(s.task_counter, 1);
    float c[M * N];
    CHECK_EQ(npk_rk_devtask_read(d, &t, c), NPK_OK);
    int bad_elems = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float ref = 0;
            for (int p = 0; p < K; p++)
                ref += npk_f16_to_f32(a[i * K + p]) * npk_f16_to_f32(b[p * N + j]);
            bad_elems += c[i * N + j] != ref;
        }
    CHECK_EQ(bad_elems, 0);
    npk_rk_devtask_destroy(d, &t);
    npk_rk_device_close(d);
}

static void test_device_refuses_render_nodes(void)
{
    npk_rk_device *d = NULL;
    /* by path: named, with the card node as the way out (no open is attempted) */
    CHECK_EQ(npk_rk_device_open_kernel("/dev/dri/renderD129", &d), NPK_ENODEV);
    CHECK_STR_HAS(npk_last_error(), "renderD129 is a render node");
    CHECK_STR_HAS(npk_last_error(), "card node");
    CHECK_EQ(npk_rk_device_open_kernel("renderD128", &d), NPK_ENODEV);
    CHECK(d == NULL);
}

int main(void)
{
    test_render_runs_nothing();
    test_device_refuses_render_nodes();
    return check_done();
}
