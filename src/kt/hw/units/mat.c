/* SPDX-License-Identifier: MIT */
/* The matmul cluster ('MG' 0x4D47) as hardware (facts §3.1): its instruction layout, decode and
 * the encoders for FILL, GEMM and DRAIN. All three share one 256-bit word; each reads its own
 * fields and ignores the rest. The byte address is 40 bits split in two: [251:218] its low 34
 * bits, [68:63] the top 6. */
#include "kt/hw/units/mat.h"

#include <inttypes.h>
#include <string.h>

const kt_field kt_layout_mat[] = {
    {"op", 252, 4},     {"addr", 218, 34},   {"n", 202, 16},     {"sel", 201, 1},
    {"acc", 200, 1},    {"gm", 192, 8},      {"gn", 184, 8},     {"nk", 176, 8},
    {"anchor", 168, 8}, {"peers", 144, 24},  {"npeer", 142, 2},  {"preq", 141, 1},
    {"eoff", 133, 8},   {"aoff", 125, 8},    {"boff", 117, 8},   {"emit", 116, 1},
    {"fuse", 115, 1},   {"abank", 114, 1},   {"bbank", 113, 1},  {"fbank", 112, 1},
    {"dnode", 111, 1},  {"dst_x", 107, 4},   {"dst_y", 103, 4},  {"dbuf", 95, 8},
    {"dflags", 87, 8},  {"dack_y", 83, 4},   {"dack_x", 79, 4},  {"dmesh", 77, 2},
    {"dfin", 69, 8},    {"addr_hi", 63, 6},  {NULL, 0, 0},
};

/* Positions in kt_layout_mat, in table order. */
enum {
    F_OP, F_ADDR, F_N, F_SEL, F_ACC, F_GM, F_GN, F_NK, F_ANCHOR, F_PEERS, F_NPEER, F_PREQ, F_EOFF,
    F_AOFF, F_BOFF, F_EMIT, F_FUSE, F_ABANK, F_BBANK, F_FBANK, F_DNODE, F_DST_X, F_DST_Y, F_DBUF,
    F_DFLAGS, F_DACK_Y, F_DACK_X, F_DMESH, F_DFIN, F_ADDR_HI, F_COUNT
};
enum { ADDR_LO_BITS = 34 };

static uint64_t get(const kt_flit *f, int i) { return kt_field_get(f, &kt_layout_mat[i]); }

void kt_mat_decode(const kt_flit *f, kt_mat_fields *o)
{
    memset(o, 0, sizeof *o);
    o->op = (unsigned)get(f, F_OP);
    o->addr = get(f, F_ADDR_HI) << ADDR_LO_BITS | get(f, F_ADDR);
    o->n = (uint32_t)get(f, F_N);
    o->sel = get(f, F_SEL);
    o->acc = get(f, F_ACC);
    o->gm = (uint8_t)get(f, F_GM);
    o->gn = (uint8_t)get(f, F_GN);
    o->nk = (uint8_t)get(f, F_NK);
    o->anchor = (uint8_t)get(f, F_ANCHOR);
    o->peers = (uint32_t)get(f, F_PEERS);
    o->npeer = (uint8_t)get(f, F_NPEER);
    o->preq = get(f, F_PREQ);
    o->eoff = (uint8_t)get(f, F_EOFF);
    o->aoff = (uint8_t)get(f, F_AOFF);
    o->boff = (uint8_t)get(f, F_BOFF);
    o->emit = get(f, F_EMIT);
    o->fuse = get(f, F_FUSE);
    o->abank = get(f, F_ABANK);
    o->bbank = get(f, F_BBANK);
    o->fbank = get(f, F_FBANK);
    o->dnode = get(f, F_DNODE);
    o->dst_x = (uint8_t)get(f, F_DST_X);
    o->dst_y = (uint8_t)get(f, F_DST_Y);
    o->dbuf = (uint8_t)get(f, F_DBUF);
    o->dflags = (uint8_t)get(f, F_DFLAGS);
    o->dack_y = (uint8_t)get(f, F_DACK_Y);
    o->dack_x = (uint8_t)get(f, F_DACK_X);
    o->dmesh = (uint8_t)get(f, F_DMESH);
    o->dfin = (uint8_t)get(f, F_DFIN);
}

/* Fields (position, value) into a cleared word, then the header. */
static npk_status build(kt_flit *f, const uint64_t (*fv)[2], unsigned n, uint8_t txn, bool last)
{
    memset(f, 0, sizeof *f);
    for (unsigned i = 0; i < n; i++) {
        npk_status s = kt_field_put(f, &kt_layout_mat[fv[i][0]], fv[i][1]);
        if (s)
            return s;
    }
    kt_header h = {{0, 0}, {0, 0}, KT_T_CU_INST, txn, last, 0}; /* dst/src set at dispatch */
    return kt_header_put(f, &h);
}

