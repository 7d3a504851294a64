/* The options the rk matmul-shaped commands share (synth, plan, matmul, bench), parsed once. */
#ifndef NPUKIT_TOOLS_RK_OPTS_H
#define NPUKIT_TOOLS_RK_OPTS_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "npukit/rk_soc.h"
#include "npukit/rk_types.h"

typedef struct rk_shape_opts {
    npk_rk_prec in, out;
    bool have_in, have_out;
    uint32_t m, k, n;
    int mode;              /* -1: the dtype's default */
    const npk_rk_soc *soc; /* NULL: RK3588 */
    int cores;             /* 0: all */
    int chain;             /* 0: the runtime's default (1 task per submit) */
    const char *device;    /* "auto" */
} rk_shape_opts;

void rk_shape_opts_init(rk_shape_opts *o);
/* s as the inside of a JSON string (quotes, backslashes and control characters escaped), in
 * buf; returns buf. A device path is the one free-form value the rk commands print in JSON. */
const char *rk_json_escape(const char *s, char *buf, size_t len);
/* One option and its value: --dtype, --out, -m, -k, -n, --mode, --soc, --cores, --chain,
 * --device.
 * Returns 1 when consumed, 0 when `opt` is not one of them, -1 for a bad value (printed). */
int rk_shape_opt(rk_shape_opts *o, const char *opt, const char *value);
/* True when `opt` takes a value: one of rk_shape_opt's options or one of `own` (NULL-ended).
 * Checked before the value is taken, so an unknown last option is reported as unknown rather
 * than as an option missing its value. */
bool rk_opt_takes_value(const char *opt, const char *const *own);
/* True when --dtype, -m, -k and -n were all given; otherwise prints what `cmd` needs. Fills in
 * the default output precision. */
bool rk_shape_complete(rk_shape_opts *o, const char *cmd);

/* The option at argv[*i], which takes a value: refuses one that is neither a shape option nor
 * one of `own` (printing "unknown option" and the usage), fetches its value (advancing *i) and
 * parses it when it is a shape option. Returns -1 after printing an error, 1 when a shape
 * option took it, 0 when it is one of `own`, its value in *value. */
int rk_opt_value(const char *cmd, int argc, char **argv, int *i, const char *const *own,
                 rk_shape_opts *so, const char **value, void (*usage)(FILE *));

#endif
