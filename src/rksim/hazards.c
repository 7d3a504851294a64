/* SPDX-License-Identifier: MIT */
/* The hazard table: every documented hazard is a row (what triggers it, what the faithful
 * model does, what the ideal mode does, the driver's defence, the source), and the ones decided
 * per operation have a check function in op_rows[] below. The others live where their state
 * lives: hazard 1 in the memory model (mem.c), 4 and 5 in SUBMIT (submit.c), 17 in the PC
 * (pc.c), 14 in the output geometry (matmul.c). The decoder refuses values outside its
 * constraints except the deviations accept_rows[] below describe (hazards 7, 15 and 22). */
#include <stdio.h>
#include <string.h>

#include "rk/hw/rk_cbuf.h"
#include "npukit/rk_outstage.h"
#include "npukit/rk_soc.h"
#include "npukit/rk_types.h"
#include "rksim/matmul.h"
#include "rksim/regs_view.h"

const char *rksim_kernels_name(unsigned kernels)
{
    switch (kernels & RKSIM_KERNEL_ALL) {
    case RKSIM_KERNEL_RKNPU: return "rknpu";
    case RKSIM_KERNEL_ROCKET: return "rocket";
    case RKSIM_KERNEL_ALL: return "rknpu, rocket";
    default: return "none";
    }
}

