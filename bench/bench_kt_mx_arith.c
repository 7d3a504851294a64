/* SPDX-License-Identifier: MIT */
/* The floor under bench_kt_matmul: the bit-exact MXFP7 arithmetic of one of its runs alone (two
 * clusters, each a 64 x 64 x 256 product: 512 entries quantised and packed by the memory port,
 * 512 entries unpacked and prepared by the clusters, 2 x 256 sub-tiles over 8 K blocks, 512
 * sub-tiles drained to FP16), with no mesh, port, orchestrator or host around it. Prints each
 * part's median CPU time per run, the whole as nanoseconds per simulated mesh cycle of that job
 * (15 237 cycles a run) and the mesh-cycle rate the arithmetic alone would allow, against the
 * simulator's goal of 40 M mesh cycles per second; and, in the same run, the same work through
 * the block-at-a-time kernels (kt_mx_subtile_fp22 on unpacked significands, one FP16 conversion
 * at a time) as the reference. Both paths' tiles are compared (they must be equal).
 *
 * Usage: bench_kt_mx_arith [runs]   (default 101) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/measure.h"
#include "kt/hw/mxfp.h"
#include "npukit/fp16.h"

enum { GM = 16, GN = 16, NK = 8, CLUSTERS = 2, ENTRIES = GM * NK, SUBTILES = GM * GN };
enum { JOB_CYCLES = 15237 }; /* bench_kt_matmul's mesh cycles a run */
static const double GOAL = 40e6;

typedef struct job {
    uint8_t in[2][ENTRIES][KT_MX_ENTRY_IN];
    uint8_t words[2][ENTRIES][KT_MX_ENTRY_OUT];
    int8_t q[2][ENTRIES][KT_MX_ENTRY_ELEMS];
    uint8_t field[2][ENTRIES][KT_MX_LANES];
    kt_mx_opnd op[2][ENTRIES];
    uint32_t tile[SUBTILES][16], ref_tile[SUBTILES][16];
    uint16_t out[SUBTILES][16];
} job;

enum { P_QUANT, P_RECV, P_SWEEP, P_DRAIN, P_REF_SWEEP, P_REF_DRAIN, PARTS };
static const char *const part_name[PARTS] = {
    "quantise + pack (port)", "unpack + prepare (cluster)", "sweeps",
    "drains to FP16",         "reference sweeps",           "reference drains",
};

static void quantise(job *j)
{
    for (int s = 0; s < 2; s++)
        for (int e = 0; e < ENTRIES; e++)
            kt_mx_quant_entry(j->in[s][e], s == 1, j->words[s][e]);
}

static void receive(job *j)
{
    for (int s = 0; s < 2; s++)
        for (int e = 0; e < ENTRIES; e++) {
            kt_mx_unpack_q(j->words[s][e], s == 1, j->q[s][e], j->field[s][e]);
            kt_mx_opnd_of(j->q[s][e], j->field[s][e], &j->op[s][e]);
        }
}

static void sweep(job *j)
{
    const kt_mx_opnd *a[NK], *b[NK];
    for (int g = 0; g < GM; g++)
        for (int h = 0; h < GN; h++) {
            for (int k = 0; k < NK; k++) {
                a[k] = &j->op[0][g * NK + k];
                b[k] = &j->op[1][h * NK + k];
            }
            kt_mx_subtile_run(a, b, NK, KT_MX_ANCHOR, true, j->tile[g * GN + h]);
        }
}

static void ref_sweep(job *j)
{
    for (int k = 0; k < NK; k++)
        for (int g = 0; g < GM; g++)
            for (int h = 0; h < GN; h++)
                kt_mx_subtile_fp22(j->q[0][g * NK + k], j->field[0][g * NK + k],
                                   j->q[1][h * NK + k], j->field[1][h * NK + k], KT_MX_ANCHOR,
                                   k == 0, j->ref_tile[g * GN + h]);
}

static void drain(job *j)
{
    for (int t = 0; t < SUBTILES; t++)
        kt_mx_fp22_to_fp16_n(j->tile[t], j->out[t], 16);
}

static void ref_drain(job *j)
{
    for (int t = 0; t < SUBTILES; t++)
        for (int e = 0; e < 16; e++)
            j->out[t][e] = kt_mx_fp22_to_fp16(j->ref_tile[t][e]);
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 101;
    if (runs < 1 || runs > 10000) {
        fprintf(stderr, "bench_kt_mx_arith: runs = %d, must be 1..10000\n", runs);
        return 2;
    }
    job *j = calloc(1, sizeof *j);
    double *t[PARTS];
    for (int p = 0; p < PARTS; p++)
        if (!(t[p] = calloc((size_t)runs, sizeof *t[p])))
            return 1;
    if (!j)
        return 1;
    uint64_t st = 3; /* bench_kt_matmul's operands: FP16 of uniform values in [-1, 1) */
    for (int s = 0; s < 2; s++)
        for (int e = 0; e < ENTRIES; e++)
            for (int i = 0; i < KT_MX_ENTRY_IN; i += 2) {
                st = st * 6364136223846793005ull + 1442695040888963407ull;
                uint16_t h = npk_f32_to_f16((float)((double)(st >> 11) * 0x1p-52 - 1.0));
                j->in[s][e][i] = (uint8_t)h;
                j->in[s][e][i + 1] = (uint8_t)(h >> 8);
            }
    void (*const fn[PARTS])(job *) = {quantise, receive, sweep, drain, ref_sweep, ref_drain};
    unsigned differ = 0;
    for (int r = 0; r < runs; r++) {
        for (int p = 0; p < PARTS; p++) {
            uint64_t c0 = npk_thread_cpu_ns();
            for (int c = 0; c < CLUSTERS; c++)
                fn[p](j);
            t[p][r] = (double)(npk_thread_cpu_ns() - c0);
        }
        differ += memcmp(j->tile, j->ref_tile, sizeof j->tile) != 0;
    }
    printf("kt MXFP7 arithmetic of one bench_kt_matmul run (%d clusters x 64 x 64 x 256), %d runs, "
           "median CPU time\n",
           CLUSTERS, runs);
    double med[PARTS];
    for (int p = 0; p < PARTS; p++) {
        med[p] = npk_median(t[p], (size_t)runs);
        printf("  %-28s %8.1f us\n", part_name[p], med[p] / 1e3);
    }
    double now = med[P_QUANT] + med[P_RECV] + med[P_SWEEP] + med[P_DRAIN];
    double ref = med[P_QUANT] + med[P_RECV] + med[P_REF_SWEEP] + med[P_REF_DRAIN];
    printf("  arithmetic alone            %8.1f us = %.2f ns a mesh cycle (%d cycles a run): "
           "at most %.1f M mesh cycles/s\n",
           now / 1e3, now / JOB_CYCLES, JOB_CYCLES, JOB_CYCLES / now * 1e3);
    printf("  with the reference kernels  %8.1f us: ratio reference/now %.2f\n", ref / 1e3,
           ref / now);
    printf("goal: %.0f M mesh cycles/s leaves %.1f us a run for everything; the arithmetic takes "
           "%.0f%% of it\n",
           GOAL / 1e6, JOB_CYCLES / GOAL * 1e6, 100 * now / (JOB_CYCLES / GOAL * 1e9));
    if (differ)
        fprintf(stderr, "bench_kt_mx_arith: the kernels' tiles differ in %u runs\n", differ);
    for (int p = 0; p < PARTS; p++)
        free(t[p]);
    free(j);
    return differ ? 1 : 0;
}
