/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* setenv, memfd_create */
/* The device layer over the simulator backend: buffers, actions, submit errors, the kernel
 * backend's refusals, and the DRM core's struct-size rule in the front end. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "rk/device/rk_device.h"
#include "rk/device/rk_device_sim.h"
#include "npukit/rknpu_uapi.h"
#include "npukit/rksim.h"

static void test_ioctl_numbers(void)
{
    /* facts A.1 table */
    CHECK_EQ(DRM_IOCTL_RKNPU_ACTION, 0xC0086440u);
    CHECK_EQ(DRM_IOCTL_RKNPU_SUBMIT, 0xC0686441u);
    CHECK_EQ(DRM_IOCTL_RKNPU_MEM_CREATE, 0xC0306442u);
    CHECK_EQ(DRM_IOCTL_RKNPU_MEM_CREATE_V510, 0xC0286442u);
    CHECK_EQ(DRM_IOCTL_RKNPU_MEM_MAP, 0xC0106443u);
    CHECK_EQ(DRM_IOCTL_RKNPU_MEM_DESTROY, 0xC0106444u);
    CHECK_EQ(DRM_IOCTL_RKNPU_MEM_SYNC, 0xC0206445u);
    CHECK_EQ(RKNPU_DRM_IOCTL_VERSION, 0xC0406400u);
}

static void test_buffers(npk_rk_device *d)
{
    npk_rk_mem a, b;
    CHECK_EQ(npk_rk_mem_create(d, 1000, 0, &a), NPK_OK);
    CHECK_EQ(npk_rk_mem_create(d, 5000, RKNPU_MEM_CACHEABLE, &b), NPK_OK);
    CHECK(a.iova != 0 && b.iova != 0 && a.iova != b.iova);
    CHECK(a.iova % 4096 == 0 && b.iova % 4096 == 0);
    /* separate IOVA ranges */
    CHECK(b.iova + 8192 <= a.iova || a.iova + 4096 <= b.iova);
    CHECK(a.host != NULL && b.host != NULL);
    memset(a.host, 0x5a, 1000);
    CHECK_EQ(npk_rk_mem_sync(d, &b, 0, 5000, RKNPU_MEM_SYNC_TO_DEVICE), NPK_OK);
    CHECK_EQ(npk_rk_mem_sync(d, &b, 4000, 2000, RKNPU_MEM_SYNC_FROM_DEVICE), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "MEM_SYNC");
    CHECK_EQ(npk_rk_mem_create(d, 0, 0, &a) == NPK_OK, 0);
    CHECK_EQ(npk_rk_mem_destroy(d, &b), NPK_OK);
    CHECK_EQ(b.handle, 0);
    /* a fresh buffer may reuse the freed IOVA range */
    npk_rk_mem c;
    CHECK_EQ(npk_rk_mem_create(d, 4096, 0, &c), NPK_OK);
    CHECK_EQ(npk_rk_mem_destroy(d, &c), NPK_OK);
    /* the 32-bit IOVA space: two 2 GiB buffers do not fit (facts I.3) */
    npk_rk_mem big1, big2;
    CHECK_EQ(npk_rk_mem_create(d, 2ull << 30, 0, &big1), NPK_OK);
    CHECK_EQ(npk_rk_mem_create(d, 2ull << 30, 0, &big2), NPK_ENOMEM);
    CHECK_STR_HAS(npk_last_error(), "MEM_CREATE");
    CHECK_EQ(npk_rk_mem_destroy(d, &big1), NPK_OK);
    CHECK_EQ(npk_rk_mem_create(d, 2ull << 30, 0, &big2), NPK_OK);
    CHECK_EQ(npk_rk_mem_destroy(d, &big2), NPK_OK);
    /* `a` stays alive: close must clean it up (ASan checks the leak) */
}