const rksim_hazard rksim_hazards[RKSIM_HZ_COUNT] = {
    {RKSIM_HZ_STALE_FRESH_OUTPUT, "stale-fresh-output",
     "first job that DMA-writes a freshly created CACHEABLE buffer whose lines were never "
     "cleaned (MEM_SYNC TO_DEVICE of the whole buffer)",
     "CPU-cache incoherence: the buffer's dirty CPU lines are written back over the NPU's "
     "result when the job ends, so that result reads stale; the lines are clean afterwards",
     "cacheable buffers are coherent (one view)",
     "a warm-up submit on each fresh output buffer, or MEM_SYNC TO_DEVICE of it before the "
     "first submit; or non-cacheable buffers (flags 0)",
     "spec State gotchas (cold start); facts E.4, J.8", RKSIM_KERNEL_RKNPU,
     "seen with rknpu's CACHEABLE buffers (ork's flags 0x403, facts E.4, J.8); rocket buffers have "
     "no cacheable flag (one coherent view, CPU access bracketed by PREP_BO/FINI_BO, facts A.2)"},
    {RKSIM_HZ_FEATURE_ADDR_CACHE, "feature-address-cache",
     "a job's first operation reads its feature from another address than the previous job's "
     "first operation on that core (no ACT_RESET in between)",
     "the CBUF keeps the previous job's feature rows: the overlapping rows and channels of the "
     "new feature are read from that stale copy",
     "the feature is always read from memory",
     "one stable feature buffer per core (copy each M-chunk into it)",
     "spec State gotchas (feature address caching); facts E.4", RKSIM_KERNEL_RKNPU,
     "seen only through the vendor driver (ork, facts E.4); a board-validated rocket library "
     "rotates buffers across jobs and relies on each job starting clean: no rocket evidence"},
    {RKSIM_HZ_INT8_ENTRY_WEDGE, "int8-entry-wedge",
     "an int8/int4 operation on a core whose previous operation was not integer (or none since "
     "power-on) and that saw no reset since",
     "the job never completes: ETIMEDOUT, task counter 0, the kernel soft-resets the core "
     "(which primes it: the retry works)",
     "integer mode needs no priming", "RKNPU_ACT_RESET when entering int8/int4 mode",
     "spec State gotchas (int8 cold-start wedge); facts E.4", RKSIM_KERNEL_RKNPU,
     "its cure is RKNPU_ACT_RESET, a vendor-driver action (spec State gotchas); mainline rocket "
     "has no ACT_RESET and its int8/int4 userspace runs without one (facts E.5)"},
    {RKSIM_HZ_SUBCORE_NULL_CRASH, "subcore-null-crash",
     "SUBMIT whose core_mask selects a subcore_task entry with task_number 0 (e.g. core_mask "
     "0x2 with only subcore_task[0] filled)",
     "kernel Oops (NULL deref in rknpu_job_subcore_commit): the ioctl fails with ENODEV and "
     "every later request too until the device is re-opened (a reboot)",
     "the submit is rejected with EINVAL",
     "fill subcore_task[0..2] with valid ranges for every submit",
     "spec Multi-core submit trap 1; facts A.1 Sub-core selection", RKSIM_KERNEL_RKNPU,
     "a bug in rknpu_job_subcore_commit; rocket's SUBMIT has no subcore_task (facts A.2)"},
    {RKSIM_HZ_WEDGE_STORM_HANG, "wedge-storm-hang",
     "3 wedged or faulted jobs on a core without an ACT_RESET in between",
     "hard hang (job queue corrupted): ENODEV for every request until re-opened",
     "the kernel's soft reset after each timeout is enough",
     "RKNPU_ACT_RESET after any wedge, before the next submit",
     "spec Multi-core submit trap 2; facts E.4", RKSIM_KERNEL_RKNPU,
     "the vendor driver's job queue (rknpu_job_next); rocket's job timeout resets the core and "
     "drops the job (facts A.2)"},
    {RKSIM_HZ_K_CEILING, "k-ceiling",
     "one operation with K (CNA_DATA_SIZE1.DATAIN_CHANNEL) above 10752",
     "the job wedges (ETIMEDOUT)", "any K completes",
     "split K above 10752 and accumulate on the host",
     "spec Limits & tiling (single-op K); rk_soc k_max_single", RKSIM_KERNEL_ALL,
     "a hardware limit (the closed runtime obeys it too, spec); measured through rknpu on the same "
     "NPU; a hardware behaviour of the registers, which rocket programs the same way (facts A.2)"},
    {RKSIM_HZ_N_CEILING, "n-ceiling",
     "N above 8192 in one task: the 13-bit DPU_DATA_CUBE_CHANNEL cannot hold N-1",
     "silently wrong: the DPU writes only the truncated channel count", "all N columns are written",
     "tile N at 8192", "spec Limits & tiling; facts B.4 (13-bit channel)", RKSIM_KERNEL_ALL,
     "a register width: the same on every kernel"},
    {RKSIM_HZ_CBUF_FLOOR, "cbuf-floor",
     "CNA_CBUF_CON0 below 0x1B (more than 11 data banks / no weight bank)",
     "the job hangs (ETIMEDOUT)", "computed with the banks given", "floor the bank split at 0x1B",
     "spec The M-tiling scheduler (0x1b floor)", RKSIM_KERNEL_ALL,
     "the CBUF bank split, a program value; measured through rknpu on the same NPU; a hardware "
     "behaviour of the registers, which rocket programs the same way (facts A.2)"},
    {RKSIM_HZ_SCHED_SMALL_K, "sched1-small-k",
     "CBUF_CON0 above the 0xB1 template (the sched-1 fit's base) at fp16 K <= 64 or int8 "
     "K <= 128",
     "an invalid K-reduction atom: zeros at M=1, garbage at M>1 (modelled as a reduction over "
     "the first 8 channels only)",
     "the reduction covers K", "sched 0 (0xB1) below fp16 K=96 / int8 K=256",
     "spec Small-K validity of the 0x1040 schedule", RKSIM_KERNEL_ALL,
     "the CBUF schedule registers; measured through rknpu on the same NPU; a hardware behaviour of "
     "the registers, which rocket programs the same way (facts A.2)"},
    {RKSIM_HZ_B1_LARGE_M, "b1-large-m",
     "CBUF_CON0 = 0xB1 (one data bank) at K > 256 with more rows than one bank holds",
     "wrong partial rows: rows past the bank's capacity read the feature of row "
     "(m mod capacity), the CBUF wrapping",
     "every row is read", "track 0x1040 with K and the row group (sched 1) or tile M",
     "spec Small-K validity (0xB1 wrong above ~K=256 at large mc)", RKSIM_KERNEL_ALL,
     "the CBUF schedule registers; measured through rknpu on the same NPU; a hardware behaviour of "
     "the registers, which rocket programs the same way (facts A.2)"},
    {RKSIM_HZ_M_CEILING, "m-ceiling",
     "M above the ceiling of its data banks: fp16 D*16384/K (8 with D > 1 at K >= 2048), int8 "
     "D*32768/K (and the measured 64*floor(11*512/K) when D > 1), int4 D*16384/K with a "
     "line-form feature (where it was measured), D*65536/K (the banks' bytes) in cube form",
     "rows past the ceiling read the feature of row (m mod ceiling)", "every row is read",
     "tile M at npk_rk_m_ceiling()",
     "spec The M-tiling scheduler (M ceilings), 0x107c (int4, line form); facts C.3; cube-form "
     "int4: rocket-userspace gen_matmul_int4 (e067786), bit-exact on boards",
     RKSIM_KERNEL_ALL,
     "the CBUF capacity; measured through rknpu on the same NPU; a hardware behaviour of the "
     "registers, which rocket programs the same way (facts A.2)"},
    {RKSIM_HZ_K128_ENVELOPE, "k128-envelope",
     "fp16 K=128 with a sched-1 split (DATA_BANK > 1) and M > 256 with ceil(M/64) odd",
     "non-monotonic envelope (256 ok, 320 bad, 384 ok): rows from 256 on read row (m mod 256)",
     "every row is read", "cap fp16 K=128 at M=256",
     "spec The M-tiling scheduler (K=128 is broken)", RKSIM_KERNEL_ALL,
     "the CBUF schedule registers; measured through rknpu on the same NPU; a hardware behaviour of "
     "the registers, which rocket programs the same way (facts A.2)"},
    {RKSIM_HZ_DUPLICATE_REG, "duplicate-register",
     "a register written twice before an op-enable with different values",
     "the later copy is used (a register file keeps the last write); an earlier patched copy "
     "is silently lost",
     "refused as unsupported, naming the register, so a half-patched program is caught",
     "patch every copy of a duplicated register (CBUF_CON0, CONV_CON1, DCOMP_*)",
     "spec regcmd encoding (patching note); the last-write rule inferred", RKSIM_KERNEL_ALL,
     "a register file keeps its last write whichever kernel kicks the PC"},
    {RKSIM_HZ_SURFACE_ADD_WILD, "surface-add-wild",
     "DPU_SURFACE_ADD other than F * DST_SURF_STRIDE (e.g. a size or an address left in it)",
     "the N-tiles after the first are written at DST + t*SURFACE_ADD: a DMA fault when that "
     "leaves the live buffers (the job hangs), silent corruption when it lands in another",
     "the tile step the geometry implies is used",
     "compute 0x40C0 with the geometry (F<<4 line, M*F<<4 cube) and patch it per shape",
     "spec rocket_registers.h cross-reference (0x40c0); facts C.1 #94", RKSIM_KERNEL_ALL,
     "an output geometry register, the same on every kernel"},
    {RKSIM_HZ_FP16_OUT_STAGE, "fp16-out-stage",
     "fp16 output without OUT_CVT_SCALE.FP32TOFP16_EN; or DPU_BS_CFG = 0x20150 (the conv's "
     "BS-active value); or the forced atom-8 fp16 output: SIZE_E 0 (BS_OW_CFG 0x2) with "
     "DST_SURF_STRIDE = M*16 at M > 1",
     "no FP32TOFP16_EN: all zeros written; BS 0x20150 or the forced atom-8 output: the job "
     "hangs",
     "fp16 written without the enable bit; BS 0x20150 and the forced atom-8 output refused as "
     "unsupported (their effect on a matmul is not described)",
     "FP32TOFP16_EN, BS fully bypassed (0x53), SIZE_E = F-1 (contiguous [M][N] or the cube "
     "[N/8][M][8] output)",
     "spec fp16 matmul -> fp16 output stage", RKSIM_KERNEL_ALL,
     "the DPU output datapath; measured through rknpu on the same NPU; a hardware behaviour of the "
     "registers, which rocket programs the same way (facts A.2)"},
    {RKSIM_HZ_NARROW_INT_OUT, "narrow-int-out",
     "an int8 matmul whose DPU output precision is int16, int8 or fp16",
     "never completes (ETIMEDOUT), nothing written",
     "refused as unsupported (the requant rounding is disputed, facts J.7)",
     "int32 output and requantize on the host",
     "spec int16/narrow-output MATMUL does NOT self-complete", RKSIM_KERNEL_ALL,
     "the DPU output stage; measured through rknpu on the same NPU; a hardware behaviour of the "
     "registers, which rocket programs the same way (facts A.2)"},
    {RKSIM_HZ_UNCHAINED_TASKS, "unchained-tasks",
     "a job of task_number > 1 whose trailer does not chain (PC_BASE_ADDRESS/AMOUNTS 0)",
     "the PC waits forever: ETIMEDOUT with task counter 0",
     "the next task record's regcmd is fetched as if chained",
     "chain every trailer to the next task (npk_rk_trailer)",
     "facts A.1 Batching, B.3; spec Ruled out (task batching)", RKSIM_KERNEL_RKNPU,
     "the vendor kernel runs task_number > 1 on one PC kick; rocket kicks the PC once per task "
     "(facts A.2), so a task's trailer never needs to chain"},
    {RKSIM_HZ_INT4_SATURATION, "int4-saturation",
     "an int4 matmul whose int16 accumulator would leave +-32767",
     "the element saturates silently at +-32767 (indistinguishable from the 0x7fff sentinel)",
     "refused as unsupported, naming DPU_DATA_FORMAT, instead of saturating",
     "cap the K-slice so K*max|a|*max|b| < 32768 and accumulate slices on the host",
     "spec The precision enum (0x7fff); facts E.1, I.1", RKSIM_KERNEL_ALL,
     "the int16 output converter, the same on every kernel"},
    {RKSIM_HZ_SDP_CHAIN_PRECISION, "sdp-chain-precision",
     "a 2-input SDP task (ERDMA enabled) chained behind an operation of the same job that "
     "wrote another precision than the SDP's feature precision",
     "the chained DMA stalls: ETIMEDOUT (errno 110), nothing written",
     "the SDP reads the bytes as its own precision",
     "emit the matmul output in the SDP's precision (fp16 matmul -> fp16 SDP); 1-input SDPs "
     "chain regardless",
     "spec Chained 2-input SDP (the dtype-path rule)", RKSIM_KERNEL_ALL,
     "the DPU's chained DMA; measured through rknpu on the same NPU; a hardware behaviour of the "
     "registers, which rocket programs the same way (facts A.2)"},
    {RKSIM_HZ_SDP_INT32_UNDERFETCH, "sdp-int32-underfetch",
     "an SDP whose RDMA feature precision is int32 with as many RDMA channels as DPU channels",
     "the RDMA reads 2 bytes per element, fetches half the feature and the math engine "
     "starves: ETIMEDOUT",
     "refused as unsupported (a true int32 feature path is not described)",
     "requantize int32 accumulators on the host; the SDP takes int8/int16/fp16 features",
     "spec Shape-INVARIANT ... the SDP loopback mirror", RKSIM_KERNEL_ALL,
     "the DPU_RDMA feature read; measured through rknpu on the same NPU; a hardware behaviour of "
     "the registers, which rocket programs the same way (facts A.2)"},
    {RKSIM_HZ_SDP_INT32_TWO_LANE, "sdp-int32-two-lane",
     "an SDP with an int32 RDMA feature and DPU_RDMA_DATA_CUBE_CHANNEL = 2N-1 (the over-fetch)",
     "completes, but each int32 is processed as two int16 lanes: out[2k] = low16(a[k]), "
     "out[2k+1] = high16(a[k]), 2N lanes written",
     "refused as unsupported (a true int32 feature path is not described)",
     "use the even (low) lanes only for int16-range accumulators; recombine on the host",
     "spec OVER-FETCH", RKSIM_KERNEL_ALL,
     "the DPU_RDMA feature read; measured through rknpu on the same NPU; a hardware behaviour of "
     "the registers, which rocket programs the same way (facts A.2)"},
    {RKSIM_HZ_WDMA_SIZE_ZERO, "wdma-size-zero",
     "a matmul with DPU_WDMA_SIZE_1 (0x405c) left at 0 whose rows reach past its first row "
     "(M > 1, or a 0x1068 row offset)",
     "no write bound: every result row is written at its row (m + offset), past the surface the "
     "other fields describe, bounded only by the live buffers (a DMA fault outside them)",
     "HEIGHT_WDMA 0 is a one-row bound like any other value (rows past the first lost; M > 1 "
     "refused as unsupported)",
     "program HEIGHT_WDMA = the surface's rows - 1 whenever rows must be bounded (the row "
     "offset's lost rows, a shared surface's end)",
     "spec 0x1068 (\"leaving it at 0 disables a write-DMA bound\"); vendor int4 multi-task "
     "capture (0x405c = 0)",
     RKSIM_KERNEL_ALL, "a write-DMA register, the same on every kernel"},
};

