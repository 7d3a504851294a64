/* SPDX-License-Identifier: MIT */
/* A stand-alone rknpu program, written only against the uAPI header (no npukit calls), the
 * way programs in the wild talk to the vendor driver: open /dev/dri/card1, check the DRM
 * version, create/map/sync buffers, write the vendor's 108-entry fp16 matmul regcmd (facts C.1,
 * column F16: M=4, K=32, N=16, fp16 -> fp32, line mode), submit, and check the result.
 *
 *   rknpu_uapi_program 6.1    the 0.9.8 structs (48-byte MEM_CREATE), ork-style cacheable
 *                             buffers with MEM_SYNC, hw_elapse_time read back
 *   rknpu_uapi_program 5.10   the old structs (40-byte MEM_CREATE), mtx-style non-cacheable
 *                             buffers, user_data left alone
 *
 * Run under LD_PRELOAD=librksim_shim.so it exercises the simulator; on a board it runs on the
 * NPU. Prints "N passed, N failed". */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "npukit/rknpu_uapi.h"

static int passed, failed;
#define EXPECT(c)                                                                                  \
    do {                                                                                           \
        if (c)                                                                                     \
            passed++;                                                                              \
        else {                                                                                     \
            failed++;                                                                              \
            fprintf(stderr, "%s:%d: EXPECT failed: %s (errno %d)\n", __FILE__, __LINE__, #c,       \
                    errno);                                                                        \
        }                                                                                          \
    } while (0)

enum { M = 4, K = 32, N = 16 };

/* The ioctl number with an explicit struct size, as a program built against the other
 * kernel's header would issue it. */
#define REQ(nr, size) RKNPU_DRM_IOWR(0x40 + (nr), (size))

typedef struct buf {
    uint32_t handle;
    uint64_t obj, dma;
    void *p;
    uint64_t size;
} buf;

static int old_gen;

static int create(int fd, uint64_t size, uint32_t flags, buf *b)
{
    memset(b, 0, sizeof *b);
    int rc;
    if (old_gen) {
        /* a 40-byte struct followed by a canary: the kernel must not write past 40 bytes */
        struct {
            struct rknpu_mem_create_v510 c;
            uint64_t canary;
        } s = {{.flags = flags, .size = size}, 0x1122334455667788ull};
        rc = ioctl(fd, REQ(RKNPU_NR_MEM_CREATE, sizeof s.c), &s.c);
        EXPECT(s.canary == 0x1122334455667788ull);
        b->handle = s.c.handle;
        b->obj = s.c.obj_addr;
        b->dma = s.c.dma_addr;
    } else {
        struct rknpu_mem_create c = {.flags = flags, .size = size, .core_mask = RKNPU_CORE0_MASK};
        rc = ioctl(fd, DRM_IOCTL_RKNPU_MEM_CREATE, &c);
        b->handle = c.handle;
        b->obj = c.obj_addr;
        b->dma = c.dma_addr;
    }
    if (rc)
        return rc;
    struct rknpu_mem_map m = {.handle = b->handle};
    if (ioctl(fd, DRM_IOCTL_RKNPU_MEM_MAP, &m))
        return -1;
    b->p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)m.offset);
    b->size = size;
    return b->p == MAP_FAILED ? -1 : 0;
}

static void sync_buf(int fd, const buf *b, uint32_t dir)
{
    struct rknpu_mem_sync s = {.flags = dir, .obj_addr = b->obj, .offset = 0, .size = b->size};
    EXPECT(ioctl(fd, DRM_IOCTL_RKNPU_MEM_SYNC, &s) == 0);
}

static void destroy(int fd, buf *b)
{
    munmap(b->p, b->size);
    struct rknpu_mem_destroy d = {.handle = b->handle, .obj_addr = b->obj};
    EXPECT(ioctl(fd, DRM_IOCTL_RKNPU_MEM_DESTROY, &d) == 0);
}

