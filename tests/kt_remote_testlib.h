/* SPDX-License-Identifier: MIT */
/* Starting and stopping `npukit kt serve` (and other peers) from a test: the CLI's path comes from
 * NPUKIT_CLI, a TCP server prints its ephemeral port on its first line, and every wait is bounded. */
#ifndef NPUKIT_TESTS_KT_REMOTE_TESTLIB_H
#define NPUKIT_TESTS_KT_REMOTE_TESTLIB_H

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { KT_TEST_START_MS = 20000 };

static inline const char *kt_test_cli(void)
{
    const char *cli = getenv("NPUKIT_CLI");
    return cli && *cli ? cli : "build/npukit";
}

typedef struct kt_test_server {
    pid_t pid;
    char addr[64]; /* "127.0.0.1:PORT" */
} kt_test_server;

/* `npukit kt serve ARGS... --listen 127.0.0.1:0`; false (and nothing left running) on failure. */
static inline bool kt_test_server_start(kt_test_server *sv, const char *const *args)
{
    int out[2];
    if (pipe(out))
        return false;
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        const char *argv[16] = {kt_test_cli(), "kt", "serve"};
        int n = 3;
        for (; args[n - 3] && n < 13; n++)
            argv[n] = args[n - 3];
        argv[n++] = "--listen";
        argv[n++] = "127.0.0.1:0";
        argv[n] = NULL;
        dup2(out[1], 1);
        close(out[0]);
        close(out[1]);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(out[1]);
    char line[256];
    size_t have = 0;
    bool ok = false;
    /* the wait is measured on the clock: a byte read is no 50 ms waited */
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    t = t0;
    for (long waited = 0; waited < KT_TEST_START_MS && have < sizeof line - 1;
         waited = (t.tv_sec - t0.tv_sec) * 1000L + (t.tv_nsec - t0.tv_nsec) / 1000000L) {
        struct pollfd p = {out[0], POLLIN, 0};
        const int ready = poll(&p, 1, 50);
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (ready <= 0)
            continue;
        ssize_t r = read(out[0], line + have, 1);
        if (r <= 0)
            break;
        if (line[have++] == '\n') {
            line[have] = '\0';
            ok = sscanf(line, "listening on %63s", sv->addr) == 1;
            break;
        }
    }
    close(out[0]);
    sv->pid = pid;
    if (!ok) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        sv->pid = 0;
    }
    return ok;
}

static inline void kt_test_server_stop(kt_test_server *sv)
{
    if (!sv->pid)
        return;
    kill(sv->pid, SIGTERM);
    for (int i = 0; i < 400; i++) { /* 4 s, then no more patience */
        if (waitpid(sv->pid, NULL, WNOHANG) == sv->pid) {
            sv->pid = 0;
            return;
        }
        struct timespec ms10 = {0, 10 * 1000 * 1000};
        nanosleep(&ms10, NULL);
    }
    kill(sv->pid, SIGKILL);
    waitpid(sv->pid, NULL, 0);
    sv->pid = 0;
}

#endif
