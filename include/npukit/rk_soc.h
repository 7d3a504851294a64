/* SPDX-License-Identifier: MIT */
/* Per-SoC numbers of the RK NPU family: one row per SoC, never a branch. Every per-SoC number
 * the formulas, the planner, the simulator and the timing model use is a field here, and each
 * field names its source; a new SoC is a new row in src/rk/hw/soc.c. */
#ifndef NPUKIT_RK_SOC_H
#define NPUKIT_RK_SOC_H

#include "npukit/export.h"
#include <stdbool.h>
#include <stdint.h>

#include "npukit/rk_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where each value of a row comes from (a spec section, a facts entry, a public driver). */
typedef struct npk_rk_soc_sources {
    const char *cores, *cbuf, *cbuf_entry, *clock, *hw_version, *limits;
    const char *job_floor, *task, *dma, *mac_efficiency; /* the timing model's numbers */
} npk_rk_soc_sources;

/* The fraction of the MAC peak a matmul of one input precision achieves (timing model). */
typedef struct npk_rk_soc_efficiency {
    npk_rk_prec in;
    double fraction;
} npk_rk_soc_efficiency;

enum { NPK_RK_SOC_EFFICIENCIES = 3 }; /* one per matmul input precision */

/* The timing model's per-SoC numbers (rk_timing.h uses them; the planner and the simulator
 * both read them from the row they are given, so their figures agree). */
typedef struct npk_rk_soc_timing {
    double job_floor_us;    /* the per-job submit floor */
    double task_us;         /* each further task chained into a job */
    double dma_bytes_per_s; /* one core's DMA rate (does not follow the NPU clock) */
    npk_rk_soc_efficiency mac_efficiency[NPK_RK_SOC_EFFICIENCIES];
} npk_rk_soc_timing;

typedef struct npk_rk_soc {
    const char *name;           /* "rk3588" */
    unsigned cores;             /* NPU cores (core_mask bits) */
    unsigned cbuf_banks;        /* CBUF banks per core (DATA_BANK + WEIGHT_BANK) */
    unsigned bank_bytes;        /* bytes per CBUF bank */
    unsigned cbuf_entry_bytes;  /* bytes per CBUF entry (CBUF_CON1 DATA_ENTRIES counts these) */
    unsigned clock_mhz;         /* NPU clock the timing model runs at (and the simulator's
                                 * GET_FREQ reads until SET_FREQ changes it) */
    uint32_t hw_version;        /* what GET_HW_VERSION reads (0: not known) */
    unsigned k_max_single;      /* largest K one operation completes (raw, dtype-independent) */
    unsigned n_max;             /* largest N per task (13-bit DPU channel) */
    unsigned m_max;             /* largest M per task (11-bit DATA_SIZE0 height) */
    unsigned grains_max;        /* FEATURE_GRAINS field limit (10 bits) */
    npk_rk_soc_timing timing;   /* the timing model's numbers */
    bool validated;             /* numbers checked on a board */
    bool encodings_described;   /* the facts describe its register encodings (else the simulator
                                 * refuses to execute programs for it) */
    const char *source;         /* the row in one line */
    npk_rk_soc_sources sources; /* each value's source */
} npk_rk_soc;

/* The most cores a row may have: the bound of per-core state the driver and the simulator hold
 * in arrays (a constant, as array bounds must be). The rknpu uAPI's core_mask addresses three
 * cores (RKNPU_CORE_ALL_MASK); test_rk_soc holds every row's cores within it. */
enum { NPK_RK_SOC_MAX_CORES = 3 };

/* NULL for an unknown name. */
NPUKIT_API const npk_rk_soc *npk_rk_soc_find(const char *name);
/* RK3588, the validated part. */
NPUKIT_API const npk_rk_soc *npk_rk_soc_default(void);
/* soc, or the default row for NULL. */
NPUKIT_API const npk_rk_soc *npk_rk_soc_or_default(const npk_rk_soc *soc);
/* The table, for listing: count and i-th row. */
NPUKIT_API unsigned npk_rk_soc_count(void);
NPUKIT_API const npk_rk_soc *npk_rk_soc_at(unsigned i);
/* The most cores any row has (array bounds of per-core state). */
NPUKIT_API unsigned npk_rk_soc_max_cores(void);

#ifdef __cplusplus
}
#endif
#endif
