/* SPDX-License-Identifier: MIT */
/* The program form each kernel driver expects, as rows of one table: the vendor rknpu driver
 * runs the vendor's CNA|CORE|DPU program (op-enable 0x0D, trailer outside regcfg_amount); the
 * mainline rocket driver needs op-enable 0x1D with a DPU_RDMA block whose main read is
 * disabled (facts B.3 "MRDMA trap", C.6), and counts the trailer inside regcmd_count (A.2). */
#ifndef NPUKIT_RK_KERNEL_H
#define NPUKIT_RK_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npukit/rk_regcmd.h"
#include "npukit/rk_synth.h"
#include "npukit/status.h"
#include "rk/hw/rk_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct npk_rk_kernel_form {
    const char *name;     /* "rknpu" or "rocket": the DRM driver name */
    uint32_t enable;      /* the op-enable mask in every trailer */
    bool rdma_block;      /* DPU_RDMA S_POINTER + the RDMA block with MRDMA_DISABLE */
    bool trailer_counted; /* the task's entry count includes the 4 trailer entries */
    bool kick_per_task;   /* each task of a job is its own PC run (rocket's TASK_NUMBER 1):
                             the trailers do not chain, and every task is a "first" task for
                             the feature cache (hazard 2) */
    const char *source;
    uint32_t int_mask_fixed; /* the interrupt mask the kernel programs for every task whatever
                                the task record says (rocket: DPU_0|DPU_1 0x300, facts A.2);
                                0 = the task record's int_mask (rknpu, facts A.1) */
} npk_rk_kernel_form;

/* Entries the DPU_RDMA additions take: its S_POINTER and the 17-register block (facts C.6). */
#define NPK_RK_RDMA_ENTRIES 18
/* The largest matmul body of any form. */
#define NPK_RK_BODY_MAX (NPK_RK_MATMUL_BODY + NPK_RK_RDMA_ENTRIES)

/* The row of a kernel by its driver name; NULL if there is none. */
const npk_rk_kernel_form *npk_rk_kernel_form_find(const char *name);
/* The rows, for listing them. */
unsigned npk_rk_kernel_form_count(void);
const npk_rk_kernel_form *npk_rk_kernel_form_at(unsigned i);

/* Synthesize the matmul body in kernel k's form into body[NPK_RK_BODY_MAX]: the vendor body,
 * plus for rocket the DPU_RDMA S_POINTER right after the DPU's and the RDMA block (its cube
 * the task's output M x N, FEATURE_MODE_CFG burst 15 | MRDMA_DISABLE, | MRDMA_FP16TOFP32_EN
 * for an fp16 output) after the LUT registers. *count receives the body's entries. */
npk_status npk_rk_synth_for(const npk_rk_kernel_form *k, const npk_rk_mm *mm,
                            npk_rk_entry body[NPK_RK_BODY_MAX], size_t *count,
                            npk_rk_synth_info *info);

/* Whether kernel k sees operation op's task complete: true unless the kernel fixes an
 * interrupt mask that lacks a bit the operation ends on (rocket waits for the DPU only, so an
 * SDP task, which ends on the DPU interrupt, completes, and a PDP task, which raises the PPU
 * pair, never does). False for an op outside the table. */
bool npk_rk_kernel_runs_op(const npk_rk_kernel_form *k, npk_rk_op op);

/* The entry count a task descriptor carries for a body of `body` entries. */
static inline uint32_t npk_rk_kernel_task_count(const npk_rk_kernel_form *k, uint32_t body)
{
    return body + (k->trailer_counted ? NPK_RK_TRAILER_ENTRIES : 0);
}

#ifdef __cplusplus
}
#endif
#endif
