/* SPDX-License-Identifier: MIT */
/* The work of `npukit kt saxpy`, shared by its two forms (host: kt_saxpy.c, engine program:
 * kt_saxpy_engine.c): the -n option, the saxpy units, the operands in simulated DRAM, the rounds
 * of programs (64 elements per instruction, one program per unit per round, staged upward in one
 * block) and the check of y. Only how a round is dispatched and waited for differs. */
#ifndef NPUKIT_TOOLS_KT_SAXPY_JOB_H
#define NPUKIT_TOOLS_KT_SAXPY_JOB_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/kt.h"
#include "npukit/ktsim.h"
#include "npukit/kt_saxpy.h"

enum { KT_SAXPY_CHUNK = KT_SAXPY_INST_MAX_N, KT_SAXPY_MAX_UNITS = 16, KT_SAXPY_MAX_N = 1 << 20 };

typedef struct kt_saxpy_job {
    uint64_t n;
    float a;
    uint64_t x_off, y_off; /* DRAM offsets; y sits past the whole of x, however long */
    size_t padded;         /* n rounded up to whole 32-byte granules of floats */
    float *x, *y, *want;
    kt_flit *prog; /* one staging page */
    unsigned stage_flits;
    kt_unit sx[KT_SAXPY_MAX_UNITS];
    size_t nsx;
    uint64_t chunks, next; /* instructions in all, the next one to stage */
    uint8_t txn;
} kt_saxpy_job;

/* One round: each unit's program is count[u] flits from staging slot base[u] (count 0: idle). */
typedef struct kt_saxpy_round {
    unsigned flits;
    unsigned base[KT_SAXPY_MAX_UNITS], count[KT_SAXPY_MAX_UNITS];
} kt_saxpy_round;

/* Enumerate the saxpy units ('SX'), make the operands and upload x and y through the host memory
 * window at `mem` (the mesh's DRAM). Errors name the preset, the sizes and the limits. */
npk_status kt_saxpy_job_init(kt_saxpy_job *j, kt_dev *dev, uint64_t mem, uint64_t dram_size,
                             uint64_t n, const char *preset);
/* Build the next round's programs into j->prog; false when every instruction is staged. */
bool kt_saxpy_job_next_round(kt_saxpy_job *j, kt_saxpy_round *r, npk_status *s);
/* Read y back until it matches the host's a*x + y (a completion does not order against the unit's
 * DRAM write, so a few reads may be needed); *bad = elements that still differ. */
npk_status kt_saxpy_job_check(kt_saxpy_job *j, kt_transport *t, uint64_t mem, size_t *bad);
void kt_saxpy_job_free(kt_saxpy_job *j);
/* The instructions [first, end) ran `times` more times: their elements of y, as the unit computes
 * them, become a*x + y that many more times (what the check then wants). */
void kt_saxpy_job_again(kt_saxpy_job *j, uint64_t first, uint64_t end, uint32_t times);
/* The work of a program of `insts` instructions of KT_SAXPY_CHUNK elements, in mesh cycles, from
 * the preset's saxpy timing row (setup, two reads of 8 beats each with read_wait, the elements,
 * the 8-beat write burst, retire) — a lower bound, as it leaves out the mesh hops; 0 without a
 * row. Waits pause this long before their first read. */
uint64_t kt_saxpy_expect_cycles(const ktsim_config *cfg, unsigned insts);

#endif
