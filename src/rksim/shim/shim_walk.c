/* SPDX-License-Identifier: MIT */
/* Tree walks that meet the shim's device nodes. glibc's nftw reads directories inside the
 * library, where the interposed listings (shim_dirs.c) are not seen, so a walk of /dev, /dev/dri
 * or /dev/accel would miss the nodes. Here the C library's walk runs with a relay in front of
 * the caller's function: when it reports one of the nodes' directories (or their parent, /dev)
 * the relay also reports the nodes, and the nodes' directories, that the real tree lacks —
 * before the directory's own report with FTW_DEPTH, after it without — each with the stat a
 * board gives it (shim_stat.c) and its level. A walk rooted at a missing directory or at a node
 * is answered whole. FTW_ACTIONRETVAL's answers are honoured; with FTW_CHDIR the working
 * directory is not moved into a directory that exists only here. */
#define _GNU_SOURCE /* RTLD_NEXT, FTW_ACTIONRETVAL */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "shim_nodes.h"

#define EXPORT __attribute__((visibility("default")))

typedef int (*walk_fn)(const char *, const struct stat *, int, struct FTW *);
typedef int (*walk_fn64)(const char *, const struct stat64 *, int, struct FTW *);

static int (*real_nftw)(const char *, walk_fn, int, int);
static int (*real_nftw64)(const char *, walk_fn64, int, int);
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init(void)
{
    *(void **)&real_nftw = dlsym(RTLD_NEXT, "nftw");
    *(void **)&real_nftw64 = dlsym(RTLD_NEXT, "nftw64");
}

/* One walk: the caller's function and flags, and how the paths it is given map to absolute
 * ones (the root as given, and its absolute form). */
typedef struct walk {
    walk_fn fn;     /* nftw's */
    walk_fn64 fn64; /* or nftw64's (LP64: struct stat64 is struct stat) */
    int flags;
    const char *root;
    char abs_root[PATH_MAX];
} walk;
static _Thread_local walk *current;

enum { GO_ON, SKIP_SUBTREE, SKIP_SIBLINGS, STOP };

static int call(const walk *w, const char *path, const struct stat *st, int type, struct FTW *f)
{
    return w->fn ? w->fn(path, st, type, f) : w->fn64(path, (const struct stat64 *)st, type, f);
}

/* What the caller's answer means: with FTW_ACTIONRETVAL its four values, else 0 goes on and
 * anything else stops the walk (and is nftw's result). */
static int verdict(const walk *w, int rc)
{
    if (!(w->flags & FTW_ACTIONRETVAL))
        return rc ? STOP : GO_ON;
    switch (rc) {
    case FTW_CONTINUE: return GO_ON;
    case FTW_SKIP_SUBTREE: return SKIP_SUBTREE;
    case FTW_SKIP_SIBLINGS: return SKIP_SIBLINGS;
    default: return STOP;
    }
}

/* Report `name` under the reported directory `path` (absolute form `abs`) at `level`. */
static int report(const walk *w, const char *path, const char *name, const struct stat *st,
                  int type, int level, char *buf, size_t cap)
{
    size_t n = strlen(path);
    bool slash = n && path[n - 1] == '/';
    snprintf(buf, cap, "%s%s%s", path, slash ? "" : "/", name);
    struct FTW f = {.base = (int)(n + !slash), .level = level};
    return call(w, buf, st, type, &f);
}

/* Report what the real directory abs (reported as `path`) lacks: the nodes in it, and the
 * nodes' directories under it with their nodes. Returns the caller's last answer that ends the
 * walk or its siblings, else 0. */
static int inject(const walk *w, const char *path, const char *abs, int level)
{
    char buf[PATH_MAX], sub[PATH_MAX];
    struct stat st;
    int rc = 0;
    /* nodes directly in abs */
    for (size_t i = 0; i < shim_nnodes; i++) {
        const shim_node *n = &shim_nodes[i];
        snprintf(sub, sizeof sub, "%s/%s", n->dir, n->name);
        if (strcmp(n->dir, abs) || shim_real_exists(sub))
            continue;
        shim_node_stat(n, &st);
        rc = report(w, path, n->name, &st, FTW_F, level, buf, sizeof buf);
        if (verdict(w, rc) >= SKIP_SIBLINGS)
            return rc;
    }
    /* the nodes' directories under abs that are missing here (each once) */
    for (size_t i = 0; i < shim_nnodes; i++) {
        const char *dir = shim_nodes[i].dir, *slash = strrchr(dir, '/');
        size_t plen = (size_t)(slash - dir);
        bool dup = false;
        for (size_t j = 0; j < i; j++)
            dup |= !strcmp(shim_nodes[j].dir, dir);
        if (dup || strlen(abs) != plen || strncmp(dir, abs, plen) || shim_real_exists(dir))
            continue;
        char dpath[PATH_MAX];
        shim_dir_stat(dir, &st);
        snprintf(dpath, sizeof dpath, "%s%s%s", path,
                 strlen(path) && path[strlen(path) - 1] == '/' ? "" : "/", slash + 1);
        const bool depth = w->flags & FTW_DEPTH;
        if (!depth) {
            rc = report(w, path, slash + 1, &st, FTW_D, level, buf, sizeof buf);
            int v = verdict(w, rc);
            if (v >= SKIP_SIBLINGS)
                return rc;
            if (v == SKIP_SUBTREE)
                continue;
        }
        rc = inject(w, dpath, dir, level + 1);
        if (verdict(w, rc) == STOP)
            return rc;
        if (depth) {
            shim_dir_stat(dir, &st);
            rc = report(w, path, slash + 1, &st, FTW_DP, level, buf, sizeof buf);
            if (verdict(w, rc) >= SKIP_SIBLINGS)
                return rc;
        }
    }
    return 0;
}

