/* SPDX-License-Identifier: MIT */
/* The options the rk commands share (synth, plan, exec, matmul, bench, ew), as option
 * rows: each command takes the groups it needs. */
#ifndef NPUKIT_TOOLS_RK_OPTS_H
#define NPUKIT_TOOLS_RK_OPTS_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "npukit/rk_soc.h"
#include "npukit/rk_types.h"

/* Option groups. */
enum {
    RK_OPT_SHAPE = 1u << 0,  /* --dtype --out -m -k -n */
    RK_OPT_MODE = 1u << 1,   /* --mode line|cube */
    RK_OPT_SOC = 1u << 2,    /* --soc */
    RK_OPT_CORES = 1u << 3,  /* --cores */
    RK_OPT_CHAIN = 1u << 4,  /* --chain --submit */
    RK_OPT_DEVICE = 1u << 5, /* --device --trace */
    RK_OPT_SEED = 1u << 6,   /* --seed */
    RK_OPT_ROWS = 14,
};

typedef struct rk_shape_opts {
    npk_rk_prec in, out;
    bool have_in, have_out, have_m, have_k, have_n;
    uint32_t m, k, n;
    int mode;              /* -1: the dtype's default */
    const npk_rk_soc *soc; /* NULL: RK3588 */
    int cores;             /* 0: all */
    int chain;             /* 0: the runtime's default (1 task per submit) */
    const char *submit;    /* the submission form (NULL: the runtime's default) */
    const char *device;    /* "auto" */
    uint64_t seed;         /* random operands' seed: 1 */
    cli_opt rows[RK_OPT_ROWS + 1];
} rk_shape_opts;

void rk_shape_opts_init(rk_shape_opts *o);
/* The rows of the groups in `groups`, writing into o; -m/-k/-n take 1..max_dim. */
const cli_opt *rk_shape_rows(rk_shape_opts *o, unsigned groups, uint32_t max_dim);
/* CLI_CUSTOM parser of --sched auto|0|1 into an int (NPK_SCHED_AUTO for auto). */
bool rk_parse_sched(const cli_opt *row, const char *v, const char *cmd);
/* --imm V[,V2]: an SDP immediate (batchnorm: scale,shift) into the row's double[2]. */
bool rk_parse_imm(const cli_opt *row, const char *v, const char *cmd);
/* False (printed) when --soc named a SoC other than the opened device's (a real NPU's row comes
 * from the device; --soc chooses what the simulator models). */
bool rk_soc_matches(const rk_shape_opts *o, const char *device_soc, const char *cmd);
/* True when --dtype, -m, -k and -n were all given; otherwise prints what `cmd` needs. Fills in
 * the default output precision. */
bool rk_shape_complete(rk_shape_opts *o, const char *cmd);

#endif
