/* SPDX-License-Identifier: MIT */
/* rksim internals shared by the front end, the PC walker, the executor and the hazard table. */
#ifndef NPUKIT_RKSIM_SIM_H
#define NPUKIT_RKSIM_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/rk_regs.h"
#include "npukit/rk_soc.h"
#include "npukit/rksim.h"
#include "rksim/lut_ram.h"
#include "rksim/mem.h"

enum {
    RKSIM_MAX_CORES = NPK_RK_SOC_MAX_CORES, /* per-core state held: any SoC row's cores */
    /* One file per block of the register table (npk_rk_unit); each block owns 0x1000 bytes
     * of offsets (facts B.2). The two PC control targets have slots too, unused. */
    RKSIM_BLOCKS = NPK_BLK_COUNT,
    RKSIM_BLOCK_WORDS = 0x1000 / 4,
};

/* The register files of one core, one per block, plus per-register write counts since the
 * last op-enable (for the duplicate-register check, hazard 13). */
typedef struct rksim_regfile {
    uint32_t val[RKSIM_BLOCKS][RKSIM_BLOCK_WORDS];
    uint16_t writes[RKSIM_BLOCKS][RKSIM_BLOCK_WORDS];
    uint32_t first[RKSIM_BLOCKS][RKSIM_BLOCK_WORDS]; /* value of the first such write */
} rksim_regfile;

/* Weights the simulator decoded (see weights.c): b[N][K] as floats or the int4 kernel's form, the
 * address and shape they were read at, and a copy of the packed bytes they came from. */
typedef struct rksim_weights_cache {
    void *data;
    size_t data_cap; /* bytes */
    uint8_t *packed;
    size_t packed_cap;
    bool valid;
    bool byte_form; /* data is in the byte kernels' form (int4, int8) */
    int in;
    uint32_t addr, k, n;
    uint64_t used; /* the simulator's matmul count at the last use */
} rksim_weights_cache;

/* a plan's K slices on every core, each read by its M tiles */
enum { RKSIM_WEIGHT_ENTRIES = 48 };

/* Free every entry of the weights cache. */
void rksim_weights_free(rksim_weights_cache *wc);
/* The bytes the weights cache holds (decoded forms and packed copies). */
size_t rksim_weights_held(const rksim_weights_cache *wc);

/* Per-core state that survives between jobs (the register file persists too, facts B.1). */
typedef struct rksim_core {
    rksim_regfile regs;
    int last_prec;    /* CNA input precision of the last op (-1: none since reset) */
    bool int_primed;  /* ACT_RESET (or the kernel's soft reset) since integer entry */
    int job_out_prec; /* precision the job's previous operation wrote (-1: none yet;
                         the chained-SDP precision path, hazard 19) */
    unsigned storm;   /* consecutive wedges without ACT_RESET (hazard 5) */
    /* hazard 2: the feature rows the CBUF kept from the previous submit, tagged by address */
    bool feat_valid;
    uint32_t feat_addr;
    uint32_t feat_rows, feat_k;
    float *feat_cache; /* feat_rows x feat_k values as read then */
    /* CNA_CBUF_CON0.DATA_REUSE: the feature the core's last operation held in the CBUF, which
     * the next operation may take instead of fetching one (a reset forgets it) */
    bool resident_valid;
    int resident_in;
    uint32_t resident_m, resident_k, resident_banks;
    float *resident; /* resident_m x resident_k values */
    size_t resident_cap;
    rksim_lut_ram lut; /* the SDP LUT's tables (rksim/lut.h): RAM, kept across tasks */
} rksim_core;

/* slots 0..2: a matmul's A, its float and integer results; 3: the weights' decoded chunks;
 * 4: A rearranged for the fp16 GEMM */
enum { RKSIM_SCRATCH_CHUNKS = 3, RKSIM_SCRATCH_FEATURE_COLS = 4, RKSIM_SCRATCH_SLOTS = 5 };

