/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* memfd_create */
/* Weights in DMA-heap memory, imported by fd, the way the llama.cpp RKNPU2 backends hold a
 * model: one dma-buf from /dev/dma_heap/system (DMA_HEAP_IOCTL_ALLOC), mapped by the program,
 * two weight matrices packed into it at offsets, each wrapped by rknn_create_mem_from_fd and
 * bound once as B; A rewritten before every call; DMA_BUF_IOCTL_SYNC around the CPU's writes.
 * Results against a CPU reference, then B rewritten in place through the program's own mapping
 * (the NPU reads B at every run). Bad input: a descriptor that is none, a range past the end,
 * memory by physical address (refused), and the heap's and the dma-buf's own refusals.
 *
 * Under the LD_PRELOAD shim the heap is the shim's; in process (no /dev/dma_heap on x86) a
 * memfd stands for the dma-buf, which the simulated kernels import the same way. */
#include <errno.h>
#include <fcntl.h>
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "rknn_matmul_api.h"

enum { M = 4, K = 64, N = 64 };

static uint64_t seed = 3;
static int8_t rnd(void)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (int8_t)((int)((seed >> 33) % 9) - 4);
}

/* A dma-buf of len bytes: from the heap when the system has one, else a memfd. */
static int alloc_dmabuf(uint64_t len, bool *from_heap)
{
    int heap = open("/dev/dma_heap/system", O_RDWR | O_CLOEXEC);
    *from_heap = heap >= 0;
    if (heap < 0) {
        int fd = memfd_create("weights", MFD_CLOEXEC);
        if (fd >= 0 && ftruncate(fd, (off_t)len)) {
            close(fd);
            return -1;
        }
        return fd;
    }
    struct dma_heap_allocation_data a = {.len = len, .fd_flags = O_RDWR | O_CLOEXEC};
    int rc = ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &a);
    close(heap);
    return rc ? -1 : (int)a.fd;
}

/* The CPU access bracket a dma-buf client writes around its stores (a memfd answers ENOTTY;
 * ENOSYS under qemu-user, which does not translate the ioctl). */
static void cpu_access(int fd, uint64_t what)
{
    struct dma_buf_sync y = {.flags = what | DMA_BUF_SYNC_RW};
    if (ioctl(fd, DMA_BUF_IOCTL_SYNC, &y))
        CHECK(errno == ENOTTY || errno == ENOSYS);
}

static void reference(const int8_t *a, const int8_t *b, int32_t *c)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            int32_t s = 0;
            for (int x = 0; x < K; x++)
                s += a[i * K + x] * b[x * N + j];
            c[i * N + j] = s;
        }
}

/* Whether NPUKIT_RK_DEVICE names the rocket kernel (the simulator's or the shim's node). */
static bool on_rocket(void)
{
    const char *d = getenv("NPUKIT_RK_DEVICE");
    return d && (strstr(d, "rocket") || strstr(d, "accel"));
}

/* One layer: its B in the dma-buf at `off` (normal layout, or native through
 * rknn_B_normal_layout_to_native_layout). */
typedef struct layer {
    rknn_matmul_ctx ctx;
    rknn_matmul_io_attr io;
    rknn_matmul_info info;
    rknn_tensor_mem *b, *a, *c;
    int8_t rows[K * N]; /* B as the program keeps it, row-major */
    int32_t off;
} layer;

static void write_b(layer *l, uint8_t *virt, int fd)
{
    cpu_access(fd, DMA_BUF_SYNC_START);
    if (l->info.B_layout == RKNN_MM_LAYOUT_NATIVE)
        CHECK_EQ(rknn_B_normal_layout_to_native_layout(l->rows, virt + l->off, K, N, &l->info),
                 RKNN_SUCC);
    else
        memcpy(virt + l->off, l->rows, sizeof l->rows);
    cpu_access(fd, DMA_BUF_SYNC_END);
}

