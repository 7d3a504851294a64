/* SPDX-License-Identifier: MIT */
/* Operands for the rk runtime commands: random or read from files, and the CPU check. */
#ifndef NPUKIT_TOOLS_RK_OPERANDS_H
#define NPUKIT_TOOLS_RK_OPERANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "json_out.h"
#include "npukit/rk_reference.h"
#include "npukit/rk_types.h"
#include "rk_random.h"

typedef struct rk_operands {
    npk_rk_prec in, out;
    uint32_t m, k, n;
    void *a, *b, *c;
    size_t a_bytes, b_bytes, c_bytes; /* as allocated (rk_operands_make) */
} rk_operands;

struct rk_shape_opts;
/* Shape and precisions from the parsed options; the runtime's integer output is int32. */
void rk_operands_from_opts(rk_operands *o, const struct rk_shape_opts *so);


/* Read exactly `bytes` bytes of a raw file into dst; false with a message naming the file and
 * the sizes otherwise. */
bool rk_read_file(const char *path, void *dst, uint64_t bytes);

/* Bytes per element of a user array (int4 is held one per int8_t). */
unsigned rk_elem_bytes(npk_rk_prec p);

/* Allocate; fill A and B from the files when given, else random (seeded): fp16 uniform in
 * [-1, 1), int8 full range, int4 [-8, 7]. Returns false with a message printed. */
bool rk_operands_make(rk_operands *o, const char *a_file, const char *b_file, uint64_t seed);
void rk_operands_free(rk_operands *o);

/* Judge C against the exact product (npk_rk_check_matmul: integers exact, floats within the
 * bound that holds for any fp32 summation order). Returns false with a message printed when
 * the check itself cannot run; the verdict is v->outside == 0. */
bool rk_operands_check(const rk_operands *o, npk_rk_verdict *v);

/* Open the runtime on so->device with so->cores / so->chain / so->submit and query it
 * (rk_runtime_open), and (rk_runtime_setup) pack o's B with M as the hint. Prints the error and
 * returns false on failure (*rt, *w may then be set and must still be released with
 * npk_rk_weights_free / npk_rk_close). */
struct npk_rk;
struct npk_rk_weights;
struct npk_rk_info;
bool rk_runtime_open(const struct rk_shape_opts *so, struct npk_rk **rt, struct npk_rk_info *info,
                     const char *cmd);
bool rk_runtime_setup(const struct rk_shape_opts *so, const rk_operands *o, struct npk_rk **rt,
                      struct npk_rk_weights **w, struct npk_rk_info *info, const char *cmd);

/* --json: the operation's members "dtype", "out", "m", "k", "n". */
void rk_json_shape(cJSON *doc, const rk_operands *o);

#endif
