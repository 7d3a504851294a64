/* SPDX-License-Identifier: MIT */
/* The RK NPU timing model (rk_timing.h): every number is the SoC row's (rk_soc.h), where each
 * one names its source. */
#include "rk_timing.h"

#include <stddef.h>

#include "npukit/rk_types.h"

double npk_rk_time_clock_hz(const npk_rk_soc *soc)
{
    return npk_rk_soc_or_default(soc)->clock_mhz * 1e6;
}

double npk_rk_time_job_floor_us(const npk_rk_soc *soc)
{
    return npk_rk_soc_or_default(soc)->timing.job_floor_us;
}

double npk_rk_time_task_step_us(const npk_rk_soc *soc)
{
    return npk_rk_soc_or_default(soc)->timing.task_us;
}

double npk_rk_time_mac_efficiency(const npk_rk_soc *soc, int in_prec)
{
    const npk_rk_soc_timing *t = &npk_rk_soc_or_default(soc)->timing;
    for (size_t i = 0; i < NPK_RK_SOC_EFFICIENCIES; i++)
        if (t->mac_efficiency[i].in == (npk_rk_prec)in_prec)
            return t->mac_efficiency[i].fraction;
    return 0;
}

double npk_rk_time_matmul_us_at(const npk_rk_soc *soc, double clock_hz, int in_prec, uint64_t m,
                                uint64_t k, uint64_t n, double in_bytes, double out_bytes)
{
    soc = npk_rk_soc_or_default(soc);
    const npk_rk_prec_row *row = npk_rk_input_row((npk_rk_prec)in_prec);
    double rate =
        (row ? row->macs_per_cycle : 0) * clock_hz * npk_rk_time_mac_efficiency(soc, in_prec);
    if (rate <= 0)
        return 0; /* not a matmul input: the decoder refuses it before any timing */
    double macs = (double)m * (double)k * (double)n;
    double compute_s = macs / rate;
    double dma_s = (in_bytes + out_bytes) / soc->timing.dma_bytes_per_s;
    return 1e6 * (compute_s + dma_s);
}

double npk_rk_time_matmul_us(const npk_rk_soc *soc, int in_prec, uint64_t m, uint64_t k, uint64_t n,
                             double in_bytes, double out_bytes)
{
    return npk_rk_time_matmul_us_at(soc, npk_rk_time_clock_hz(soc), in_prec, m, k, n, in_bytes,
                                    out_bytes);
}

double npk_rk_time_sdp_us(const npk_rk_soc *soc, double read_bytes, double write_bytes)
{
    double bytes = read_bytes > write_bytes ? read_bytes : write_bytes;
    return 1e6 * bytes / npk_rk_soc_or_default(soc)->timing.dma_bytes_per_s;
}

static double task_body_at(const npk_rk_soc *soc, double clock_hz, int in_prec, int out_prec,
                           uint32_t mp, uint32_t kp, uint32_t np)
{
    /* the bytes the operation moves, as the simulator counts them */
    double ib = npk_rk_prec_bits((npk_rk_prec)in_prec) / 8.0;
    double ob = npk_rk_prec_bits((npk_rk_prec)out_prec) / 8.0;
    return npk_rk_time_task_step_us(soc) +
           npk_rk_time_matmul_us_at(soc, clock_hz, in_prec, mp, kp, np,
                                    ((double)mp * kp + (double)kp * np) * ib, (double)mp * np * ob);
}

double npk_rk_time_task_us_at(const npk_rk_soc *soc, double clock_hz, int in_prec, int out_prec,
                              uint32_t mp, uint32_t kp, uint32_t np)
{
    return npk_rk_time_job_floor_us(soc) +
           task_body_at(soc, clock_hz, in_prec, out_prec, mp, kp, np);
}

double npk_rk_time_task_body_us(const npk_rk_soc *soc, int in_prec, int out_prec, uint32_t mp,
                                uint32_t kp, uint32_t np)
{
    return task_body_at(soc, npk_rk_time_clock_hz(soc), in_prec, out_prec, mp, kp, np);
}

double npk_rk_time_task_us(const npk_rk_soc *soc, int in_prec, int out_prec, uint32_t mp,
                           uint32_t kp, uint32_t np)
{
    return npk_rk_time_task_us_at(soc, npk_rk_time_clock_hz(soc), in_prec, out_prec, mp, kp, np);
}
