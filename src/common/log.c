/* SPDX-License-Identifier: MIT */
/* The message hook (npukit/log.h, common/log.h). */
#include "common/log.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static npk_log_level threshold = NPK_LOG_WARN;
static npk_log_fn sink;
static void *sink_user;
static bool set_by_program;
/* One component may carry its own threshold (the rknn layer's RKNN_LOG_LEVEL). */
static const char *own_component;
static npk_log_level own_threshold;

static const char *const level_names[] = {"none", "error", "warn", "info", "debug"};
enum { LEVELS = sizeof level_names / sizeof level_names[0] };

const char *npk_log_level_name(npk_log_level level)
{
    return (unsigned)level < LEVELS ? level_names[level] : "?";
}

/* NPUKIT_LOG_LEVEL: a name or its number. A bad value is said once, on stderr (no sink is set
 * yet), naming the value and what is expected, and the default kept. */
static void read_env(void)
{
    const char *v = getenv("NPUKIT_LOG_LEVEL");
    if (!v || !*v)
        return;
    for (unsigned i = 0; i < LEVELS; i++)
        if (!strcmp(v, level_names[i]) || (v[0] == (char)('0' + i) && !v[1])) {
            threshold = (npk_log_level)i;
            return;
        }
    fprintf(stderr,
            "npukit: NPUKIT_LOG_LEVEL=\"%s\" ignored: expected none, error, warn, info, debug "
            "or 0 to 4; using warn\n",
            v);
}

static void init(void) { pthread_once(&once, read_env); }

void npk_set_log(npk_log_level level, npk_log_fn fn, void *user)
{
    init();
    pthread_mutex_lock(&lock);
    threshold = (unsigned)level < LEVELS ? level : NPK_LOG_DEBUG;
    sink = fn;
    sink_user = user;
    set_by_program = true;
    own_component = NULL;
    pthread_mutex_unlock(&lock);
}

npk_log_level npk_log_threshold(void)
{
    init();
    pthread_mutex_lock(&lock);
    npk_log_level t = threshold;
    pthread_mutex_unlock(&lock);
    return t;
}

void npk_log_component_threshold(const char *component, npk_log_level level)
{
    init();
    pthread_mutex_lock(&lock);
    if (!set_by_program) {
        own_component = component;
        own_threshold = level;
    }
    pthread_mutex_unlock(&lock);
}

/* The formatted message in memory of its own size (NULL when that fails). */
static char *vformat(const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    char *s = n < 0 ? NULL : malloc((size_t)n + 1);
    if (s)
        vsnprintf(s, (size_t)n + 1, fmt, again);
    va_end(again);
    return s;
}

/* The caller holds the lock. */
static bool passes(npk_log_level level, const char *component)
{
    npk_log_level t =
        own_component && !strcmp(own_component, component) ? own_threshold : threshold;
    return level != NPK_LOG_NONE && level <= t;
}

bool npk_log_on(npk_log_level level, const char *component)
{
    init();
    pthread_mutex_lock(&lock);
    bool on = passes(level, component);
    pthread_mutex_unlock(&lock);
    return on;
}

/* stderr's line. The rknn layer's carry the level letter first ("E RKNN: ..."), the form its
 * users grep for; the others name the component ("npukit: ..."). */
static void to_stderr(npk_log_level level, const char *component, const char *message)
{
    if (!strcmp(component, "RKNN"))
        fprintf(stderr, "%c %s: %s\n", "NEWID"[(unsigned)level < LEVELS ? level : 0], component, message);
    else
        fprintf(stderr, "%s: %s\n", component, message);
}

void npk_vlog(npk_log_level level, const char *component, const char *fmt, va_list ap)
{
    init();
    pthread_mutex_lock(&lock);
    if (passes(level, component)) {
        char *message = vformat(fmt, ap);
        if (message) {
            if (sink)
                sink(level, component, message, sink_user);
            else
                to_stderr(level, component, message);
        } else {
            to_stderr(level, component, "(a message too large for memory)");
        }
        free(message);
    }
    pthread_mutex_unlock(&lock);
}

void npk_log(npk_log_level level, const char *component, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    npk_vlog(level, component, fmt, ap);
    va_end(ap);
}
