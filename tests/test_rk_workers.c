/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
/* The runtime's persistent core workers: every group runs once per call, the first on the
 * caller's thread and the others at once on threads that persist from call to call; a group's
 * error comes back with its message; a pool inherited by a fork()ed child is replaced there
 * (the child neither hangs nor touches the parent's threads); a runtime closed from another
 * thread joins its workers. Children run under alarm(): a hang fails the test, never stalls it. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

/* ThreadSanitizer refuses threads started in a child forked from a threaded process: there the
 * children only close what they inherited (the rest runs in the other builds). */
#if defined(__SANITIZE_THREAD__)
#define CHILD_THREADS 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CHILD_THREADS 0
#endif
#endif
#ifndef CHILD_THREADS
#define CHILD_THREADS 1
#endif
#include "npukit/rk.h"
#include "npukit/rk_plan.h"
#include "rk/runtime/runtime_internal.h"

typedef struct seen {
    pthread_t caller;
    atomic_uint runs[3];
    pthread_t thread[3];
    atomic_uint together; /* groups running at once (most seen) */
    atomic_uint now;
    int fail_group; /* -1: none */
} seen;

static npk_status group(void *ctx, size_t first, size_t count, npk_rk_stats *st)
{
    seen *s = ctx;
    unsigned now = atomic_fetch_add(&s->now, 1) + 1;
    unsigned most = atomic_load(&s->together);
    while (now > most && !atomic_compare_exchange_weak(&s->together, &most, now))
        ;
    atomic_fetch_add(&s->runs[first], 1);
    s->thread[first] = pthread_self();
    st->tasks = (uint32_t)count;
    st->npu_ns = 100 * (first + 1);
    atomic_fetch_sub(&s->now, 1);
    if ((int)first == s->fail_group)
        return npk_fail(NPK_EIO, "group %zu failed on purpose", first);
    return NPK_OK;
}

/* A plan of three one-task groups on cores 0, 1, 2. */
static void three_groups(npk_rk_plan *plan, npk_rk_task_plan *tasks)
{
    memset(plan, 0, sizeof *plan);
    memset(tasks, 0, 3 * sizeof *tasks);
    for (unsigned i = 0; i < 3; i++)
        tasks[i].core = i;
    plan->tasks = tasks;
    plan->count = 3;
}

static void test_pool(void)
{
    npk_rk_workers *pool = NULL;
    npk_rk_plan plan;
    npk_rk_task_plan tasks[3];
    three_groups(&plan, tasks);
    seen s = {.caller = pthread_self(), .fail_group = -1};
    pthread_t first_workers[3] = {0};
    for (int call = 0; call < 200; call++) {
        npk_rk_stats st = {0};
        CHECK_EQ(npk_rk_run_cores(&pool, &plan, group, &s, &st), NPK_OK);
        CHECK_EQ(st.tasks, 3);
        CHECK_EQ(st.npu_ns, 600);
        CHECK_EQ(st.npu_span_ns, 300);
        CHECK(pthread_equal(s.thread[0], s.caller));
        CHECK(!pthread_equal(s.thread[1], s.caller) && !pthread_equal(s.thread[2], s.caller));
        CHECK(!pthread_equal(s.thread[1], s.thread[2]));
        if (call == 0)
            memcpy(first_workers, s.thread, sizeof first_workers);
        else /* the same threads: persistent, not one per call */
            CHECK(pthread_equal(s.thread[1], first_workers[1]) &&
                  pthread_equal(s.thread[2], first_workers[2]));
    }
    for (int g = 0; g < 3; g++)
        CHECK_EQ(atomic_load(&s.runs[g]), 200);
    CHECK_EQ(npk_rk_workers_started(pool), 2);
    /* A failing group: its status and message reach the caller, the others still ran. */
    for (int g = 0; g < 3; g++) {
        s.fail_group = g;
        npk_rk_stats st = {0};
        char want[64];
        snprintf(want, sizeof want, "group %d failed on purpose", g);
        CHECK_EQ(npk_rk_run_cores(&pool, &plan, group, &s, &st), NPK_EIO);
        CHECK_STR_HAS(npk_last_error(), want);
        CHECK_EQ(st.tasks, 3);
    }
    /* One group: the caller alone, no worker needed. */
    npk_rk_workers *none = NULL;
    plan.count = 1;
    s.fail_group = -1;
    npk_rk_stats st = {0};
    CHECK_EQ(npk_rk_run_cores(&none, &plan, group, &s, &st), NPK_OK);
    CHECK(none == NULL);
    CHECK_EQ(st.handoff_ns, 0);
    npk_rk_workers_free(pool);
    npk_rk_workers_free(NULL);
}

/* A child forked after the parent's workers started: it runs calls on its own workers and
 * frees the pool; exit status 0 when it all checked out. */
static int child_calls(npk_rk_workers **pool, npk_rk_plan *plan)
{
    alarm(60); /* a hang is a failure (SIGALRM), not a stalled test */
    seen s = {.caller = pthread_self(), .fail_group = -1};
    for (int call = 0; call < 20; call++) {
        npk_rk_stats st = {0};
        if (npk_rk_run_cores(pool, plan, group, &s, &st) != NPK_OK || st.tasks != 3)
            return 1;
    }
    int ok = atomic_load(&s.runs[1]) == 20 && atomic_load(&s.runs[2]) == 20 &&
             npk_rk_workers_started(*pool) == 2;
    npk_rk_workers_free(*pool);
    return ok ? 0 : 2;
}

