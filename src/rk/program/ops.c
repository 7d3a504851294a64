/* SPDX-License-Identifier: MIT */
/* The driver's operation rows (rk_op_synth.h): each operation's check, synthesizer and fusion
 * rule over the job task that holds its arguments. */
#include "rk_op_synth.h"

static npk_status matmul_check(const npk_rk_job_task *t) { return npk_rk_mm_check(&t->mm, NULL); }

static npk_status matmul_synth(const npk_rk_job_task *t, npk_rk_entry *body)
{
    return npk_rk_synth_matmul(&t->mm, body, NULL);
}

static npk_rk_prec matmul_out(const npk_rk_job_task *t) { return t->mm.out; }

static npk_status sdp_check(const npk_rk_job_task *t) { return npk_rk_sdp_check(&t->sdp); }

static npk_status sdp_synth(const npk_rk_job_task *t, npk_rk_entry *body)
{
    return npk_rk_synth_sdp(&t->sdp, body);
}

static npk_rk_prec sdp_out(const npk_rk_job_task *t) { return t->sdp.prec; }

/* An unchecked SDP task skips the fusion rule as it skips its own limits (the over-fetch
 * experiments build such jobs on purpose). */
static npk_status sdp_chain(npk_rk_prec prev_out, const npk_rk_job_task *t)
{
    return t->sdp.unchecked ? NPK_OK : npk_rk_sdp_chain_check(prev_out, &t->sdp);
}

/* A conv task is checked with the CBUF split it will be synthesized with. */
static npk_status conv_check(const npk_rk_job_task *t)
{
    npk_rk_conv c = t->conv;
    npk_rk_conv_banks(&c);
    return npk_rk_conv_check(&c);
}

static npk_status conv_synth(const npk_rk_job_task *t, npk_rk_entry *body)
{
    return npk_rk_synth_conv(&t->conv, body);
}

static npk_rk_prec conv_out(const npk_rk_job_task *t) { return t->conv.prec; }

static npk_status pool_check(const npk_rk_job_task *t) { return npk_rk_pool_check(&t->pool); }

static npk_status pool_synth(const npk_rk_job_task *t, npk_rk_entry *body)
{
    return npk_rk_synth_pool(&t->pool, body);
}

/* The PDP writes fp16, the only precision it is built for. */
static npk_rk_prec pool_out(const npk_rk_job_task *t)
{
    (void)t;
    return NPK_PREC_FP16;
}

static const npk_rk_op_synth rows[NPK_RK_OP_COUNT] = {
    [NPK_RK_OP_MATMUL] = {NPK_RK_OP_MATMUL, matmul_check, matmul_synth, matmul_out, NULL},
    [NPK_RK_OP_SDP] = {NPK_RK_OP_SDP, sdp_check, sdp_synth, sdp_out, sdp_chain},
    [NPK_RK_OP_CONV] = {NPK_RK_OP_CONV, conv_check, conv_synth, conv_out, NULL},
    [NPK_RK_OP_POOL] = {NPK_RK_OP_POOL, pool_check, pool_synth, pool_out, NULL},
};

const npk_rk_op_synth *npk_rk_op_synth_of(npk_rk_op op)
{
    return (unsigned)op < NPK_RK_OP_COUNT && rows[op].synth ? &rows[op] : NULL;
}
