/* SPDX-License-Identifier: MIT */
/* The RV32 core's cycles against upstream's RTL: each program below ran on rv_core
 * (KohakuBlueleaf/KohakuTPU 7703ee8: rv_core, rv_imem and rv_spad with the predictor, under
 * Verilator 5.006; the core's own cycle_ctr and instret_ctr, read once the halting ECALL has
 * left the pipeline) and the recorded figures are the expected values here — every one exact.
 * The families sweep sizes: straight-line code (the two fill cycles), a counted loop (the
 * predictor learning a branch at its first taken outcome, missing its exit), load-use at
 * spacings 0 and 1, calls and returns (JAL/JALR through the predictor's targets), a branch that
 * alternates; two compiled C programs (an insertion sort and a CRC plus a switch) mix them all.
 * A second kick on the same core runs with the predictor and the registers the first left. */
#include "check.h"
#include "ktsim/rv32.h"
#include "ktsim/rv64_asm.h"

enum { T0 = 5, T1 = 6, SP = 2, RA = 1, A0 = 10, A1 = 11, MAX = 600, IMEM = 2048, SPAD = 2048 };
enum { SPAD_BASE = 0x10000000 };

typedef struct prog {
    uint32_t w[MAX];
    unsigned n;
} prog;
static void emit(prog *p, uint32_t w)
{
    if (p->n < MAX)
        p->w[p->n++] = w;
}

static uint32_t imem[IMEM], spad[SPAD];

static ksim_rv32_access t_load(void *ctx, uint32_t addr, unsigned width, uint32_t *v)
{
    (void)ctx;
    if ((addr >> 28) != 1)
        return KSIM_RV32_ACCESS_FAULT;
    uint32_t w = spad[((addr & 0x0fffffff) >> 2) % SPAD] >> (8 * (addr & 3));
    *v = width == 4 ? w : w & ((1u << (8 * width)) - 1);
    return KSIM_RV32_ACCESS_OK;
}
static ksim_rv32_access t_store(void *ctx, uint32_t addr, unsigned width, uint32_t v)
{
    (void)ctx;
    if ((addr >> 28) != 1)
        return KSIM_RV32_ACCESS_FAULT;
    uint32_t *w = &spad[((addr & 0x0fffffff) >> 2) % SPAD];
    unsigned sh = 8 * (addr & 3);
    uint32_t mask = (width == 4 ? 0xffffffffu : (1u << (8 * width)) - 1) << sh;
    *w = (*w & ~mask) | ((v << sh) & mask);
    return KSIM_RV32_ACCESS_OK;
}

typedef struct rtl_row {
    const char *name;
    unsigned size;
    uint32_t cycles, instret, halt_word; /* the first kick */
    uint32_t cycles2, halt_word2;        /* a second kick (0: not measured) */
} rtl_row;

/* Load the program, power on, kick (twice when the row has a second figure), compare. */
static void check_row(const rtl_row *r, const uint32_t *w, unsigned n)
{
    memset(imem, 0, sizeof imem);
    memset(spad, 0, sizeof spad);
    memcpy(imem, w, n * sizeof *w);
    static ksim_rv32 core;
    ksim_rv32_bus bus = {NULL, t_load, t_store};
    ksim_rv32_init(&core, imem, IMEM, &bus);
    for (unsigned kick = 0; kick < (r->cycles2 ? 2u : 1u); kick++) {
        ksim_rv32_start(&core, 0);
        for (unsigned i = 0; i < 200000 && ksim_rv32_step(&core) != KSIM_RV32_HALTED; i++)
            ;
        uint32_t want = kick ? r->cycles2 : r->cycles, word = kick ? r->halt_word2 : r->halt_word;
        if (core.cycles != want || core.retired != r->instret || core.halt_word != word)
            printf("%s %u kick %u: ktsim %llu cycles %llu retired 0x%x, RTL %u %u 0x%x\n",
                   r->name, r->size, kick + 1, (unsigned long long)core.cycles,
                   (unsigned long long)core.retired, core.halt_word, want, r->instret, word);
        CHECK_EQ(core.cycles, want);
        CHECK_EQ(core.retired, r->instret);
        CHECK_EQ(core.halt_word, word);
    }
}

static void li(prog *p, unsigned rd, int32_t v) { emit(p, rva_addi(rd, 0, v)); } /* small v */