/* DPU_BS_CFG of the vendor's convolution programs (BS stage active): hazard 15. */
#define CONV_BS_CFG 0x20150u

/* ---- deviation rows: decoded values the hazard table accepts ---- */

typedef bool (*accept_fn)(rksim *s, uint32_t value, rksim_mm *mm);

/* Hazard 7: the 13-bit DPU channel field cannot hold N > 8192; the CNA computes N columns, the
 * DPU writes the truncated count (the ideal mode writes all N). */
static bool h7_truncated(rksim *s, uint32_t value, rksim_mm *mm)
{
    npk_rk_field_id f = NPK_RKF(DPU_DATA_CUBE_CHANNEL, CHANNEL);
    uint32_t truncated = npk_rk_field_get(f, npk_rk_field_put(f, mm->n - 1));
    if (mm->n <= s->soc->n_max || value != truncated)
        return false;
    if (!rksim_faithful(s, RKSIM_HZ_N_CEILING))
        mm->n_dpu = mm->n;
    return true;
}

/* Hazard 15's forced atom-8 output, exactly the configuration the spec saw hang ("forcing
 * atom-8 output (surf stride M*16, 0x4050=0x2)" on an fp16 matmul of several rows). A cube
 * fp16 output with SIZE_E = F-1 is an ordinary output (a rocket userspace's production fp16
 * path writes it on the board); SIZE_E 0 anywhere else is not described and stays refused. */
