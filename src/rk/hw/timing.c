/* SPDX-License-Identifier: MIT */
/* The RK NPU timing model (constants and their sources in rk_timing.h). */
#include "npukit/rk_timing.h"

#include <stddef.h>

#include "npukit/rk_types.h"

/* The fitted efficiencies (rk_timing.h), a row per matmul input. */
static const struct {
    npk_rk_prec in;
    double efficiency;
} mac_efficiency[] = {
    {NPK_PREC_FP16, 0.31},
    {NPK_PREC_INT8, 0.117},
    {NPK_PREC_INT4, 0.167},
};

double npk_rk_time_mac_efficiency(int in_prec)
{
    for (size_t i = 0; i < sizeof mac_efficiency / sizeof *mac_efficiency; i++)
        if (mac_efficiency[i].in == (npk_rk_prec)in_prec)
            return mac_efficiency[i].efficiency;
    return 0;
}

double npk_rk_time_matmul_us_at(double clock_hz, int in_prec, uint64_t m, uint64_t k, uint64_t n,
                                double in_bytes, double out_bytes)
{
    const npk_rk_prec_row *row = npk_rk_input_row((npk_rk_prec)in_prec);
    double rate = (row ? row->macs_per_cycle : 0) * clock_hz * npk_rk_time_mac_efficiency(in_prec);
    if (rate <= 0)
        return 0; /* not a matmul input: the decoder refuses it before any timing */
    double macs = (double)m * (double)k * (double)n;
    double compute_s = macs / rate;
    double dma_s = (in_bytes + out_bytes) / NPK_RK_T_DMA_BYTES_PER_S;
    return 1e6 * (compute_s + dma_s);
}

double npk_rk_time_matmul_us(int in_prec, uint64_t m, uint64_t k, uint64_t n, double in_bytes,
                             double out_bytes)
{
    return npk_rk_time_matmul_us_at(NPK_RK_T_CLOCK_HZ, in_prec, m, k, n, in_bytes, out_bytes);
}

double npk_rk_time_sdp_us(double read_bytes, double write_bytes)
{
    double bytes = read_bytes > write_bytes ? read_bytes : write_bytes;
    return 1e6 * bytes / NPK_RK_T_DMA_BYTES_PER_S;
}

static double task_body_at(double clock_hz, int in_prec, int out_prec, uint32_t mp, uint32_t kp,
                           uint32_t np)
{
    /* the bytes the operation moves, as the simulator counts them */
    double ib = npk_rk_prec_bits((npk_rk_prec)in_prec) / 8.0;
    double ob = npk_rk_prec_bits((npk_rk_prec)out_prec) / 8.0;
    return NPK_RK_T_TASK_US + npk_rk_time_matmul_us_at(clock_hz, in_prec, mp, kp, np,
                                                       ((double)mp * kp + (double)kp * np) * ib,
                                                       (double)mp * np * ob);
}

double npk_rk_time_task_us_at(double clock_hz, int in_prec, int out_prec, uint32_t mp, uint32_t kp,
                              uint32_t np)
{
    return NPK_RK_T_JOB_FLOOR_US + task_body_at(clock_hz, in_prec, out_prec, mp, kp, np);
}

double npk_rk_time_task_body_us(int in_prec, int out_prec, uint32_t mp, uint32_t kp, uint32_t np)
{
    return task_body_at(NPK_RK_T_CLOCK_HZ, in_prec, out_prec, mp, kp, np);
}

double npk_rk_time_task_us(int in_prec, int out_prec, uint32_t mp, uint32_t kp, uint32_t np)
{
    return npk_rk_time_task_us_at(NPK_RK_T_CLOCK_HZ, in_prec, out_prec, mp, kp, np);
}
