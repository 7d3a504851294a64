/* SPDX-License-Identifier: MIT */
/* Single lookups of the shim's device nodes. Before opening a node, programs check it is there
 * and what it is: stat/lstat (or, built against an older C library, __xstat/__lxstat),
 * fstatat, statx, access/faccessat/euidaccess. Here a node answers as a board's character
 * device (shim_node_stat: DRM's major 226, accel's 261, a DMA heap's dynamic major; root's, rw
 * for all) wherever the path comes from (absolute, relative to the working directory or to a
 * directory descriptor); one of the nodes' directories that is missing here answers as a
 * directory. Every other path goes to the C library untouched. */
#define _GNU_SOURCE /* RTLD_NEXT, stat64, statx, euidaccess */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "shim_nodes.h"

#define EXPORT __attribute__((visibility("default")))

/* LP64 (x86-64, arm64): struct stat and struct stat64 are one layout. */
_Static_assert(sizeof(struct stat) == sizeof(struct stat64), "stat64 layout");

/* The C library's lookups, each under its own name (a program reaches the wrapper by the name
 * its C library exports, so that name exists). The __x* forms take the struct version first. */
static int (*real_stat)(const char *, struct stat *);
static int (*real_stat64)(const char *, struct stat64 *);
static int (*real_lstat)(const char *, struct stat *);
static int (*real_lstat64)(const char *, struct stat64 *);
static int (*real_fstatat)(int, const char *, struct stat *, int);
static int (*real_fstatat64)(int, const char *, struct stat64 *, int);
static int (*real_xstat)(int, const char *, struct stat *);
static int (*real_xstat64)(int, const char *, struct stat64 *);
static int (*real_lxstat)(int, const char *, struct stat *);
static int (*real_lxstat64)(int, const char *, struct stat64 *);
static int (*real_fxstatat)(int, int, const char *, struct stat *, int);
static int (*real_fxstatat64)(int, int, const char *, struct stat64 *, int);
static int (*real_statx)(int, const char *, int, unsigned, struct statx *);
static int (*real_access)(const char *, int);
static int (*real_faccessat)(int, const char *, int, int);
static int (*real_euidaccess)(const char *, int);
static int (*real_eaccess)(const char *, int);
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init(void)
{
    *(void **)&real_stat = dlsym(RTLD_NEXT, "stat");
    *(void **)&real_stat64 = dlsym(RTLD_NEXT, "stat64");
    *(void **)&real_lstat = dlsym(RTLD_NEXT, "lstat");
    *(void **)&real_lstat64 = dlsym(RTLD_NEXT, "lstat64");
    *(void **)&real_fstatat = dlsym(RTLD_NEXT, "fstatat");
    *(void **)&real_fstatat64 = dlsym(RTLD_NEXT, "fstatat64");
    *(void **)&real_xstat = dlsym(RTLD_NEXT, "__xstat");
    *(void **)&real_xstat64 = dlsym(RTLD_NEXT, "__xstat64");
    *(void **)&real_lxstat = dlsym(RTLD_NEXT, "__lxstat");
    *(void **)&real_lxstat64 = dlsym(RTLD_NEXT, "__lxstat64");
    *(void **)&real_fxstatat = dlsym(RTLD_NEXT, "__fxstatat");
    *(void **)&real_fxstatat64 = dlsym(RTLD_NEXT, "__fxstatat64");
    *(void **)&real_statx = dlsym(RTLD_NEXT, "statx");
    *(void **)&real_access = dlsym(RTLD_NEXT, "access");
    *(void **)&real_faccessat = dlsym(RTLD_NEXT, "faccessat");
    *(void **)&real_euidaccess = dlsym(RTLD_NEXT, "euidaccess");
    *(void **)&real_eaccess = dlsym(RTLD_NEXT, "eaccess");
}

/* Append `part` to the normalised absolute path in out[0..*len): "." is nothing, ".." drops the
 * last component, repeated '/' collapse. False when out is too small. */