/* The absolute form of a path the walk reports (its root as given, then the rest). */
static bool abs_of(const walk *w, const char *path, char *out, size_t cap)
{
    size_t n = strlen(w->root);
    char joined[PATH_MAX];
    if (strncmp(path, w->root, n) ||
        snprintf(joined, sizeof joined, "%s/%s", w->abs_root, path + n) >= (int)sizeof joined)
        return false;
    return shim_abs_path(AT_FDCWD, joined, out, cap);
}

/* The relay the C library's walk calls. */
static int relay(const char *path, const struct stat *st, int type, struct FTW *f)
{
    walk *w = current;
    char abs[PATH_MAX];
    bool dir = type == FTW_D || type == FTW_DP;
    if (!dir || !abs_of(w, path, abs, sizeof abs))
        return call(w, path, st, type, f);
    if (type == FTW_DP) {
        int rc = inject(w, path, abs, f->level + 1);
        if (verdict(w, rc) == STOP)
            return rc;
        return call(w, path, st, type, f);
    }
    int rc = call(w, path, st, type, f);
    if (verdict(w, rc) != GO_ON)
        return rc;
    rc = inject(w, path, abs, f->level + 1);
    /* a skip of the injected siblings ends nothing of the real walk */
    return verdict(w, rc) == STOP ? rc : 0;
}

/* A walk rooted where the real tree has nothing: a node, or a missing nodes' directory. */
static int walk_synthetic(walk *w, const char *abs)
{
    struct stat st;
    const shim_node *n = shim_node_at(abs);
    const char *base = strrchr(w->root, '/');
    struct FTW f = {.base = base && base[1] ? (int)(base - w->root + 1) : 0, .level = 0};
    if (n) {
        shim_node_stat(n, &st);
        return call(w, w->root, &st, FTW_F, &f);
    }
    shim_dir_stat(abs, &st);
    const bool depth = w->flags & FTW_DEPTH;
    int rc = depth ? 0 : call(w, w->root, &st, FTW_D, &f);
    int v = verdict(w, rc);
    if (v == STOP)
        return rc;
    if (v == GO_ON) {
        rc = inject(w, w->root, abs, 1);
        if (verdict(w, rc) == STOP)
            return rc;
    }
    if (depth)
        rc = call(w, w->root, &st, FTW_DP, &f);
    return (w->flags & FTW_ACTIONRETVAL) && verdict(w, rc) != STOP ? 0 : rc;
}

static int walk_tree(walk *w, const char *root, int nopenfd)
{
    pthread_once(&once, init);
    w->root = root;
    if (!root || !(w->fn || w->fn64) ||
        !shim_abs_path(AT_FDCWD, root, w->abs_root, sizeof w->abs_root))
        return w->fn ? real_nftw(root, w->fn, nopenfd, w->flags)
                     : real_nftw64(root, w->fn64, nopenfd, w->flags);
    walk *outer = current; /* the caller's function may walk too */
    current = w;
    int rc;
    if ((shim_node_at(w->abs_root) || shim_node_dir(w->abs_root)) && !shim_real_exists(w->abs_root))
        rc = walk_synthetic(w, w->abs_root);
    else
        rc = real_nftw(root, relay, nopenfd, w->flags);
    current = outer;
    return rc;
}

EXPORT int nftw(const char *root, walk_fn fn, int nopenfd, int flags)
{
    walk w = {.fn = fn, .flags = flags};
    return walk_tree(&w, root, nopenfd);
}

EXPORT int nftw64(const char *root, walk_fn64 fn, int nopenfd, int flags)
{
    walk w = {.fn64 = fn, .flags = flags};
    return walk_tree(&w, root, nopenfd);
}