/* n x (addi a0, a0, 1); ecall */
static void straight(prog *p, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        emit(p, rva_addi(A0, A0, 1));
    emit(p, RVA_ECALL);
}
/* li t0, n; 1: addi t0, t0, -1; bne t0, x0, 1b; mv a0, t0; ecall */
static void loop(prog *p, unsigned n)
{
    li(p, T0, (int32_t)n);
    emit(p, rva_addi(T0, T0, -1));
    emit(p, rva_bne(T0, 0, -4));
    emit(p, rva_addi(A0, T0, 0));
    emit(p, RVA_ECALL);
}
/* a counter in the scratchpad: lw, (the use right after, or one instruction between), sw */
static void load_use(prog *p, unsigned n, bool spaced)
{
    emit(p, rva_lui(SP, SPAD_BASE >> 12));
    li(p, T0, (int32_t)n);
    emit(p, rva_lw(A1, SP, 0));
    if (spaced)
        emit(p, rva_addi(T0, T0, -1));
    emit(p, rva_addi(A1, A1, 1));
    emit(p, rva_s(0, A1, SP, 2, 0x23));
    if (!spaced)
        emit(p, rva_addi(T0, T0, -1));
    emit(p, rva_bne(T0, 0, -16));
    emit(p, rva_lw(A0, SP, 0));
    emit(p, RVA_ECALL);
}
/* li t0, n; 1: jal ra, f; addi t0, t0, -1; bne t0, x0, 1b; ecall; f: addi a0, a0, 1; ret */
static void calls(prog *p, unsigned n)
{
    li(p, T0, (int32_t)n);
    emit(p, rva_jal(RA, 16));
    emit(p, rva_addi(T0, T0, -1));
    emit(p, rva_bne(T0, 0, -8));
    emit(p, RVA_ECALL);
    emit(p, rva_addi(A0, A0, 1));
    emit(p, rva_jalr(0, RA, 0));
}
/* li t0, n; 1: andi t1, t0, 1; beq t1, x0, 2f; addi a0, a0, 1; 2: addi t0, t0, -1; bne 1b */
static void alternate(prog *p, unsigned n)
{
    li(p, T0, (int32_t)n);
    emit(p, rva_andi(T1, T0, 1));
    emit(p, rva_beq(T1, 0, 8));
    emit(p, rva_addi(A0, A0, 1));
    emit(p, rva_addi(T0, T0, -1));
    emit(p, rva_bne(T0, 0, -16));
    emit(p, RVA_ECALL);
}

static const uint32_t sort_text[] = {
    0x10001197, 0x80018193, 0xd0018113, 0x10000297, 0xff428293, 0x90018313,
    0x0062f863, 0x0002a023, 0x00428293, 0xff5ff06f, 0x00c000ef, 0x00000073,
    0x0000006f, 0x10000637, 0x00060693, 0x00003737, 0x00010537, 0x00060e13,
    0x10068593, 0x00060613, 0x03970713, 0xfff50513, 0x00d71793, 0x00e7c7b3,
    0x0117d713, 0x00e7c7b3, 0x00579713, 0x00e7c733, 0x00a777b3, 0x00f62023,
    0x00460613, 0xfcb61ee3, 0x004e0813, 0x00000893, 0x03f00313, 0x00082503,
    0x00080793, 0x0100006f, 0x00e7a023, 0xffc60793, 0x04f68463, 0xffc7a703,
    0x00078613, 0xfee566e3, 0x00a62023, 0x00188893, 0x00480813, 0xfc6898e3,
    0x00000793, 0x0006a703, 0x00579613, 0x40f607b3, 0x00468693, 0x00e787b3,
    0xfeb696e3, 0x00179793, 0x0017d513, 0x00008067, 0x000e0613, 0x00a62023,
    0x00188893, 0x00480813, 0xf8689ae3, 0xfc5ff06f,
};
static const uint32_t mix_text[] = {
    0x10001197, 0x80018193, 0xe0018113, 0x10000297, 0xff428293, 0xa0018313,
    0x0062f863, 0x0002a023, 0x00428293, 0xff5ff06f, 0x00c000ef, 0x00000073,
    0x0000006f, 0xfe010113, 0x100006b7, 0x00812c23, 0x000035b7, 0x00068413,
    0x00912a23, 0x00112e23, 0x01212823, 0x01312623, 0x01412423, 0x01512223,
    0x20040493, 0x00068693, 0x00100713, 0x03958593, 0x00871793, 0x40e787b3,
    0x00379793, 0x00e787b3, 0x00779793, 0x00e787b3, 0x00379793, 0x40e787b3,
    0x00579613, 0x00c787b3, 0x00279793, 0x40e787b3, 0x00279793, 0x00e78733,
    0x00b70733, 0x00875793, 0x00f6a023, 0x00468693, 0xfa969ce3, 0xedb886b7,
    0x0c840593, 0x00040613, 0xfff00913, 0x32068693, 0x00064783, 0x00800713,
    0x00f94933, 0x00197793, 0x40f007b3, 0x00195913, 0x00d7f7b3, 0xfff70713,
    0x00f94933, 0xfe0714e3, 0x00160613, 0xfcc59ae3, 0x00000a93, 0x00200993,
    0x00500a13, 0x0180006f, 0x00357513, 0x098000ef, 0x00440413, 0x00aa8ab3,
    0x04848263, 0x00042503, 0x00757793, 0x0017b593, 0x40b005b3, 0xffe5f593,
    0x07378063, 0x00558593, 0xfcf9f8e3, 0x00d00593, 0xfd4784e3, 0x00100593,
    0x00357513, 0x058000ef, 0x00440413, 0x00aa8ab3, 0xfc8492e3, 0x01594533,
    0x01c12083, 0x01812403, 0xfff54513, 0x00151513, 0x01412483, 0x01012903,
    0x00c12983, 0x00812a03, 0x00412a83, 0x00155513, 0x02010113, 0x00008067,
    0x00157593, 0x40b005b3, 0xffc5f593, 0x00b58593, 0xf69ff06f, 0x00050613,
    0x00000513, 0x0015f693, 0x00068463, 0x00c50533, 0x0015d593, 0x00161613,
    0xfe0596e3, 0x00008067,
};