/* Three calls with a new A each; every C checked. */
static void run_calls(layer *l, const char *what)
{
    int8_t a[M * K];
    int32_t want[M * N];
    for (int call = 0; call < 3; call++) {
        for (int i = 0; i < M * K; i++)
            a[i] = rnd();
        memcpy(l->a->virt_addr, a, sizeof a);
        CHECK_EQ(rknn_mem_sync(l->ctx, l->a, RKNN_MEMORY_SYNC_TO_DEVICE), RKNN_SUCC);
        CHECK_EQ(rknn_matmul_run(l->ctx), RKNN_SUCC);
        CHECK_EQ(rknn_mem_sync(l->ctx, l->c, RKNN_MEMORY_SYNC_FROM_DEVICE), RKNN_SUCC);
        reference(a, l->rows, want);
        if (memcmp(l->c->virt_addr, want, sizeof want)) {
            fprintf(stderr, "%s, B layout %d, call %d: C differs from the reference\n", what,
                    l->info.B_layout, call);
            CHECK(!"C equals the CPU reference");
        }
    }
}

static void test_weights_from_heap(void)
{
    const uint64_t len = 3 * 65536;
    bool heap;
    int fd = alloc_dmabuf(len, &heap);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    fprintf(stderr, "dma-buf from %s\n", heap ? "/dev/dma_heap/system" : "a memfd");
    uint8_t *virt = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHECK(virt != MAP_FAILED);
    if (virt == MAP_FAILED)
        return;
    static layer ls[2];
    for (int li = 0; li < 2; li++) {
        layer *l = &ls[li];
        memset(&l->info, 0, sizeof l->info);
        l->info.M = M, l->info.K = K, l->info.N = N, l->info.type = RKNN_INT8_MM_INT8_TO_INT32;
        l->info.B_layout = (int16_t)(li ? RKNN_MM_LAYOUT_NATIVE : RKNN_MM_LAYOUT_NORM);
        CHECK_EQ(rknn_matmul_create(&l->ctx, &l->info, &l->io), RKNN_SUCC);
        l->off = li ? 65536 + 4096 : 0; /* the second layer's B at an offset into the dma-buf */
        for (int i = 0; i < K * N; i++)
            l->rows[i] = rnd();
        write_b(l, virt, fd);
        l->b = rknn_create_mem_from_fd(l->ctx, fd, virt, l->io.B.size, l->off);
        CHECK(l->b != NULL);
        if (!l->b)
            return;
        CHECK(l->b->virt_addr == virt);
        CHECK_EQ(l->b->fd, fd);
        CHECK_EQ(l->b->offset, l->off);
        CHECK_EQ(l->b->size, l->io.B.size);
        CHECK_EQ(l->b->flags, RKNN_TENSOR_MEMORY_FLAGS_FROM_FD);
        /* rknpu imports the dma-buf (PRIME): it has an NPU address; rocket has no import, the
         * layer maps it for the CPU and stages it: none */
        CHECK_EQ(l->b->phys_addr != 0, !on_rocket());
        l->a = rknn_create_mem(l->ctx, l->io.A.size);
        l->c = rknn_create_mem(l->ctx, l->io.C.size);
        CHECK_EQ(rknn_matmul_set_io_mem(l->ctx, l->b, &l->io.B), RKNN_SUCC);
        CHECK_EQ(rknn_matmul_set_io_mem(l->ctx, l->a, &l->io.A), RKNN_SUCC);
        CHECK_EQ(rknn_matmul_set_io_mem(l->ctx, l->c, &l->io.C), RKNN_SUCC);
    }
    for (int li = 0; li < 2; li++)
        run_calls(&ls[li], "weights from the dma-buf");
    /* new weights written through the program's own mapping: the next runs use them */
    for (int li = 0; li < 2; li++) {
        for (int i = 0; i < K * N; i++)
            ls[li].rows[i] = rnd();
        write_b(&ls[li], virt, fd);
        run_calls(&ls[li], "rewritten weights");
    }
    /* both layers' mems import the same dma-buf (one handle on rknpu): destroying the first
     * leaves the second working */
    CHECK_EQ(rknn_destroy_mem(ls[0].ctx, ls[0].b), RKNN_SUCC);
    ls[0].b = NULL;
    run_calls(&ls[1], "the other mem of the dma-buf destroyed");
    /* the mems go, the dma-buf and the program's mapping stay the program's */
    for (int li = 0; li < 2; li++) {
        if (ls[li].b)
            CHECK_EQ(rknn_destroy_mem(ls[li].ctx, ls[li].b), RKNN_SUCC);
        CHECK_EQ(rknn_destroy_mem(ls[li].ctx, ls[li].a), RKNN_SUCC);
        CHECK_EQ(rknn_destroy_mem(ls[li].ctx, ls[li].c), RKNN_SUCC);
        CHECK_EQ(rknn_matmul_destroy(ls[li].ctx), RKNN_SUCC);
    }
    virt[0] = 42;
    CHECK_EQ(virt[0], 42);
    CHECK_EQ(fcntl(fd, F_GETFD) >= 0, 1);
    munmap(virt, len);
    close(fd);
}

