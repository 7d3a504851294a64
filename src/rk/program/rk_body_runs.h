/* SPDX-License-Identifier: MIT */
/* Runs of registers that several operations' bodies write in the same order (the vendor's
 * captures, facts C.1, and the conv and SDP programs built from them): each is spelled once here
 * and placed by name in the body orders of synth.c (matmul), synth_sdp.c and synth_conv.c, so
 * the shared order cannot drift between them. */
#ifndef NPUKIT_RK_BODY_RUNS_H
#define NPUKIT_RK_BODY_RUNS_H

#include "npukit/rk_regs.h"

/* The convolution's shape: CONV_CON2..3, the feature and weight sizes (9 registers) */
#define NPK_RK_RUN_CNA_SIZES \
    NPK_REG_CNA_CONV_CON2, \
    NPK_REG_CNA_CONV_CON3, \
    NPK_REG_CNA_DATA_SIZE0, \
    NPK_REG_CNA_DATA_SIZE1, \
    NPK_REG_CNA_DATA_SIZE2, \
    NPK_REG_CNA_DATA_SIZE3, \
    NPK_REG_CNA_WEIGHT_SIZE0, \
    NPK_REG_CNA_WEIGHT_SIZE1, \
    NPK_REG_CNA_WEIGHT_SIZE2

/* The CNA's input convert, feature fetch and DMA (15 registers) */
#define NPK_RK_RUN_CNA_FEED \
    NPK_REG_CNA_CVT_CON0, \
    NPK_REG_CNA_CVT_CON1, \
    NPK_REG_CNA_CVT_CON2, \
    NPK_REG_CNA_CVT_CON3, \
    NPK_REG_CNA_CVT_CON4, \
    NPK_REG_CNA_FC_CON0, \
    NPK_REG_CNA_FC_CON1, \
    NPK_REG_CNA_PAD_CON0, \
    NPK_REG_CNA_FEATURE_DATA_ADDR, \
    NPK_REG_CNA_FC_CON2, \
    NPK_REG_CNA_DMA_CON0, \
    NPK_REG_CNA_DMA_CON1, \
    NPK_REG_CNA_DMA_CON2, \
    NPK_REG_CNA_FC_DATA_SIZE0, \
    NPK_REG_CNA_FC_DATA_SIZE1

/* The CORE block (5 registers) */
#define NPK_RK_RUN_CORE \
    NPK_REG_CORE_MISC_CFG, \
    NPK_REG_CORE_DATAOUT_SIZE_0, \
    NPK_REG_CORE_DATAOUT_SIZE_1, \
    NPK_REG_CORE_CLIP_TRUNCATE, \
    NPK_REG_CORE_3030

/* The DPU's cube, write-out and BS / BN / EW stages (25 registers) */
#define NPK_RK_RUN_DPU_STAGES \
    NPK_REG_DPU_FEATURE_MODE_CFG, \
    NPK_REG_DPU_DATA_FORMAT, \
    NPK_REG_DPU_OFFSET_PEND, \
    NPK_REG_DPU_DST_BASE_ADDR, \
    NPK_REG_DPU_DST_SURF_STRIDE, \
    NPK_REG_DPU_DATA_CUBE_WIDTH, \
    NPK_REG_DPU_DATA_CUBE_HEIGHT, \
    NPK_REG_DPU_DATA_CUBE_NOTCH_ADDR, \
    NPK_REG_DPU_DATA_CUBE_CHANNEL, \
    NPK_REG_DPU_BS_CFG, \
    NPK_REG_DPU_BS_ALU_CFG, \
    NPK_REG_DPU_BS_MUL_CFG, \
    NPK_REG_DPU_BS_RELUX_CMP_VALUE, \
    NPK_REG_DPU_BS_OW_CFG, \
    NPK_REG_DPU_BS_OW_OP, \
    NPK_REG_DPU_WDMA_SIZE_0, \
    NPK_REG_DPU_WDMA_SIZE_1, \
    NPK_REG_DPU_BN_CFG, \
    NPK_REG_DPU_BN_ALU_CFG, \
    NPK_REG_DPU_BN_MUL_CFG, \
    NPK_REG_DPU_BN_RELUX_CMP_VALUE, \
    NPK_REG_DPU_EW_CFG, \
    NPK_REG_DPU_EW_CVT_OFFSET_VALUE, \
    NPK_REG_DPU_EW_CVT_SCALE_VALUE, \
    NPK_REG_DPU_EW_RELUX_CMP_VALUE

/* The DPU_RDMA block's cube, sources and reads (its S_POINTER apart) (17 registers) */
#define NPK_RK_RUN_DPU_RDMA_FEED \
    NPK_REG_DPU_RDMA_DATA_CUBE_WIDTH, \
    NPK_REG_DPU_RDMA_DATA_CUBE_HEIGHT, \
    NPK_REG_DPU_RDMA_DATA_CUBE_CHANNEL, \
    NPK_REG_DPU_RDMA_SRC_BASE_ADDR, \
    NPK_REG_DPU_RDMA_BRDMA_CFG, \
    NPK_REG_DPU_RDMA_BS_BASE_ADDR, \
    NPK_REG_DPU_RDMA_NRDMA_CFG, \
    NPK_REG_DPU_RDMA_BN_BASE_ADDR, \
    NPK_REG_DPU_RDMA_ERDMA_CFG, \
    NPK_REG_DPU_RDMA_EW_BASE_ADDR, \
    NPK_REG_DPU_RDMA_EW_SURF_STRIDE, \
    NPK_REG_DPU_RDMA_FEATURE_MODE_CFG, \
    NPK_REG_DPU_RDMA_SRC_DMA_CFG, \
    NPK_REG_DPU_RDMA_SURF_NOTCH, \
    NPK_REG_DPU_RDMA_PAD_CFG, \
    NPK_REG_DPU_RDMA_WEIGHT, \
    NPK_REG_DPU_RDMA_EW_SURF_NOTCH

#endif
