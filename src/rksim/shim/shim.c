/* SPDX-License-Identifier: MIT */
/* librksim_shim.so: run an unmodified rknpu or rocket program against the simulator.
 *
 *   LD_PRELOAD=build/librksim_shim.so ./my_rknpu_program
 *
 * /dev/accel/accel0 (plus any path in NPUKIT_SHIM_ROCKET_DEVICES) is the mainline rocket
 * driver: its descriptors go to rksim's rocket front end, one rocket file per open (a dup
 * shares the file), over the same simulator as the rknpu descriptors.
 *
 * open() of /dev/dri/card1 or /dev/dri/renderD129 (plus any path in NPUKIT_SHIM_DEVICES,
 * colon-separated, a card node) returns a real descriptor of /dev/null that the shim remembers;
 * ioctl() on it goes to rksim's kernel-interface front end (which applies the DRM core's
 * struct-size rules, so 5.10 and 6.1 programs both work), mmap() of a MEM_MAP offset returns
 * the buffer's CPU view, munmap() of such a view releases it, close() forgets the descriptor.
 * renderD129 is the render node: a raw SUBMIT there is accepted and runs no task (spec
 * "Submission model"), and the shim says so on stderr.
 *
 * /dev/dma_heap/system is a DMA heap, as on a board: DMA_HEAP_IOCTL_ALLOC answers a memfd of
 * the page-rounded length standing for the dma-buf (mmap it, DMA_BUF_IOCTL_SYNC brackets are
 * accepted), which both simulated kernels import through DRM_IOCTL_PRIME_FD_TO_HANDLE the way
 * the real ones import a dma-buf (rknpu does; mainline rocket refuses with EINVAL).
 *
 * Listings of /dev/accel, /dev/dri and /dev/dma_heap (opendir/readdir, glob, scandir:
 * shim_dirs.c), lookups of the nodes (stat and its kin, statx, access and its kin:
 * shim_stat.c) and tree walks (nftw: shim_walk.c) show these nodes where programs look for
 * them, as a board's character devices.
 *
 * The simulator is created at the first open and shared by every descriptor, like the one NPU
 * of a board. After a modelled kernel crash or hard hang the next open creates a new one (the
 * reboot). NPUKIT_RKSIM_IDEAL / NPUKIT_RKSIM_TIMEOUT_SCALE configure it. A failed submit prints
 * one line on stderr (the hazard or the refusal); NPUKIT_SHIM_VERBOSE=1 prints every submit's
 * outcome, NPUKIT_SHIM_VERBOSE=0 none.
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

#include "common/log.h"
#include "npukit/rknpu_uapi.h"
#include "npukit/rksim.h"
#include "rksim/requests.h"
#include "rksim/rksim_rocket.h"

#define EXPORT __attribute__((visibility("default")))

enum { MAX_FDS = 4096 };

/* What a descriptor is: 0 not ours, KIND_RKNPU (the card node), KIND_RKNPU_RENDER (the render
 * node, where a raw SUBMIT runs nothing), KIND_ROCKET + the rocket file id, or (not an
 * NPU node) the DMA heap or one of its dma-bufs. */
enum {
    KIND_DMABUF = -2,
    KIND_HEAP = -1,
    KIND_NONE = 0,
    KIND_RKNPU = 1,
    KIND_RKNPU_RENDER = 2,
    KIND_ROCKET = 3
};
static atomic_int sim_fd[MAX_FDS];
static pthread_mutex_t lock;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static rksim *sim;
/* Set while the shim itself runs simulator code: its own mmap/munmap go straight through. */
static _Thread_local int inside;

static int (*real_open)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_close)(int);
static int (*real_ioctl)(int, unsigned long, ...);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static int (*real_munmap)(void *, size_t);
static int (*real_dup)(int);
static int (*real_dup2)(int, int);
static int (*real_dup3)(int, int, int);

static void init(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&lock, &a);
    real_open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
    real_openat = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat");
    real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
    real_ioctl = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
    real_mmap = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
    real_munmap = (int (*)(void *, size_t))dlsym(RTLD_NEXT, "munmap");
    real_dup = (int (*)(int))dlsym(RTLD_NEXT, "dup");
    real_dup2 = (int (*)(int, int))dlsym(RTLD_NEXT, "dup2");
    real_dup3 = (int (*)(int, int, int))dlsym(RTLD_NEXT, "dup3");
}

/* Whether path is in the colon-separated list in environment variable `var`. */
static bool in_list(const char *path, const char *var)
{
    const char *extra = getenv(var);
    size_t n = strlen(path);
    while (extra && *extra) {
        const char *end = strchr(extra, ':');
        size_t len = end ? (size_t)(end - extra) : strlen(extra);
        if (len == n && !strncmp(extra, path, n))
            return true;
        extra = end ? end + 1 : NULL;
    }
    return false;
}

