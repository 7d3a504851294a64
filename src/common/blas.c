/* SPDX-License-Identifier: MIT */
/* Opening the BLAS on first use (see blas.h). */
#include "common/blas.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"

#ifdef NPUKIT_BLAS_SONAME
static const char *const built_in = NPUKIT_BLAS_SONAME;
#else
static const char *const built_in = NULL; /* built without a BLAS (NPUKIT_WITH_BLAS=OFF) */
#endif

static npk_blas blas;
static atomic_bool opened;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* dlsym's void * as a function pointer: POSIX guarantees the conversion, ISO C has no cast for
 * it, so the bits are copied. */
static bool symbol(void *lib, const char *name, void *fn, size_t size)
{
    void *p = dlsym(lib, name);
    if (p)
        memcpy(fn, &p, size);
    return p != NULL;
}

static void open_blas(void)
{
    const char *env = getenv("NPUKIT_BLAS");
    bool asked = env && *env;
    if (asked && !strcmp(env, "off"))
        return;
    if (!built_in) { /* NPUKIT_WITH_BLAS=OFF means none, whatever the environment says */
        if (asked)
            npk_log(NPK_LOG_WARN, "npukit",
                    "NPUKIT_BLAS=%s ignored: this build has no BLAS (NPUKIT_WITH_BLAS=OFF)", env);
        return;
    }
    const char *name = asked ? env : built_in;
    /* RTLD_LOCAL: its symbols stay out of the process's namespace, where another copy of a
     * BLAS (a Python module's, say) may already be. */
    void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        /* the build's own choice may simply not be installed: only a request is an error */
        npk_log(asked ? NPK_LOG_WARN : NPK_LOG_DEBUG, "npukit",
                "NPUKIT_BLAS: cannot open %s (%s): GEMMs run in the library's own loops", name,
                dlerror());
        return;
    }
    npk_blas b = {.name = name};
    if (!symbol(lib, "cblas_sgemm", &b.sgemm, sizeof b.sgemm) ||
        !symbol(lib, "cblas_dgemm", &b.dgemm, sizeof b.dgemm)) {
        npk_log(asked ? NPK_LOG_WARN : NPK_LOG_DEBUG, "npukit",
                "NPUKIT_BLAS: %s has no cblas_sgemm or cblas_dgemm: GEMMs run in the library's "
                "own loops",
                name);
        dlclose(lib);
        return;
    }
    /* OpenBLAS's own calls, which the simulators use to keep a call on one thread */
    if (!symbol(lib, "openblas_get_num_threads", &b.get_threads, sizeof b.get_threads) ||
        !symbol(lib, "openblas_set_num_threads", &b.set_threads, sizeof b.set_threads))
        b.get_threads = NULL, b.set_threads = NULL;
    npk_log(NPK_LOG_DEBUG, "npukit", "BLAS: %s", name);
    blas = b; /* never closed: its threads may still be running when the process ends */
    atomic_store_explicit(&opened, true, memory_order_release);
}

const npk_blas *npk_blas_get(void)
{
    if (!atomic_load_explicit(&opened, memory_order_acquire))
        pthread_once(&once, open_blas);
    return atomic_load_explicit(&opened, memory_order_acquire) ? &blas : NULL;
}

bool npk_blas_loaded(void) { return atomic_load_explicit(&opened, memory_order_acquire); }