static npk_status check_addr(const char *what, uint64_t addr)
{
    if (addr >> KT_MEM_ADDR_BITS)
        return npk_fail(NPK_ELIMIT, "matmul %s address 0x%" PRIx64 " is beyond 40 bits", what,
                        addr);
    if (addr & 31)
        return npk_fail(NPK_EINVAL, "matmul %s address 0x%" PRIx64 " must be 32-byte aligned",
                        what, addr);
    return NPK_OK;
}

npk_status kt_mat_fill(kt_flit *f, uint64_t addr, uint32_t n, bool sel, bool preq, bool fbank,
                       uint8_t eoff, uint8_t txn, bool last)
{
    /* stricter than the unit: n = 0 reads as 1, and beyond 255 the read's count wraps and the
     * unit waits for entries that never come */
    if (n == 0 || n > KT_MAT_FILL_MAX_N)
        return npk_fail(NPK_ELIMIT, "matmul FILL n=%u outside 1..%u (the read counts entries in "
                                    "8 bits)",
                        n, (unsigned)KT_MAT_FILL_MAX_N);
    npk_status s = check_addr("FILL", addr);
    if (s)
        return s;
    const uint64_t fv[][2] = {{F_OP, KT_MAT_OP_FILL},
                              {F_ADDR, addr & ((1ull << ADDR_LO_BITS) - 1)},
                              {F_ADDR_HI, addr >> ADDR_LO_BITS},
                              {F_N, n},
                              {F_SEL, sel},
                              {F_PREQ, preq},
                              {F_FBANK, fbank},
                              {F_EOFF, eoff}};
    return build(f, fv, sizeof fv / sizeof fv[0], txn, last);
}

npk_status kt_mat_gemm(kt_flit *f, uint8_t gm, uint8_t gn, uint8_t nk, bool acc, uint8_t aoff,
                       uint8_t boff, bool abank, bool bbank, uint8_t txn, bool last)
{
    if (!gm || !gn || !nk)
        return npk_fail(NPK_EINVAL, "matmul GEMM gm=%u gn=%u nk=%u: each must be 1..255", gm, gn,
                        nk);
    const uint64_t fv[][2] = {{F_OP, KT_MAT_OP_GEMM}, {F_GM, gm},       {F_GN, gn},
                              {F_NK, nk},             {F_ACC, acc},     {F_ANCHOR, 40},
                              {F_AOFF, aoff},         {F_BOFF, boff},   {F_ABANK, abank},
                              {F_BBANK, bbank}};
    return build(f, fv, sizeof fv / sizeof fv[0], txn, last);
}

npk_status kt_mat_gemm_emit(kt_flit *f, uint8_t gm, uint8_t gn, uint8_t nk, bool acc, uint8_t aoff,
                            uint8_t boff, bool abank, bool bbank, uint64_t addr, uint8_t txn,
                            bool last)
{
    if (nk == 1 && !acc)
        return npk_fail(NPK_EINVAL, "matmul GEMM emit with nk=1 needs acc: its one K block would "
                                    "open the tile and emit it, which the unit cannot do");
    npk_status s = check_addr("GEMM emit", addr);
    if (!s)
        s = kt_mat_gemm(f, gm, gn, nk, acc, aoff, boff, abank, bbank, txn, last);
    if (!s)
        s = kt_field_put(f, &kt_layout_mat[F_EMIT], 1);
    if (!s)
        s = kt_field_put(f, &kt_layout_mat[F_ADDR], addr & ((1ull << ADDR_LO_BITS) - 1));
    if (!s)
        s = kt_field_put(f, &kt_layout_mat[F_ADDR_HI], addr >> ADDR_LO_BITS);
    return s;
}

npk_status kt_mat_drain_fused(kt_flit *f, uint64_t addr, uint32_t n, uint8_t txn, bool last)
{
    npk_status s = kt_mat_drain(f, addr, n, txn, last);
    return s ? s : kt_field_put(f, &kt_layout_mat[F_FUSE], 1);
}

npk_status kt_mat_drain(kt_flit *f, uint64_t addr, uint32_t n, uint8_t txn, bool last)
{
    if (n == 0 || n > 0xFFFF)
        return npk_fail(NPK_ELIMIT, "matmul DRAIN n=%u outside 1..65535", n);
    npk_status s = check_addr("DRAIN", addr);
    if (s)
        return s;
    const uint64_t fv[][2] = {{F_OP, KT_MAT_OP_DRAIN},
                              {F_ADDR, addr & ((1ull << ADDR_LO_BITS) - 1)},
                              {F_ADDR_HI, addr >> ADDR_LO_BITS},
                              {F_N, n}};
    return build(f, fv, sizeof fv / sizeof fv[0], txn, last);
}
