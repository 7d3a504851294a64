/* SPDX-License-Identifier: MIT */
/* The per-kernel program forms (see rk_kernel.h). */
#include <string.h>

#include "rk_kernel.h"
#include "npukit/rk_types.h"

static const npk_rk_kernel_form forms[] = {
    {"rknpu", NPK_RK_ENABLE_MATMUL, false, false, false,
     "facts A.1, C.1: the vendor capture's CNA|CORE|DPU program; regcfg_amount excludes the "
     "trailer (the kernel adds RKNPU_PC_DATA_EXTRA_AMOUNT)",
     0},
    {"rocket", NPK_RK_ENABLE_MATMUL | 0x10u, true, true, true,
     "facts A.2, B.3, C.6: enable 0x1D needs the DPU_RDMA block with MRDMA_DISABLE or the DPU "
     "waits forever; regcmd_count includes the trailer",
     NPK_RK_INT_DPU},
};

unsigned npk_rk_kernel_form_count(void) { return sizeof forms / sizeof forms[0]; }

const npk_rk_kernel_form *npk_rk_kernel_form_at(unsigned i)
{
    return i < npk_rk_kernel_form_count() ? &forms[i] : NULL;
}

const npk_rk_kernel_form *npk_rk_kernel_form_find(const char *name)
{
    for (unsigned i = 0; name && i < npk_rk_kernel_form_count(); i++)
        if (!strcmp(forms[i].name, name))
            return &forms[i];
    return NULL;
}

bool npk_rk_kernel_runs_op(const npk_rk_kernel_form *k, npk_rk_op op)
{
    const npk_rk_op_desc *d = npk_rk_op_desc_of(op);
    if (!k || !d)
        return false;
    return !k->int_mask_fixed || (d->int_mask & ~k->int_mask_fixed) == 0;
}

/* The value a register holds in a body (its last copy, as on the NPU). */
static uint32_t body_value(const npk_rk_entry *body, size_t n, npk_rk_reg_id id)
{
    const npk_rk_reg *r = npk_rk_reg_info(id);
    uint32_t v = 0;
    for (size_t i = 0; i < n; i++)
        if (npk_rk_entry_target(body[i]) == npk_rk_unit_target(r->block) &&
            npk_rk_entry_reg(body[i]) == r->offset)
            v = npk_rk_entry_value(body[i]);
    return v;
}

npk_status npk_rk_synth_for(const npk_rk_kernel_form *k, const npk_rk_mm *mm,
                            npk_rk_entry body[NPK_RK_BODY_MAX], size_t *count,
                            npk_rk_synth_info *info)
{
    npk_rk_entry base[NPK_RK_MATMUL_BODY];
    npk_status s = npk_rk_synth_matmul(mm, base, info);
    if (s)
        return s;
    if (!k->rdma_block) {
        memcpy(body, base, sizeof base);
        *count = NPK_RK_MATMUL_BODY;
        return NPK_OK;
    }
    /* The RDMA cube is the output's: rows and channels as the DPU writes them. */
    uint32_t rows =
        npk_rk_field_get(NPK_RKF(DPU_DATA_CUBE_HEIGHT, HEIGHT),
                         body_value(base, NPK_RK_MATMUL_BODY, NPK_REG_DPU_DATA_CUBE_HEIGHT));
    uint32_t chans =
        npk_rk_field_get(NPK_RKF(DPU_WDMA_SIZE_0, CHANNEL_WDMA),
                         body_value(base, NPK_RK_MATMUL_BODY, NPK_REG_DPU_WDMA_SIZE_0));
    uint32_t mode =
        NPK_RKPUT(DPU_RDMA_FEATURE_MODE_CFG, BURST_LEN, 15) |
        NPK_RKPUT(DPU_RDMA_FEATURE_MODE_CFG, MRDMA_DISABLE, 1) |
        NPK_RKPUT(DPU_RDMA_FEATURE_MODE_CFG, MRDMA_FP16TOFP32_EN, mm->out == NPK_PREC_FP16);
    const struct {
        npk_rk_reg_id id;
        uint32_t value;
    } block[NPK_RK_RDMA_ENTRIES - 1] = {
        {NPK_REG_DPU_RDMA_DATA_CUBE_WIDTH, 0},
        {NPK_REG_DPU_RDMA_DATA_CUBE_HEIGHT, rows},
        {NPK_REG_DPU_RDMA_DATA_CUBE_CHANNEL, chans},
        {NPK_REG_DPU_RDMA_SRC_BASE_ADDR, 0},
        {NPK_REG_DPU_RDMA_BRDMA_CFG, 0},
        {NPK_REG_DPU_RDMA_BS_BASE_ADDR, 0},
        {NPK_REG_DPU_RDMA_NRDMA_CFG, 0},
        {NPK_REG_DPU_RDMA_BN_BASE_ADDR, 0},
        {NPK_REG_DPU_RDMA_ERDMA_CFG, NPK_RKPUT(DPU_RDMA_ERDMA_CFG, ERDMA_DISABLE, 1)},
        {NPK_REG_DPU_RDMA_EW_BASE_ADDR, 0},
        {NPK_REG_DPU_RDMA_EW_SURF_STRIDE, 0},
        {NPK_REG_DPU_RDMA_FEATURE_MODE_CFG, mode},
        {NPK_REG_DPU_RDMA_SRC_DMA_CFG, 0},
        {NPK_REG_DPU_RDMA_SURF_NOTCH, 0},
        {NPK_REG_DPU_RDMA_PAD_CFG, 0},
        /* the E/N/B/M weights, 1 each (facts C.6) */
        {NPK_REG_DPU_RDMA_WEIGHT, 0x01010101u},
        {NPK_REG_DPU_RDMA_EW_SURF_NOTCH, 0},
    };
    size_t n = 0;
    bool pointer_done = false;
    for (size_t i = 0; i < NPK_RK_MATMUL_BODY; i++) {
        body[n++] = base[i];
        if (!pointer_done &&
            npk_rk_entry_reg(base[i]) == npk_rk_reg_info(NPK_REG_DPU_S_POINTER)->offset) {
            /* the RDMA's S_POINTER right after the DPU's, the same ping-pong value */
            body[n++] =
                npk_rk_entry_reg_write(NPK_REG_DPU_RDMA_S_POINTER, npk_rk_entry_value(base[i]));
            pointer_done = true;
        }
    }
    if (!pointer_done)
        return npk_fail(NPK_EPROTO, "synth for rocket: the body has no DPU S_POINTER");
    for (size_t i = 0; i < sizeof block / sizeof block[0]; i++)
        body[n++] = npk_rk_entry_reg_write(block[i].id, block[i].value);
    *count = n;
    return NPK_OK;
}
