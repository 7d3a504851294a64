/* SPDX-License-Identifier: MIT */
/* The BLAS is opened at the first GEMM, not when the library is loaded: before it the process
 * has no BLAS mapped, and a threaded OpenBLAS's workers (which spin as they start) appear only
 * when it opens. The GEMMs agree with a double reference whether they go through the BLAS or the
 * library's loops, and $NPUKIT_BLAS chooses: "off", a library that cannot be opened and one
 * without the CBLAS calls each leave the loops, the last two with a warning naming it.
 * NPUKIT_BLAS_EXPECT=1 (set by the build when it found OpenBLAS) makes a BLAS that does not
 * open a failure instead of a fallback. */
#define _GNU_SOURCE
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "common/blas.h"
#include "common/dense.h"
#include "npukit/log.h"
#include "rksim/matmul.h"

/* Whether /proc/self/maps names a library (lib*, not this program) whose name contains `part`. */
static bool mapped(const char *part)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return false;
    char line[4096];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        const char *path = strchr(line, '/');
        const char *base = path ? strrchr(path, '/') + 1 : NULL;
        found = base && !strncmp(base, "lib", 3) && strstr(base, part);
    }
    fclose(f);
    return found;
}

static unsigned threads(void)
{
    DIR *d = opendir("/proc/self/task");
    unsigned n = 0;
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* npk_sgemm (A·B), npk_dgemm and rksim_sgemm_nt (A·Bᵀ) on a shape no blocking divides, against
 * sums in double; the number of elements off by more than the fp32 rounding of K terms. */
static unsigned gemms_wrong(void)
{
    enum { M = 37, K = 53, N = 41 };
    static float a[M * K], b[K * N], bt[N * K], c[M * N], c2[M * N];
    static double ad[M * K], bd[K * N], cd[M * N];
    uint32_t s = 11;
    for (unsigned i = 0; i < M * K; i++) {
        s = s * 1103515245u + 12345u;
        a[i] = (float)((int)(s >> 20 & 255) - 128) / 64.0f;
        ad[i] = a[i];
    }
    for (unsigned i = 0; i < K * N; i++) {
        s = s * 1103515245u + 12345u;
        b[i] = (float)((int)(s >> 20 & 255) - 128) / 32.0f;
        bd[i] = b[i];
    }
    for (unsigned p = 0; p < K; p++)
        for (unsigned j = 0; j < N; j++)
            bt[j * K + p] = b[p * N + j];
    npk_sgemm(M, N, K, a, K, b, N, c, N);
    rksim_sgemm_nt(M, N, K, a, K, bt, K, c2, N);
    npk_dgemm(M, N, K, ad, K, bd, N, cd, N);
    unsigned wrong = 0;
    for (unsigned i = 0; i < M; i++)
        for (unsigned j = 0; j < N; j++) {
            double ref = 0, mag = 0;
            for (unsigned p = 0; p < K; p++) {
                ref += ad[i * K + p] * bd[p * N + j];
                mag += fabs(ad[i * K + p] * bd[p * N + j]);
            }
            double tol = mag * K * 0x1p-24 + 1e-30;
            wrong += fabs(c[i * N + j] - ref) > tol;
            wrong += fabs(c2[i * N + j] - ref) > tol;
            wrong += fabs(cd[i * N + j] - ref) > 1e-9 * (mag + 1);
        }
    return wrong;
}

static unsigned warnings;
static char last_warning[512];
static void sink(npk_log_level level, const char *component, const char *message, void *user)
{
    (void)component;
    (void)user;
    if (level == NPK_LOG_WARN) {
        warnings++;
        snprintf(last_warning, sizeof last_warning, "%s", message);
    }
}

/* In a child, with NPUKIT_BLAS=value: no BLAS, the loops' results right, and a warning naming
 * the value when `warns`. The child's status: 0 when all held. */
static int child_without_blas(const char *value, bool warns)
{
    pid_t pid = fork();
    if (pid == 0) {
        setenv("NPUKIT_BLAS", value, 1);
        npk_set_log(NPK_LOG_WARN, sink, NULL);
        bool ok = npk_blas_get() == NULL && !npk_blas_loaded() && !npk_dense_uses_blas() &&
                  !rksim_gemm_uses_blas() && gemms_wrong() == 0;
        ok = ok && (warns ? warnings == 1 && strstr(last_warning, value) != NULL : warnings == 0);
        if (!ok)
            fprintf(stderr, "NPUKIT_BLAS=%s: %u warnings, last: %s\n", value, warnings,
                    last_warning);
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(void)
{
    const char *expect = getenv("NPUKIT_BLAS_EXPECT");
    bool must_open = expect && !strcmp(expect, "1") && !getenv("NPUKIT_BLAS");

    /* before any GEMM: nothing opened, nothing mapped (and the threads counted, to see the
     * BLAS's workers start when it opens; an emulator may run a thread of its own) */
    CHECK(!npk_blas_loaded());
    CHECK(!mapped("blas"));
    const unsigned threads_before = threads();
    CHECK(threads_before >= 1);

    /* each way of having no BLAS, in a child of its own (the choice is made once a process) */
    CHECK_EQ(child_without_blas("off", false), 0);
    CHECK_EQ(child_without_blas("/nonexistent/libnothing.so", true), 0);
    CHECK_EQ(child_without_blas("libc.so.6", true), 0); /* opens, but has no CBLAS */
    CHECK(!npk_blas_loaded());

    /* the first GEMM opens it, where there is one */
    CHECK_EQ(gemms_wrong(), 0u);
    const npk_blas *blas = npk_blas_get();
    if (must_open)
        CHECK(blas != NULL);
    if (blas) {
        CHECK(npk_blas_loaded());
        CHECK(npk_dense_uses_blas());
        CHECK(rksim_gemm_uses_blas());
        /* the mapping is the library it was opened by (a soname's base, e.g. libopenblas) */
        char base[256];
        const char *slash = strrchr(blas->name, '/');
        snprintf(base, sizeof base, "%s", slash ? slash + 1 : blas->name);
        char *dot = strchr(base, '.');
        if (dot)
            *dot = '\0';
        CHECK(mapped(base));
        /* OpenBLAS's thread calls come together or not at all; a threaded one started its
         * workers now, not when the program was loaded */
        CHECK((blas->get_threads == NULL) == (blas->set_threads == NULL));
        if (blas->get_threads && blas->get_threads() > 1)
            CHECK(threads() > threads_before);
        /* a single-threaded stretch leaves the count as it found it */
        int before = blas->get_threads ? blas->get_threads() : 0;
        rksim_blas_single_begin();
        if (blas->get_threads)
            CHECK_EQ(blas->get_threads(), 1);
        CHECK_EQ(gemms_wrong(), 0u);
        rksim_blas_single_end();
        if (blas->get_threads)
            CHECK_EQ(blas->get_threads(), before);
        printf("BLAS: %s\n", blas->name);
    } else {
        printf("BLAS: none (the library's loops)\n");
    }
    return check_done();
}