static bool append(char *out, size_t cap, size_t *len, const char *part)
{
    while (*part) {
        while (*part == '/')
            part++;
        size_t n = strcspn(part, "/");
        if (!n)
            break;
        if (n == 1 && part[0] == '.') {
        } else if (n == 2 && part[0] == '.' && part[1] == '.') {
            while (*len > 1 && out[*len - 1] != '/')
                (*len)--;
            if (*len > 1)
                (*len)--; /* the '/' before the dropped component */
        } else {
            if (*len + (*len > 1) + n + 1 > cap)
                return false;
            if (*len > 1)
                out[(*len)++] = '/';
            memcpy(out + *len, part, n);
            *len += n;
        }
        out[*len] = 0;
        part += n;
    }
    return true;
}

bool shim_abs_path(int dirfd, const char *path, char *out, size_t cap)
{
    if (!path || !*path || cap < 2)
        return false;
    size_t len = 1;
    out[0] = '/';
    out[1] = 0;
    if (path[0] != '/') {
        char base[PATH_MAX];
        if (dirfd == AT_FDCWD) {
            if (!getcwd(base, sizeof base))
                return false;
        } else {
            char link[64];
            snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
            ssize_t n = readlink(link, base, sizeof base - 1);
            if (n <= 0 || base[0] != '/')
                return false;
            base[n] = 0;
        }
        if (!append(out, cap, &len, base))
            return false;
    }
    return append(out, cap, &len, path);
}

static void stat_common(struct stat *st, mode_t mode, unsigned ino)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    memset(st, 0, sizeof *st);
    st->st_dev = makedev(0, 5); /* devtmpfs */
    st->st_ino = ino;
    st->st_mode = mode;
    st->st_nlink = S_ISDIR(mode) ? 2 : 1;
    st->st_blksize = 4096;
    st->st_atim = st->st_mtim = st->st_ctim = now;
}

void shim_node_stat(const shim_node *n, struct stat *st)
{
    stat_common(st, S_IFCHR | 0666, 1000 + (unsigned)(n - shim_nodes));
    st->st_rdev = makedev(n->major, n->minor);
}

void shim_dir_stat(const char *dir, struct stat *st)
{
    stat_common(st, S_IFDIR | 0755, 900 + (unsigned)strlen(dir));
}

/* The stat of (dirfd, path) when it names a node, or one of the nodes' directories missing
 * here: true with *st filled; false for every other path (the C library answers it). */
static bool synth(int dirfd, const char *path, struct stat *st)
{
    char abs[PATH_MAX];
    pthread_once(&once, init);
    if (!shim_abs_path(dirfd, path, abs, sizeof abs))
        return false;
    const shim_node *n = shim_node_at(abs);
    if (n) {
        shim_node_stat(n, st);
        return true;
    }
    const char *dir = shim_node_dir(abs);
    if (dir && !shim_real_exists(dir)) {
        shim_dir_stat(dir, st);
        return true;
    }
    return false;
}

EXPORT int stat(const char *path, struct stat *st)
{
    return synth(AT_FDCWD, path, st) ? 0 : real_stat(path, st);
}

EXPORT int stat64(const char *path, struct stat64 *st)
{
    return synth(AT_FDCWD, path, (struct stat *)st) ? 0 : real_stat64(path, st);
}

/* A node is no symbolic link: lstat answers as stat. */
EXPORT int lstat(const char *path, struct stat *st)
{
    return synth(AT_FDCWD, path, st) ? 0 : real_lstat(path, st);
}

EXPORT int lstat64(const char *path, struct stat64 *st)
{
    return synth(AT_FDCWD, path, (struct stat *)st) ? 0 : real_lstat64(path, st);
}

/* AT_EMPTY_PATH with an empty path is a descriptor's own stat: the C library's. */
EXPORT int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
    return synth(dirfd, path, st) ? 0 : real_fstatat(dirfd, path, st, flags);
}