/* The kind of simulated node a path names (KIND_NONE: none). */
static int npu_path_kind(const char *path)
{
    if (!path)
        return KIND_NONE;
    if (!strcmp(path, "/dev/dri/card1") || in_list(path, "NPUKIT_SHIM_DEVICES"))
        return KIND_RKNPU;
    if (!strcmp(path, "/dev/dri/renderD129"))
        return KIND_RKNPU_RENDER;
    if (!strcmp(path, "/dev/accel/accel0") || in_list(path, "NPUKIT_SHIM_ROCKET_DEVICES"))
        return KIND_ROCKET;
    if (!strcmp(path, "/dev/dma_heap/system"))
        return KIND_HEAP;
    return KIND_NONE;
}

static int fd_kind(int fd) { return fd >= 0 && fd < MAX_FDS ? atomic_load(&sim_fd[fd]) : 0; }
/* An NPU node's descriptor: its requests and mappings go to the simulator. */
static bool is_sim_fd(int fd) { return fd_kind(fd) >= KIND_RKNPU; }

/* Remember fd as `kind`; false (fd closed, errno EMFILE) when it is beyond the table. */
static bool track_fd(int fd, int kind)
{
    if (fd < MAX_FDS) {
        atomic_store(&sim_fd[fd], kind);
        return true;
    }
    real_close(fd);
    errno = EMFILE;
    return false;
}

static int open_heap(int flags)
{
    int fd = real_open("/dev/null", O_RDWR | (flags & O_CLOEXEC));
    return fd >= 0 && !track_fd(fd, KIND_HEAP) ? -1 : fd;
}

/* DMA_HEAP_IOCTL_ALLOC with the heap's checks: fd 0 on entry, fd_flags within O_ACCMODE |
 * O_CLOEXEC, no heap flags, a length that rounds to at least a page. */
static int heap_ioctl(unsigned long request, void *arg)
{
    if (request != DMA_HEAP_IOCTL_ALLOC)
        return -ENOTTY;
    struct dma_heap_allocation_data *a = arg;
    if (!a)
        return -EFAULT;
    if (a->fd || (a->fd_flags & ~(uint32_t)(O_ACCMODE | O_CLOEXEC)) || a->heap_flags)
        return -EINVAL;
    uint64_t len = (a->len + 4095) & ~(uint64_t)4095;
    if (!len || len < a->len)
        return -EINVAL;
    /* The system heap allocates its pages at once: more than the machine has is ENOMEM there,
     * where a sparse memfd would take any size. */
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0 && len / (uint64_t)page > (uint64_t)pages)
        return -ENOMEM;
    int fd = memfd_create("dmabuf", (a->fd_flags & O_CLOEXEC) ? MFD_CLOEXEC : 0);
    if (fd < 0)
        return -errno;
    if (ftruncate(fd, (off_t)len)) {
        int e = errno;
        real_close(fd);
        return e == EFBIG || e == EINVAL ? -ENOMEM : -e;
    }
    if (!track_fd(fd, KIND_DMABUF))
        return -EMFILE;
    a->fd = (uint32_t)fd;
    return 0;
}

/* DMA_BUF_IOCTL_SYNC on one of the heap's dma-bufs: the flag checks of the dma-buf core; the
 * memfd is coherent, so a valid bracket has nothing to do. */
static int dmabuf_ioctl(unsigned long request, void *arg)
{
    if (request != DMA_BUF_IOCTL_SYNC)
        return -ENOTTY;
    const struct dma_buf_sync *y = arg;
    if (!y)
        return -EFAULT;
    if ((y->flags & ~(uint64_t)DMA_BUF_SYNC_VALID_FLAGS_MASK) || !(y->flags & DMA_BUF_SYNC_RW))
        return -EINVAL;
    return 0;
}

static int open_sim(int kind, int flags)
{
    pthread_once(&once, init);
    pthread_mutex_lock(&lock);
    inside++;
    int open_errno = ENOMEM;
    if (sim && rksim_is_dead(sim)) {
        rksim_destroy(sim); /* the modelled reboot */
        sim = NULL;
    }
    if (!sim) {
        rksim_config cfg;
        rksim_config_default(&cfg);
        /* A bad setting fails the open with EINVAL, saying why on stderr: the program has no
         * other way to learn. */
        npk_status cs = rksim_config_from_env(&cfg);
        if (cs == NPK_OK)
            cs = rksim_create(&cfg, &sim);
        if (cs != NPK_OK) {
            npk_log(NPK_LOG_ERROR, "rksim", "%s", npk_last_error());
            sim = NULL;
            open_errno = cs == NPK_ENOMEM ? ENOMEM : EINVAL;
        }
    }
    int file = 0;
    if (sim && kind == KIND_ROCKET && (file = rksim_rocket_open(sim)) < 0)
        open_errno = -file;
    int fd = sim && file >= 0 ? real_open("/dev/null", O_RDWR | (flags & O_CLOEXEC)) : -1;
    if (fd >= MAX_FDS || (fd < 0 && kind == KIND_ROCKET && file >= 0)) {
        if (fd >= 0)
            real_close(fd);
        if (kind == KIND_ROCKET && file >= 0)
            rksim_rocket_close(sim, file);
        fd = -1;
        errno = EMFILE;
    } else if (fd >= 0) {
        atomic_store(&sim_fd[fd], kind == KIND_ROCKET ? KIND_ROCKET + file : kind);
    } else if (!sim || file < 0) {
        errno = open_errno;
    }
    inside--;
    pthread_mutex_unlock(&lock);
    return fd;
}