static bool h15_is_atom8(const rksim_mm *mm)
{
    return mm->out == NPK_PREC_FP16 && mm->size_e == 0 && mm->m > 1 &&
           mm->out_surf_bytes == (uint64_t)mm->m * 16;
}

/* Hazard 15: the forced atom-8 fp16 output (the op row wedges it). */
static bool h15_atom8(rksim *s, uint32_t value, rksim_mm *mm)
{
    (void)value;
    return h15_is_atom8(mm) && rksim_faithful(s, RKSIM_HZ_FP16_OUT_STAGE);
}

/* Hazard 15: the conv's BS-active BS_CFG (the op row wedges it). */
static bool h15_conv_bs(rksim *s, uint32_t value, rksim_mm *mm)
{
    (void)value;
    return mm->bs_cfg == CONV_BS_CFG && rksim_faithful(s, RKSIM_HZ_FP16_OUT_STAGE);
}

/* Hazard 22: HEIGHT_WDMA 0 (the whole register 0: WIDTH_WDMA has its own row) under more rows
 * than one is the unbounded write DMA (the op row applies it). */
static bool h22_wdma_zero(rksim *s, uint32_t value, rksim_mm *mm)
{
    (void)mm;
    return value == 0 && rksim_faithful(s, RKSIM_HZ_WDMA_SIZE_ZERO);
}

