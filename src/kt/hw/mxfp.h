/* SPDX-License-Identifier: MIT */
/* MXFP7, KohakuTPU's matmul operand format, as pure arithmetic (facts §3.1.1): a signed 7-bit
 * significand per element (-63..63, symmetric) and an 8-bit E5M3 scale shared by a block of 32
 * elements along K, scale = 2^(E - 20) * (8 + M) / 8, field = {E[4:0], M[2:0]}.
 *
 * The quantiser here is the FP16 -> MXFP7 block quantiser of the memory path (upstream's
 * mx_quant), bit for bit: the same peak, the same round-up scale choice, the same reciprocal
 * table and rounding, the same clamp; tests/test_kt_mxfp.c holds it to outputs recorded from the
 * RTL under Verilator. One entry is 4 lanes x 32 K of FP16 in (eight 32-byte beats, lane-major)
 * and four 32-byte words out, in the cluster's A or B packing.
 *
 * Words are 32-byte arrays in memory order: bit i of the 256-bit word is bit i % 8 of byte i / 8
 * (the flit payload's and the AXI data bus's order). */
#ifndef NPUKIT_KT_HW_MXFP_H
#define NPUKIT_KT_HW_MXFP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    KT_MX_KBLOCK = 32,    /* elements sharing one scale, along K */
    KT_MX_LANES = 4,      /* lanes in an entry: rows of A or columns of B */
    KT_MX_SBIAS = 20,     /* the scale exponent's bias */
    KT_MX_ANCHOR = 40,    /* the GEMM instruction's anchor: 2 * SBIAS cancels both biases */
    KT_MX_QMAX = 63,      /* the significand's magnitude limit (no -64) */
    KT_MX_SEXP_MIN = -20, /* unbiased scale exponents the 5-bit field holds */
    KT_MX_SEXP_MAX = 11,
    KT_MX_ENTRY_ELEMS = KT_MX_LANES * KT_MX_KBLOCK, /* 128 */
    KT_MX_ENTRY_IN = 256,  /* bytes of FP16 in an entry (8 beats) */
    KT_MX_ENTRY_OUT = 128, /* bytes of MXFP7 out (4 words) */
    KT_MX_WORD = 32,
};

/* A block scale: unbiased exponent (SEXP_MIN..SEXP_MAX) and mantissa in eighths (8..15). */
typedef struct kt_mx_scale {
    int8_t exp;
    uint8_t m8;
} kt_mx_scale;

/* The smallest scale with peak / scale <= 63 for a block whose largest magnitude has FP16 bits
 * `peak` (sign ignored); an all-zero block gets the unit scale {0, 8}. */
kt_mx_scale kt_mx_block_scale(uint16_t peak);
uint8_t kt_mx_scale_field(kt_mx_scale s);
kt_mx_scale kt_mx_scale_of_field(uint8_t field);
/* The real value a scale stands for: 2^exp * m8 / 8. */
double kt_mx_scale_value(kt_mx_scale s);
/* One FP16 element's significand under scale s (round half up, magnitude clamped to 63). */
int8_t kt_mx_quant_elem(uint16_t h, kt_mx_scale s);

/* A block of 32 FP16 elements: its scale and significands. */
kt_mx_scale kt_mx_quant_block(const uint16_t x[KT_MX_KBLOCK], int8_t q[KT_MX_KBLOCK]);
/* An entry's four lanes of blocks (x, q: lane * 32 + k) and their scale fields. */
void kt_mx_quant_lanes(const uint16_t x[KT_MX_ENTRY_ELEMS], int8_t q[KT_MX_ENTRY_ELEMS],
                       uint8_t field[KT_MX_LANES]);
/* The same on an entry's bytes as they lie in memory (FP16 little-endian, as kt_mx_quant_entry
 * takes them). */
void kt_mx_quant_lanes_le(const uint8_t in[KT_MX_ENTRY_IN], int8_t q[KT_MX_ENTRY_ELEMS],
                          uint8_t field[KT_MX_LANES]);

/* One entry: `in` is eight beats, FP16 little-endian, element (lane, k) at byte 2 * (lane * 32
 * + k); `out` is four words, word w holding K slice 8w..8w+7 at 7-bit slots from bit 255 down
 * (A: slot lane * 8 + k % 8; B: slot (k % 8) * 4 + lane) and lane i's scale field at bits
 * [31 - 8i -: 8] of every word. */
void kt_mx_quant_entry(const uint8_t in[KT_MX_ENTRY_IN], bool b_layout,
                       uint8_t out[KT_MX_ENTRY_OUT]);
/* The packing alone: significands q[lane * 32 + k] (-64..63) and the lanes' scale fields into
 * the four words, as above (mxfp_entry.c). */
void kt_mx_pack_entry(const int8_t q[KT_MX_ENTRY_ELEMS], const uint8_t field[KT_MX_LANES],
                      bool b_layout, uint8_t out[KT_MX_ENTRY_OUT]);
/* The inverse reading of a packed entry: q[lane * 32 + k] and the four lanes' scales, as
 * kt_mx_scale values or (kt_mx_unpack_q) as the stored fields. */
void kt_mx_unpack_entry(const uint8_t in[KT_MX_ENTRY_OUT], bool b_layout,
                        int8_t q[KT_MX_ENTRY_ELEMS], kt_mx_scale scale[KT_MX_LANES]);
void kt_mx_unpack_q(const uint8_t in[KT_MX_ENTRY_OUT], bool b_layout,
                    int8_t q[KT_MX_ENTRY_ELEMS], uint8_t field[KT_MX_LANES]);

