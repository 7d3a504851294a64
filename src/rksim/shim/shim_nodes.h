/* SPDX-License-Identifier: MIT */
/* The device nodes the shim answers (shim.c's fixed paths) as the ways of finding files see
 * them: their directories, their character-device numbers, and the path arithmetic the
 * listing (shim_dirs.c), lookup (shim_stat.c) and walk (shim_walk.c) interposers share. */
#ifndef NPUKIT_SHIM_NODES_H
#define NPUKIT_SHIM_NODES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

typedef struct shim_node {
    const char *dir, *name;
    unsigned major, minor; /* the character device a board shows */
} shim_node;

extern const shim_node shim_nodes[];
extern const size_t shim_nnodes;

/* The canonical name of one of the nodes' directories when `path` (already absolute and
 * normalised) is one, else NULL. */
const char *shim_node_dir(const char *path);
/* The node an absolute, normalised path names, else NULL. */
const shim_node *shim_node_at(const char *path);
/* An absolute, normalised form of `path` ("." and ".." resolved lexically, no repeated or
 * trailing '/'): relative paths are taken from dirfd (AT_FDCWD: the working directory). False
 * when it cannot be formed (a bad dirfd, too long). */
bool shim_abs_path(int dirfd, const char *path, char *out, size_t cap);
/* Whether an absolute path exists on the real file system (the real access()). */
bool shim_real_exists(const char *abs);
/* The stat a board gives a node (a character device, root's, rw for all) or one of the
 * nodes' directories that is missing here (root's, 0755). */
void shim_node_stat(const shim_node *n, struct stat *st);
void shim_dir_stat(const char *dir, struct stat *st);

#endif