/* One regcmd entry: target[63:48] | value[47:16] | reg[15:0] (facts B.1). */
static uint64_t E(uint16_t target, uint16_t reg, uint32_t value)
{
    return ((uint64_t)target << 48) | ((uint64_t)value << 16) | reg;
}

/* The vendor fp16 4x32x16 capture, entries 0..107 (facts C.1, column F16). */
static unsigned vendor_fp16_program(uint64_t *r, uint32_t a, uint32_t b, uint32_t c)
{
    const uint16_t CNA = 0x0201, CORE = 0x0801, DPU = 0x1001;
    unsigned n = 0;
    r[n++] = E(CNA, 0x1040, 0xB1);
    r[n++] = E(CNA, 0x1104, 0);
    r[n++] = E(CNA, 0x1100, 0);
    r[n++] = E(CNA, 0x100C, 0x20000120);
    r[n++] = E(DPU, 0x4004, 0xE);
    r[n++] = E(CNA, 0x100C, 0x20000120);
    r[n++] = E(CNA, 0x1010, 0x50);
    r[n++] = E(CNA, 0x1014, 0x9);
    r[n++] = E(CNA, 0x1020, 0x10004);
    r[n++] = E(CNA, 0x1024, 0x1F0020);
    r[n++] = E(CNA, 0x1028, 1);
    r[n++] = E(CNA, 0x102C, 4);
    r[n++] = E(CNA, 0x1030, 0x400);
    r[n++] = E(CNA, 0x1034, 0x40);
    r[n++] = E(CNA, 0x1038, 0x1010010);
    r[n++] = E(CNA, 0x1040, 0xB1);
    r[n++] = E(CNA, 0x1044, 1);
    r[n++] = E(CNA, 0x104C, 0xB);
    for (uint16_t reg = 0x1050; reg <= 0x105C; reg += 4)
        r[n++] = E(CNA, reg, 0x10000);
    r[n++] = E(CNA, 0x1060, 0);
    r[n++] = E(CNA, 0x1064, 0);
    r[n++] = E(CNA, 0x1068, 0);
    r[n++] = E(CNA, 0x1070, a);
    r[n++] = E(CNA, 0x1074, 0);
    r[n++] = E(CNA, 0x1078, 0xF000F);
    r[n++] = E(CNA, 0x107C, 4);
    r[n++] = E(CNA, 0x1080, 0);
    r[n++] = E(CNA, 0x1084, 0x10004);
    r[n++] = E(CNA, 0x1088, 0x20);
    r[n++] = E(CNA, 0x1100, 0);
    r[n++] = E(CNA, 0x1104, 0);
    r[n++] = E(CNA, 0x1110, b);
    for (uint16_t reg = 0x1140; reg <= 0x117C; reg += 4)
        r[n++] = E(CNA, reg, 0);
    r[n++] = E(CNA, 0x1180, 0);
    r[n++] = E(CNA, 0x1184, 0);
    r[n++] = E(CORE, 0x3010, 0x201);
    r[n++] = E(CORE, 0x3014, 0x30000);
    r[n++] = E(CORE, 0x3018, 0xF);
    r[n++] = E(CORE, 0x301C, 0);
    r[n++] = E(CORE, 0x3030, 0);
    r[n++] = E(DPU, 0x400C, 0x1E4);
    r[n++] = E(DPU, 0x4010, 0xA8000002);
    r[n++] = E(DPU, 0x4014, 0);
    r[n++] = E(DPU, 0x4020, c);
    r[n++] = E(DPU, 0x4024, 0x10);
    r[n++] = E(DPU, 0x4030, 0);
    r[n++] = E(DPU, 0x4034, 3);
    r[n++] = E(DPU, 0x4038, 0x30003);
    r[n++] = E(DPU, 0x403C, 0xF000F);
    r[n++] = E(DPU, 0x4040, 0x53);
    r[n++] = E(DPU, 0x4044, 0);
    r[n++] = E(DPU, 0x4048, 0);
    r[n++] = E(DPU, 0x404C, 0);
    r[n++] = E(DPU, 0x4050, 0x36E);
    r[n++] = E(DPU, 0x4054, 0);
    r[n++] = E(DPU, 0x4058, 0xF);
    r[n++] = E(DPU, 0x405C, 0x30000);
    r[n++] = E(DPU, 0x4060, 0x53);
    r[n++] = E(DPU, 0x4064, 0);
    r[n++] = E(DPU, 0x4068, 0);
    r[n++] = E(DPU, 0x406C, 0);
    r[n++] = E(DPU, 0x4070, 0x383);
    r[n++] = E(DPU, 0x4074, 0);
    r[n++] = E(DPU, 0x4078, 1);
    r[n++] = E(DPU, 0x407C, 0);
    r[n++] = E(DPU, 0x4080, 0);
    r[n++] = E(DPU, 0x4084, 1);
    r[n++] = E(DPU, 0x4088, 0);
    for (uint16_t reg = 0x4090; reg <= 0x40AC; reg += 4)
        r[n++] = E(DPU, reg, 0);
    r[n++] = E(DPU, 0x40C0, 0x40);
    r[n++] = E(DPU, 0x40C4, 0);
    for (uint16_t reg = 0x4100; reg <= 0x412C; reg += 4)
        r[n++] = E(DPU, reg, 0);
    /* the trailer of a single task (facts B.3) */
    r[n++] = 0;
    r[n++] = E(0x0101, 0x0014, 0);
    r[n++] = E(0x0041, 0x0000, 0);
    r[n++] = E(0x0081, 0x0008, 0x0D);
    return n;
}

