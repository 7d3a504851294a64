/* SPDX-License-Identifier: MIT */
/* The shim's device nodes where programs look for them. Programs find the NPU by listing
 * /dev/accel or /dev/dri (opendir + readdir, or glob("/dev/accel/accel*")) before they open a
 * node, and a DMA heap by /dev/dma_heap; on x86 those directories are missing or hold other
 * nodes. Listings of them here show the nodes the shim answers (the real entries first, then the
 * shim's that are not already there; a directory missing here lists "." and ".." and the
 * nodes), and scandir() of one of those directories sees the same. A synthetic listing has no
 * descriptor: dirfd() of it fails with ENOTSUP (as for a directory stream without one). Single
 * lookups (stat, access, ...) are shim_stat.c's, tree walks (nftw) shim_walk.c's. */
#define _GNU_SOURCE /* RTLD_NEXT, dirent64, glob64 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fnmatch.h>
#include <glob.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim_nodes.h"

#define EXPORT __attribute__((visibility("default")))

/* The nodes the shim answers (shim.c's fixed paths), with the device numbers a board gives
 * them: DRM's major 226 (card minors from 0, render minors from 128), the accel subsystem's
 * 261, and a DMA heap's dynamically allocated major (253 stands for it). */
const shim_node shim_nodes[] = {
    {"/dev/dri", "card1", 226, 1},
    {"/dev/dri", "renderD129", 226, 129},
    {"/dev/accel", "accel0", 261, 0},
    {"/dev/dma_heap", "system", 253, 0},
};
const size_t shim_nnodes = sizeof shim_nodes / sizeof shim_nodes[0];
#define nodes shim_nodes
enum { NNODES = sizeof shim_nodes / sizeof shim_nodes[0] };

/* A listing of one of those directories: the real stream (NULL when the directory does not
 * exist), then the shim's nodes from `next` on. */
typedef struct shim_dir {
    DIR *real;
    const char *dir;
    size_t next;
    unsigned dots; /* "." and ".." listed (a directory missing here) */
    struct dirent64 ent;
    struct shim_dir *link;
} shim_dir;

static pthread_mutex_t dirs_lock = PTHREAD_MUTEX_INITIALIZER;
static shim_dir *dirs; /* the open listings, to recognise them */

static DIR *(*real_opendir)(const char *);
static struct dirent *(*real_readdir)(DIR *);
static struct dirent64 *(*real_readdir64)(DIR *);
static int (*real_closedir)(DIR *);
static void (*real_rewinddir)(DIR *);
static int (*real_dirfd)(DIR *);
static int (*real_access)(const char *, int);
static int (*real_glob)(const char *, int, int (*)(const char *, int), glob_t *);
static int (*real_scandir)(const char *, struct dirent ***, int (*)(const struct dirent *),
                           int (*)(const struct dirent **, const struct dirent **));
static int (*real_scandir64)(const char *, struct dirent64 ***, int (*)(const struct dirent64 *),
                             int (*)(const struct dirent64 **, const struct dirent64 **));
static int (*real_glob64)(const char *, int, int (*)(const char *, int), glob64_t *);
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init(void)
{
    real_opendir = (DIR * (*)(const char *)) dlsym(RTLD_NEXT, "opendir");
    real_readdir = (struct dirent * (*)(DIR *)) dlsym(RTLD_NEXT, "readdir");
    real_readdir64 = (struct dirent64 * (*)(DIR *)) dlsym(RTLD_NEXT, "readdir64");
    real_closedir = (int (*)(DIR *))dlsym(RTLD_NEXT, "closedir");
    real_rewinddir = (void (*)(DIR *))dlsym(RTLD_NEXT, "rewinddir");
    real_dirfd = (int (*)(DIR *))dlsym(RTLD_NEXT, "dirfd");
    real_access = (int (*)(const char *, int))dlsym(RTLD_NEXT, "access");
    real_glob =
        (int (*)(const char *, int, int (*)(const char *, int), glob_t *))dlsym(RTLD_NEXT, "glob");
    *(void **)&real_scandir = dlsym(RTLD_NEXT, "scandir");
    *(void **)&real_scandir64 = dlsym(RTLD_NEXT, "scandir64");
    real_glob64 = (int (*)(const char *, int, int (*)(const char *, int), glob64_t *))dlsym(
        RTLD_NEXT, "glob64");
}

/* The canonical directory name of path when it is one of the nodes' directories ("/dev/dri"
 * and "/dev/dri/" alike), else NULL. */
static const char *our_dir(const char *path)
{
    if (!path)
        return NULL;
    for (size_t i = 0; i < NNODES; i++) {
        size_t n = strlen(nodes[i].dir);
        if (!strncmp(path, nodes[i].dir, n) && (!path[n] || (path[n] == '/' && !path[n + 1])))
            return nodes[i].dir;
    }
    return NULL;
}

const char *shim_node_dir(const char *path) { return our_dir(path); }

