/* SPDX-License-Identifier: MIT */
/* The rocket front end's files as the mainline driver makes them (rocket_drv.c, rocket_gem.c,
 * rocket_job.c): each open file has its own GEM handles and its own IOMMU domain, and one
 * scheduler entity over every core's scheduler, so its jobs run in order while a job of
 * another file goes to the least-loaded core.
 *
 * A matmul task is built on file 0 through the device layer (its result checked against the
 * CPU reference); the same program is then relocated into buffers of files 1 and 2 and run
 * there. Checked: a file cannot name another's handles (GEM_CLOSE EINVAL, PREP_BO / FINI_BO /
 * SUBMIT ENOENT); a job of one file reading another file's buffer faults (the address is not
 * mapped in its domain) and writes nothing; three files submitting back to back run on the
 * three cores, and a file's next job, submitted while its last one runs, stays on its core. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "npukit/rk_reference.h"
#include "npukit/rksim.h"
#include "npukit/rocket_uapi.h"
#include "rk/device/rk_device.h"
#include "rk/device/rk_device_sim.h"
#include "rksim/rksim_rocket.h"

enum { M = 64, K = 512, N = 256 };

typedef struct fbuf {
    uint32_t handle, iova;
    uint64_t size;
    void *host;
} fbuf;

static int rocket(rksim *sim, int file, unsigned long req, void *arg)
{
    return rksim_rocket_ioctl(sim, file, req, arg);
}

static fbuf file_create(rksim *sim, int file, uint64_t size)
{
    struct drm_rocket_create_bo c = {.size = (uint32_t)size};
    fbuf b = {0};
    CHECK_EQ(rocket(sim, file, DRM_IOCTL_ROCKET_CREATE_BO, &c), 0);
    int err = 0;
    b = (fbuf){c.handle, (uint32_t)c.dma_address, size, rksim_mmap(sim, c.offset, size, &err)};
    CHECK(b.host != NULL);
    return b;
}

/* A copy of task t in file `file`: its feature, weights and output copied into the file's own
 * buffers and its regcmd relocated to them (every entry whose value is one of t's addresses).
 * out[0..2] receive a, b, c; out[3] the regcmd. */
static void relocate(rksim *sim, int file, const npk_rk_devtask *t, fbuf out[4])
{
    const npk_rk_mem *src[3] = {&t->a, &t->b, &t->c};
    for (int i = 0; i < 3; i++) {
        out[i] = file_create(sim, file, src[i]->size);
        memcpy(out[i].host, src[i]->host, src[i]->size);
    }
    memset(out[2].host, 0, out[2].size); /* a fresh output */
    out[3] = file_create(sim, file, t->regcmd.size);
    memcpy(out[3].host, t->regcmd.host, t->regcmd.size);
    uint64_t *e = out[3].host;
    for (size_t i = 0; i < t->regcmd.size / 8; i++) {
        uint32_t v = (uint32_t)(e[i] >> 16);
        for (int j = 0; j < 3; j++)
            if (v == src[j]->iova)
                e[i] = (e[i] & ~(0xFFFFFFFFull << 16)) | ((uint64_t)out[j].iova << 16);
    }
}

/* SUBMIT one job of one task at regcmd (count entries, trailer included) listing `outs`. */
static int submit(rksim *sim, int file, uint32_t regcmd, uint32_t count, const uint32_t *outs,
                  uint32_t nout)
{
    struct drm_rocket_task task = {regcmd, count};
    struct drm_rocket_job job = {.tasks = (uintptr_t)&task,
                                 .out_bo_handles = (uintptr_t)outs,
                                 .task_count = 1,
                                 .task_struct_size = sizeof task,
                                 .out_bo_handle_count = nout};
    struct drm_rocket_submit s = {
        .jobs = (uintptr_t)&job, .job_count = 1, .job_struct_size = sizeof job};
    return rocket(sim, file, DRM_IOCTL_ROCKET_SUBMIT, &s);
}

