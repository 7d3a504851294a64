/* rksim timing model (constants and their sources in timing.h). */
#include "rksim/timing.h"

#include "npukit/rk_types.h"

double rksim_time_matmul_us(int in_prec, uint64_t m, uint64_t k, uint64_t n, double in_bytes,
                            double out_bytes)
{
    double macs_per_cycle = in_prec == NPK_PREC_INT8   ? RKSIM_T_MACS_INT8
                            : in_prec == NPK_PREC_INT4 ? RKSIM_T_MACS_INT4
                                                       : RKSIM_T_MACS_FP16;
    double macs = (double)m * (double)k * (double)n;
    double compute_s = macs / (macs_per_cycle * RKSIM_T_CLOCK_HZ * RKSIM_T_MAC_EFFICIENCY);
    double dma_s = (in_bytes + out_bytes) / RKSIM_T_DMA_BYTES_PER_S;
    return 1e6 * (compute_s > dma_s ? compute_s : dma_s);
}