static void test_bad_input(void)
{
    bool heap;
    int fd = alloc_dmabuf(8192, &heap);
    CHECK(fd >= 0);
    CHECK(rknn_create_mem_from_fd(0, -1, NULL, 64, 0) == NULL);
    CHECK(rknn_create_mem_from_fd(0, fd, NULL, 0, 0) == NULL);
    CHECK(rknn_create_mem_from_fd(0, fd, NULL, 64, -1) == NULL);
    CHECK(rknn_create_mem_from_fd(0, fd, NULL, 8192, 1) == NULL); /* one byte past the end */
    rknn_tensor_mem *whole = rknn_create_mem_from_fd(0, fd, NULL, 8192, 0);
    CHECK(whole != NULL && whole->virt_addr != NULL);
    if (whole)
        CHECK_EQ(rknn_destroy_mem(0, whole), RKNN_SUCC);
    int p[2];
    CHECK_EQ(pipe(p), 0);
    CHECK(rknn_create_mem_from_fd(0, p[0], NULL, 64, 0) == NULL); /* no dma-buf */
    close(p[0]);
    close(p[1]);
    /* A regular file is no dma-buf: rknpu's PRIME import refuses it. (Rocket imports nothing:
     * the runtime maps what it is given and stages it, a file as well as a dma-buf.) */
    FILE *file = tmpfile();
    CHECK(file != NULL);
    if (file) {
        CHECK_EQ(ftruncate(fileno(file), 8192), 0);
        rknn_tensor_mem *m = rknn_create_mem_from_fd(0, fileno(file), NULL, 64, 0);
        if (!on_rocket())
            CHECK(m == NULL);
        if (m)
            rknn_destroy_mem(0, m);
        fclose(file);
    }
    CHECK(rknn_create_mem_from_phys(0, 0x10000000ull, NULL, 4096) == NULL);
    if (heap) { /* the heap's and the dma-buf's own checks, as the kernel makes them */
        int h = open("/dev/dma_heap/system", O_RDWR);
        struct dma_heap_allocation_data a = {.len = 4096, .fd_flags = O_RDWR | O_APPEND};
        CHECK(ioctl(h, DMA_HEAP_IOCTL_ALLOC, &a) == -1 && errno == EINVAL);
        a = (struct dma_heap_allocation_data){.len = 4096, .fd_flags = O_RDWR, .heap_flags = 1};
        CHECK(ioctl(h, DMA_HEAP_IOCTL_ALLOC, &a) == -1 && errno == EINVAL);
        a = (struct dma_heap_allocation_data){.len = 0, .fd_flags = O_RDWR};
        CHECK(ioctl(h, DMA_HEAP_IOCTL_ALLOC, &a) == -1 && errno == EINVAL);
        a = (struct dma_heap_allocation_data){.len = 1ull << 40, .fd_flags = O_RDWR};
        CHECK(ioctl(h, DMA_HEAP_IOCTL_ALLOC, &a) == -1 && errno == ENOMEM); /* 1 TiB */
        a = (struct dma_heap_allocation_data){.len = 100, .fd_flags = O_RDWR};
        CHECK_EQ(ioctl(h, DMA_HEAP_IOCTL_ALLOC, &a), 0);
        CHECK_EQ(lseek((int)a.fd, 0, SEEK_END), 4096); /* page-rounded */
        struct dma_buf_sync y = {.flags = DMA_BUF_SYNC_START};
        CHECK(ioctl((int)a.fd, DMA_BUF_IOCTL_SYNC, &y) == -1 && errno == EINVAL);
        y.flags = 1u << 7;
        CHECK(ioctl((int)a.fd, DMA_BUF_IOCTL_SYNC, &y) == -1 && errno == EINVAL);
        close((int)a.fd);
        close(h);
    }
    close(fd);
}

