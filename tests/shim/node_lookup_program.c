/* SPDX-License-Identifier: MIT */
/* Every way a program looks a device node up before opening it sees the shim's nodes as a
 * board's character devices: stat, lstat, stat64, fstatat (absolute, relative to a directory
 * descriptor, relative to the working directory, with "." and ".."), statx, the older
 * __xstat/__lxstat/__fxstatat entry points, access/faccessat/euidaccess, scandir, and nftw
 * (of a node's directory, of /dev in both orders, of a node, stopped early). Stand-alone: no
 * npukit. Prints "N passed, N failed". */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static int passed, failed;
#define EXPECT(c)                                                                                  \
    do {                                                                                           \
        if (c)                                                                                     \
            passed++;                                                                              \
        else {                                                                                     \
            failed++;                                                                              \
            fprintf(stderr, "%s:%d: EXPECT failed: %s\n", __FILE__, __LINE__, #c);                 \
        }                                                                                          \
    } while (0)

/* The C library's pre-2.33 entry points (still exported), as an older program calls them. */
extern int __xstat(int ver, const char *path, struct stat *st);
extern int __lxstat(int ver, const char *path, struct stat *st);
extern int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags);

/* The nodes and the character devices a board shows for them. */
static const struct {
    const char *path;
    unsigned major, minor;
} nodes[] = {
    {"/dev/dri/card1", 226, 1},
    {"/dev/dri/renderD129", 226, 129},
    {"/dev/accel/accel0", 261, 0},
    {"/dev/dma_heap/system", 253, 0},
};
enum { NNODES = sizeof nodes / sizeof nodes[0] };

static int is_node(const struct stat *st, unsigned i)
{
    return S_ISCHR(st->st_mode) && major(st->st_rdev) == nodes[i].major &&
           minor(st->st_rdev) == nodes[i].minor && (st->st_mode & 0666) == 0666;
}

static void test_stat(void)
{
    for (unsigned i = 0; i < NNODES; i++) {
        struct stat st;
        struct stat64 st64;
        struct statx sx;
        const char *p = nodes[i].path;
        EXPECT(stat(p, &st) == 0 && is_node(&st, i));
        EXPECT(lstat(p, &st) == 0 && is_node(&st, i));
        EXPECT(stat64(p, &st64) == 0 && S_ISCHR(st64.st_mode));
        EXPECT(fstatat(AT_FDCWD, p, &st, 0) == 0 && is_node(&st, i));
        EXPECT(fstatat(AT_FDCWD, p, &st, AT_SYMLINK_NOFOLLOW) == 0 && is_node(&st, i));
        EXPECT(__xstat(1, p, &st) == 0 && is_node(&st, i));
        EXPECT(__lxstat(1, p, &st) == 0 && is_node(&st, i));
        EXPECT(__fxstatat(1, AT_FDCWD, p, &st, 0) == 0 && is_node(&st, i));
        memset(&sx, 0, sizeof sx);
        EXPECT(statx(AT_FDCWD, p, 0, STATX_BASIC_STATS, &sx) == 0 && S_ISCHR(sx.stx_mode) &&
               sx.stx_rdev_major == nodes[i].major && sx.stx_rdev_minor == nodes[i].minor &&
               (sx.stx_mask & STATX_TYPE));
        /* relative to a directory descriptor of /dev (a real directory) */
        int dev = open("/dev", O_RDONLY | O_DIRECTORY);
        EXPECT(dev >= 0 && fstatat(dev, p + 5, &st, 0) == 0 && is_node(&st, i));
        EXPECT(statx(dev, p + 5, 0, STATX_BASIC_STATS, &sx) == 0 && S_ISCHR(sx.stx_mode));
        if (dev >= 0)
            close(dev);
    }
    /* relative to the working directory, with "." and ".." */
    char cwd[4096];
    EXPECT(getcwd(cwd, sizeof cwd) != NULL);
    struct stat st;
    EXPECT(chdir("/dev") == 0);
    EXPECT(stat("dri/card1", &st) == 0 && is_node(&st, 0));
    EXPECT(stat("./accel/../accel//accel0", &st) == 0 && is_node(&st, 2));
    EXPECT(chdir(cwd) == 0);
    /* the directories are directories (real or the shim's); other names are not there */
    EXPECT(stat("/dev/accel", &st) == 0 && S_ISDIR(st.st_mode));
    EXPECT(stat("/dev/dma_heap/", &st) == 0 && S_ISDIR(st.st_mode));
    EXPECT(stat("/dev/accel/accel9", &st) == -1 && errno == ENOENT);
    EXPECT(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 1);
}