static void test_actions(npk_rk_device *d)
{
    uint32_t v = 0;
    CHECK_EQ(npk_rk_action(d, RKNPU_GET_HW_VERSION, &v), NPK_OK);
    CHECK_EQ(v, 0x46495245u);
    CHECK_EQ(npk_rk_action(d, RKNPU_GET_DRV_VERSION, &v), NPK_OK);
    CHECK_EQ(v, 908);
    CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    CHECK_EQ(npk_rk_action(d, RKNPU_POWER_ON, NULL), NPK_OK);
    CHECK_EQ(npk_rk_action(d, RKNPU_POWER_OFF, NULL), NPK_OK);
    CHECK_EQ(npk_rk_action(d, RKNPU_GET_TOTAL_RW_AMOUNT, &v), NPK_OK);
    CHECK_EQ(v, 0);
    v = 123;
    CHECK_EQ(npk_rk_action(d, RKNPU_GET_VOLT, &v), NPK_OK); /* as the driver: 0, and 0 uV */
    CHECK_EQ(v, 0);
    CHECK_EQ(npk_rk_action(d, RKNPU_SET_VOLT, &v), NPK_EINVAL); /* the driver's answer */
    CHECK_EQ(npk_rk_action(d, 77, &v), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "ACTION");
}

static void test_submit_errors(npk_rk_device *d)
{
    npk_rk_mem t;
    CHECK_EQ(npk_rk_mem_create(d, 64, 0, &t), NPK_OK);
    struct rknpu_submit s = {.flags = RKNPU_JOB_PC,
                             .timeout = 100,
                             .task_number = 1,
                             .task_obj_addr = t.obj_addr,
                             .core_mask = 1};
    s.subcore_task[0] = (struct rknpu_subcore_task){0, 1};
    /* no KERNEL_MAPPING on the task buffer */
    CHECK_EQ(npk_rk_submit(d, &s), NPK_EINVAL);
    s.task_obj_addr = 0x1234;
    CHECK_EQ(npk_rk_submit(d, &s), NPK_EINVAL);
    s.task_number = 0;
    CHECK_EQ(npk_rk_submit(d, &s), NPK_EINVAL);
    CHECK_EQ(npk_rk_mem_destroy(d, &t), NPK_OK);
}

/* A memfd standing for a dma-buf, imported (PRIME) and then cut short by its owner: the next
 * submit is refused naming the sizes (-EFAULT), never run over pages that are gone (SIGBUS). */
static void test_import_cut_short(void)
{
    rksim *sim;
    CHECK_EQ(rksim_create(NULL, &sim), NPK_OK);
    int fd = memfd_create("dmabuf", MFD_CLOEXEC);
    CHECK(fd >= 0 && ftruncate(fd, 65536) == 0);
    struct rknpu_drm_prime_handle p = {.fd = fd};
    CHECK_EQ(rksim_ioctl(sim, RKNPU_DRM_IOCTL_PRIME_FD_TO_HANDLE, &p), 0);
    struct rknpu_mem_create task = {.size = 4096, .flags = RKNPU_MEM_KERNEL_MAPPING};
    CHECK_EQ(rksim_ioctl(sim, DRM_IOCTL_RKNPU_MEM_CREATE, &task), 0);
    struct rknpu_submit sub = {.flags = RKNPU_JOB_PC, .task_number = 1,
                               .task_obj_addr = task.obj_addr, .core_mask = 1};
    sub.subcore_task[rknpu_subcore_index(1, 0)].task_number = 1;
    /* Whatever the (empty) task makes of it, the import is not what is refused. */
    CHECK(rksim_ioctl(sim, DRM_IOCTL_RKNPU_SUBMIT, &sub) != -EFAULT);
    CHECK_EQ(ftruncate(fd, 4096), 0);
    CHECK_EQ(rksim_ioctl(sim, DRM_IOCTL_RKNPU_SUBMIT, &sub), -EFAULT);
    CHECK_STR_HAS(rksim_last_report(sim)->message, "was cut to 4096 bytes after its import of 65536");
    CHECK_EQ(ftruncate(fd, 65536), 0);
    CHECK(rksim_ioctl(sim, DRM_IOCTL_RKNPU_SUBMIT, &sub) != -EFAULT);
    close(fd);
    rksim_destroy(sim);
}