static const struct {
    rksim_hazard_id id;
    npk_rk_field_id field;
    accept_fn accept;
    bool record; /* the hazard fires here (else its op row decides) */
} accept_rows[] = {
    {RKSIM_HZ_N_CEILING, NPK_RKF(DPU_DATA_CUBE_CHANNEL, CHANNEL), h7_truncated, true},
    {RKSIM_HZ_FP16_OUT_STAGE, NPK_RKF(DPU_BS_OW_CFG, SIZE_E_0), h15_atom8, false},
    {RKSIM_HZ_FP16_OUT_STAGE, NPK_RKF(DPU_BS_CFG, BS_BYPASS), h15_conv_bs, false},
    {RKSIM_HZ_WDMA_SIZE_ZERO, NPK_RKF(DPU_WDMA_SIZE_1, HEIGHT_WDMA), h22_wdma_zero, false},
};

bool rksim_hazards_accept(rksim *s, npk_rk_field_id f, uint32_t value, rksim_mm *mm,
                          uint32_t *fired)
{
    for (size_t i = 0; i < sizeof accept_rows / sizeof accept_rows[0]; i++) {
        if (accept_rows[i].field != f || !accept_rows[i].accept(s, value, mm))
            continue;
        if (accept_rows[i].record)
            *fired |= RKSIM_HZ_BIT(accept_rows[i].id);
        return true;
    }
    return false;
}

/* ---- operation rows ---- */

typedef bool (*op_check_fn)(rksim *s, rksim_core *c, const rksim_mm *mm, bool first,
                            rksim_effect *e);

/* An integer matmul input (int8, int4): the precision rows. */
static bool is_int(int p)
{
    const npk_rk_prec_row *r = npk_rk_input_row((npk_rk_prec)p);
    return r && !r->is_float;
}

/* The sched-1 facts of the operation's input precision. */
static const npk_rk_sched1 *sched1_of(const rksim_mm *mm)
{
    return &npk_rk_input_row((npk_rk_prec)mm->in)->sched1;
}

static bool h3_int_entry(rksim *s, rksim_core *c, const rksim_mm *mm, bool first, rksim_effect *e)
{
    (void)s;
    (void)first;
    if (!is_int(mm->in) || is_int(c->last_prec) || c->int_primed)
        return false;
    e->wedge = true;
    snprintf(e->why, sizeof e->why,
             "first %s operation after entering integer mode without "
             "ACT_RESET",
             npk_rk_prec_name((npk_rk_prec)mm->in));
    return true;
}

