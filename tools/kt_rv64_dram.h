/* SPDX-License-Identifier: MIT */
/* `kt rv64 run --dram-in ADDR:FILE` / `--dram-out ADDR:BYTES:FILE`: the card memory a program
 * works on, filled from files before the boot and saved to files after the run. A program on the
 * complex has no path to node DRAM itself (it reaches memory only through the mover and the
 * units), so this is how its inputs get there and its results get out. */
#ifndef NPUKIT_TOOLS_KT_RV64_DRAM_H
#define NPUKIT_TOOLS_KT_RV64_DRAM_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"
#include "npukit/kt_transport.h"

enum { KT_RV64_DRAM_FILES = 8 };

typedef struct kt_rv64_dram_file {
    uint64_t addr, bytes; /* bytes: --dram-out only (--dram-in takes the file's size) */
    const char *path;
} kt_rv64_dram_file;

typedef struct kt_rv64_dram {
    kt_rv64_dram_file in[KT_RV64_DRAM_FILES], out[KT_RV64_DRAM_FILES];
    unsigned n_in, n_out;
} kt_rv64_dram;

/* CLI_CUSTOM parsers; the row's dest is the kt_rv64_dram. Repeatable up to 8 times each. */
bool kt_rv64_dram_parse_in(const cli_opt *row, const char *value, const char *cmd);
bool kt_rv64_dram_parse_out(const cli_opt *row, const char *value, const char *cmd);

/* Write the --dram-in files into card memory at mem_base + ADDR / read the --dram-out ranges into
 * their files. Each range must lie inside dram_size. Prints one error line and returns 1;
 * 0 on success. */
int kt_rv64_dram_load(const kt_rv64_dram *d, kt_transport *t, uint64_t mem_base, uint64_t dram_size,
                      const char *cmd);
int kt_rv64_dram_save(const kt_rv64_dram *d, kt_transport *t, uint64_t mem_base, uint64_t dram_size,
                      const char *cmd);

#endif