const shim_node *shim_node_at(const char *path)
{
    for (size_t i = 0; path && i < NNODES; i++) {
        size_t n = strlen(nodes[i].dir);
        if (!strncmp(path, nodes[i].dir, n) && path[n] == '/' &&
            !strcmp(path + n + 1, nodes[i].name))
            return &nodes[i];
    }
    return NULL;
}

bool shim_real_exists(const char *abs)
{
    pthread_once(&once, init);
    return real_access(abs, F_OK) == 0;
}

static shim_dir *find(DIR *d)
{
    pthread_mutex_lock(&dirs_lock);
    shim_dir *s = dirs;
    while (s && (DIR *)s != d)
        s = s->link;
    pthread_mutex_unlock(&dirs_lock);
    return s;
}

EXPORT DIR *opendir(const char *name)
{
    pthread_once(&once, init);
    const char *dir = our_dir(name);
    DIR *real = real_opendir(name);
    if (!dir)
        return real;
    shim_dir *s = calloc(1, sizeof *s);
    if (!s) {
        if (real)
            real_closedir(real);
        errno = ENOMEM;
        return NULL;
    }
    s->real = real;
    s->dir = dir;
    pthread_mutex_lock(&dirs_lock);
    s->link = dirs;
    dirs = s;
    pthread_mutex_unlock(&dirs_lock);
    return (DIR *)s;
}

/* Whether the real listing of s's directory has an entry `name`. */
static bool real_has(const shim_dir *s, const char *name)
{
    char path[64];
    snprintf(path, sizeof path, "%s/%s", s->dir, name);
    return real_access(path, F_OK) == 0;
}

/* The next of the shim's nodes in s's directory that the real listing lacks; a directory
 * that is missing here lists "." and ".." first, as every real one does. */
static struct dirent64 *next_node(shim_dir *s)
{
    if (!s->real && s->dots < 2) {
        memset(&s->ent, 0, sizeof s->ent);
        s->ent.d_ino = 1;
        s->ent.d_reclen = sizeof s->ent;
        s->ent.d_type = DT_DIR;
        snprintf(s->ent.d_name, sizeof s->ent.d_name, "%s", s->dots++ ? ".." : ".");
        return &s->ent;
    }
    while (s->next < NNODES) {
        const shim_node *n = &nodes[s->next++];
        if (strcmp(n->dir, s->dir) || (s->real && real_has(s, n->name)))
            continue;
        memset(&s->ent, 0, sizeof s->ent);
        s->ent.d_ino = 1 + s->next;
        s->ent.d_reclen = sizeof s->ent;
        s->ent.d_type = DT_CHR;
        snprintf(s->ent.d_name, sizeof s->ent.d_name, "%s", n->name);
        return &s->ent;
    }
    return NULL;
}

EXPORT struct dirent64 *readdir64(DIR *d)
{
    pthread_once(&once, init);
    shim_dir *s = find(d);
    if (!s)
        return real_readdir64(d);
    struct dirent64 *e = s->real ? real_readdir64(s->real) : NULL;
    return e ? e : next_node(s);
}

/* LP64: struct dirent and struct dirent64 are one layout. */
EXPORT struct dirent *readdir(DIR *d)
{
    pthread_once(&once, init);
    shim_dir *s = find(d);
    if (!s)
        return real_readdir(d);
    return (struct dirent *)readdir64(d);
}

EXPORT int closedir(DIR *d)
{
    pthread_once(&once, init);
    pthread_mutex_lock(&dirs_lock);
    shim_dir **p = &dirs;
    while (*p && (DIR *)*p != d)
        p = &(*p)->link;
    shim_dir *s = *p;
    if (s)
        *p = s->link;
    pthread_mutex_unlock(&dirs_lock);
    if (!s)
        return real_closedir(d);
    int rc = s->real ? real_closedir(s->real) : 0;
    free(s);
    return rc;
}

EXPORT void rewinddir(DIR *d)
{
    pthread_once(&once, init);
    shim_dir *s = find(d);
    if (!s) {
        real_rewinddir(d);
        return;
    }
    if (s->real)
        real_rewinddir(s->real);
    s->next = 0;
    s->dots = 0;
}

EXPORT int dirfd(DIR *d)
{
    pthread_once(&once, init);
    shim_dir *s = find(d);
    if (!s)
        return real_dirfd(d);
    if (s->real)
        return real_dirfd(s->real);
    errno = ENOTSUP;
    return -1;
}

/* scandir of one of the nodes' directories, through the listing above (glibc's own scandir
 * opens the directory inside the library, where opendir is not interposed). The caller's
 * functions for either entry type (LP64: struct dirent and struct dirent64 are one layout). */
typedef struct scan_calls {
    int (*filter)(const struct dirent *);
    int (*compar)(const struct dirent **, const struct dirent **);
    int (*filter64)(const struct dirent64 *);
    int (*compar64)(const struct dirent64 **, const struct dirent64 **);
} scan_calls;
static _Thread_local const scan_calls *sorting;

static int by_compar(const void *a, const void *b)
{
    if (sorting->compar)
        return sorting->compar((const struct dirent **)a, (const struct dirent **)b);
    return sorting->compar64((const struct dirent64 **)a, (const struct dirent64 **)b);
}