static mode_t mode_arg(int flags, va_list ap)
{
    return (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(ap, int) : 0;
}

EXPORT int open(const char *path, int flags, ...)
{
    pthread_once(&once, init);
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    int kind = inside ? KIND_NONE : npu_path_kind(path);
    if (kind == KIND_HEAP)
        return open_heap(flags);
    if (kind)
        return open_sim(kind, flags);
    return real_open(path, flags, mode);
}

EXPORT int open64(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    return open(path, flags, mode);
}

EXPORT int __open_2(const char *path, int flags) { return open(path, flags); }
EXPORT int __open64_2(const char *path, int flags) { return open(path, flags); }

EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
    pthread_once(&once, init);
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    int kind = inside ? KIND_NONE : npu_path_kind(path);
    if (kind == KIND_HEAP)
        return open_heap(flags);
    if (kind)
        return open_sim(kind, flags);
    return real_openat(dirfd, path, flags, mode);
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_arg(flags, ap);
    va_end(ap);
    return openat(dirfd, path, flags, mode);
}

EXPORT int __openat_2(int dirfd, const char *path, int flags) { return openat(dirfd, path, flags); }

/* A duplicate of an NPU descriptor is an NPU descriptor too (as a dup of the real node would
 * be); a descriptor dup2'd over one stops being one. */
static void forget_fd(int fd);
static int track_dup(int oldfd, int newfd)
{
    if (newfd >= 0 && newfd < MAX_FDS && newfd != oldfd) {
        forget_fd(newfd); /* dup2 over a simulated descriptor closes it */
        atomic_store(&sim_fd[newfd], fd_kind(oldfd));
    } else if (newfd >= 0 && newfd < MAX_FDS)
        atomic_store(&sim_fd[newfd], fd_kind(oldfd));
    else if (newfd >= MAX_FDS && is_sim_fd(oldfd)) {
        real_close(newfd);
        errno = EMFILE;
        return -1;
    }
    return newfd;
}

EXPORT int dup(int fd)
{
    pthread_once(&once, init);
    return track_dup(fd, real_dup(fd));
}

EXPORT int dup2(int fd, int fd2)
{
    pthread_once(&once, init);
    return track_dup(fd, real_dup2(fd, fd2));
}

EXPORT int dup3(int fd, int fd2, int flags)
{
    pthread_once(&once, init);
    return track_dup(fd, real_dup3(fd, fd2, flags));
}

/* Forget a descriptor; a rocket file whose last descriptor goes is closed. */
static void forget_fd(int fd)
{
    int kind = fd_kind(fd);
    if (kind == KIND_NONE)
        return;
    atomic_store(&sim_fd[fd], KIND_NONE);
    if (kind < KIND_ROCKET)
        return;
    for (int i = 0; i < MAX_FDS; i++)
        if (atomic_load(&sim_fd[i]) == kind)
            return; /* a dup still refers to the file */
    pthread_mutex_lock(&lock);
    if (sim)
        rksim_rocket_close(sim, kind - KIND_ROCKET);
    pthread_mutex_unlock(&lock);
}

EXPORT int close(int fd)
{
    pthread_once(&once, init);
    forget_fd(fd);
    return real_close(fd);
}

/* NPUKIT_SHIM_VERBOSE: unset, one line per failed submit (so a CI log says why a program saw
 * -1); 1, one line per submit; 0, nothing. */
