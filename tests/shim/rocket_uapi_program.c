/* SPDX-License-Identifier: MIT */
/* A stand-alone program for the mainline rocket driver, written only against the uAPI header
 * (no npukit calls): open /dev/accel/accel0, check the driver name, create and map buffer
 * objects, write an fp16 M=4 K=32 N=16 matmul program by hand in the form rocket expects
 * (enable 0x1D with the DPU_RDMA block and MRDMA_DISABLE, facts C.6; line mode, facts C.1),
 * submit one job of two tasks and wait for it with PREP_BO's absolute deadline.
 *
 * Run under LD_PRELOAD=librksim_shim.so it exercises the simulator's rocket front end (with
 * NPUKIT_RKSIM_TIMEOUT_SCALE > 0 so that a wedged job keeps its buffers busy for a while); on
 * a board with the rocket driver it runs on the NPU. Prints "N passed, N failed". */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "npukit/rocket_uapi.h"

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

enum { M = 4, K = 32, N = 16, MAX_ENTRIES = 160 };

typedef struct bo {
    uint32_t handle, dma, size;
    void *p;
} bo;

static int fd;

static void create(uint32_t size, bo *b)
{
    struct drm_rocket_create_bo c = {.size = size};
    EXPECT(ioctl(fd, DRM_IOCTL_ROCKET_CREATE_BO, &c) == 0);
    EXPECT(c.dma_address && c.dma_address < (1ull << 32) && c.dma_address % 16 == 0);
    b->handle = c.handle;
    b->dma = (uint32_t)c.dma_address;
    b->size = size;
    b->p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)c.offset);
    EXPECT(b->p != MAP_FAILED);
}

static int64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* PREP_BO until `deadline` (an absolute CLOCK_MONOTONIC time): 0 or the errno. */
static int prep(const bo *b, int64_t deadline)
{
    struct drm_rocket_prep_bo p = {.handle = b->handle, .timeout_ns = deadline};
    return ioctl(fd, DRM_IOCTL_ROCKET_PREP_BO, &p) ? errno : 0;
}

static void fini(const bo *b)
{
    struct drm_rocket_fini_bo f = {.handle = b->handle};
    EXPECT(ioctl(fd, DRM_IOCTL_ROCKET_FINI_BO, &f) == 0);
}

/* One regcmd entry: target[63:48] | value[47:16] | reg[15:0] (facts B.1). */
static uint64_t E(uint16_t target, uint16_t reg, uint32_t value)
{
    return ((uint64_t)target << 48) | ((uint64_t)value << 16) | reg;
}

enum { CNA = 0x0201, CORE = 0x0801, DPU = 0x1001, RDMA = 0x2001 };

/* The fp16 -> fp32 program (facts C.1 values, C.4 order without repeats, C.6 additions).
 * rdma_mode is DPU_RDMA FEATURE_MODE_CFG (0x7810: burst 15 | MRDMA_DISABLE); enable is the
 * op-enable mask of the trailer. Returns the entry count including the trailer. */