/* The DRM core's rule in the front end: a 40-byte MEM_CREATE is answered in 40 bytes. */
static void test_size_rule(void)
{
    rksim *sim;
    CHECK_EQ(rksim_create(NULL, &sim), NPK_OK);
    struct {
        struct rknpu_mem_create_v510 c;
        uint32_t canary[2];
    } old = {{.size = 100}, {0xdeadbeef, 0xdeadbeef}};
    CHECK_EQ(rksim_ioctl(sim, DRM_IOCTL_RKNPU_MEM_CREATE_V510, &old.c), 0);
    CHECK(old.c.handle != 0 && old.c.dma_addr != 0);
    CHECK_EQ(old.canary[0], 0xdeadbeef);
    CHECK_EQ(old.canary[1], 0xdeadbeef);
    /* an oversized caller struct: the extra bytes come back as they were */
    struct {
        struct rknpu_action a;
        uint32_t extra;
    } big = {{.flags = RKNPU_GET_HW_VERSION}, 7};
    CHECK_EQ(rksim_ioctl(sim, RKNPU_DRM_IOWR(0x40, sizeof big), &big), 0);
    CHECK_EQ(big.a.value, 0x46495245u);
    CHECK_EQ(big.extra, 7);
    /* a short ACTION struct (4 bytes): the value is zero-filled in, not copied back */
    uint32_t code_only = RKNPU_GET_DRV_VERSION;
    CHECK_EQ(rksim_ioctl(sim, RKNPU_DRM_IOWR(0x40, 4), &code_only), 0);
    CHECK_EQ(code_only, RKNPU_GET_DRV_VERSION);
    CHECK_EQ(rksim_ioctl(sim, RKNPU_DRM_IOWR(0x49, 8), &code_only), -EINVAL);
    CHECK_EQ(rksim_ioctl(sim, 0x12345678ul, &code_only), -ENOTTY);
    /* mmap of an unknown offset */
    int err = 0;
    CHECK(rksim_mmap(sim, 0x42, 4096, &err) == NULL && err == EINVAL);
    rksim_destroy(sim);
}

