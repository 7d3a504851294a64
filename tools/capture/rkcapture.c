/* SPDX-License-Identifier: MIT */
/* librkcapture.so: record what a program submits to the NPU, changing nothing it sees.
 *
 *   NPUKIT_CAPTURE_DIR=caps LD_PRELOAD=build/librkcapture.so ./vendor_program
 *
 * Every open(), ioctl(), mmap() and munmap() is forwarded unchanged to the next library (the
 * C library on a board; the simulator shim when it is preloaded after this one) and its result
 * returned as is, errno included. On the way the library watches descriptors of
 * /dev/dri/card*, /dev/dri/renderD* and /dev/accel/accel*: buffer creation (rknpu MEM_CREATE
 * and MEM_MAP, rocket CREATE_BO), the CPU mappings, and each SUBMIT, whose task records and
 * regcmd programs it writes BEFORE forwarding the request (what the NPU will fetch):
 *
 *   DIR/submit-NNNN.txt   the programs of submit NNNN, one entry per line as the u32 word
 *                         pair "word0 word1" (the RKDUMP text form rk decode / rk diff read)
 *   DIR/index.txt         one line per submit: its number, the driver, and per task the
 *                         regcmd IOVA, its entry count and the line range in the file
 *
 * NPUKIT_CAPTURE_BUFFERS=1 also dumps every mapped buffer after each submit returns
 * (DIR/submit-NNNN-buf-HANDLE.bin). Nothing is written when NPUKIT_CAPTURE_DIR is unset. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "npukit/rknpu_uapi.h"
#include "npukit/rocket_uapi.h"

#define EXPORT __attribute__((visibility("default")))

enum { MAX_FDS = 4096, MAX_BUFS = 4096 };
enum { NONE = 0, RKNPU = 1, ROCKET = 2 };

typedef struct cbuf {
    int fd;
    uint32_t handle;
    uint64_t obj, dma, size, offset;
    void *host;
} cbuf;

static unsigned char kind[MAX_FDS];
static cbuf bufs[MAX_BUFS];
static size_t nbufs;
static unsigned submits;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int (*next_open)(const char *, int, ...);
static int (*next_ioctl)(int, unsigned long, ...);
static void *(*next_mmap)(void *, size_t, int, int, int, off_t);
static int (*next_close)(int);
static int (*next_munmap)(void *, size_t);
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init(void)
{
    next_open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
    next_ioctl = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
    next_mmap = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
    next_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
    next_munmap = (int (*)(void *, size_t))dlsym(RTLD_NEXT, "munmap");
}

static int path_kind(const char *p)
{
    if (!p)
        return NONE;
    if (!strncmp(p, "/dev/dri/card", 13) || !strncmp(p, "/dev/dri/renderD", 16))
        return RKNPU;
    if (!strncmp(p, "/dev/accel/accel", 16))
        return ROCKET;
    return NONE;
}

static int fd_kind(int fd) { return fd >= 0 && fd < MAX_FDS ? kind[fd] : NONE; }

/* The buffer of fd holding NPU address [dma, dma+len), or NULL. */
static cbuf *by_dma(int fd, uint64_t dma, uint64_t len)
{
    for (size_t i = 0; i < nbufs; i++)
        if (bufs[i].fd == fd && dma >= bufs[i].dma && dma + len <= bufs[i].dma + bufs[i].size)
            return &bufs[i];
    return NULL;
}

static cbuf *by_key(int fd, bool obj, uint64_t key)
{
    for (size_t i = 0; i < nbufs; i++)
        if (bufs[i].fd == fd && (obj ? bufs[i].obj : bufs[i].handle) == key)
            return &bufs[i];
    return NULL;
}

static void add_buf(int fd, uint32_t handle, uint64_t obj, uint64_t dma, uint64_t size,
                    uint64_t offset)
{
    for (size_t i = 0; i < nbufs; i++) /* a handle the kernel gave out again */
        if (bufs[i].fd == fd && bufs[i].handle == handle)
            bufs[i] = bufs[--nbufs];
    if (nbufs < MAX_BUFS)
        bufs[nbufs++] = (cbuf){fd, handle, obj, dma, size, offset, NULL};
}

