/* SPDX-License-Identifier: MIT */
/* The message hook (npukit/log.h): the level from NPUKIT_LOG_LEVEL (each case in a child
 * process, since the variable is read once), a program's own sink and level, silence, and the
 * default lines on stderr, with a real message of the library (a trace file that cannot be
 * opened) among them. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "common/log.h"
#include "common/trace_json.h"

/* The threshold a fresh process takes from NPUKIT_LOG_LEVEL=value (NULL: unset). */
static int env_threshold(const char *value)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (value)
            setenv("NPUKIT_LOG_LEVEL", value, 1);
        else
            unsetenv("NPUKIT_LOG_LEVEL");
        freopen("/dev/null", "w", stderr); /* the refusal of a bad value is not this test's */
        _exit((int)npk_log_threshold());
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_env(void)
{
    CHECK_EQ(env_threshold(NULL), NPK_LOG_WARN);
    CHECK_EQ(env_threshold("none"), NPK_LOG_NONE);
    CHECK_EQ(env_threshold("error"), NPK_LOG_ERROR);
    CHECK_EQ(env_threshold("debug"), NPK_LOG_DEBUG);
    CHECK_EQ(env_threshold("3"), NPK_LOG_INFO);
    CHECK_EQ(env_threshold("loud"), NPK_LOG_WARN); /* refused: the default stays */
    CHECK_EQ(env_threshold("5"), NPK_LOG_WARN);
}

typedef struct {
    int calls;
    npk_log_level level;
    char component[16], message[256];
} seen;

static void sink(npk_log_level level, const char *component, const char *message, void *user)
{
    seen *s = user;
    s->calls++;
    s->level = level;
    snprintf(s->component, sizeof s->component, "%s", component);
    snprintf(s->message, sizeof s->message, "%s", message);
}

static void test_sink_and_levels(void)
{
    seen s = {0};
    npk_set_log(NPK_LOG_WARN, sink, &s);
    CHECK_EQ(npk_log_threshold(), NPK_LOG_WARN);
    npk_log(NPK_LOG_INFO, "npukit", "not this one");
    CHECK_EQ(s.calls, 0);
    CHECK(!npk_log_on(NPK_LOG_INFO, "npukit") && npk_log_on(NPK_LOG_ERROR, "npukit"));
    npk_log(NPK_LOG_WARN, "rksim", "value %d", 42);
    CHECK_EQ(s.calls, 1);
    CHECK_EQ(s.level, NPK_LOG_WARN);
    CHECK(!strcmp(s.component, "rksim") && !strcmp(s.message, "value 42"));
    npk_set_log(NPK_LOG_DEBUG, sink, &s);
    npk_log(NPK_LOG_DEBUG, "npukit", "detail");
    CHECK_EQ(s.calls, 2);
    /* a message longer than any fixed buffer arrives whole */
    static char big[10000];
    memset(big, 'x', sizeof big - 1);
    npk_set_log(NPK_LOG_ERROR, sink, &s);
    npk_log(NPK_LOG_ERROR, "npukit", "%s!", big);
    CHECK_EQ(s.calls, 3);
    /* NONE as a threshold: nothing, whatever the level */
    npk_set_log(NPK_LOG_NONE, sink, &s);
    npk_log(NPK_LOG_ERROR, "npukit", "silenced");
    CHECK_EQ(s.calls, 3);
    CHECK(!strcmp(npk_log_level_name(NPK_LOG_INFO), "info"));
    CHECK(!strcmp(npk_log_level_name((npk_log_level)9), "?"));
}

/* stderr while fn runs, into buf. */
static void capture_stderr(void (*fn)(void), char *buf, size_t len)
{
    fflush(stderr);
    int saved = dup(2);
    FILE *tmp = tmpfile();
    dup2(fileno(tmp), 2);
    fn();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    size_t n = fread(buf, 1, len - 1, tmp);
    buf[n] = 0;
    fclose(tmp);
}

static void say_three(void)
{
    npk_log(NPK_LOG_ERROR, "RKNN", "bad shape");
    npk_log(NPK_LOG_WARN, "npukit", "a warning");
    npk_log(NPK_LOG_DEBUG, "npukit", "hidden");
}

/* The library's own message: NPUKIT_TRACE naming a directory that does not exist. */
static void open_bad_trace(void)
{
    setenv("NPUKIT_TRACE", "/nonexistent-dir/t.json", 1);
    CHECK(!npk_trace_on());
}

static void test_stderr(void)
{
    char out[512];
    npk_set_log(NPK_LOG_WARN, NULL, NULL); /* the default sink */
    capture_stderr(say_three, out, sizeof out);
    CHECK(!strcmp(out, "E RKNN: bad shape\nnpukit: a warning\n"));
    npk_set_log(NPK_LOG_NONE, NULL, NULL);
    capture_stderr(say_three, out, sizeof out);
    CHECK(!strcmp(out, ""));
    /* redirected, the library's message reaches the sink and not stderr */
    seen s = {0};
    npk_set_log(NPK_LOG_ERROR, sink, &s);
    capture_stderr(open_bad_trace, out, sizeof out);
    CHECK(!strcmp(out, ""));
    CHECK_EQ(s.calls, 1);
    CHECK_EQ(s.level, NPK_LOG_ERROR);
    CHECK_STR_HAS(s.message, "NPUKIT_TRACE=/nonexistent-dir/t.json: No such file or directory");
    CHECK(npk_trace_close() != NPK_OK); /* the command still fails at its end */
}

int main(void)
{
    test_env();
    test_sink_and_levels();
    test_stderr();
    return check_done();
}
