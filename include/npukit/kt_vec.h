/* SPDX-License-Identifier: MIT */
/* The vector core ('VC' 0x5643, upstream's vec_cu + vec_core; facts §3.2) as hardware: its
 * CU_INST words (IMEM, DESC, RUN), the 32-bit kernel instruction word and its encoder, the fault
 * codes it signals. A kernel is staged as ordinary CU instructions — DESC words, IMEM words, then
 * RUN, which retires when the kernel reaches VHALT with its cycle count as the result, or as
 * SIG_FAULT with a fault code. The simulator's behaviour is src/ktsim/unit_vec.c; what it models
 * of the instruction set is docs/kt-compute-units.md. */
#ifndef NPUKIT_KT_VEC_H
#define NPUKIT_KT_VEC_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/export.h"
#include "npukit/kt_flit.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    KT_VEC_TYPE = 0x5643,
    KT_VEC_IMEM_WORDS = 512, /* instruction memory, 32-bit words */
    KT_VEC_L1_WORDS = 512,   /* the L1 scratchpad, 32-byte words */
    KT_VEC_DESCS = 8,        /* address descriptors A0..A7 */
    KT_VEC_DIMS = 4,         /* dims of a descriptor, dim 0 fastest */
    KT_VEC_VREGS = 16,
    KT_VEC_SREGS = 16,
    KT_VEC_LANES = 16, /* elements a register chunk holds */
    KT_VEC_VLMAX = 128,
    KT_VEC_WALK_MAX = 256, /* words of one VFILL / VDRAIN walk */
    KT_VEC_TXN = 0x40,     /* the reference driver's header txn */
};

/* The CU_INST word: op [255:252] (1 IMEM, 2 DESC, 3 RUN; any other retires as a no-op). */
enum { KT_VEC_CU_IMEM = 1, KT_VEC_CU_DESC = 2, KT_VEC_CU_RUN = 3 };
NPUKIT_API extern const kt_field kt_layout_vec[];
/* Load instruction word `word` at `addr` (0..511). `last` is left clear by a driver that wants a
 * RUN's cycle count (BATCH_COMPLETE carries the txn instead). */
NPUKIT_API npk_status kt_vec_imem(kt_flit *f, unsigned addr, uint32_t word, uint8_t txn, bool last);
/* Write descriptor `ad` (0..7) field `fld`: 0 the 40-bit base (a byte address for VFILL/VDRAIN,
 * an L1 word for VLD/VST), 1..4 dim 0..3 as kt_vec_dim(). */
NPUKIT_API npk_status kt_vec_desc(kt_flit *f, unsigned ad, unsigned fld, uint64_t value,
                                  uint8_t txn, bool last);
/* Run the kernel from `pc` (0..511). */
NPUKIT_API npk_status kt_vec_run(kt_flit *f, unsigned pc, uint8_t txn, bool last);
/* A descriptor dim: stride (signed 18 bits, in the walk's units) and bound (0 reads as 1). */
NPUKIT_API npk_status kt_vec_dim(int32_t stride, uint32_t bound, uint64_t *value);

/* Kernel opcodes ([31:27]). */
typedef enum kt_vec_op {
    KT_VEC_VMOV,
    KT_VEC_VNEG,
    KT_VEC_VABS,
    KT_VEC_VADD,
    KT_VEC_VSUB,
    KT_VEC_VMUL,
    KT_VEC_VFMA,
    KT_VEC_VFNMA,
    KT_VEC_VMAX,
    KT_VEC_VMIN,
    KT_VEC_VSEL,
    KT_VEC_VCMPLT,
    KT_VEC_VCMPGT,
    KT_VEC_VCMPEQ,
    KT_VEC_VEXP2,
    KT_VEC_VLOG2,
    KT_VEC_VINV,
    KT_VEC_VRSQRT,
    KT_VEC_VCVT,
    KT_VEC_VRED,
    KT_VEC_VLD,
    KT_VEC_VST,
    KT_VEC_VBCAST,
    KT_VEC_VSHUF,
    KT_VEC_VSETVL,
    KT_VEC_VSETMODE,
    KT_VEC_VSETI,
    KT_VEC_VLOOP,
    KT_VEC_VBAR,
    KT_VEC_VFILL,
    KT_VEC_VDRAIN,
    KT_VEC_VHALT,
    KT_VEC_OP_COUNT
} kt_vec_op;
/* Operand sources: a vector register, a scalar broadcast, the chain (D2/D4/TREE), a constant
 * (K0 0, K1 1.0, K2 -1.0, K3 by VSETI). */