struct rksim {
    rksim_config cfg;
    rksim_mem mem;
    unsigned iommu_domain; /* the rknpu IOMMU domain the NPU is attached to (rknpu_uapi.h) */
    rksim_core core[RKSIM_MAX_CORES];
    /* decoded weights, shared by the cores: a plan that splits M over the cores has each read
     * every weight block (requests are serialized, so one cache serves them all) */
    rksim_weights_cache weights[RKSIM_WEIGHT_ENTRIES];
    uint64_t matmuls;            /* the matmuls run (the weights entries' clock) */
    bool dead;                   /* modelled kernel crash or hard hang */
    bool rocket_job;             /* the job running now came through the rocket front end */
    struct rksim_rocket *rocket; /* the rocket front end's files and fences (rocket.c) */
    /* Frees `rocket`: set by the rocket front end when it creates that state, so the instance
     * (sim.c) tears it down without depending on the front end (rocket.c depends on sim.c). */
    void (*rocket_free)(rksim *s);
    bool gen_510;          /* the caller speaks the 5.10 structs (a 40-byte MEM_CREATE) */
    const npk_rk_soc *soc; /* the SoC whose NPU is modelled (its limits and CBUF) */
    unsigned power_refs;
    uint32_t freq_hz;
    rksim_report report;
    /* each core's NONBLOCK job not yet waited for (rksim_nonblock_take) */
    struct {
        bool pending;
        int rc;
        double model_us, wait_ms;
    } nonblock[RKSIM_MAX_CORES];
    /* operand scratch reused across operations: fresh large allocations cost page faults
     * that would dominate the simulated matmul */
    void *scratch[RKSIM_SCRATCH_SLOTS];
    size_t scratch_size[RKSIM_SCRATCH_SLOTS];
};

/* A scratch buffer of at least `bytes` (slot 0..RKSIM_SCRATCH_SLOTS-1), kept by the
 * simulator; NULL when out of memory. */
void *rksim_scratch(rksim *s, unsigned slot, size_t bytes);

/* How long a failed job waits before its timeout answer: timeout_ms scaled, at most
 * RKSIM_MAX_WAIT_MS. */
static inline double rksim_wait_ms(const rksim *s, double timeout_ms)
{
    double ms = timeout_ms * s->cfg.timeout_scale;
    return ms > RKSIM_MAX_WAIT_MS ? RKSIM_MAX_WAIT_MS : ms;
}

static inline bool rksim_faithful(const rksim *s, rksim_hazard_id id)
{
    return !(s->cfg.ideal_mask & RKSIM_HZ_BIT(id));
}

/* The kernel the running job came through (RKSIM_KERNEL_*). */
static inline unsigned rksim_job_kernel(const rksim *s)
{
    return s->rocket_job ? RKSIM_KERNEL_ROCKET : RKSIM_KERNEL_RKNPU;
}

/* Whether hazard id's row reaches the running job's kernel (rksim_hazard.kernels): a row out
 * of scope never fires, the job behaves as that kernel's evidence says. */
static inline bool rksim_in_scope(const rksim *s, rksim_hazard_id id)
{
    return (rksim_hazards[id - 1].kernels & rksim_job_kernel(s)) != 0;
}

/* Reset one core (ACT_RESET or the kernel's soft reset after a timeout). */
void rksim_core_reset(rksim_core *c, bool soft_after_timeout);

/* DRM_IOCTL_VERSION's string fields, as the DRM core fills them for both drivers: copies at
 * most *len bytes of str to ptr (when both are set) and reports the full length in *len. */
void rksim_drm_version_string(const char *str, uint64_t ptr, uint64_t *len);

/* Run a submit's tasks on the selected cores (front end has validated the request). */
struct rknpu_submit;
int rksim_run_submit(rksim *s, struct rknpu_submit *sub, const uint8_t *task_buf,
                     uint64_t task_buf_size);

#endif