/* NPUKIT_RKSIM_IDEAL: "all" or hazard numbers. */
static void test_env_config(void)
{
    rksim_config cfg;
    rksim_config_default(&cfg);
    setenv("NPUKIT_RKSIM_IDEAL", "1,3,17", 1);
    setenv("NPUKIT_RKSIM_TIMEOUT_SCALE", "0", 1);
    rksim_config_from_env(&cfg);
    CHECK_EQ(cfg.ideal_mask, RKSIM_HZ_BIT(1) | RKSIM_HZ_BIT(3) | RKSIM_HZ_BIT(17));
    CHECK(cfg.timeout_scale == 0);
    setenv("NPUKIT_RKSIM_IDEAL", "all", 1);
    rksim_config_from_env(&cfg);
    CHECK_EQ(cfg.ideal_mask, RKSIM_HZ_ALL);
    /* A setting that does not parse is an error naming it (it was ignored: a typo ran the
     * faithful simulator while the user believed hazards were off); cfg stays as it was. */
    const char *bad_ideal[] = {"99", "0", "garbage", "1,,2", "1,3x", "-1", ""};
    for (unsigned i = 0; i + 1 < sizeof bad_ideal / sizeof bad_ideal[0]; i++) {
        setenv("NPUKIT_RKSIM_IDEAL", bad_ideal[i], 1);
        CHECK_EQ(rksim_config_from_env(&cfg), NPK_EINVAL);
        char want[64];
        snprintf(want, sizeof want, "expected 'all' or hazard numbers 1..%d", RKSIM_HZ_COUNT);
        CHECK_STR_HAS(npk_last_error(), want);
        CHECK_EQ(cfg.ideal_mask, RKSIM_HZ_ALL);
    }
    unsetenv("NPUKIT_RKSIM_IDEAL");
    const char *bad_scale[] = {"abc", "-1", "nan", "1e9", "0.5x"};
    for (unsigned i = 0; i < sizeof bad_scale / sizeof bad_scale[0]; i++) {
        setenv("NPUKIT_RKSIM_TIMEOUT_SCALE", bad_scale[i], 1);
        CHECK_EQ(rksim_config_from_env(&cfg), NPK_EINVAL);
        CHECK_STR_HAS(npk_last_error(), "NPUKIT_RKSIM_TIMEOUT_SCALE=");
        CHECK(cfg.timeout_scale == 0);
    }
    setenv("NPUKIT_RKSIM_TIMEOUT_SCALE", "0.25", 1);
    CHECK_EQ(rksim_config_from_env(&cfg), NPK_OK);
    CHECK(cfg.timeout_scale == 0.25);
    const char *bad_cache[] = {"-1", "1.5", "65537", "x", " 3"};
    for (unsigned i = 0; i < sizeof bad_cache / sizeof bad_cache[0]; i++) {
        setenv("NPUKIT_RKSIM_WEIGHT_CACHE_MIB", bad_cache[i], 1);
        CHECK_EQ(rksim_config_from_env(&cfg), NPK_EINVAL);
        CHECK_STR_HAS(npk_last_error(), "NPUKIT_RKSIM_WEIGHT_CACHE_MIB=");
        CHECK_STR_HAS(npk_last_error(), "0..65536");
        CHECK_EQ(cfg.weight_cache_mib, RKSIM_WEIGHT_CACHE_DEFAULT_MIB);
    }
    setenv("NPUKIT_RKSIM_WEIGHT_CACHE_MIB", "0", 1);
    CHECK_EQ(rksim_config_from_env(&cfg), NPK_OK);
    CHECK_EQ(cfg.weight_cache_mib, 0);
    unsetenv("NPUKIT_RKSIM_WEIGHT_CACHE_MIB");
    /* ... and the runtime's simulator device refuses to open with it. */
    setenv("NPUKIT_RKSIM_IDEAL", "42", 1);
    npk_rk_device *dev = NULL;
    CHECK_EQ(npk_rk_device_open_sim(NULL, &dev), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "NPUKIT_RKSIM_IDEAL='42'");
    unsetenv("NPUKIT_RKSIM_IDEAL");
    unsetenv("NPUKIT_RKSIM_TIMEOUT_SCALE");
    rksim *sim;
    cfg.weight_cache_mib = RKSIM_WEIGHT_CACHE_MAX_MIB + 1;
    CHECK_EQ(rksim_create(&cfg, &sim), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "weight_cache_mib = 65537, at most 65536");
    cfg.weight_cache_mib = 0;
    cfg.cores = 4;
    CHECK_EQ(rksim_create(&cfg, &sim), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "cores = 4");
}

int main(void)
{
    test_env_config();
    test_ioctl_numbers();
    npk_rk_device *d = NULL;
    CHECK_EQ(npk_rk_device_open_sim(NULL, &d), NPK_OK);
    CHECK(!strcmp(npk_rk_device_name(d), "sim"));
    CHECK(npk_rk_device_sim(d) != NULL);
    test_buffers(d);
    test_actions(d);
    test_submit_errors(d);
    npk_rk_device_close(d);

    CHECK_EQ(npk_rk_device_open("sim", &d), NPK_OK);
    npk_rk_device_close(d);
    CHECK_EQ(npk_rk_device_open_kernel("/nonexistent/card9", &d), NPK_ENODEV);
    CHECK_STR_HAS(npk_last_error(), "/nonexistent/card9");
    /* /dev/null is not a DRM node: refused, not misused */
    CHECK_EQ(npk_rk_device_open_kernel("/dev/null", &d), NPK_ENODEV);
    CHECK_STR_HAS(npk_last_error(), "rknpu");
    test_size_rule();
    test_import_cut_short();
    return check_done();
}
