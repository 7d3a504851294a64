/* SPDX-License-Identifier: MIT */
/* The SoC table: every per-SoC number, each with its source. */
#include <string.h>

#include "npukit/rk_soc.h"

/* RK3588's timing-model numbers (their sources are the row's): the efficiencies are fitted at
 * its 600 MHz clock, so changing a row's clock without refitting them scales every modelled
 * matmul. A row without published figures of its own takes these, marked unvalidated. */
#define RK3588_TIMING                                                                              \
    {                                                                                              \
        .job_floor_us = 54.0, .task_us = 3.0, .dma_bytes_per_s = 8.6e9, .mac_efficiency = {        \
            {NPK_PREC_FP16, 0.31},                                                                 \
            {NPK_PREC_INT8, 0.117},                                                                \
            {NPK_PREC_INT4, 0.167},                                                                \
        }                                                                                          \
    }

static const npk_rk_soc socs[] = {
    {.name = "rk3588",
     .cores = 3,
     .cbuf_banks = 12,
     .bank_bytes = 32768,
     .cbuf_entry_bytes = 64,
     .clock_mhz = 600,
     .hw_version = 0x46495245u,
     .k_max_single = 10752,
     .n_max = 8192,
     .m_max = 2047,
     .grains_max = 1023,
     .timing = RK3588_TIMING,
     .validated = true,
     .encodings_described = true,
     .source = "spec Limits & tiling; facts A.1, B.4, C.1, E.1, G",
     .sources = {.cores = "facts E.1 (3 cores)",
                 .cbuf = "facts E.1 (12 banks x 32 KB = 384 KB per core); spec \"Bank = 32 KB\"",
                 .cbuf_entry = "facts C.1 #16 (DATA_ENTRIES = ceil(W*K*eb/64))",
                 .clock = "facts G (greg's published multi-core figures, which the "
                          "efficiencies are fitted to, ran at 600 MHz; it boots at 200 MHz and "
                          "1 GHz is the maximum, the clock of the spec's MAC-peak arithmetic)",
                 .hw_version = "facts A.1 (GET_HW_VERSION read 0x46495245)",
                 .limits = "spec Limits & tiling (K 10752, N 8192); facts B.4 (DATA_SIZE0 11-bit "
                           "height, FEATURE_GRAINS 10-bit)",
                 .job_floor = "facts G (mainline-rocket submit floor 51-54 us by default)",
                 .task = "inferred from facts G (chained S=6 int8 streaming 19.9 GB/s against "
                         "8.6 single: one regcmd fetch of 112 entries plus a few us)",
                 .dma = "facts G (ork M=1 int8 weight streaming, single submit: 8.6 GB/s)",
                 .mac_efficiency = "fitted to facts G (greg 512x3840x4096 on 3 cores at 600 MHz: "
                                   "fp16 461, int8 386, int4 413 GOP/s); "
                                   "tests/test_rk_timing_calibration.c"}},
    /* RK3576: two cores, a second core window at 0x27708000 and PC_DONE polling in the mainline
     * series; rocket-userspace notes it packs the geometry registers differently, which the
     * facts do not describe. Its CBUF geometry, clock, hardware version and limits are not
     * published: the RK3588 values stand in, the row is unvalidated and the simulator refuses
     * to execute programs for it. */
    {.name = "rk3576",
     .cores = 2,
     .cbuf_banks = 12,
     .bank_bytes = 32768,
     .cbuf_entry_bytes = 64,
     .clock_mhz = 600,
     .hw_version = 0,
     .k_max_single = 10752,
     .n_max = 8192,
     .m_max = 2047,
     .grains_max = 1023,
     .timing = RK3588_TIMING, /* unvalidated: nothing published for RK3576 */
     .validated = false,
     .encodings_described = false,
     .source = "facts E.1 (cores); other numbers assumed from rk3588",
     .sources = {.cores = "facts E.1 (RK3576: 2); mainline rocket RK3576 series (core windows "
                          "0x27700000, 0x27708000)",
                 .cbuf = "unvalidated: assumed equal to rk3588 (no public figure)",
                 .cbuf_entry = "unvalidated: assumed equal to rk3588",
                 .clock = "unvalidated: assumed equal to rk3588",
                 .hw_version = "not known (no board read published)",
                 .limits = "unvalidated: assumed equal to rk3588; rocket-userspace: geometry "
                           "registers packed differently (facts C.6 note), not described",
                 .job_floor = "unvalidated: assumed equal to rk3588",
                 .task = "unvalidated: assumed equal to rk3588",
                 .dma = "unvalidated: assumed equal to rk3588",
                 .mac_efficiency = "unvalidated: assumed equal to rk3588 (no published figure)"}},
};

const npk_rk_soc *npk_rk_soc_find(const char *name)
{
    for (unsigned i = 0; name && i < sizeof socs / sizeof socs[0]; i++)
        if (!strcmp(socs[i].name, name))
            return &socs[i];
    return NULL;
}

const npk_rk_soc *npk_rk_soc_default(void) { return &socs[0]; }
const npk_rk_soc *npk_rk_soc_or_default(const npk_rk_soc *soc) { return soc ? soc : &socs[0]; }
unsigned npk_rk_soc_count(void) { return sizeof socs / sizeof socs[0]; }
const npk_rk_soc *npk_rk_soc_at(unsigned i) { return i < npk_rk_soc_count() ? &socs[i] : NULL; }

unsigned npk_rk_soc_max_cores(void)
{
    unsigned m = 0;
    for (unsigned i = 0; i < npk_rk_soc_count(); i++)
        if (socs[i].cores > m)
            m = socs[i].cores;
    return m;
}