/* ---- the cluster's accumulation (facts §3.1.1) ----
 * A chain is one 4 x 4 sub-tile's exact integer dot products over a K block of 32, scaled by
 * the two lanes' scales: dot * m8A * m8B * 2^(EA + EB - anchor - 6), with EA, EB the stored
 * (biased) exponents, so anchor 40 gives dot * scaleA * scaleB. The resident tile holds FP22
 * (sign, 7-bit exponent, 14-bit mantissa); DRAIN writes FP16. */
enum { KT_MX_ACC_MANT = 14, KT_MX_ACC_EBIAS = 63 };
double kt_mx_chain(const int8_t qa[KT_MX_KBLOCK], uint8_t field_a, const int8_t qb[KT_MX_KBLOCK],
                   uint8_t field_b, unsigned anchor);
/* x rounded to the accumulator's FP22: nearest, ties to even, on 15 significant bits; beyond
 * the exponent range it saturates (above) or flushes to zero (below). This is the normaliser's
 * rounding of a chain (an exact value whose exponent stays well inside the range, where it is
 * the RTL's bit for bit); the unit's sums are kt_mx_acc_add's, which differ from it. */
double kt_mx_acc_round(double x);
/* The accumulation unit's adder on FP22 bit patterns ({sign, exponent[6:0], fraction[13:0]},
 * exponent 0 = zero), bit for bit with upstream's mx_fpacc_align/round_a/round_b (see
 * mxfp_fp22.c for where it departs from rounding the exact sum). kt_mx_fp22_of: the pattern of a
 * value FP22 holds exactly (kt_mx_acc_round's results; a zero of either sign is 0);
 * kt_mx_fp22_value: its value. kt_mx_acc_add: tile + chain, both FP22 values, as the unit sums
 * them. */
uint32_t kt_mx_fp22_add(uint32_t a, uint32_t b);
/* The FP22 pattern of the exact value ±mag * 2^sh (mag > 0, below 2^25; sign 1 for minus) as
 * kt_mx_acc_round rounds it: a chain's rounding, shared by the block kernels and the sweep. */
uint32_t kt_mx_fp22_round(uint32_t mag, int sh, unsigned sign);
uint32_t kt_mx_fp22_of(double x);
double kt_mx_fp22_value(uint32_t v);
double kt_mx_acc_add(double tile, double chain);
/* An accumulator value (FP22 bits, or a value FP22 holds exactly) as FP16 the way EMIT writes
 * it, bit for bit with mx_fpacc_to_fp16: nearest even, saturating at +-65504, no subnormals
 * (what is below 2^-14 after rounding is a zero with the sign). */
uint16_t kt_mx_fp22_to_fp16(uint32_t v);
/* The same over n values (a drained sub-tile's sixteen at once). */
void kt_mx_fp22_to_fp16_n(const uint32_t *v, uint16_t *h, size_t n);
/* A chain rounded by the normaliser, as FP22 bits, in integer arithmetic: the same pattern as
 * kt_mx_fp22_of(kt_mx_acc_round(kt_mx_chain(...))) for every input (tests/test_kt_fp22.c holds
 * it to that), at a fraction of the cost — the matmul cluster's sweep computes every chain so. */
uint32_t kt_mx_chain_fp22(const int8_t qa[KT_MX_KBLOCK], uint8_t field_a,
                          const int8_t qb[KT_MX_KBLOCK], uint8_t field_b, unsigned anchor);
/* One K block of a 4 x 4 sub-tile: t[i * 4 + j] (FP22 bits) loaded with, or summed by
 * kt_mx_fp22_add with, the chain of A entry lane i and B entry lane j (q: lane * 32 + k). */
void kt_mx_subtile_fp22(const int8_t qa[KT_MX_ENTRY_ELEMS], const uint8_t field_a[KT_MX_LANES],
                        const int8_t qb[KT_MX_ENTRY_ELEMS], const uint8_t field_b[KT_MX_LANES],
                        unsigned anchor, bool load, uint32_t t[KT_MX_LANES * KT_MX_LANES]);
uint16_t kt_mx_acc_to_fp16(double x);

/* ---- the sweep's operands (mxfp_sweep.c) ----
 * An L1 entry as the cluster's sweep reads it: each significand times its lane's scale mantissa
 * (q * m8, |v| <= 64 * 15: a K block's dot of them is below 2^25 and already carries both
 * mantissas), the scale fields, and the stored exponents (field >> 3) laid out for the kernel's
 * vectors: row[h] = lanes 2h and 2h + 1, four times each (the entry as A); col = the four lanes,
 * twice (the entry as B). */
typedef struct kt_mx_opnd {
    int16_t v[KT_MX_ENTRY_ELEMS]; /* lane * 32 + k */
    int32_t row[2][8];
    int32_t col[8];
    uint8_t field[KT_MX_LANES];
} kt_mx_opnd;
void kt_mx_opnd_of(const int8_t q[KT_MX_ENTRY_ELEMS], const uint8_t field[KT_MX_LANES],
                   kt_mx_opnd *o);
/* One sub-tile over nk K blocks in order: block kb is kt_mx_subtile_fp22 of A entry a[kb] and
 * B entry b[kb] (loading t when `load` and kb = 0, summing otherwise), bit for bit. */
void kt_mx_subtile_run(const kt_mx_opnd *const *a, const kt_mx_opnd *const *b, unsigned nk,
                       unsigned anchor, bool load, uint32_t t[KT_MX_LANES * KT_MX_LANES]);

#endif