static bool h6_k_ceiling(rksim *s, rksim_core *c, const rksim_mm *mm, bool first, rksim_effect *e)
{
    (void)c, (void)first;
    unsigned kmax = s->soc->k_max_single;
    if (mm->k <= kmax)
        return false;
    e->wedge = true;
    snprintf(e->why, sizeof e->why, "single-op K=%u above %u", mm->k, kmax);
    return true;
}

static bool h8_cbuf_floor(rksim *s, rksim_core *c, const rksim_mm *mm, bool first, rksim_effect *e)
{
    (void)s, (void)c, (void)first;
    if (mm->cbuf_con0 >= NPK_RK_CBUF_FLOOR)
        return false;
    e->wedge = true;
    snprintf(e->why, sizeof e->why, "CNA_CBUF_CON0 = 0x%X below the 0x1B floor", mm->cbuf_con0);
    return true;
}

static bool small_k(const rksim_mm *mm) { return mm->k <= sched1_of(mm)->small_k; }

static bool h9_sched_small_k(rksim *s, rksim_core *c, const rksim_mm *mm, bool first,
                             rksim_effect *e)
{
    (void)s, (void)c, (void)first;
    if (mm->cbuf_con0 <= NPK_RK_CBUF_TEMPLATE || !small_k(mm))
        return false;
    if (mm->m == 1)
        e->zeros = true;
    else
        e->k_limit = 8;
    snprintf(e->why, sizeof e->why, "CBUF_CON0 = 0x%X too large for K=%u", mm->cbuf_con0, mm->k);
    return true;
}

/* Rows one data bank set holds, as the spec measures them (see the table row of hazard 11). */
static uint32_t rows_capacity(const rksim *s, const rksim_mm *mm)
{
    const unsigned max_data = s->soc->cbuf_banks - 1; /* one bank stays the weights' */
    unsigned d = mm->data_bank > max_data ? max_data : mm->data_bank;
    if (d == 0)
        d = 1;
    const npk_rk_prec_row *row = npk_rk_input_row((npk_rk_prec)mm->in);
    const npk_rk_sched1 *f = &row->sched1;
    /* Elements per bank. A line-form feature: the precision row's measured figure (fp16 2 bytes
     * each, int8 1, int4 rows x K <= 16384, spec "0x107c", measured with the line form's K/16
     * entries). A cube-form feature: the bank's bytes at the element's width, which is what
     * the board-validated cube-form int4 of rocket userspace fills (ceil(M*K/2 / 32 KB) data
     * banks, every row right); for fp16 and int8 the two figures agree. */
    uint32_t per_bank = mm->line || !mm->in_bits ? npk_rk_bank_elems(s->soc, (npk_rk_prec)mm->in)
                                 : (uint32_t)((uint64_t)s->soc->bank_bytes * 8 / mm->in_bits);
    uint32_t cap = d * per_bank / mm->k;
    /* facts C.3: fp16 with the sched-1 split gives wrong rows above M=8 at K >= 2048 */
    if (d > 1 && f->wrong_k && mm->k >= f->wrong_k && cap > f->wrong_m)
        cap = f->wrong_m;
    /* the measured sched-1 ceilings (int8's whole 64-row groups) where sched 1 is valid */
    if (d > 1 && npk_rk_sched_valid((npk_rk_prec)mm->in, mm->k, NPK_SCHED_1, NULL)) {
        uint32_t measured = npk_rk_sched1_rows(s->soc, (npk_rk_prec)mm->in, mm->k);
        if (measured && measured < cap)
            cap = measured;
    }
    return cap ? cap : 1;
}

static bool h10_b1_large_m(rksim *s, rksim_core *c, const rksim_mm *mm, bool first, rksim_effect *e)
{
    (void)s, (void)c, (void)first;
    if (mm->cbuf_con0 != NPK_RK_CBUF_TEMPLATE || mm->k <= 256)
        return false;
    uint32_t cap = rows_capacity(s, mm);
    if (mm->m <= cap)
        return false;
    e->good_rows = cap;
    snprintf(e->why, sizeof e->why, "0xB1 at K=%u holds %u rows, M=%u", mm->k, cap, mm->m);
    return true;
}

