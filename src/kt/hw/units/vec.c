/* SPDX-License-Identifier: MIT */
/* The vector core ('VC' 0x5643) as hardware (facts §3.2): the CU_INST word that loads and runs a
 * kernel — IMEM [251:243] address and [31:0] word, DESC [251:249] descriptor, [248:246] field and
 * the value at [245:212] with a base's top six bits at [68:63], RUN [251:243] start pc — and the
 * 32-bit kernel word: op [31:27]; the arithmetic form sa [26:25] sb [24:23] sc [22:21] vd [20:17]
 * va [16:13] vb [12:9] vc [8:5] pr [4:3] pm [2:1]; the addressed form dtype [26:24] ad [23:21]
 * vd [20:17] offset [13:0]. */
#include "kt/hw/units/vec.h"

#include <inttypes.h>
#include <string.h>

const kt_field kt_layout_vec[] = {
    {"op", 252, 4},     {"addr", 243, 9}, {"ad", 249, 3},      {"fld", 246, 3},
    {"value", 212, 34}, {"word", 0, 32},  {"value_hi", 63, 6}, {NULL, 0, 0},
};
enum { F_OP, F_ADDR, F_AD, F_FLD, F_VALUE, F_WORD, F_VALUE_HI };
enum { VALUE_LO_BITS = 34, DESC_FIELDS = 1 + KT_VEC_DIMS, BOUND_MAX = 0xFFFF };

static uint64_t get(const kt_flit *f, int i) { return kt_field_get(f, &kt_layout_vec[i]); }

void kt_vec_cu_decode(const kt_flit *f, kt_vec_cu_fields *o)
{
    o->op = (unsigned)get(f, F_OP);
    o->addr = (unsigned)get(f, F_ADDR);
    o->ad = (unsigned)get(f, F_AD);
    o->fld = (unsigned)get(f, F_FLD);
    o->value = get(f, F_VALUE_HI) << VALUE_LO_BITS | get(f, F_VALUE);
    o->word = (uint32_t)get(f, F_WORD);
}

static npk_status build(kt_flit *f, const uint64_t (*fv)[2], unsigned n, uint8_t txn, bool last)
{
    memset(f, 0, sizeof *f);
    for (unsigned i = 0; i < n; i++) {
        npk_status s = kt_field_put(f, &kt_layout_vec[fv[i][0]], fv[i][1]);
        if (s)
            return s;
    }
    kt_header h = {{0, 0}, {0, 0}, KT_T_CU_INST, txn, last, 0}; /* dst/src set at dispatch */
    return kt_header_put(f, &h);
}

npk_status kt_vec_imem(kt_flit *f, unsigned addr, uint32_t word, uint8_t txn, bool last)
{
    if (addr >= KT_VEC_IMEM_WORDS)
        return npk_fail(NPK_ELIMIT, "vector IMEM address %u outside 0..%d", addr,
                        KT_VEC_IMEM_WORDS - 1);
    const uint64_t fv[][2] = {{F_OP, KT_VEC_CU_IMEM}, {F_ADDR, addr}, {F_WORD, word}};
    return build(f, fv, sizeof fv / sizeof fv[0], txn, last);
}

npk_status kt_vec_desc(kt_flit *f, unsigned ad, unsigned fld, uint64_t value, uint8_t txn,
                       bool last)
{
    if (ad >= KT_VEC_DESCS || fld >= DESC_FIELDS)
        return npk_fail(NPK_ELIMIT, "vector DESC A%u field %u: descriptors 0..%d, fields 0..%d", ad,
                        fld, KT_VEC_DESCS - 1, DESC_FIELDS - 1);
    unsigned bits = fld ? VALUE_LO_BITS : KT_MEM_ADDR_BITS;
    if (value >> bits)
        return npk_fail(NPK_ELIMIT,
                        "vector DESC A%u field %u value 0x%" PRIx64 " is beyond %u bits", ad, fld,
                        value, bits);
    const uint64_t fv[][2] = {{F_OP, KT_VEC_CU_DESC},
                              {F_AD, ad},
                              {F_FLD, fld},
                              {F_VALUE, value & ((1ull << VALUE_LO_BITS) - 1)},
                              {F_VALUE_HI, value >> VALUE_LO_BITS}};
    return build(f, fv, sizeof fv / sizeof fv[0], txn, last);
}

npk_status kt_vec_run(kt_flit *f, unsigned pc, uint8_t txn, bool last)
{
    if (pc >= KT_VEC_IMEM_WORDS)
        return npk_fail(NPK_ELIMIT, "vector RUN pc %u outside 0..%d", pc, KT_VEC_IMEM_WORDS - 1);
    const uint64_t fv[][2] = {{F_OP, KT_VEC_CU_RUN}, {F_ADDR, pc}};
    return build(f, fv, sizeof fv / sizeof fv[0], txn, last);
}