static unsigned program(uint64_t *r, uint32_t a, uint32_t b, uint32_t c, uint32_t rdma_mode,
                        uint32_t enable)
{
    unsigned n = 0;
    r[n++] = E(DPU, 0x4004, 0xE);
    r[n++] = E(RDMA, 0x5004, 0xE);
    static const struct {
        uint16_t target, reg;
        uint32_t value;
    } fixed[] = {
        {CNA, 0x100C, 0x20000120}, {CNA, 0x1010, 0x50},     {CNA, 0x1014, 0x9},
        {CNA, 0x1020, 0x10004},    {CNA, 0x1024, 0x1F0020}, {CNA, 0x1028, 1},
        {CNA, 0x102C, 4},          {CNA, 0x1030, 0x400},    {CNA, 0x1034, 0x40},
        {CNA, 0x1038, 0x1010010},  {CNA, 0x1040, 0xB1},     {CNA, 0x1044, 1},
        {CNA, 0x104C, 0xB},        {CNA, 0x1050, 0x10000},  {CNA, 0x1054, 0x10000},
        {CNA, 0x1058, 0x10000},    {CNA, 0x105C, 0x10000},  {CNA, 0x1060, 0},
        {CNA, 0x1064, 0},          {CNA, 0x1068, 0},        {CNA, 0x1074, 0},
        {CNA, 0x1078, 0xF000F},    {CNA, 0x107C, 4},        {CNA, 0x1080, 0},
        {CNA, 0x1084, 0x10004},    {CNA, 0x1088, 0x20},     {CNA, 0x1100, 0},
        {CNA, 0x1104, 0},          {CNA, 0x1180, 0},        {CNA, 0x1184, 0},
        {CORE, 0x3010, 0x201},     {CORE, 0x3014, 0x30000}, {CORE, 0x3018, 0xF},
        {CORE, 0x301C, 0},         {CORE, 0x3030, 0},       {DPU, 0x400C, 0x1E4},
        {DPU, 0x4010, 0xA8000002}, {DPU, 0x4014, 0},        {DPU, 0x4024, 0x10},
        {DPU, 0x4030, 0},          {DPU, 0x4034, 3},        {DPU, 0x4038, 0x30003},
        {DPU, 0x403C, 0xF000F},    {DPU, 0x4040, 0x53},     {DPU, 0x4050, 0x36E},
        {DPU, 0x4058, 0xF},        {DPU, 0x405C, 0x30000},  {DPU, 0x4060, 0x53},
        {DPU, 0x4070, 0x383},      {DPU, 0x4078, 1},        {DPU, 0x4084, 1},
        {DPU, 0x40C0, 0x40},       {RDMA, 0x500C, 0},       {RDMA, 0x5010, M - 1},
        {RDMA, 0x5014, N - 1},     {RDMA, 0x5034, 1},       {RDMA, 0x5068, 0x01010101},
    };
    for (unsigned i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        r[n++] = E(fixed[i].target, fixed[i].reg, fixed[i].value);
    r[n++] = E(CNA, 0x1070, a);
    r[n++] = E(CNA, 0x1110, b);
    r[n++] = E(DPU, 0x4020, c);
    r[n++] = E(RDMA, 0x5044, rdma_mode);
    /* the trailer of a single task (facts B.3), counted in regcmd_count on rocket */
    r[n++] = 0;
    r[n++] = E(0x0101, 0x0014, 0);
    r[n++] = E(0x0041, 0x0000, 0);
    r[n++] = E(0x0081, 0x0008, enable);
    return n;
}

static uint16_t f16_small(unsigned v)
{
    static const uint16_t bits[4] = {0x0000, 0x3C00, 0x4000, 0x4200};
    return bits[v & 3];
}

/* SUBMIT one job: 0 or the errno. */
static int submit(const struct drm_rocket_task *tasks, uint32_t ntasks, const uint32_t *in,
                  uint32_t nin, const uint32_t *out, uint32_t nout)
{
    struct drm_rocket_job job = {.tasks = (uintptr_t)tasks,
                                 .in_bo_handles = (uintptr_t)in,
                                 .out_bo_handles = (uintptr_t)out,
                                 .task_count = ntasks,
                                 .task_struct_size = sizeof(struct drm_rocket_task),
                                 .in_bo_handle_count = nin,
                                 .out_bo_handle_count = nout};
    struct drm_rocket_submit s = {
        .jobs = (uintptr_t)&job, .job_count = 1, .job_struct_size = sizeof job};
    return ioctl(fd, DRM_IOCTL_ROCKET_SUBMIT, &s) ? errno : 0;
}

/* Elements of the float output C[M][N] that differ from A * B (small integers: exact). */
static unsigned wrong(const float *c, unsigned av[M][K], unsigned bv[K][N])
{
    unsigned bad = 0;
    for (unsigned m = 0; m < M; m++)
        for (unsigned j = 0; j < N; j++) {
            unsigned ref = 0;
            for (unsigned k = 0; k < K; k++)
                ref += av[m][k] * bv[k][j];
            bad += c[m * N + j] != (float)ref;
        }
    return bad;
}

/* SUBMIT one task of `in`/`out` with stderr captured: what the shim wrote (static buffer); the
 * ioctl's errno (0: accepted) in *err. */
static const char *stderr_of_submit(const struct drm_rocket_task *t, const uint32_t *in,
                                    const uint32_t *out, int *err)
{
    static char text[4096];
    char path[] = "/tmp/rocket_uapi_stderrXXXXXX";
    int tmp = mkstemp(path), saved = dup(2);
    unlink(path);
    fflush(stderr);
    dup2(tmp, 2);
    *err = submit(t, 1, in, 4, out, 1);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    ssize_t n = pread(tmp, text, sizeof text - 1, 0);
    text[n > 0 ? n : 0] = 0;
    close(tmp);
    return text;
}

int main(void)
{
    fd = open("/dev/accel/accel0", O_RDWR);
    EXPECT(fd >= 0);
    if (fd < 0)
        return 1;
    char name[16] = {0};
    struct rocket_drm_version v = {.name_len = sizeof name - 1, .name = (uintptr_t)name};
    EXPECT(ioctl(fd, ROCKET_DRM_IOCTL_VERSION, &v) == 0);
    EXPECT(!strcmp(name, "rocket"));

    bo a, b1, b2, c, regcmd;
    create(M * K * 2, &a);
    create(K * N * 2, &b1);
    create(K * N * 2, &b2);
    create(M * N * 4, &c);
    create(5 * MAX_ENTRIES * 8, &regcmd);
    unsigned av[M][K], bv[2][K][N];
    for (unsigned m = 0; m < M; m++)
        for (unsigned k = 0; k < K; k++) {
            av[m][k] = (m * 7 + k * 3) % 4;
            ((uint16_t *)a.p)[m * K + k] = f16_small(av[m][k]);
        }
    for (unsigned w = 0; w < 2; w++)
        for (unsigned k = 0; k < K; k++)
            for (unsigned n = 0; n < N; n++) {
                bv[w][k][n] = (k + 2 * n + w) % 4;
                /* weights [N/16][K/32][16][32] (facts D.1) */
                ((uint16_t *)(w ? b2.p : b1.p))[(n % 16) * 32 + k] = f16_small(bv[w][k][n]);
            }
    /* Two programs writing the same output: the job's tasks run in order, so C ends up as
     * A * B2. */
    uint64_t *prog = regcmd.p;
    unsigned n1 = program(prog, a.dma, b1.dma, c.dma, 0x7810, 0x1D);
    unsigned n2 = program(prog + MAX_ENTRIES, a.dma, b2.dma, c.dma, 0x7810, 0x1D);
    /* a 0x0D program (no DPU_RDMA use) and one whose DPU waits for a main-RDMA feed */
    unsigned n3 = program(prog + 2 * MAX_ENTRIES, a.dma, b1.dma, c.dma, 0x7810, 0x0D);
    unsigned n4 = program(prog + 3 * MAX_ENTRIES, a.dma, b1.dma, c.dma, 0x7800, 0x1D);
    /* a program the model cannot run: CORE_DATAOUT_SIZE_1 (0x3018) disagrees with N */
    uint64_t *odd = prog + 4 * MAX_ENTRIES;
    unsigned n5 = program(odd, a.dma, b1.dma, c.dma, 0x7810, 0x1D);
    for (unsigned i = 0; i < n5; i++)
        if (odd[i] == E(CORE, 0x3018, N - 1))
            odd[i] = E(CORE, 0x3018, 7);
    EXPECT(n1 == n2 && n1 < MAX_ENTRIES);
    for (unsigned i = 0; i < M * N; i++)
        ((float *)c.p)[i] = -1.0f;
    fini(&a);
    fini(&b1);
    fini(&b2);
    fini(&c);
    fini(&regcmd);

    const struct drm_rocket_task two[2] = {{regcmd.dma, n1}, {regcmd.dma + MAX_ENTRIES * 8, n2}};
    const uint32_t in[4] = {a.handle, b1.handle, b2.handle, regcmd.handle};
    const uint32_t out[1] = {c.handle};
    EXPECT(submit(two, 2, in, 4, out, 1) == 0);
    EXPECT(prep(&c, monotonic_ns() + 5000000000ll) == 0);
    EXPECT(wrong(c.p, av, bv[1]) == 0);
    fini(&c);

    /* A 0x0D program (no DPU_RDMA in the op-enable) runs as on the vendor driver: C = A * B1.
     * Refusals: an unknown handle; a job without tasks. */
    const struct drm_rocket_task t3 = {regcmd.dma + 2 * MAX_ENTRIES * 8, n3};
    EXPECT(submit(&t3, 1, in, 4, out, 1) == 0);
    EXPECT(prep(&c, monotonic_ns() + 5000000000ll) == 0);
    EXPECT(wrong(c.p, av, bv[0]) == 0);
    fini(&c);
    const uint32_t nohandle[1] = {999999};
    EXPECT(submit(two, 1, nohandle, 1, out, 1) == ENOENT);
    EXPECT(submit(two, 0, in, 4, out, 1) == EINVAL);
    EXPECT(prep(&(bo){.handle = 999999}, monotonic_ns()) == ENOENT);
    /* a request number past rocket's last: the DRM core's EINVAL */
    uint8_t any[16] = {0};
    EXPECT(ioctl(fd, ROCKET_IOC(ROCKET_IOC_READ | ROCKET_IOC_WRITE, ROCKET_DRM_COMMAND_BASE + 4,
                                sizeof any),
                 any) == -1 &&
           errno == EINVAL);

    /* A job that never raises its interrupt keeps its buffers busy until the kernel's job
     * timeout: a deadline already past answers EBUSY at once (a duration passed as the
     * absolute time is such a deadline), a near one times out, a far one sees it end. */
    const struct drm_rocket_task t4 = {regcmd.dma + 3 * MAX_ENTRIES * 8, n4};
    EXPECT(submit(&t4, 1, in, 4, out, 1) == 0);
    EXPECT(prep(&c, 1000000000ll) == EBUSY);
    EXPECT(prep(&c, monotonic_ns() + 1000000) == ETIMEDOUT);
    EXPECT(prep(&c, monotonic_ns() + 5000000000ll) == 0);
    /* the core was reset by the timeout: the next job runs */
    EXPECT(submit(two, 1, in, 4, out, 1) == 0);
    EXPECT(prep(&c, monotonic_ns() + 5000000000ll) == 0);

    /* A task outside the model is answered as rocket answers a job that never completes —
     * SUBMIT 0 (never EOPNOTSUPP, which the kernel does not return), its fences signal at the
     * job timeout, nothing written — and one stderr line says the model did not run it. */
    for (unsigned i = 0; i < M * N; i++)
        ((float *)c.p)[i] = -1.0f;
    fini(&c);
    const struct drm_rocket_task t5 = {regcmd.dma + 4 * MAX_ENTRIES * 8, n5};
    int err = -1;
    const char *line = stderr_of_submit(&t5, in, out, &err);
    EXPECT(err == 0);
    EXPECT(strstr(line, "unsupported") && strstr(line, "0x3018") && strstr(line, "job timeout"));
    EXPECT(prep(&c, 1000000000ll) == EBUSY);
    EXPECT(prep(&c, monotonic_ns() + 1000000) == ETIMEDOUT);
    EXPECT(prep(&c, monotonic_ns() + 5000000000ll) == 0);
    EXPECT(((float *)c.p)[0] == -1.0f && ((float *)c.p)[M * N - 1] == -1.0f);
    EXPECT(submit(two, 1, in, 4, out, 1) == 0);
    EXPECT(prep(&c, monotonic_ns() + 5000000000ll) == 0);
    EXPECT(wrong(c.p, av, bv[0]) == 0);

    bo *all[5] = {&a, &b1, &b2, &c, &regcmd};
    for (int i = 0; i < 5; i++) {
        munmap(all[i]->p, all[i]->size);
        struct rocket_gem_close g = {.handle = all[i]->handle};
        EXPECT(ioctl(fd, ROCKET_DRM_IOCTL_GEM_CLOSE, &g) == 0);
    }
    struct rocket_gem_close g = {.handle = a.handle};
    EXPECT(ioctl(fd, ROCKET_DRM_IOCTL_GEM_CLOSE, &g) == -1 && errno == EINVAL);
    EXPECT(close(fd) == 0);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
