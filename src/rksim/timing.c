/* SPDX-License-Identifier: MIT */
/* rksim timing model (constants and their sources in timing.h). */
#include "rksim/timing.h"

#include "npukit/rk_types.h"

double rksim_time_matmul_us(int in_prec, uint64_t m, uint64_t k, uint64_t n, double in_bytes,
                            double out_bytes)
{
    const npk_rk_prec_row *row = npk_rk_input_row((npk_rk_prec)in_prec);
    double macs_per_cycle = row ? row->macs_per_cycle : 0;
    if (macs_per_cycle <= 0)
        return 0; /* not a matmul input: the decoder refuses it before any timing */
    double macs = (double)m * (double)k * (double)n;
    double compute_s = macs / (macs_per_cycle * RKSIM_T_CLOCK_HZ * RKSIM_T_MAC_EFFICIENCY);
    double dma_s = (in_bytes + out_bytes) / RKSIM_T_DMA_BYTES_PER_S;
    return 1e6 * (compute_s > dma_s ? compute_s : dma_s);
}

double rksim_time_sdp_us(double read_bytes, double write_bytes)
{
    double bytes = read_bytes > write_bytes ? read_bytes : write_bytes;
    return 1e6 * bytes / RKSIM_T_DMA_BYTES_PER_S;
}