int main(void)
{
    rksim_config cfg;
    rksim_config_default(&cfg);
    cfg.timeout_scale = 0; /* a job that never completes ends at once */
    npk_rk_device *d;
    CHECK_EQ(npk_rk_device_open_sim_rocket(&cfg, &d), NPK_OK);
    rksim *sim = npk_rk_device_sim(d);
    const int f0 = 0; /* the device's own file: the first opened */
    int f[3] = {f0, rksim_rocket_open(sim), rksim_rocket_open(sim)};
    CHECK(f[1] > 0 && f[2] > 0 && f[1] != f[2]);

    /* the task on file 0, through the device layer, against the CPU reference */
    npk_rk_mm mm = npk_rk_mm_default(NPK_PREC_INT8, M, K, N);
    mm.out = NPK_PREC_INT32;
    npk_rk_devtask t;
    CHECK_EQ(npk_rk_devtask_create(d, &mm, 0, &t), NPK_OK);
    int8_t *a = malloc((size_t)M * K), *b = malloc((size_t)K * N);
    int32_t *c = calloc((size_t)M * N, 4), *ref = calloc((size_t)M * N, 4);
    for (size_t i = 0; i < (size_t)M * K; i++)
        a[i] = (int8_t)(i * 37 + 11);
    for (size_t i = 0; i < (size_t)K * N; i++)
        b[i] = (int8_t)(i * 53 + 5);
    CHECK_EQ(npk_rk_devtask_load(d, &t, a, b), NPK_OK);
    struct rknpu_submit sub;
    CHECK_EQ(npk_rk_devtask_submit(d, &t, 0, 2000, &sub), NPK_OK);
    CHECK_EQ(npk_rk_devtask_read(d, &t, c), NPK_OK);
    CHECK_EQ(npk_rk_reference_matmul(NPK_PREC_INT8, NPK_PREC_INT32, M, K, N, a, b, ref), NPK_OK);
    CHECK(!memcmp(c, ref, (size_t)M * N * 4));
    const uint32_t count = (uint32_t)t.body_count + ROCKET_TRAILER_ENTRIES;
    const double model_us = rksim_last_report(sim)->model_us;

    /* handles are the file's own */
    struct drm_rocket_prep_bo prep = {.handle = t.c.handle, .timeout_ns = 0};
    struct drm_rocket_fini_bo fini = {.handle = t.c.handle};
    struct rocket_gem_close close_bo = {.handle = t.c.handle};
    CHECK_EQ(rocket(sim, f[1], DRM_IOCTL_ROCKET_PREP_BO, &prep), -ENOENT);
    CHECK_EQ(rocket(sim, f[1], DRM_IOCTL_ROCKET_FINI_BO, &fini), -ENOENT);
    CHECK_EQ(rocket(sim, f[1], ROCKET_DRM_IOCTL_GEM_CLOSE, &close_bo), -EINVAL);
    CHECK_EQ(submit(sim, f[1], t.regcmd.iova, count, &t.c.handle, 1), -ENOENT);

    /* the program relocated into files 1 and 2: the same result there */
    fbuf in1[4], in2[4];
    relocate(sim, f[1], &t, in1);
    relocate(sim, f[2], &t, in2);
    /* a job of file 1 whose program reads a feature of file 0: not mapped in file 1's domain,
     * the job faults (rocket: it times out, nothing written). Each file's domain is a 4 GiB
     * IOVA space of its own, so file 1 has buffers at file 0's first addresses: the feature
     * read is one file 0 created after the task's buffers, below any of file 1's. */
    fbuf other = file_create(sim, f0, t.a.size);
    CHECK(other.iova < in1[0].iova && other.iova < in1[3].iova);
    memcpy(other.host, t.a.host, t.a.size);
    uint64_t *e = in1[3].host;
    size_t patched = 0;
    for (size_t i = 0; i < in1[3].size / 8; i++)
        if ((uint32_t)(e[i] >> 16) == in1[0].iova) {
            e[i] = (e[i] & ~(0xFFFFFFFFull << 16)) | ((uint64_t)other.iova << 16);
            patched++;
        }
    CHECK(patched > 0);
    CHECK_EQ(submit(sim, f[1], in1[3].iova, count, &in1[2].handle, 1), 0);
    CHECK_EQ(rksim_last_report(sim)->outcome, RKSIM_FAULT);
    CHECK_EQ(rksim_last_report(sim)->fault_iova, other.iova);
    CHECK(((int32_t *)in1[2].host)[0] == 0);
    for (int i = 0; i < 4; i++)
        rksim_munmap(sim, in1[i].host, in1[i].size);
    rksim_munmap(sim, other.host, other.size);
    relocate(sim, f[1], &t, in1); /* its own buffers again */

    /* back to back from the three files: each to the least-loaded core, all three used; then
     * file 0 again while its job is still running (by the model's time): its own core */
    const fbuf *prog[3] = {NULL, in1, in2};
    unsigned core[4];
    for (int i = 0; i < 4; i++) {
        int file = f[i % 3];
        if (file == f0)
            CHECK_EQ(submit(sim, f0, t.regcmd.iova, count, &t.c.handle, 1), 0);
        else
            CHECK_EQ(submit(sim, file, prog[i][3].iova, count, &prog[i][2].handle, 1), 0);
        CHECK_EQ(rksim_last_report(sim)->outcome, RKSIM_OK);
        core[i] = rksim_rocket_core(sim, file);
    }
    printf("jobs of files 0, 1, 2, 0 back to back (each %.0f us by the model): cores %u %u %u %u\n",
           model_us, core[0], core[1], core[2], core[3]);
    CHECK(core[0] != core[1] && core[1] != core[2] && core[0] != core[2]);
    CHECK_EQ(core[3], core[0]);
    CHECK(!memcmp(in1[2].host, ref, (size_t)M * N * 4));
    CHECK(!memcmp(in2[2].host, ref, (size_t)M * N * 4));

    /* closing a file closes its handles */
    rksim_rocket_close(sim, f[2]);
    int f3 = rksim_rocket_open(sim);
    CHECK_EQ(f3, f[2]);
    prep.handle = in2[2].handle;
    CHECK_EQ(rocket(sim, f3, DRM_IOCTL_ROCKET_PREP_BO, &prep), -ENOENT);
    for (int i = 0; i < 4; i++) {
        rksim_munmap(sim, in1[i].host, in1[i].size);
        rksim_munmap(sim, in2[i].host, in2[i].size);
    }
    rksim_rocket_close(sim, f[1]);
    rksim_rocket_close(sim, f3);
    npk_rk_devtask_destroy(d, &t);
    npk_rk_device_close(d);
    free(a);
    free(b);
    free(c);
    free(ref);
    return check_done();
}