npk_status kt_vec_dim(int32_t stride, uint32_t bound, uint64_t *value)
{
    if (stride < -(1 << 17) || stride >= (1 << 17) || bound > BOUND_MAX)
        return npk_fail(NPK_ELIMIT,
                        "vector descriptor dim stride %" PRId32 " bound %" PRIu32
                        ": stride is signed 18 bits, bound 0..%d",
                        stride, bound, BOUND_MAX);
    *value = ((uint64_t)(uint32_t)stride & 0x3FFFF) << 16 | bound;
    return NPK_OK;
}

/* ---- the kernel word ---- */

typedef struct slot {
    const char *name;
    uint8_t lo, width;
} slot;
enum { S_VD, S_VA, S_VB, S_VC, S_SA, S_SB, S_SC, S_PR, S_PM, S_AD, S_DT, S_OFF, S_COUNT };
static const slot slots[S_COUNT] = {
    [S_VD] = {"vd", 17, 4}, [S_VA] = {"va", 13, 4},    [S_VB] = {"vb", 9, 4},
    [S_VC] = {"vc", 5, 4},  [S_SA] = {"sa", 25, 2},    [S_SB] = {"sb", 23, 2},
    [S_SC] = {"sc", 21, 2}, [S_PR] = {"pr", 3, 2},     [S_PM] = {"pm", 1, 2},
    [S_AD] = {"ad", 21, 3}, [S_DT] = {"dtype", 24, 3}, [S_OFF] = {"offset", 0, 14},
};
#define B(s) (1u << (s))
enum {
    FORM_ALU =
        B(S_VD) | B(S_VA) | B(S_VB) | B(S_VC) | B(S_SA) | B(S_SB) | B(S_SC) | B(S_PR) | B(S_PM),
    FORM_ADDR = B(S_VD) | B(S_AD) | B(S_DT) | B(S_OFF),
};

/* Each opcode: its mnemonic and the fields its form carries. */
static const struct {
    const char *name;
    unsigned form;
} ops[KT_VEC_OP_COUNT] = {
    [KT_VEC_VMOV] = {"VMOV", FORM_ALU},
    [KT_VEC_VNEG] = {"VNEG", FORM_ALU},
    [KT_VEC_VABS] = {"VABS", FORM_ALU},
    [KT_VEC_VADD] = {"VADD", FORM_ALU},
    [KT_VEC_VSUB] = {"VSUB", FORM_ALU},
    [KT_VEC_VMUL] = {"VMUL", FORM_ALU},
    [KT_VEC_VFMA] = {"VFMA", FORM_ALU},
    [KT_VEC_VFNMA] = {"VFNMA", FORM_ALU},
    [KT_VEC_VMAX] = {"VMAX", FORM_ALU},
    [KT_VEC_VMIN] = {"VMIN", FORM_ALU},
    [KT_VEC_VSEL] = {"VSEL", FORM_ALU},
    [KT_VEC_VCMPLT] = {"VCMPLT", FORM_ALU},
    [KT_VEC_VCMPGT] = {"VCMPGT", FORM_ALU},
    [KT_VEC_VCMPEQ] = {"VCMPEQ", FORM_ALU},
    [KT_VEC_VEXP2] = {"VEXP2", FORM_ALU},
    [KT_VEC_VLOG2] = {"VLOG2", FORM_ALU},
    [KT_VEC_VINV] = {"VINV", FORM_ALU},
    [KT_VEC_VRSQRT] = {"VRSQRT", FORM_ALU},
    [KT_VEC_VCVT] = {"VCVT", B(S_VD) | B(S_VA) | B(S_DT)},
    [KT_VEC_VRED] = {"VRED", B(S_VD) | B(S_VA) | B(S_VB) | B(S_VC) | B(S_PR)},
    [KT_VEC_VLD] = {"VLD", FORM_ADDR},
    [KT_VEC_VST] = {"VST", FORM_ADDR},
    [KT_VEC_VBCAST] = {"VBCAST", B(S_VD) | B(S_VA) | B(S_SA)},
    [KT_VEC_VSHUF] = {"VSHUF", B(S_VD) | B(S_VA) | B(S_VB)},
    [KT_VEC_VSETVL] = {"VSETVL", B(S_VA)},
    [KT_VEC_VSETMODE] = {"VSETMODE", B(S_VA)},
    [KT_VEC_VSETI] = {"VSETI", B(S_VD) | B(S_SA)},
    [KT_VEC_VLOOP] = {"VLOOP", B(S_VA) | B(S_VB)},
    [KT_VEC_VBAR] = {"VBAR", 0},
    [KT_VEC_VFILL] = {"VFILL", B(S_AD) | B(S_OFF)},
    [KT_VEC_VDRAIN] = {"VDRAIN", B(S_AD) | B(S_OFF)},
    [KT_VEC_VHALT] = {"VHALT", 0},
};