static FILE *open_out(const char *dir, const char *name, const char *mode)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return fopen(path, mode);
}

/* One task's program into f as word pairs, its line in the index. */
static void dump_task(int fd, FILE *f, FILE *idx, unsigned *line, uint64_t regcmd, uint32_t entries)
{
    cbuf *b = by_dma(fd, regcmd, (uint64_t)entries * 8);
    if (!b || !b->host) {
        fprintf(idx, " [regcmd %llu: %u entries not in a mapped buffer]",
                (unsigned long long)regcmd, entries);
        return;
    }
    const uint8_t *p = (const uint8_t *)b->host + (regcmd - b->dma);
    for (uint32_t i = 0; i < entries; i++) {
        uint32_t w0, w1;
        memcpy(&w0, p + 8 * (size_t)i, 4);
        memcpy(&w1, p + 8 * (size_t)i + 4, 4);
        fprintf(f, "%08x %08x\n", w0, w1);
    }
    fprintf(idx, " [regcmd %llu: %u entries, lines %u-%u]", (unsigned long long)regcmd, entries,
            *line, *line + entries - 1);
    *line += entries;
}

static void record_submit(int fd, int k, void *arg, const char *dir)
{
    char name[64];
    snprintf(name, sizeof name, "submit-%04u.txt", submits);
    FILE *f = open_out(dir, name, "w"), *idx = open_out(dir, "index.txt", "a");
    if (!f || !idx) {
        if (f)
            fclose(f);
        if (idx)
            fclose(idx);
        return;
    }
    fprintf(idx, "%s %s", name, k == RKNPU ? "rknpu" : "rocket");
    unsigned line = 1;
    if (k == RKNPU) {
        const struct rknpu_submit *s = arg;
        cbuf *tb = by_key(fd, true, s->task_obj_addr);
        fprintf(idx, " flags %u task_number %u core_mask %u", s->flags, s->task_number,
                s->core_mask);
        for (uint32_t i = 0; tb && tb->host && i < s->task_number; i++) {
            uint64_t at = (uint64_t)(s->task_start + i) * sizeof(struct rknpu_task);
            if (at + sizeof(struct rknpu_task) > tb->size)
                break;
            struct rknpu_task t;
            memcpy(&t, (const uint8_t *)tb->host + at, sizeof t);
            fprintf(idx, " task %u enable %u int_mask %u", s->task_start + i, t.enable_mask,
                    t.int_mask);
            /* the body and the 4-entry trailer the kernel fetches after it */
            dump_task(fd, f, idx, &line, t.regcmd_addr,
                      t.regcfg_amount + RKNPU_PC_DATA_EXTRA_AMOUNT);
        }
    } else {
        const struct drm_rocket_submit *s = arg;
        for (uint32_t j = 0; s->jobs && j < s->job_count; j++) {
            struct drm_rocket_job job = {0};
            size_t n = s->job_struct_size < sizeof job ? s->job_struct_size : sizeof job;
            memcpy(&job, (const uint8_t *)(uintptr_t)s->jobs + (size_t)j * s->job_struct_size, n);
            fprintf(idx, " job %u", j);
            for (uint32_t i = 0; job.tasks && i < job.task_count; i++) {
                struct drm_rocket_task t = {0};
                size_t tn = job.task_struct_size < sizeof t ? job.task_struct_size : sizeof t;
                memcpy(&t, (const uint8_t *)(uintptr_t)job.tasks + (size_t)i * job.task_struct_size,
                       tn);
                dump_task(fd, f, idx, &line, t.regcmd, t.regcmd_count);
            }
        }
    }
    fprintf(idx, "\n");
    fclose(f);
    fclose(idx);
}

static void dump_buffers(int fd, const char *dir)
{
    for (size_t i = 0; i < nbufs; i++) {
        if (bufs[i].fd != fd || !bufs[i].host)
            continue;
        char name[96];
        snprintf(name, sizeof name, "submit-%04u-buf-%u.bin", submits, bufs[i].handle);
        FILE *f = open_out(dir, name, "wb");
        if (f) {
            fwrite(bufs[i].host, 1, bufs[i].size, f);
            fclose(f);
        }
    }
}

