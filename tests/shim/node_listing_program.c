/* SPDX-License-Identifier: MIT */
/* How programs find the NPU and the DMA heap before they open them — a listing of /dev/accel,
 * /dev/dri or /dev/dma_heap (opendir + readdir), a glob of the node names, access() — sees the
 * shim's nodes, and the node found that way answers as the driver it stands for. Stand-alone:
 * the uAPI header only. Prints "N passed, N failed". */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "npukit/rknpu_uapi.h"

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

/* How many times `name` appears in a listing of dir (twice round: rewinddir restarts it). */
static int listed(const char *dir, const char *name)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    for (int round = 0; round < 2; round++) {
        struct dirent *e;
        while ((e = readdir(d)))
            n += !strcmp(e->d_name, name);
        rewinddir(d);
    }
    closedir(d);
    return n;
}

static int globbed(const char *pattern, const char *want, int flags)
{
    glob_t g;
    memset(&g, 0, sizeof g);
    int rc = glob(pattern, flags, NULL, &g);
    int n = 0;
    for (size_t i = 0; rc == 0 && i < g.gl_pathc; i++)
        n += !strcmp(g.gl_pathv[i], want);
    globfree(&g);
    return rc ? -rc : n;
}

int main(void)
{
    EXPECT(listed("/dev/accel", "accel0") == 2);
    EXPECT(listed("/dev/accel/", "accel0") == 2);
    EXPECT(listed("/dev/dri", "card1") == 2);
    EXPECT(listed("/dev/dri", "renderD129") == 2);
    EXPECT(listed("/dev/dma_heap", "system") == 2);
    EXPECT(listed("/dev", "null") == 2); /* another directory is the real one */
    EXPECT(globbed("/dev/accel/accel*", "/dev/accel/accel0", 0) == 1);
    EXPECT(globbed("/dev/dri/renderD*", "/dev/dri/renderD129", 0) == 1);
    EXPECT(globbed("/dev/dri/card[0-9]*", "/dev/dri/card1", GLOB_NOSORT) == 1);
    EXPECT(globbed("/dev/dma_heap/*", "/dev/dma_heap/system", 0) == 1);
    EXPECT(globbed("/dev/accel/none*", "/dev/accel/none*", GLOB_NOCHECK) == 1);
    EXPECT(globbed("/dev/accel/none*", "", 0) == -GLOB_NOMATCH);
    EXPECT(access("/dev/accel/accel0", R_OK | W_OK) == 0);
    EXPECT(access("/dev/dri/card1", F_OK) == 0);
    EXPECT(access("/dev/accel/accel9", F_OK) == -1 && errno == ENOENT);
    /* the node a program found that way is the driver it looked for */
    glob_t g;
    memset(&g, 0, sizeof g);
    EXPECT(glob("/dev/accel/accel*", 0, NULL, &g) == 0 && g.gl_pathc >= 1);
    int fd = g.gl_pathc ? open(g.gl_pathv[0], O_RDWR | O_CLOEXEC) : -1;
    globfree(&g);
    char name[32] = {0}, desc[128] = {0};
    struct rknpu_drm_version v = {.name_len = sizeof name - 1,
                                  .name = (uintptr_t)name,
                                  .desc_len = sizeof desc - 1,
                                  .desc = (uintptr_t)desc};
    EXPECT(fd >= 0 && ioctl(fd, RKNPU_DRM_IOCTL_VERSION, &v) == 0);
    EXPECT(!strcmp(name, "rocket"));
    EXPECT(strstr(desc, "simulator") != NULL); /* the model says it is one */
    if (fd >= 0)
        close(fd);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