/* Memory cut short after its import (a memfd's owner may ftruncate it, and the shim's heap
 * hands out memfds): the run is refused naming the sizes, never a SIGBUS; at its length again,
 * the run works. */
static void test_memory_cut_after_import(void)
{
    const uint64_t len = 2 * 65536;
    bool heap;
    int fd = alloc_dmabuf(len, &heap);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    uint8_t *virt = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHECK(virt != MAP_FAILED);
    static layer l;
    memset(&l.info, 0, sizeof l.info);
    l.info.M = M, l.info.K = K, l.info.N = N, l.info.type = RKNN_INT8_MM_INT8_TO_INT32;
    CHECK_EQ(rknn_matmul_create(&l.ctx, &l.info, &l.io), RKNN_SUCC);
    l.off = 65536; /* B in the second half: gone once the memory is cut to one page */
    for (int i = 0; i < K * N; i++)
        l.rows[i] = rnd();
    write_b(&l, virt, fd);
    l.b = rknn_create_mem_from_fd(l.ctx, fd, virt, l.io.B.size, l.off);
    l.a = rknn_create_mem(l.ctx, l.io.A.size);
    l.c = rknn_create_mem(l.ctx, l.io.C.size);
    CHECK(l.b && l.a && l.c);
    CHECK_EQ(rknn_matmul_set_io_mem(l.ctx, l.b, &l.io.B), RKNN_SUCC);
    CHECK_EQ(rknn_matmul_set_io_mem(l.ctx, l.a, &l.io.A), RKNN_SUCC);
    CHECK_EQ(rknn_matmul_set_io_mem(l.ctx, l.c, &l.io.C), RKNN_SUCC);
    run_calls(&l, "before the cut");
    CHECK_EQ(ftruncate(fd, 4096), 0);
    /* The layer prints its error ("E RKNN: ...") on stderr: caught in a file for the check. */
    FILE *err = tmpfile();
    CHECK(err != NULL);
    fflush(stderr);
    int saved = dup(2);
    dup2(fileno(err), 2);
    int rc = rknn_matmul_run(l.ctx);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char said[1024] = "";
    rewind(err);
    size_t got = fread(said, 1, sizeof said - 1, err);
    said[got] = '\0';
    fclose(err);
    CHECK(rc != RKNN_SUCC);
    CHECK_STR_HAS(said, "cut to 4096 bytes after the import of 131072 bytes");
    CHECK_EQ(ftruncate(fd, (off_t)len), 0); /* back to its length: new (zero) pages */
    write_b(&l, virt, fd);
    run_calls(&l, "after the length is restored");
    CHECK_EQ(rknn_destroy_mem(l.ctx, l.b), RKNN_SUCC);
    CHECK_EQ(rknn_destroy_mem(l.ctx, l.a), RKNN_SUCC);
    CHECK_EQ(rknn_destroy_mem(l.ctx, l.c), RKNN_SUCC);
    CHECK_EQ(rknn_matmul_destroy(l.ctx), RKNN_SUCC);
    munmap(virt, len);
    close(fd);
}

int main(void)
{
    test_weights_from_heap();
    test_memory_cut_after_import();
    test_bad_input();
    return check_done();
}