EXPORT int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
    return synth(dirfd, path, (struct stat *)st) ? 0 : real_fstatat64(dirfd, path, st, flags);
}

/* The C library's older entry points, which programs built against glibc < 2.33 call. */
EXPORT int __xstat(int ver, const char *path, struct stat *st)
{
    return synth(AT_FDCWD, path, st) ? 0 : real_xstat(ver, path, st);
}

EXPORT int __xstat64(int ver, const char *path, struct stat64 *st)
{
    return synth(AT_FDCWD, path, (struct stat *)st) ? 0 : real_xstat64(ver, path, st);
}

EXPORT int __lxstat(int ver, const char *path, struct stat *st)
{
    return synth(AT_FDCWD, path, st) ? 0 : real_lxstat(ver, path, st);
}

EXPORT int __lxstat64(int ver, const char *path, struct stat64 *st)
{
    return synth(AT_FDCWD, path, (struct stat *)st) ? 0 : real_lxstat64(ver, path, st);
}

EXPORT int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags)
{
    return synth(dirfd, path, st) ? 0 : real_fxstatat(ver, dirfd, path, st, flags);
}

EXPORT int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags)
{
    return synth(dirfd, path, (struct stat *)st) ? 0 : real_fxstatat64(ver, dirfd, path, st, flags);
}

static struct statx_timestamp stx_time(struct timespec t)
{
    return (struct statx_timestamp){.tv_sec = t.tv_sec, .tv_nsec = (uint32_t)t.tv_nsec};
}

EXPORT int statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *stx)
{
    struct stat st;
    if (!synth(dirfd, path, &st))
        return real_statx(dirfd, path, flags, mask, stx);
    memset(stx, 0, sizeof *stx);
    stx->stx_mask = STATX_BASIC_STATS;
    stx->stx_blksize = (uint32_t)st.st_blksize;
    stx->stx_nlink = (uint32_t)st.st_nlink;
    stx->stx_uid = st.st_uid;
    stx->stx_gid = st.st_gid;
    stx->stx_mode = (uint16_t)st.st_mode;
    stx->stx_ino = st.st_ino;
    stx->stx_atime = stx_time(st.st_atim);
    stx->stx_ctime = stx_time(st.st_ctim);
    stx->stx_mtime = stx_time(st.st_mtim);
    stx->stx_rdev_major = major(st.st_rdev);
    stx->stx_rdev_minor = minor(st.st_rdev);
    stx->stx_dev_major = major(st.st_dev);
    stx->stx_dev_minor = minor(st.st_dev);
    return 0;
}

/* access() and its kin for a node or a missing directory: the permission bits above decide
 * (a node is rw for all and executable by no one: X_OK is EACCES). 1 allowed, 0 refused (errno
 * set), -1 not ours. */
static int allowed(int dirfd, const char *path, int mode)
{
    struct stat st;
    if (!synth(dirfd, path, &st))
        return -1;
    if ((mode & X_OK) && !(st.st_mode & S_IXOTH)) {
        errno = EACCES;
        return 0;
    }
    return 1;
}

EXPORT int access(const char *path, int mode)
{
    int a = allowed(AT_FDCWD, path, mode);
    return a < 0 ? real_access(path, mode) : a ? 0 : -1;
}

EXPORT int faccessat(int dirfd, const char *path, int mode, int flags)
{
    int a = allowed(dirfd, path, mode);
    return a < 0 ? real_faccessat(dirfd, path, mode, flags) : a ? 0 : -1;
}

EXPORT int euidaccess(const char *path, int mode)
{
    int a = allowed(AT_FDCWD, path, mode);
    return a < 0 ? real_euidaccess(path, mode) : a ? 0 : -1;
}

EXPORT int eaccess(const char *path, int mode)
{
    int a = allowed(AT_FDCWD, path, mode);
    return a < 0 ? real_eaccess(path, mode) : a ? 0 : -1;
}