static int wait_child(pid_t pid)
{
    int status = -1;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void test_fork(void)
{
    npk_rk_workers *pool = NULL;
    npk_rk_plan plan;
    npk_rk_task_plan tasks[3];
    three_groups(&plan, tasks);
    seen s = {.caller = pthread_self(), .fail_group = -1};
    npk_rk_stats st = {0};
    CHECK_EQ(npk_rk_run_cores(&pool, &plan, group, &s, &st), NPK_OK);
    fflush(NULL);
    pid_t pid = CHILD_THREADS ? fork() : -2;
    if (pid == 0)
        _exit(child_calls(&pool, &plan));
    if (CHILD_THREADS)
        CHECK_EQ(wait_child(pid), 0);
    /* A child that only frees the inherited pool. */
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        alarm(60);
        npk_rk_workers_free(pool);
        _exit(0);
    }
    CHECK_EQ(wait_child(pid), 0);
    /* The parent's workers are untouched by either child. */
    CHECK_EQ(npk_rk_run_cores(&pool, &plan, group, &s, &st), NPK_OK);
    CHECK_EQ(atomic_load(&s.runs[2]), 2);
    if (!CHILD_THREADS)
        printf("(ThreadSanitizer: no child starts threads)\n");
    npk_rk_workers_free(pool);
}

/* Through the runtime: three-core matmuls, then the runtime closed on another thread; and a
 * forked child that uses and closes a runtime its parent had already run on three cores. */
static void *close_rt(void *arg)
{
    npk_rk_close(arg);
    return NULL;
}

static int matmul3(npk_rk *rt)
{
    enum { K = 64, N = 192 };
    int8_t a[K], b[K * N];
    int32_t c[N];
    for (int i = 0; i < K * N; i++)
        b[i] = (int8_t)(i % 5 - 2);
    for (int i = 0; i < K; i++)
        a[i] = (int8_t)(i % 3 - 1);
    npk_rk_weights *w = NULL;
    npk_rk_stats st = {0};
    int bad = npk_rk_weights_pack(rt, NPK_PREC_INT8, K, N, b, 1, &w) != NPK_OK ||
              npk_rk_matmul(rt, w, 1, a, NPK_PREC_INT32, c, &st) != NPK_OK;
    for (int j = 0; !bad && j < N; j++) {
        int32_t s = 0;
        for (int i = 0; i < K; i++)
            s += a[i] * b[i * N + j];
        bad = c[j] != s;
    }
    npk_rk_weights_free(rt, w);
    return bad ? 1 : st.cores_used == 3 ? 0 : 3;
}

/* Calls at once: two threads per runtime on two runtimes sharing one engine. A call that
 * finds its runtime busy gets NPK_EBUSY and tries again; every call that ran is exact. */
typedef struct caller {
    npk_rk *rt;
    int done, busy, bad;
} caller;

static void *call_loop(void *arg)
{
    caller *c = arg;
    while (c->done < 4) {
        int rc = matmul3(c->rt);
        if (rc == 0)
            c->done++;
        else if (rc == 1 && npk_last_error() && strstr(npk_last_error(), "another call"))
            c->busy++;
        else
            c->bad++;
        if (c->bad > 0)
            break;
    }
    return NULL;
}

static void test_concurrent(void)
{
    npk_rk *r[2] = {NULL, NULL};
    CHECK_EQ(npk_rk_open_shared("sim", &r[0]), NPK_OK);
    CHECK_EQ(npk_rk_open_shared("sim", &r[1]), NPK_OK);
    if (!r[0] || !r[1])
        return;
    caller c[4];
    pthread_t t[4];
    for (int i = 0; i < 4; i++) {
        c[i] = (caller){.rt = r[i / 2]};
        CHECK_EQ(pthread_create(&t[i], NULL, call_loop, &c[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        CHECK_EQ(c[i].bad, 0);
        CHECK_EQ(c[i].done, 4);
    }
    CHECK_EQ(npk_rk_workers_started(r[0]->workers), 2);
    CHECK_EQ(npk_rk_workers_started(r[1]->workers), 2);
    npk_rk_close(r[0]);
    npk_rk_close(r[1]);
}

static void test_runtime(void)
{
    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    if (!rt)
        return;
    /* the planner spreads even this small N over three cores when a hand-off costs nothing */
    npk_rk_host_model hm = npk_rk_host_model_get();
    hm.core_ns = 0;
    npk_rk_set_host_model(&hm);
    CHECK_EQ(matmul3(rt), 0);
    CHECK_EQ(matmul3(rt), 0);
    CHECK_EQ(npk_rk_workers_started(rt->workers), 2);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(120);
        int rc = CHILD_THREADS ? matmul3(rt) : 0;
        npk_rk_close(rt);
        _exit(rc);
    }
    CHECK_EQ(wait_child(pid), 0);
    CHECK_EQ(matmul3(rt), 0);
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, close_rt, rt), 0);
    CHECK_EQ(pthread_join(t, NULL), 0);
    test_concurrent();
    npk_rk_set_host_model(NULL);
}

int main(void)
{
    test_pool();
    test_fork();
    test_runtime();
    return check_done();
}
