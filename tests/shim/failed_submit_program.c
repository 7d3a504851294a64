/* SPDX-License-Identifier: MIT */
/* A stand-alone rknpu program (uAPI header only) whose submit is refused — it lacks
 * RKNPU_JOB_PC — checks what a CI log of an unmodified program shows under the shim: the ioctl
 * fails with EINVAL and the shim prints exactly one stderr line naming the cause and how to
 * silence it; NPUKIT_SHIM_VERBOSE=0 prints nothing. The program captures its own stderr in a
 * temporary file around the ioctl. Prints "N passed, N failed". */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "npukit/rknpu_uapi.h"

static int passed, failed;
#define EXPECT(c)                                                                            \
    do {                                                                                     \
        if (c)                                                                               \
            passed++;                                                                        \
        else {                                                                               \
            failed++;                                                                        \
            fprintf(stderr, "%s:%d: EXPECT failed: %s\n", __FILE__, __LINE__, #c);           \
        }                                                                                    \
    } while (0)

/* Submit without the PC flag; returns what the ioctl wrote on stderr (static buffer). */
static const char *refused_submit(int fd, int *rc, int *err)
{
    static char text[4096];
    char path[] = "/tmp/rksim_shim_stderrXXXXXX";
    int tmp = mkstemp(path), saved = dup(2);
    unlink(path);
    fflush(stderr);
    dup2(tmp, 2);
    struct rknpu_submit sub = {.flags = 0, .timeout = 100, .task_number = 1,
                               .core_mask = RKNPU_CORE0_MASK};
    *rc = ioctl(fd, DRM_IOCTL_RKNPU_SUBMIT, &sub);
    *err = errno;
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    ssize_t n = pread(tmp, text, sizeof text - 1, 0);
    text[n > 0 ? n : 0] = 0;
    close(tmp);
    return text;
}

static int lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

int main(void)
{
    int fd = open("/dev/dri/card1", O_RDWR);
    EXPECT(fd >= 0);
    if (fd < 0)
        return 1;
    int rc, err;
    unsetenv("NPUKIT_SHIM_VERBOSE");
    const char *out = refused_submit(fd, &rc, &err);
    EXPECT(rc == -1 && err == EINVAL);
    EXPECT(lines(out) == 1);
    EXPECT(strstr(out, "RKNPU_JOB_PC") != NULL);
    EXPECT(strstr(out, "NPUKIT_SHIM_VERBOSE=0 silences this") != NULL);
    setenv("NPUKIT_SHIM_VERBOSE", "0", 1);
    out = refused_submit(fd, &rc, &err);
    EXPECT(rc == -1 && err == EINVAL);
    EXPECT(out[0] == 0);
    setenv("NPUKIT_SHIM_VERBOSE", "1", 1);
    out = refused_submit(fd, &rc, &err);
    EXPECT(lines(out) == 1 && !strstr(out, "silences"));
    close(fd);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