enum { KT_VEC_SRC_V, KT_VEC_SRC_S, KT_VEC_SRC_C, KT_VEC_SRC_K };
enum { KT_VEC_DT_FP16 = 1, KT_VEC_DT_FP32 = 2 };
enum { KT_VEC_FLAT, KT_VEC_D2, KT_VEC_D4, KT_VEC_TREE };
/* pm: unpredicated, write where P[pr] is set, where it is clear. */
enum { KT_VEC_PM_ALL, KT_VEC_PM_SET, KT_VEC_PM_CLEAR };

/* One kernel instruction by its fields; which ones an opcode reads is its form's:
 *   arithmetic (VMOV..VCMPEQ, VEXP2..VRSQRT): vd va vb vc, sa sb sc, pr pm — a compare writes
 *     predicate P[pr], not vd;
 *   addressed (VLD VST VCVT VFILL VDRAIN): vd (VST: the source), ad, off (14 bits signed: the
 *     L1 offset added to the walk, VFILL/VDRAIN the first L1 word), dt;
 *   VRED: vd (the scalar), va, vb, kind in vc, pr; VBCAST vd, va (a scalar when sa = S);
 *   VSHUF vd va, vb the scalar holding the rotation; VSETVL va; VSETMODE mode in va;
 *   VSETI vd (K3 when sa = K), its immediate the next word; VLOOP va (the count), vb (body).
 * A field wider than its slot is refused (it would shift into the next and still decode). */
typedef struct kt_vec_insn {
    unsigned op, vd, va, vb, vc, sa, sb, sc, pr, pm, ad, dt;
    int off;
} kt_vec_insn;
NPUKIT_API npk_status kt_vec_encode(const kt_vec_insn *in, uint32_t *word);
/* The opcode's mnemonic ("VADD"), or NULL past VHALT. */
NPUKIT_API const char *kt_vec_op_name(unsigned op);

/* Fault codes (the SIG_FAULT argument of a RUN). */
enum {
    KT_VEC_F_DTYPE = 1,  /* VLD/VST/VCVT dtype not FP16 or FP32 */
    KT_VEC_F_VSRC = 2,   /* a chained instruction named a vector register source */
    KT_VEC_F_CHAIN = 3,  /* source C outside D2/D4/TREE */
    KT_VEC_F_OPCODE = 4, /* VRED (a tree kind) outside TREE */
    KT_VEC_F_LEN = 5,    /* a VFILL/VDRAIN walk of more than 256 words */
    KT_VEC_F_LOOP = 6,   /* VLOOP inside VLOOP */
    KT_VEC_F_VL = 7,     /* VSETVL of 0 or more than 128 */
    KT_VEC_F_REDVL = 8,  /* VRED with VL not a multiple of 16 */
    KT_VEC_F_CUDATA = 9, /* a CU_DATA burst named a buffer or L1 range the core lacks, or two
                          * senders' bursts interleaved */
    /* Not the hardware's: the simulator stopped a kernel at an instruction it does not model
     * (the model error names it). */
    KT_VEC_F_UNMODELLED = 0x80,
};
/* "F_LEN: ..." for a fault code, or NULL for one the core never signals. */
NPUKIT_API const char *kt_vec_fault_name(uint32_t code);

#ifdef __cplusplus
}
#endif
#endif