static int scan_ours(const char *dir, struct dirent64 ***list, const scan_calls *c)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent64 **v = NULL, *e;
    size_t n = 0, cap = 0;
    int err = 0;
    while ((e = readdir64(d))) {
        if (c->filter ? !c->filter((const struct dirent *)e) : c->filter64 && !c->filter64(e))
            continue;
        struct dirent64 *copy = malloc(sizeof *copy);
        struct dirent64 **grown = v;
        if (copy && n == cap && (grown = realloc(v, (cap ? 2 * cap : 8) * sizeof *v)))
            cap = cap ? 2 * cap : 8;
        if (!copy || !grown) {
            free(copy);
            err = ENOMEM;
            break;
        }
        v = grown;
        memcpy(copy, e, sizeof *copy);
        v[n++] = copy;
    }
    closedir(d);
    if (err) {
        while (n)
            free(v[--n]);
        free(v);
        errno = err;
        return -1;
    }
    if ((c->compar || c->compar64) && n > 1) {
        const scan_calls *outer = sorting; /* a comparator may scan too */
        sorting = c;
        qsort(v, n, sizeof *v, by_compar);
        sorting = outer;
    }
    *list = v;
    return (int)n;
}

EXPORT int scandir64(const char *dir, struct dirent64 ***list,
                     int (*filter)(const struct dirent64 *),
                     int (*compar)(const struct dirent64 **, const struct dirent64 **))
{
    pthread_once(&once, init);
    if (!our_dir(dir))
        return real_scandir64(dir, list, filter, compar);
    const scan_calls c = {.filter64 = filter, .compar64 = compar};
    return scan_ours(our_dir(dir), list, &c);
}

EXPORT int scandir(const char *dir, struct dirent ***list, int (*filter)(const struct dirent *),
                   int (*compar)(const struct dirent **, const struct dirent **))
{
    pthread_once(&once, init);
    if (!our_dir(dir))
        return real_scandir(dir, list, filter, compar);
    const scan_calls c = {.filter = filter, .compar = compar};
    return scan_ours(our_dir(dir), (struct dirent64 ***)list, &c);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Add the shim's nodes that match pat to a glob result (either glob_t: the fields used have
 * one layout), sorted like glob's own unless GLOB_NOSORT. */
static int add_nodes(const char *pat, int flags, int rc, size_t *pathc, char ***pathv, size_t offs)
{
    if (rc && rc != GLOB_NOMATCH)
        return rc;
    size_t first = (flags & GLOB_APPEND) ? *pathc : 0;
    if (rc == 0 && (flags & GLOB_NOCHECK) && *pathc == first + 1 &&
        !strcmp((*pathv)[offs + first], pat)) {
        /* glob returned the pattern itself for want of a match; the nodes may match it */
        bool any = false;
        for (size_t i = 0; i < NNODES && !any; i++) {
            char path[64];
            snprintf(path, sizeof path, "%s/%s", nodes[i].dir, nodes[i].name);
            any = !fnmatch(pat, path, FNM_PATHNAME | FNM_PERIOD);
        }
        if (!any)
            return rc;
        free((*pathv)[offs + first]);
        (*pathc)--;
    }
    size_t added = 0;
    for (size_t i = 0; i < NNODES; i++) {
        char path[64];
        snprintf(path, sizeof path, "%s/%s", nodes[i].dir, nodes[i].name);
        if (fnmatch(pat, path, FNM_PATHNAME | FNM_PERIOD))
            continue;
        bool have = false;
        for (size_t j = 0; j < *pathc && !have; j++)
            have = !strcmp((*pathv)[offs + j], path);
        if (have)
            continue;
        bool fresh = !*pathv;
        char **v = realloc(*pathv, (offs + *pathc + 2) * sizeof *v);
        char *copy = v ? strdup(path) : NULL;
        if (!copy) {
            if (v)
                *pathv = v;
            return GLOB_NOSPACE;
        }
        if (fresh)
            for (size_t j = 0; j < offs; j++)
                v[j] = NULL;
        v[offs + (*pathc)++] = copy;
        v[offs + *pathc] = NULL;
        *pathv = v;
        added++;
    }
    if (added && !(flags & GLOB_NOSORT))
        qsort(*pathv + offs + first, *pathc - first, sizeof **pathv, by_name);
    return *pathc > first ? 0 : rc;
}

EXPORT int glob(const char *pat, int flags, int (*errfunc)(const char *, int), glob_t *g)
{
    pthread_once(&once, init);
    int rc = real_glob(pat, flags, errfunc, g);
    return add_nodes(pat, flags, rc, &g->gl_pathc, &g->gl_pathv, g->gl_offs);
}

EXPORT int glob64(const char *pat, int flags, int (*errfunc)(const char *, int), glob64_t *g)
{
    pthread_once(&once, init);
    int rc = real_glob64(pat, flags, errfunc, g);
    return add_nodes(pat, flags, rc, &g->gl_pathc, &g->gl_pathv, g->gl_offs);
}