static void report_submit(unsigned long request, int rc)
{
    const char *v = getenv("NPUKIT_SHIM_VERBOSE");
    bool every = v && *v && *v != '0', silent = v && *v == '0';
    if (RKNPU_IOC_NR(request) != 0x40 + RKNPU_NR_SUBMIT || silent)
        return; /* rknpu SUBMIT and rocket SUBMIT share the number 0x41 */
    const rksim_report *r = rksim_last_report(sim);
    /* A failed job: a failed ioctl, or a rocket job that the kernel would end at its timeout
     * (rocket's SUBMIT succeeds all the same: only the line says what happened). */
    /* a job that ran no task (the render node's answer) is reported like a failed one */
    if (!every && rc >= 0 && r->outcome == RKSIM_OK && (r->task_counter || r->ops))
        return;
    const char *answer = rc < 0 ? strerror(-rc)
                         : r->outcome == RKSIM_OK
                             ? "ok"
                             : "accepted; its fences signal at the job timeout";
    /* one line through the library's log (NPUKIT_LOG_LEVEL=error silences it too) */
    char *line = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&line, &len);
    if (!f)
        return;
    fprintf(f, "submit %s (%s), %u op(s), task_counter %u, modelled %.1f us",
            rksim_outcome_name(r->outcome), answer, r->ops, r->task_counter, r->model_us);
    for (unsigned i = 0; i < RKSIM_HZ_COUNT; i++)
        if (r->hazards & RKSIM_HZ_BIT(rksim_hazards[i].id))
            fprintf(f, ", hazard %u %s", rksim_hazards[i].id, rksim_hazards[i].name);
    fprintf(f, "%s%s%s", r->message[0] ? ": " : "", r->message,
            every ? "" : " (NPUKIT_SHIM_VERBOSE=0 silences this, =1 reports every submit)");
    if (fclose(f) == 0)
        npk_log(NPK_LOG_WARN, "rksim", "%s", line);
    free(line);
}

/* A request the front end has no row for: one line naming it (the program sees only the
 * errno), silenced as the submit lines are. */
static void report_unknown(int kind, unsigned long request)
{
    const char *v = getenv("NPUKIT_SHIM_VERBOSE");
    const rksim_requests *t = kind >= KIND_ROCKET ? &rksim_rocket_requests : &rksim_node_requests;
    if ((v && *v == '0') || rksim_request_of(t, request))
        return;
    npk_log(NPK_LOG_WARN, "rksim", "%s (NPUKIT_SHIM_VERBOSE=0 silences this)",
            rksim_last_report(sim)->message);
}

EXPORT int ioctl(int fd, unsigned long request, ...)
{
    pthread_once(&once, init);
    va_list ap;
    va_start(ap, request);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    int own = fd_kind(fd);
    if (own == KIND_HEAP || own == KIND_DMABUF) {
        int rc = own == KIND_HEAP ? heap_ioctl(request, arg) : dmabuf_ioctl(request, arg);
        if (rc < 0) {
            errno = -rc;
            return -1;
        }
        return rc;
    }
    if (!is_sim_fd(fd))
        return real_ioctl(fd, request, arg);
    pthread_mutex_lock(&lock);
    inside++;
    int kind = fd_kind(fd);
    int rc =
        kind >= KIND_ROCKET
            ? rksim_rocket_ioctl(sim, kind - KIND_ROCKET, request, arg)
            : rksim_node_ioctl(sim, kind == KIND_RKNPU_RENDER ? RKSIM_NODE_RENDER : RKSIM_NODE_CARD,
                               request, arg);
    report_submit(request, rc);
    if (rc < 0)
        report_unknown(kind, request);
    /* The rknpu driver never answers SUBMIT with EOPNOTSUPP: a job outside the model is given
     * the answer of the likeliest outcome on the hardware, a job that never completes
     * (ETIMEDOUT), and the line above says the model could not run it. (The rocket front end
     * answers such a job itself as rocket answers a hung one: SUBMIT 0, fences at the job
     * timeout.) */
    if (rc == -EOPNOTSUPP && kind < KIND_ROCKET && RKNPU_IOC_NR(request) == 0x40 + RKNPU_NR_SUBMIT)
        rc = -ETIMEDOUT;
    inside--;
    pthread_mutex_unlock(&lock);
    if (rc < 0) {
        errno = -rc;
        return -1;
    }
    return rc;
}

EXPORT void *mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset)
{
    pthread_once(&once, init);
    if (inside || !is_sim_fd(fd))
        return real_mmap(addr, length, prot, flags, fd, offset);
    pthread_mutex_lock(&lock);
    inside++;
    int err = 0;
    void *p = rksim_mmap(sim, (uint64_t)offset, length, &err);
    inside--;
    pthread_mutex_unlock(&lock);
    if (!p) {
        errno = err;
        return MAP_FAILED;
    }
    return p;
}

EXPORT void *mmap64(void *addr, size_t length, int prot, int flags, int fd, off_t offset)
{
    return mmap(addr, length, prot, flags, fd, offset);
}

EXPORT int munmap(void *addr, size_t length)
{
    pthread_once(&once, init);
    if (inside || !sim)
        return real_munmap(addr, length);
    pthread_mutex_lock(&lock);
    inside++;
    bool ours = sim && rksim_munmap(sim, addr, length);
    inside--;
    pthread_mutex_unlock(&lock);
    return ours ? 0 : real_munmap(addr, length);
}