typedef void (*family)(prog *p, unsigned n);
static void load_use0(prog *p, unsigned n) { load_use(p, n, false); }
static void load_use1(prog *p, unsigned n) { load_use(p, n, true); }

static const struct {
    family build;
    rtl_row row;
} families[] = {
    {straight, {"straight", 1, 4, 2, 1, 0, 0}},
    {straight, {"straight", 8, 11, 9, 8, 0, 0}},
    {straight, {"straight", 64, 67, 65, 64, 0, 0}},
    {straight, {"straight", 512, 515, 513, 512, 0, 0}},
    {loop, {"loop", 1, 7, 5, 0, 0, 0}},
    {loop, {"loop", 2, 15, 7, 0, 0, 0}},
    {loop, {"loop", 4, 19, 11, 0, 0, 0}},
    {loop, {"loop", 16, 43, 35, 0, 40, 0}},
    {loop, {"loop", 256, 523, 515, 0, 0, 0}},
    {loop, {"loop", 1000, 2011, 2003, 0, 0, 0}},
    {load_use0, {"load-use, back to back", 1, 13, 9, 1, 0, 0}},
    {load_use0, {"load-use, back to back", 16, 124, 84, 16, 0, 0}},
    {load_use0, {"load-use, back to back", 256, 1804, 1284, 256, 0, 0}},
    {load_use1, {"load-use, one between", 1, 12, 9, 1, 0, 0}},
    {load_use1, {"load-use, one between", 16, 108, 84, 16, 0, 0}},
    {load_use1, {"load-use, one between", 256, 1548, 1284, 256, 0, 0}},
    {calls, {"call and return", 1, 15, 7, 1, 9, 2}},
    {calls, {"call and return", 16, 96, 82, 16, 87, 32}},
    {calls, {"call and return", 256, 1296, 1282, 256, 1287, 512}},
    {alternate, {"alternating branch", 16, 130, 74, 8, 0, 0}},
    {alternate, {"alternating branch", 256, 1930, 1154, 128, 0, 0}},
};

int main(void)
{
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
        static prog p;
        p.n = 0;
        families[i].build(&p, families[i].row.size);
        check_row(&families[i].row, p.w, p.n);
    }
    const rtl_row sort = {"insertion sort of 64 (gcc -O2)", 64, 8593, 7375, 0x48f3609e, 8560,
                          0x48f3609e};
    check_row(&sort, sort_text, sizeof sort_text / sizeof sort_text[0]);
    const rtl_row mix = {"CRC-32 of 200 bytes and a switch (gcc -O2)", 128, 20968, 19055,
                         0x500d9f7d, 20950, 0x500d9f7d};
    check_row(&mix, mix_text, sizeof mix_text / sizeof mix_text[0]);
    return check_done();
}
