/* SPDX-License-Identifier: MIT */
/* Card memory in and out of files around an RV64 run: see kt_rv64_dram.h. */
#include "kt_rv64_dram.h"

#include <inttypes.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_FILE_BYTES = 64u << 20 };

/* ADDR (decimal or 0x hex) up to the first ':'; *rest points past it. */
static bool split_addr(const char *cmd, const char *opt, const char *value, uint64_t *addr,
                       const char **rest)
{
    const char *colon = strchr(value, ':');
    if (!colon || colon == value || !colon[1]) {
        fprintf(stderr, "npukit %s: %s '%s' must be %s\n", cmd, opt, value,
                strcmp(opt, "--dram-in") ? "ADDR:BYTES:FILE" : "ADDR:FILE");
        return false;
    }
    char num[32];
    size_t len = (size_t)(colon - value);
    if (len >= sizeof num) {
        fprintf(stderr, "npukit %s: %s '%s': the address is too long\n", cmd, opt, value);
        return false;
    }
    memcpy(num, value, len);
    num[len] = '\0';
    *rest = colon + 1;
    return cli_number(cmd, opt, num, true, 0, UINT64_MAX, addr);
}

static kt_rv64_dram_file *slot(kt_rv64_dram_file *list, unsigned *n, const char *cmd,
                               const char *opt)
{
    if (*n >= KT_RV64_DRAM_FILES) {
        fprintf(stderr, "npukit %s: %s given more than %u times\n", cmd, opt, KT_RV64_DRAM_FILES);
        return NULL;
    }
    return &list[(*n)++];
}

bool kt_rv64_dram_parse_in(const cli_opt *row, const char *value, const char *cmd)
{
    kt_rv64_dram *d = row->dest;
    uint64_t addr;
    const char *path;
    if (!split_addr(cmd, row->name, value, &addr, &path))
        return false;
    kt_rv64_dram_file *f = slot(d->in, &d->n_in, cmd, row->name);
    if (!f)
        return false;
    *f = (kt_rv64_dram_file){addr, 0, path};
    return true;
}

bool kt_rv64_dram_parse_out(const cli_opt *row, const char *value, const char *cmd)
{
    kt_rv64_dram *d = row->dest;
    uint64_t addr, bytes;
    const char *rest;
    if (!split_addr(cmd, row->name, value, &addr, &rest))
        return false;
    const char *colon = strchr(rest, ':');
    if (!colon || colon == rest || !colon[1]) {
        fprintf(stderr, "npukit %s: %s '%s' must be ADDR:BYTES:FILE\n", cmd, row->name, value);
        return false;
    }
    char num[32];
    size_t len = (size_t)(colon - rest);
    if (len >= sizeof num) {
        fprintf(stderr, "npukit %s: %s '%s': the byte count is too long\n", cmd, row->name, value);
        return false;
    }
    memcpy(num, rest, len);
    num[len] = '\0';
    if (!cli_number(cmd, row->name, num, false, 1, MAX_FILE_BYTES, &bytes))
        return false;
    kt_rv64_dram_file *f = slot(d->out, &d->n_out, cmd, row->name);
    if (!f)
        return false;
    *f = (kt_rv64_dram_file){addr, bytes, colon + 1};
    return true;
}

static bool in_dram(const char *cmd, const char *opt, const kt_rv64_dram_file *f, uint64_t bytes,
                    uint64_t dram_size)
{
    if (f->addr <= dram_size && bytes <= dram_size - f->addr)
        return true;
    fprintf(stderr,
            "npukit %s: %s %s: 0x%" PRIx64 "+%" PRIu64 " bytes lies outside card memory (0x%" PRIx64
            " bytes)\n",
            cmd, opt, f->path, f->addr, bytes, dram_size);
    return false;
}

int kt_rv64_dram_load(const kt_rv64_dram *d, kt_transport *t, uint64_t mem_base, uint64_t dram_size,
                      const char *cmd)
{
    for (unsigned i = 0; i < d->n_in; i++) {
        const kt_rv64_dram_file *f = &d->in[i];
        FILE *fp = fopen(f->path, "rb");
        if (!fp) {
            fprintf(stderr, "npukit %s: --dram-in %s: cannot open\n", cmd, f->path);
            return 1;
        }
        size_t n = 0;
        uint8_t *buf = (uint8_t *)cli_read_capped(fp, MAX_FILE_BYTES, &n);
        fclose(fp);
        int rc = 0;
        if (!buf) {
            fprintf(stderr, "npukit %s: out of memory\n", cmd);
            rc = 1;
        } else if (n == 0 || n > MAX_FILE_BYTES) {
            fprintf(stderr, "npukit %s: --dram-in %s: %s (1..%u bytes)\n", cmd, f->path,
                    n ? "too large" : "empty", MAX_FILE_BYTES);
            rc = 1;
        } else if (!in_dram(cmd, "--dram-in", f, n, dram_size)) {
            rc = 1;
        } else if (kt_write_block(t, mem_base + f->addr, buf, n)) {
            rc = cli_lib_error(cmd);
        }
        free(buf);
        if (rc)
            return rc;
    }
    return 0;
}

int kt_rv64_dram_save(const kt_rv64_dram *d, kt_transport *t, uint64_t mem_base, uint64_t dram_size,
                      const char *cmd)
{
    for (unsigned i = 0; i < d->n_out; i++) {
        const kt_rv64_dram_file *f = &d->out[i];
        if (!in_dram(cmd, "--dram-out", f, f->bytes, dram_size))
            return 1;
        uint8_t *buf = malloc(f->bytes);
        if (!buf) {
            fprintf(stderr, "npukit %s: out of memory\n", cmd);
            return 1;
        }
        int rc = kt_read_block(t, mem_base + f->addr, buf, f->bytes) ? cli_lib_error(cmd) : 0;
        errno = 0;
        FILE *fp = rc ? NULL : fopen(f->path, "wb");
        if (!rc && (!fp || fwrite(buf, 1, f->bytes, fp) != f->bytes || fflush(fp))) {
            fprintf(stderr, "npukit %s: --dram-out %s: cannot write: %s\n", cmd, f->path,
                    strerror(errno ? errno : EIO));
            rc = 1;
        }
        if (fp && fclose(fp) && !rc) {
            fprintf(stderr, "npukit %s: --dram-out %s: cannot write: %s\n", cmd, f->path,
                    strerror(errno));
            rc = 1;
        }
        free(buf);
        if (rc)
            return rc;
    }
    return 0;
}
