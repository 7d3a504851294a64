/* SPDX-License-Identifier: MIT */
/* Locating data files: an environment variable, the installed layout relative to the binary,
 * then the configured prefix. Never the source tree: an installed copy must not depend on it. */
#define _GNU_SOURCE /* dladdr */
#include "data.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npukit/install_dirs.h" /* NPUKIT_INSTALL_DATA_DIR, generated from the prefix */

static bool readable(const char *path) { return access(path, R_OK) == 0; }

/* dir/rel into out when it exists; appends dir to the list of places tried. */
static bool try_dir(const char *dir, const char *rel, char *out, size_t len, char *tried,
                    size_t tlen)
{
    if (!dir || !*dir)
        return false;
    int n = snprintf(out, len, "%s/%s", dir, rel);
    if (n > 0 && (size_t)n < len && readable(out))
        return true;
    /* The library and the program often sit in one directory: name each place once. */
    size_t used = strlen(tried), dl = strlen(dir);
    for (const char *at = tried; (at = strstr(at, dir)) != NULL; at += dl)
        if ((at == tried || at[-1] == ' ') && (at[dl] == ',' || at[dl] == '\0'))
            return false;
    snprintf(tried + used, tlen - used, "%s%s", used ? ", " : "", dir);
    return false;
}

/* The directory part of a file's path (in place). */
static void dirname_of(char *path)
{
    char *slash = strrchr(path, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(path, 2, ".");
}

/* share/npukit beside (a build tree) and above (PREFIX/bin, PREFIX/lib) the file `binary`, and
 * where the configured layout puts it from the library's directory (PREFIX/lib/TRIPLET). */
static bool near(const char *binary, const char *rel, char *out, size_t len, char *tried,
                 size_t tlen)
{
    char dir[PATH_MAX], cand[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s", binary);
    dirname_of(dir);
    snprintf(cand, sizeof cand, "%s/share/npukit", dir);
    if (try_dir(cand, rel, out, len, tried, tlen))
        return true;
    snprintf(cand, sizeof cand, "%s/../share/npukit", dir);
    if (try_dir(cand, rel, out, len, tried, tlen))
        return true;
    if (!strcmp(NPUKIT_LIBDIR_TO_DATA, "../share/npukit"))
        return false; /* the same place, tried */
    snprintf(cand, sizeof cand, "%s/%s", dir, NPUKIT_LIBDIR_TO_DATA);
    return try_dir(cand, rel, out, len, tried, tlen);
}

bool npk_data_path(const char *rel, char *out, size_t len)
{
    char tried[2048] = "";
    if (try_dir(getenv("NPUKIT_DATA_DIR"), rel, out, len, tried, sizeof tried))
        return true;
    /* the shared library (or the program, when linked statically) holding this function */
    Dl_info info;
    char real[PATH_MAX];
    if (dladdr((void *)npk_data_path, &info) && info.dli_fname && realpath(info.dli_fname, real) &&
        near(real, rel, out, len, tried, sizeof tried))
        return true;
    ssize_t n = readlink("/proc/self/exe", real, sizeof real - 1);
    if (n > 0) {
        real[n] = '\0';
        if (near(real, rel, out, len, tried, sizeof tried))
            return true;
    }
    if (try_dir(NPUKIT_INSTALL_DATA_DIR, rel, out, len, tried, sizeof tried))
        return true;
    snprintf(out, len, "%s (in none of: %s; NPUKIT_DATA_DIR names another)", rel, tried);
    return false;
}