EXPORT int open(const char *path, int flags, ...)
{
    pthread_once(&once, init);
    va_list ap;
    va_start(ap, flags);
    mode_t mode = (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(ap, int) : 0;
    va_end(ap);
    int fd = next_open(path, flags, mode);
    int err = errno; /* returned exactly as the next library left it */
    if (fd >= 0 && fd < MAX_FDS) {
        pthread_mutex_lock(&lock);
        kind[fd] = (unsigned char)path_kind(path);
        pthread_mutex_unlock(&lock);
    }
    errno = err;
    return fd;
}

EXPORT int open64(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(ap, int) : 0;
    va_end(ap);
    return open(path, flags, mode);
}

EXPORT int close(int fd)
{
    pthread_once(&once, init);
    if (fd >= 0 && fd < MAX_FDS && kind[fd]) {
        pthread_mutex_lock(&lock);
        kind[fd] = NONE;
        for (size_t i = 0; i < nbufs;)
            if (bufs[i].fd == fd)
                bufs[i] = bufs[--nbufs];
            else
                i++;
        pthread_mutex_unlock(&lock);
    }
    return next_close(fd);
}

EXPORT int ioctl(int fd, unsigned long request, ...)
{
    pthread_once(&once, init);
    va_list ap;
    va_start(ap, request);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    int k = fd_kind(fd);
    const char *dir = getenv("NPUKIT_CAPTURE_DIR");
    bool submit = k && arg && RKNPU_IOC_NR(request) == 0x41 && RKNPU_IOC_TYPE(request) == 'd';
    if (submit && dir && *dir) {
        pthread_mutex_lock(&lock);
        record_submit(fd, k, arg, dir);
        pthread_mutex_unlock(&lock);
    }
    int rc = next_ioctl(fd, request, arg);
    int err = errno;
    if (k && rc == 0 && arg && RKNPU_IOC_TYPE(request) == 'd') {
        unsigned nr = (unsigned)RKNPU_IOC_NR(request);
        pthread_mutex_lock(&lock);
        if (k == RKNPU && nr == 0x40 + RKNPU_NR_MEM_CREATE) {
            const struct rknpu_mem_create *c = arg; /* the first 32 bytes agree in both */
            add_buf(fd, c->handle, c->obj_addr, c->dma_addr, c->size, 0);
        } else if (k == RKNPU && nr == 0x40 + RKNPU_NR_MEM_MAP) {
            const struct rknpu_mem_map *m = arg;
            cbuf *b = by_key(fd, false, m->handle);
            if (b)
                b->offset = m->offset;
        } else if (k == ROCKET && nr == ROCKET_DRM_COMMAND_BASE + ROCKET_NR_CREATE_BO) {
            const struct drm_rocket_create_bo *c = arg;
            add_buf(fd, c->handle, 0, c->dma_address, c->size, c->offset);
        }
        if (submit && dir && *dir && getenv("NPUKIT_CAPTURE_BUFFERS"))
            dump_buffers(fd, dir);
        if (submit)
            submits++;
        pthread_mutex_unlock(&lock);
    } else if (submit) {
        pthread_mutex_lock(&lock);
        submits++;
        pthread_mutex_unlock(&lock);
    }
    errno = err;
    return rc;
}

EXPORT void *mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset)
{
    pthread_once(&once, init);
    void *p = next_mmap(addr, length, prot, flags, fd, offset);
    int err = errno;
    if (p != MAP_FAILED && fd_kind(fd)) {
        pthread_mutex_lock(&lock);
        for (size_t i = 0; i < nbufs; i++)
            if (bufs[i].fd == fd && bufs[i].offset == (uint64_t)offset)
                bufs[i].host = p;
        pthread_mutex_unlock(&lock);
    }
    errno = err;
    return p;
}

EXPORT void *mmap64(void *addr, size_t length, int prot, int flags, int fd, off_t offset)
{
    return mmap(addr, length, prot, flags, fd, offset);
}

EXPORT int munmap(void *addr, size_t length)
{
    pthread_once(&once, init);
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < nbufs; i++)
        if (bufs[i].host == addr)
            bufs[i].host = NULL; /* never read a mapping the program gave back */
    pthread_mutex_unlock(&lock);
    return next_munmap(addr, length);
}
