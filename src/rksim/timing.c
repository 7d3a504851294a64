/* SPDX-License-Identifier: MIT */
/* rksim timing model (constants and their sources in timing.h). */
#include "rksim/timing.h"

#include <stddef.h>

#include "npukit/rk_types.h"

/* The fitted efficiencies (timing.h), a row per matmul input. */
static const struct {
    npk_rk_prec in;
    double efficiency;
} mac_efficiency[] = {
    {NPK_PREC_FP16, 0.26},
    {NPK_PREC_INT8, 0.11},
    {NPK_PREC_INT4, 0.14},
};

double rksim_time_mac_efficiency(int in_prec)
{
    for (size_t i = 0; i < sizeof mac_efficiency / sizeof *mac_efficiency; i++)
        if (mac_efficiency[i].in == (npk_rk_prec)in_prec)
            return mac_efficiency[i].efficiency;
    return 0;
}

double rksim_time_matmul_us_at(double clock_hz, int in_prec, uint64_t m, uint64_t k, uint64_t n,
                               double in_bytes, double out_bytes)
{
    const npk_rk_prec_row *row = npk_rk_input_row((npk_rk_prec)in_prec);
    double rate = (row ? row->macs_per_cycle : 0) * clock_hz * rksim_time_mac_efficiency(in_prec);
    if (rate <= 0)
        return 0; /* not a matmul input: the decoder refuses it before any timing */
    double macs = (double)m * (double)k * (double)n;
    double compute_s = macs / rate;
    double dma_s = (in_bytes + out_bytes) / RKSIM_T_DMA_BYTES_PER_S;
    return 1e6 * (compute_s > dma_s ? compute_s : dma_s);
}

double rksim_time_matmul_us(int in_prec, uint64_t m, uint64_t k, uint64_t n, double in_bytes,
                            double out_bytes)
{
    return rksim_time_matmul_us_at(RKSIM_T_CLOCK_HZ, in_prec, m, k, n, in_bytes, out_bytes);
}

double rksim_time_sdp_us(double read_bytes, double write_bytes)
{
    double bytes = read_bytes > write_bytes ? read_bytes : write_bytes;
    return 1e6 * bytes / RKSIM_T_DMA_BYTES_PER_S;
}