const char *kt_vec_op_name(unsigned op) { return op < KT_VEC_OP_COUNT ? ops[op].name : NULL; }

npk_status kt_vec_encode(const kt_vec_insn *in, uint32_t *word)
{
    if (in->op >= KT_VEC_OP_COUNT)
        return npk_fail(NPK_ELIMIT, "vector opcode %u outside 0..%d", in->op, KT_VEC_OP_COUNT - 1);
    const unsigned v[S_COUNT] = {in->vd, in->va, in->vb, in->vc, in->sa, in->sb,
                                 in->sc, in->pr, in->pm, in->ad, in->dt, 0};
    uint32_t w = (uint32_t)in->op << 27;
    for (unsigned s = 0; s < S_COUNT; s++) {
        if (!(ops[in->op].form & B(s)))
            continue;
        const slot *sl = &slots[s];
        if (s == S_OFF) {
            /* VFILL/VDRAIN name an L1 word (9 bits); VLD/VST a signed 14-bit offset */
            bool l1 = in->op == KT_VEC_VFILL || in->op == KT_VEC_VDRAIN;
            int lo = l1 ? 0 : -(1 << 13), hi = l1 ? KT_VEC_L1_WORDS - 1 : (1 << 13) - 1;
            if (in->off < lo || in->off > hi)
                return npk_fail(NPK_ELIMIT, "%s offset %d outside %d..%d", ops[in->op].name,
                                in->off, lo, hi);
            w |= (uint32_t)in->off & 0x3FFF;
            continue;
        }
        if (v[s] >> sl->width)
            return npk_fail(NPK_ELIMIT, "%s %s=%u does not fit %u bits", ops[in->op].name, sl->name,
                            v[s], sl->width);
        w |= (uint32_t)v[s] << sl->lo;
    }
    *word = w;
    return NPK_OK;
}

/* A slot of a word: each use names its slot by a constant, so the compiler folds the table
 * into a shift and a mask (the simulator decodes a word every cycle it asks whether the next
 * ones are quiet). */
static inline unsigned field_of(uint32_t w, unsigned s)
{
    return w >> slots[s].lo & ((1u << slots[s].width) - 1);
}

void kt_vec_decode(uint32_t w, kt_vec_insn *o)
{
    o->op = w >> 27;
    o->vd = field_of(w, S_VD), o->va = field_of(w, S_VA), o->vb = field_of(w, S_VB);
    o->vc = field_of(w, S_VC), o->sa = field_of(w, S_SA), o->sb = field_of(w, S_SB);
    o->sc = field_of(w, S_SC), o->pr = field_of(w, S_PR), o->pm = field_of(w, S_PM);
    o->ad = field_of(w, S_AD), o->dt = field_of(w, S_DT);
    o->off = (int)(field_of(w, S_OFF) ^ 0x2000) - 0x2000;
}

const char *kt_vec_fault_name(uint32_t code)
{
    static const char *const names[] = {
        [KT_VEC_F_DTYPE] = "F_DTYPE: VLD/VST/VCVT dtype is not FP16 or FP32",
        [KT_VEC_F_VSRC] = "F_VSRC: a chained instruction named a vector register source",
        [KT_VEC_F_CHAIN] = "F_CHAIN: source C used outside D2/D4/TREE",
        [KT_VEC_F_OPCODE] = "F_OPCODE: VRED outside TREE mode",
        [KT_VEC_F_LEN] = "F_LEN: a VFILL/VDRAIN walk longer than 256 words",
        [KT_VEC_F_LOOP] = "F_LOOP: VLOOP nested inside VLOOP",
        [KT_VEC_F_VL] = "F_VL: VSETVL of 0 or more than 128",
        [KT_VEC_F_REDVL] = "F_REDVL: VRED with VL not a multiple of 16",
        [KT_VEC_F_CUDATA] = "F_CUDATA: a CU_DATA burst named a buffer or L1 range the core "
                            "lacks, or two senders interleaved",
    };
    if (code == KT_VEC_F_UNMODELLED)
        return "F_UNMODELLED: the simulator does not model this instruction (see its model error)";
    return code < sizeof names / sizeof names[0] ? names[code] : NULL;
}