static bool h12_k128(rksim *s, rksim_core *c, const rksim_mm *mm, bool first, rksim_effect *e)
{
    (void)s, (void)c, (void)first;
    const npk_rk_sched1 *f = sched1_of(mm);
    if (!f->envelope_k || mm->k != f->envelope_k || mm->data_bank <= 1 || mm->m <= f->envelope_m ||
        ((mm->m + 63) / 64) % 2 == 0)
        return false;
    e->good_rows = f->envelope_m;
    snprintf(e->why, sizeof e->why, "%s K=%u sched 1 at M=%u (non-monotonic envelope)",
             npk_rk_prec_name((npk_rk_prec)mm->in), mm->k, mm->m);
    return true;
}

static bool h11_m_ceiling(rksim *s, rksim_core *c, const rksim_mm *mm, bool first, rksim_effect *e)
{
    (void)s, (void)c, (void)first;
    if (e->good_rows || (mm->cbuf_con0 == NPK_RK_CBUF_TEMPLATE && mm->k > 256))
        return false; /* hazard 10 or 12 describes these rows */
    uint32_t cap = rows_capacity(s, mm);
    if (mm->m <= cap)
        return false;
    e->good_rows = cap;
    snprintf(e->why, sizeof e->why, "M=%u above the %u-row ceiling of %u data bank(s) at K=%u",
             mm->m, cap, mm->data_bank, mm->k);
    return true;
}

static bool h15_fp16_out(rksim *s, rksim_core *c, const rksim_mm *mm, bool first, rksim_effect *e)
{
    (void)s, (void)c, (void)first;
    if (mm->bs_cfg == CONV_BS_CFG) {
        e->wedge = true;
        snprintf(e->why, sizeof e->why, "DPU_BS_CFG = 0x20150 (the conv's BS-active value)");
        return true;
    }
    if (mm->out != NPK_PREC_FP16)
        return false;
    if (h15_is_atom8(mm)) {
        e->wedge = true;
        snprintf(e->why, sizeof e->why,
                 "forced atom-8 fp16 matmul output (SIZE_E 0, surface stride %llu bytes = "
                 "M*16 at M=%u)",
                 (unsigned long long)mm->out_surf_bytes, mm->m);
        return true;
    }
    if (!mm->fp32tofp16) {
        e->zeros = true;
        snprintf(e->why, sizeof e->why, "fp16 output without OUT_CVT_SCALE.FP32TOFP16_EN");
        return true;
    }
    return false;
}

static bool h16_narrow(rksim *s, rksim_core *c, const rksim_mm *mm, bool first, rksim_effect *e)
{
    (void)s, (void)c, (void)first;
    /* the output-stage rows: the narrow int8 outputs never complete */
    if (npk_rk_out_stage_find((npk_rk_prec)mm->in, (npk_rk_prec)mm->out)->completes)
        return false;
    e->wedge = true;
    const npk_rk_out_stage *st = npk_rk_out_stage_find((npk_rk_prec)mm->in, (npk_rk_prec)mm->out);
    snprintf(e->why, sizeof e->why, "int8 matmul with %s output never completes (%s)",
             npk_rk_prec_name(st->out), st->evidence);
    return true;
}

static bool h2_feature_cache(rksim *s, rksim_core *c, const rksim_mm *mm, bool first,
                             rksim_effect *e)
{
    (void)s;
    if (!first || !c->feat_valid || c->feat_addr == mm->feat || mm->data_reuse)
        return false; /* a reused feature is not fetched: no address to mistake */
    e->stale_feature = true;
    snprintf(e->why, sizeof e->why, "feature at 0x%x after 0x%x in the previous job", mm->feat,
             c->feat_addr);
    return true;
}

static bool h18_int4_sat(rksim *s, rksim_core *c, const rksim_mm *mm, bool first, rksim_effect *e)
{
    (void)s, (void)c, (void)first;
    if (npk_rk_input_row((npk_rk_prec)mm->in)->acc_bits >= 32)
        return false;
    e->saturate16 = true; /* whether an element actually saturates is known after the sum */
    return false;
}

static bool h22_unbounded(rksim *s, rksim_core *c, const rksim_mm *mm, bool first, rksim_effect *e)
{
    (void)s, (void)c, (void)first;
    /* the register is 0 exactly when HEIGHT_WDMA is (WIDTH_WDMA must be 0) */
    if (mm->wdma_rows != 1 || (mm->m == 1 && mm->row_offset == 0))
        return false; /* a first row alone is written either way */
    e->no_row_bound = true;
    snprintf(e->why, sizeof e->why,
             "DPU_WDMA_SIZE_1 = 0 with M=%u at row offset %u: no write bound", mm->m,
             mm->row_offset);
    return true;
}