/* fp16 bits of a small non-negative integer (0..3 are all this program uses). */
static uint16_t f16_small(unsigned v)
{
    static const uint16_t bits[4] = {0x0000, 0x3C00, 0x4000, 0x4200};
    return bits[v & 3];
}

int main(int argc, char **argv)
{
    old_gen = argc > 1 && !strcmp(argv[1], "5.10");
    int fd = open("/dev/dri/card1", O_RDWR);
    EXPECT(fd >= 0);
    if (fd < 0)
        return 1;

    char name[16] = {0};
    struct rknpu_drm_version v = {.name_len = sizeof name - 1, .name = (uintptr_t)name};
    EXPECT(ioctl(fd, RKNPU_DRM_IOCTL_VERSION, &v) == 0);
    EXPECT(!strcmp(name, "rknpu"));
    EXPECT(v.name_len == 5);

    struct rknpu_action act = {.flags = RKNPU_GET_HW_VERSION};
    EXPECT(ioctl(fd, DRM_IOCTL_RKNPU_ACTION, &act) == 0 && act.value == 0x46495245u);
    /* A duplicated descriptor reaches the same device; closing it leaves the original. */
    int fd2 = dup(fd);
    EXPECT(fd2 >= 0);
    act = (struct rknpu_action){.flags = RKNPU_GET_HW_VERSION};
    EXPECT(ioctl(fd2, DRM_IOCTL_RKNPU_ACTION, &act) == 0 && act.value == 0x46495245u);
    EXPECT(close(fd2) == 0);
    act = (struct rknpu_action){.flags = RKNPU_GET_HW_VERSION};
    EXPECT(ioctl(fd, DRM_IOCTL_RKNPU_ACTION, &act) == 0);
    act = (struct rknpu_action){.flags = RKNPU_GET_DRV_VERSION};
    EXPECT(ioctl(fd, DRM_IOCTL_RKNPU_ACTION, &act) == 0 && act.value == 908);
    act = (struct rknpu_action){.flags = RKNPU_POWER_ON};
    EXPECT(ioctl(fd, DRM_IOCTL_RKNPU_ACTION, &act) == 0);
    act = (struct rknpu_action){.flags = RKNPU_ACT_RESET};
    EXPECT(ioctl(fd, DRM_IOCTL_RKNPU_ACTION, &act) == 0);
    act = (struct rknpu_action){.flags = 999};
    EXPECT(ioctl(fd, DRM_IOCTL_RKNPU_ACTION, &act) == -1 && errno == EINVAL);
    /* an unknown driver request: the DRM core's EINVAL */
    EXPECT(ioctl(fd, REQ(0x20, 8), &act) == -1 && errno == EINVAL);

    /* ork uses 0x403 (NON_CONTIGUOUS|CACHEABLE|IOVA_ALIGN) + KERNEL_MAPPING for the task
     * buffer; mtx uses 0 and KERNEL_MAPPING (facts A.1 "Flags in use"). */
    uint32_t data_flags = old_gen ? 0 : 0x403;
    uint32_t task_flags = data_flags | RKNPU_MEM_KERNEL_MAPPING;
    buf a, b, c, regcmd, task;
    EXPECT(create(fd, M * K * 2, data_flags, &a) == 0);
    EXPECT(create(fd, K * N * 2, data_flags, &b) == 0);
    EXPECT(create(fd, M * N * 4, data_flags, &c) == 0);
    EXPECT(create(fd, 112 * 8, data_flags, &regcmd) == 0);
    EXPECT(create(fd, 64, task_flags, &task) == 0);
    EXPECT(a.dma && a.dma < (1ull << 32) && b.dma != a.dma && a.obj != 0);
    EXPECT(regcmd.dma % 16 == 0);

    /* A = small integers, B = small integers packed [N/16][K/32][16][32] (facts D.1). */
    uint16_t *pa = a.p, *pb = b.p;
    float *pc = c.p;
    unsigned av[M][K], bv[K][N];
    for (unsigned m = 0; m < M; m++)
        for (unsigned k = 0; k < K; k++) {
            av[m][k] = (m * 7 + k * 3) % 4;
            pa[m * K + k] = f16_small(av[m][k]);
        }
    for (unsigned k = 0; k < K; k++)
        for (unsigned n = 0; n < N; n++) {
            bv[k][n] = (k + 2 * n) % 4;
            pb[(n / 16) * 16 * K + (k / 32) * 512 + (n % 16) * 32 + (k % 32)] = f16_small(bv[k][n]);
        }
    for (unsigned i = 0; i < M * N; i++)
        pc[i] = -1.0f;
    unsigned n = vendor_fp16_program(regcmd.p, (uint32_t)a.dma, (uint32_t)b.dma, (uint32_t)c.dma);
    EXPECT(n == 112);
    struct rknpu_task *t = task.p;
    *t = (struct rknpu_task){.enable_mask = 0xD,
                             .int_mask = 0x300,
                             .int_clear = 0x1FFFF,
                             .regcfg_amount = 108,
                             .regcmd_addr = regcmd.dma};
    if (!old_gen) {
        /* cacheable buffers: clean the CPU's lines, the output's too (facts E.4: the dirty
         * lines of a fresh output buffer are what makes its first result stale) */
        sync_buf(fd, &a, RKNPU_MEM_SYNC_TO_DEVICE);
        sync_buf(fd, &b, RKNPU_MEM_SYNC_TO_DEVICE);
        sync_buf(fd, &c, RKNPU_MEM_SYNC_TO_DEVICE);
        sync_buf(fd, &regcmd, RKNPU_MEM_SYNC_TO_DEVICE);
        sync_buf(fd, &task, RKNPU_MEM_SYNC_TO_DEVICE);
    } else {
        /* non-cacheable buffers (flags 0, as mtx's): the driver syncs CACHEABLE objects only */
        struct rknpu_mem_sync y = {
            .flags = RKNPU_MEM_SYNC_TO_DEVICE, .obj_addr = a.obj, .size = a.size};
        EXPECT(ioctl(fd, DRM_IOCTL_RKNPU_MEM_SYNC, &y) == -1 && errno == EINVAL);
    }

    struct rknpu_submit s = {.flags = RKNPU_JOB_PC | RKNPU_JOB_BLOCK | RKNPU_JOB_PINGPONG,
                             .timeout = 6000,
                             .task_start = 0,
                             .task_number = 1,
                             .task_obj_addr = task.obj,
                             .core_mask = RKNPU_CORE0_MASK,
                             .fence_fd = -1};
    for (int i = 0; i < 3; i++)
        s.subcore_task[i] = (struct rknpu_subcore_task){0, 1};
    if (old_gen)
        s.u48_.user_data = 0xabcdef;
    int rc = ioctl(fd, DRM_IOCTL_RKNPU_SUBMIT, &s);
    EXPECT(rc == 0);
    EXPECT(s.task_counter == 1);
    if (old_gen)
        EXPECT(s.u48_.user_data == 0xabcdef);
    else
        EXPECT(s.u48_.hw_elapse_time > 0);
    if (!old_gen)
        sync_buf(fd, &c, RKNPU_MEM_SYNC_FROM_DEVICE);

    unsigned bad = 0;
    for (unsigned m = 0; m < M; m++)
        for (unsigned j = 0; j < N; j++) {
            unsigned ref = 0;
            for (unsigned k = 0; k < K; k++)
                ref += av[m][k] * bv[k][j];
            if (pc[m * N + j] != (float)ref)
                bad++;
        }
    EXPECT(bad == 0);

    /* A task buffer without KERNEL_MAPPING is refused, as the kernel does. */
    s.task_obj_addr = a.obj;
    EXPECT(ioctl(fd, DRM_IOCTL_RKNPU_SUBMIT, &s) == -1 && errno == EINVAL);

    destroy(fd, &a);
    destroy(fd, &b);
    destroy(fd, &c);
    destroy(fd, &regcmd);
    destroy(fd, &task);
    struct rknpu_mem_destroy d = {.handle = 12345};
    EXPECT(ioctl(fd, DRM_IOCTL_RKNPU_MEM_DESTROY, &d) == -1 && errno == EINVAL);

    /* core_mask 0x2 with only subcore_task[0] filled: the modelled kernel Oops. The device
     * stays dead until it is opened again (the reboot). */
    buf t2;
    EXPECT(create(fd, 64, task_flags, &t2) == 0);
    struct rknpu_submit bad_mask = {.flags = RKNPU_JOB_PC,
                                    .timeout = 100,
                                    .task_number = 1,
                                    .task_obj_addr = t2.obj,
                                    .core_mask = RKNPU_CORE1_MASK};
    bad_mask.subcore_task[0] = (struct rknpu_subcore_task){0, 1};
    EXPECT(ioctl(fd, DRM_IOCTL_RKNPU_SUBMIT, &bad_mask) == -1 && errno == ENODEV);
    act = (struct rknpu_action){.flags = RKNPU_GET_HW_VERSION};
    EXPECT(ioctl(fd, DRM_IOCTL_RKNPU_ACTION, &act) == -1 && errno == ENODEV);
    EXPECT(close(fd) == 0);
    fd = open("/dev/dri/renderD129", O_RDWR);
    EXPECT(fd >= 0);
    act = (struct rknpu_action){.flags = RKNPU_GET_HW_VERSION};
    EXPECT(ioctl(fd, DRM_IOCTL_RKNPU_ACTION, &act) == 0 && act.value == 0x46495245u);
    /* the render node takes a raw SUBMIT and runs no task (spec "Submission model") */
    buf t3;
    EXPECT(create(fd, 64, task_flags, &t3) == 0);
    struct rknpu_submit on_render = {.flags = RKNPU_JOB_PC,
                                     .timeout = 100,
                                     .task_number = 1,
                                     .task_counter = 9,
                                     .task_obj_addr = t3.obj,
                                     .core_mask = RKNPU_CORE0_MASK};
    for (int i = 0; i < 5; i++)
        on_render.subcore_task[i] = (struct rknpu_subcore_task){0, 1};
    EXPECT(ioctl(fd, DRM_IOCTL_RKNPU_SUBMIT, &on_render) == 0 && on_render.task_counter == 0);
    EXPECT(close(fd) == 0);
    /* other paths are left to the C library */
    EXPECT(open("/dev/dri/card7", O_RDWR) == -1 && errno == ENOENT);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