static void test_access(void)
{
    for (unsigned i = 0; i < NNODES; i++) {
        EXPECT(access(nodes[i].path, R_OK | W_OK) == 0);
        EXPECT(access(nodes[i].path, X_OK) == -1 && errno == EACCES);
        EXPECT(faccessat(AT_FDCWD, nodes[i].path, R_OK | W_OK, 0) == 0);
        EXPECT(faccessat(AT_FDCWD, nodes[i].path, F_OK, AT_EACCESS) == 0);
        EXPECT(euidaccess(nodes[i].path, W_OK) == 0);
    }
    EXPECT(access("/dev/accel", X_OK) == 0);
    EXPECT(access("/dev/accel/accel9", F_OK) == -1 && errno == ENOENT);
    EXPECT(faccessat(AT_FDCWD, "/dev/dri/renderD200", F_OK, 0) == -1 && errno == ENOENT);
}

static int not_dot(const struct dirent *e) { return e->d_name[0] != '.'; }

/* How many times `name` is in a scandir of dir (filtered or not, sorted); -1 on failure. */
static int scanned(const char *dir, const char *name, int filtered, int *total)
{
    struct dirent **list = NULL;
    int n = scandir(dir, &list, filtered ? not_dot : NULL, alphasort);
    if (n < 0)
        return -1;
    int hits = 0, sorted = 1;
    for (int i = 0; i < n; i++) {
        hits += !strcmp(list[i]->d_name, name);
        sorted &= i == 0 || strcoll(list[i - 1]->d_name, list[i]->d_name) <= 0;
        free(list[i]);
    }
    free(list);
    *total = n;
    return sorted ? hits : -2;
}

static void test_scandir(void)
{
    int total = 0;
    EXPECT(scanned("/dev/accel", "accel0", 0, &total) == 1 && total >= 3); /* with . and .. */
    EXPECT(scanned("/dev/accel", ".", 1, &total) == 0);
    EXPECT(scanned("/dev/dri", "card1", 1, &total) == 1);
    EXPECT(scanned("/dev/dri", "renderD129", 0, &total) == 1);
    EXPECT(scanned("/dev/dma_heap/", "system", 1, &total) == 1);
    EXPECT(scanned("/dev", "null", 0, &total) == 1); /* another directory is the real one */
    struct dirent **list;
    EXPECT(scandir("/dev/none-such", &list, NULL, alphasort) == -1 && errno == ENOENT);
}

/* What an nftw callback saw. */
static struct seen {
    int node[NNODES], node_level_ok, dirs_before, dirs_after, order_ok;
    int stop_at; /* node index whose report stops the walk (-1: none) */
    int count;
} seen;

static int visit(const char *path, const struct stat *st, int type, struct FTW *f)
{
    seen.count++;
    for (unsigned i = 0; i < NNODES; i++)
        if (!strcmp(path, nodes[i].path)) {
            seen.node[i]++;
            /* a node is a file of its directory, one level below it; base names it */
            seen.node_level_ok &= type == FTW_F && is_node(st, i) &&
                                  !strcmp(path + f->base, strrchr(nodes[i].path, '/') + 1);
            if ((int)i == seen.stop_at)
                return 7;
        }
    if (!strcmp(path, "/dev/accel")) {
        seen.dirs_before += type == FTW_D;
        seen.dirs_after += type == FTW_DP;
        /* in post-order the directory comes after its node */
        if (type == FTW_DP)
            seen.order_ok &= seen.node[2] == 1;
        if (type == FTW_D)
            seen.order_ok &= seen.node[2] == 0;
        seen.order_ok &= S_ISDIR(st->st_mode) && f->level == 1;
    }
    return 0;
}

static int walked(const char *root, int flags, int stop_at)
{
    memset(&seen, 0, sizeof seen);
    seen.node_level_ok = seen.order_ok = 1;
    seen.stop_at = stop_at;
    return nftw(root, visit, 8, flags);
}

static void test_nftw(void)
{
    EXPECT(walked("/dev/accel", FTW_PHYS, -1) == 0 && seen.node[2] == 1 && seen.node_level_ok);
    for (int depth = 0; depth < 2; depth++) {
        EXPECT(walked("/dev", FTW_PHYS | (depth ? FTW_DEPTH : 0), -1) == 0);
        for (unsigned i = 0; i < NNODES; i++)
            EXPECT(seen.node[i] == 1);
        EXPECT(seen.node_level_ok && seen.order_ok);
        EXPECT(depth ? seen.dirs_after == 1 && !seen.dirs_before
                     : seen.dirs_before == 1 && !seen.dirs_after);
    }
    /* a walk rooted at a node reports the node alone */
    EXPECT(walked("/dev/dri/card1", FTW_PHYS, -1) == 0 && seen.node[0] == 1 && seen.count == 1);
    /* the callback's non-zero answer ends the walk and is its result */
    EXPECT(walked("/dev", FTW_PHYS, 2) == 7 && seen.node[2] == 1);
    EXPECT(walked("/dev/none-such", FTW_PHYS, -1) == -1 && errno == ENOENT);
}

int main(void)
{
    test_stat();
    test_access();
    test_scandir();
    test_nftw();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