static const struct {
    rksim_hazard_id id;
    op_check_fn check;
} op_rows[] = {
    {RKSIM_HZ_INT8_ENTRY_WEDGE, h3_int_entry}, {RKSIM_HZ_K_CEILING, h6_k_ceiling},
    {RKSIM_HZ_CBUF_FLOOR, h8_cbuf_floor},      {RKSIM_HZ_FP16_OUT_STAGE, h15_fp16_out},
    {RKSIM_HZ_NARROW_INT_OUT, h16_narrow},     {RKSIM_HZ_SCHED_SMALL_K, h9_sched_small_k},
    {RKSIM_HZ_B1_LARGE_M, h10_b1_large_m},     {RKSIM_HZ_K128_ENVELOPE, h12_k128},
    {RKSIM_HZ_M_CEILING, h11_m_ceiling},       {RKSIM_HZ_FEATURE_ADDR_CACHE, h2_feature_cache},
    {RKSIM_HZ_INT4_SATURATION, h18_int4_sat},  {RKSIM_HZ_WDMA_SIZE_ZERO, h22_unbounded},
};

/* Hazard 13: a register written more than once with different values before this op-enable. */
static bool duplicate_differs(const rksim_regfile *rf, npk_rk_reg_id *which)
{
    for (int id = 0; id < NPK_REG_COUNT; id++) {
        uint32_t first;
        if (rksim_reg_writes(rf, (npk_rk_reg_id)id, &first) > 1 &&
            first != rksim_reg(rf, (npk_rk_reg_id)id)) {
            *which = (npk_rk_reg_id)id;
            return true;
        }
    }
    return false;
}

void rksim_hazards_op(rksim *s, unsigned core, const rksim_regfile *rf, rksim_mm *mm,
                      bool first_in_job, rksim_effect *e, uint32_t *fired, rksim_core_result *r)
{
    rksim_core *c = &s->core[core];
    memset(e, 0, sizeof *e);
    npk_rk_reg_id dup;
    if (duplicate_differs(rf, &dup)) {
        const npk_rk_reg *info = npk_rk_reg_info(dup);
        if (!rksim_faithful(s, RKSIM_HZ_DUPLICATE_REG)) {
            rksim_result_fail(r, RKSIM_UNSUPPORTED,
                              "unsupported by the model (ideal): %s (0x%04X) was written twice "
                              "with different values before the op-enable",
                              info->name, info->offset);
            return;
        }
        *fired |= RKSIM_HZ_BIT(RKSIM_HZ_DUPLICATE_REG);
    }
    if (mm->out_tile_bytes != mm->out_tile_expected && mm->n_dpu > mm->ntile) {
        /* only matters when there is a second N-tile to place */
        *fired |= RKSIM_HZ_BIT(RKSIM_HZ_SURFACE_ADD_WILD);
        if (!rksim_faithful(s, RKSIM_HZ_SURFACE_ADD_WILD))
            mm->out_tile_bytes = mm->out_tile_expected;
    }
    for (size_t i = 0; i < sizeof op_rows / sizeof op_rows[0]; i++) {
        if (!rksim_in_scope(s, op_rows[i].id))
            continue; /* the row's evidence does not reach this kernel */
        rksim_effect trial = *e;
        if (!op_rows[i].check(s, c, mm, first_in_job, &trial)) {
            e->saturate16 |= trial.saturate16;
            continue;
        }
        *fired |= RKSIM_HZ_BIT(op_rows[i].id);
        if (!rksim_faithful(s, op_rows[i].id)) {
            /* ideal: the hazard does not happen; hazard 16 refuses instead */
            if (op_rows[i].id == RKSIM_HZ_NARROW_INT_OUT) {
                const npk_rk_out_stage *st =
                    npk_rk_out_stage_find((npk_rk_prec)mm->in, (npk_rk_prec)mm->out);
                rksim_result_fail(r, RKSIM_UNSUPPORTED,
                                  st->requant
                                      ? "unsupported by the model (ideal): int8 -> %s "
                                        "requantization (DPU_OUT_CVT_SHIFT rounding is "
                                        "disputed, facts J.7)"
                                      : "unsupported by the model (ideal): int8 -> %s output "
                                        "(no source gives its converter or geometry, facts "
                                        "J.10)",
                                  npk_rk_prec_name(st->out));
                return;
            }
            continue;
        }
        *e = trial;
        if (e->wedge)
            return;
    }
    if (e->saturate16 && !rksim_faithful(s, RKSIM_HZ_INT4_SATURATION)) {
        e->saturate16 = false;
        e->strict16 = true;
    }
}
