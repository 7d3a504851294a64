/* SPDX-License-Identifier: MIT */
/* The RV32 control processor (CPU_RV64 = 0) in the simulated machine, booted as the hardware
 * boots it (CU_DATA into its windows, a kick, the completion in NODE_STATUS):
 *  - it enumerates as a compute unit ('RV'), its CU_DBG decoded per type;
 *  - the halt model end to end: ECALL reports a0, EBREAK and a fault complete as SIG_FAULT;
 *  - MVGO: descriptors in its scratchpad issue a FILL then a COPY of the filled words, queued in
 *    program order; memory equals the literal fill pattern and the same moves issued by the host
 *    through AUX_CFG;
 *  - the node word: busy while the executor or the mover works, the mover's fault code in [7:4];
 *  - the host's AUX_CFG window is absent from its space: any other node address faults;
 *  - occupant registers: one cycle like a scratchpad load, the request cycle's value, writes
 *    reach the occupant, its fault in [11:8] of the node word (a stand-in occupant), and the
 *    transform bank's own registers;
 *  - DRAM through the write-back L1, CTL_FLUSH and CTL_INVAL;
 *  - the system node's coordinate (0,0), a client of the memory ports.
 * Programs are instruction words built here, so this runs without a RISC-V toolchain. */
#include "check.h"
#include "kt/hw/kt_rv32.h"
#include "kt/hw/mxfp.h"
#include "kt/hw/rv32_regs.h"
#include "ktsim/rv32_complex.h"
#include "ktsim/rv64_asm.h"
#include "npukit/kt.h"
#include "npukit/kt_mover.h"
#include "npukit/kt_regs.h"
#include "npukit/kt_rv32.h"
#include "npukit/ktsim.h"

enum { T0 = 5, T1 = 6, T2 = 7, S0 = 8, S1 = 9, A0 = 10, A1 = 11, A2 = 12, MAX = 256 };
static const kt_coord RV = {0, 0}; /* the rv32 preset's processor: the system node's coordinate */

typedef struct prog {
    uint32_t w[MAX];
    unsigned n;
} prog;

static void emit(prog *p, uint32_t w)
{
    if (p->n < MAX)
        p->w[p->n++] = w;
}

static void li(prog *p, unsigned rd, uint32_t v)
{
    emit(p, rva_lui(rd, ((v + 0x800u) >> 12) & 0xfffff));
    emit(p, rva_addi(rd, rd, (int32_t)(v << 20) >> 20));
}
static uint32_t sw(unsigned rs2, unsigned rs1, int32_t off) { return rva_s(off, rs2, rs1, 2, 0x23); }
static uint32_t lw(unsigned rd, unsigned rs1, int32_t off) { return rva_lw(rd, rs1, off); }

typedef struct machine {
    ktsim *sim;
    kt_dev dev;
    ksim_rv32c *rv;
    uint64_t ctrl;
} machine;

static void machine_open(machine *m)
{
    ktsim_config cfg;
    CHECK_EQ(ktsim_preset_load("rv32", &cfg), NPK_OK);
    CHECK_EQ(ktsim_create(&cfg, &m->sim), NPK_OK);
    m->ctrl = cfg.ctrl_base;
    CHECK_EQ(kt_open(&m->dev, ktsim_transport(m->sim), m->ctrl, NULL), NPK_OK);
    m->rv = ktsim_rv32(m->sim, RV);
    CHECK(m->rv != NULL);
}

/* Boot p (and the scratchpad words, at word 0) and run it to its completion. */
static kt_rv32_result run(machine *m, const prog *p, const uint32_t *spad, size_t spad_n)
{
    CHECK_EQ(kt_rv32_write(&m->dev, RV, KT_RV32_BUF_IMEM, 0, p->w, p->n, KT_RV32_IMEM_WORDS),
             NPK_OK);
    if (spad_n)
        CHECK_EQ(kt_rv32_write(&m->dev, RV, KT_RV32_BUF_SPAD, 0, spad, spad_n, KT_RV32_SPAD_WORDS),
                 NPK_OK);
    kt_rv32_result r = {0};
    CHECK_EQ(kt_rv32_run(&m->dev, RV, 0, 41, 5000, &r), NPK_OK);
    return r;
}

static void test_enumerates(void)
{
    machine m;
    machine_open(&m);
    kt_unit units[16];
    size_t n = 0;
    CHECK_EQ(kt_enumerate(&m.dev, units, 16, &n), NPK_OK);
    CHECK_EQ(n, 4);
    const kt_unit *u = kt_find_unit(units, n, KT_RV32_CU_TYPE);
    CHECK(u && kt_coord_eq(u->at, RV));
    if (u) {
        CHECK_EQ(u->caps.n_buffers, 4);
        CHECK_EQ(u->caps.inst_depth, 16);
        CHECK(!strcmp(u->type_text, "RV"));
    }
    /* CU_DBG after a run: {instructions, cycles} of that program */
    prog p = {0};
    emit(&p, rva_addi(A0, 0, 7));
    emit(&p, RVA_NOP);
    emit(&p, RVA_ECALL);
    kt_rv32_result r = run(&m, &p, NULL, 0);
    CHECK_EQ(r.halt_word, 7);
    CHECK(!r.faulted);
    uint64_t dbg = 0;
    bool present = false;
    CHECK_EQ(kt_ctrl_read(&m.dev, RV, KT_CU_DBG, &dbg, &present), NPK_OK);
    CHECK(present);
    CHECK_EQ(dbg, (3ull << 32) | (2 + 3)); /* the pipeline's two fill cycles, then one each */
    char text[128];
    kt_cu_dbg_describe(KT_RV32_CU_TYPE, dbg, text, sizeof text);
    CHECK_STR_HAS(text, "instructions=3 cycles=5 (per run");
    ktsim_destroy(m.sim);
}

static void test_halts(void)
{
    machine m;
    machine_open(&m);
    /* a0 = CTL_ARG + CTL_COREID; ECALL: the kick's argument came through */
    prog p = {0};
    emit(&p, rva_lui(S1, KT_RV32_CTL_BASE >> 12));
    emit(&p, lw(T0, S1, KT_RV32_CTL_ARG));
    emit(&p, lw(T1, S1, KT_RV32_CTL_COREID));
    emit(&p, rva_add(A0, T0, T1));
    emit(&p, RVA_ECALL);
    kt_rv32_result r = run(&m, &p, NULL, 0);
    CHECK_EQ(r.halt_word, 41 + kt_coord_pack(RV));
    CHECK(!r.faulted);
    /* EBREAK: a fault completion carrying a0 */
    p.n = 0;
    emit(&p, rva_addi(A0, 0, -5));
    emit(&p, RVA_EBREAK);
    r = run(&m, &p, NULL, 0);
    CHECK(r.faulted);
    CHECK_EQ(r.halt_word, 0xfffffffbu);
    /* a load from the instruction window: a fault completion carrying the pc */
    p.n = 0;
    emit(&p, RVA_NOP);
    emit(&p, lw(A0, 0, 0));
    emit(&p, RVA_ECALL);
    r = run(&m, &p, NULL, 0);
    CHECK(r.faulted);
    CHECK_EQ(r.halt_word, 4);
    /* the kick's pc is checked before anything is sent */
    kt_flit f;
    CHECK_EQ(kt_rv32_kick_inst(&f, 0x10000000u, 0, 0), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "0x10000000");
    CHECK_EQ(kt_rv32_kick_inst(&f, 6, 0, 0), NPK_EINVAL);
    CHECK_EQ(kt_rv32_write(&m.dev, RV, KT_RV32_BUF_SPAD, 2040, p.w, 9, KT_RV32_SPAD_WORDS),
             NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "2048");
    CHECK_EQ(kt_rv32_write(&m.dev, RV, KT_RV32_BUF_SPAD, 4, p.w, 1, KT_RV32_SPAD_WORDS),
             NPK_EINVAL);
    ktsim_destroy(m.sim);
}

/* The descriptor of move `mv` at scratchpad word `at`: n, then {offset, lo, hi} per write. */
static size_t put_descriptor(uint32_t *spad, size_t at, const kt_mv_move *mv)
{
    kt_mv_write w[KT_MV_MAX_WRITES];
    size_t n = 0;
    CHECK_EQ(kt_mv_build(mv, w, KT_MV_MAX_WRITES, &n), NPK_OK);
    spad[at] = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        spad[at + 1 + 3 * i] = w[i].offset;
        spad[at + 2 + 3 * i] = (uint32_t)w[i].value;
        spad[at + 3 + 3 * i] = (uint32_t)(w[i].value >> 32);
    }
    return 1 + 3 * n;
}

/* MVGO each descriptor pointer in turn, then poll the node word until idle; a0 = the final node
 * word, a1 = the node word read right after the last MVGO. */
static void mvgo_program(prog *p, const uint32_t *desc_words, unsigned n_desc)
{
    p->n = 0;
    emit(p, rva_lui(S0, KT_RV32_SPAD_BASE >> 12));
    emit(p, rva_lui(S1, KT_RV32_MVGO >> 12));
    for (unsigned i = 0; i < n_desc; i++) {
        emit(p, rva_addi(T0, S0, (int32_t)(4 * desc_words[i])));
        emit(p, sw(T0, S1, 0));
    }
    emit(p, lw(A1, S1, 0));
    emit(p, lw(A0, S1, 0)); /* poll: */
    emit(p, rva_andi(T1, A0, KT_RV32_NODE_BUSY));
    emit(p, rva_bne(T1, 0, -8));
    emit(p, RVA_ECALL);
}

static void test_mvgo_chain(void)
{
    enum { WORDS = 24, A = 0x20000, B = 0x40000, C = 0x60000 };
    machine m;
    machine_open(&m);
    static uint32_t spad[KT_RV32_SPAD_WORDS];
    memset(spad, 0, sizeof spad);
    uint8_t poison[WORDS * KT_MV_WORD];
    memset(poison, 0xEE, sizeof poison);
    CHECK_EQ(ktsim_dram_write(m.sim, A, poison, sizeof poison), NPK_OK);
    CHECK_EQ(ktsim_dram_write(m.sim, B, poison, sizeof poison), NPK_OK);
    kt_mv_move fill = kt_mv_fill(A, WORDS, KT_MV_W32, 0xA5C30F01u);
    kt_mv_move copy = kt_mv_copy(B, A, WORDS);
    uint32_t at[2] = {0, 0};
    size_t used = put_descriptor(spad, 0, &fill);
    at[1] = (uint32_t)((used + 7) & ~7u);
    used = at[1] + put_descriptor(spad, at[1], &copy);
    uint32_t n_chain = spad[0] + spad[at[1]];
    prog p;
    mvgo_program(&p, at, 2);
    kt_rv32_result r = run(&m, &p, spad, used);
    CHECK(!r.faulted);
    CHECK_EQ(r.halt_word, 0); /* idle, no mover fault, no occupant fault */
    /* the COPY ran after the FILL: B holds the fill pattern, word for word */
    uint8_t got[WORDS * KT_MV_WORD];
    CHECK_EQ(ktsim_dram_read(m.sim, B, got, sizeof got), NPK_OK);
    unsigned bad = 0;
    for (unsigned i = 0; i < sizeof got; i += 4) {
        uint32_t v = (uint32_t)got[i] | (uint32_t)got[i + 1] << 8 | (uint32_t)got[i + 2] << 16 |
                     (uint32_t)got[i + 3] << 24;
        bad += v != 0xA5C30F01u;
    }
    CHECK_EQ(bad, 0);
    uint64_t aux = 0;
    CHECK_EQ(kt_reg_read(&m.dev, KT_AUX_STAT, &aux), NPK_OK);
    CHECK_EQ(kt_mv_status_decode(aux).moves_done, 2);
    CHECK_EQ(m.rv->moves_issued, 2);
    /* the same FILL from the host's AUX_CFG window gives the same bytes */
    kt_mv_move host = kt_mv_fill(C, WORDS, KT_MV_W32, 0xA5C30F01u);
    kt_mv_write w[KT_MV_MAX_WRITES];
    size_t n = 0;
    CHECK_EQ(kt_mv_build(&host, w, KT_MV_MAX_WRITES, &n), NPK_OK);
    CHECK_EQ(kt_mv_issue(ktsim_transport(m.sim), m.ctrl, w, n), NPK_OK);
    ktsim_step(m.sim, 2000);
    uint8_t via_host[WORDS * KT_MV_WORD];
    CHECK_EQ(ktsim_dram_read(m.sim, C, via_host, sizeof via_host), NPK_OK);
    CHECK(memcmp(got, via_host, sizeof got) == 0);
    /* an empty descriptor (n = 0) writes nothing and leaves the node idle */
    memset(spad, 0, 16);
    at[0] = 0;
    mvgo_program(&p, at, 1);
    r = run(&m, &p, spad, 8);
    CHECK_EQ(r.halt_word, 0);
    CHECK_EQ(m.rv->pulses, n_chain); /* the FILL's and COPY's writes, nothing more */
    ktsim_destroy(m.sim);
}

static void test_node_word(void)
{
    machine m;
    machine_open(&m);
    static uint32_t spad[KT_RV32_SPAD_WORDS];
    memset(spad, 0, sizeof spad);
    /* a long COPY: busy is up in the cycle after the MVGO store */
    uint8_t src[256 * KT_MV_WORD];
    memset(src, 0x3C, sizeof src);
    CHECK_EQ(ktsim_dram_write(m.sim, 0x10000, src, sizeof src), NPK_OK);
    kt_mv_move copy = kt_mv_copy(0x80000, 0x10000, 256);
    uint32_t at[1] = {0};
    size_t used = put_descriptor(spad, 0, &copy);
    prog p;
    mvgo_program(&p, at, 1);
    kt_rv32_result r = run(&m, &p, spad, used);
    kt_rv32_node first = kt_rv32_node_decode(m.rv->core.x[A1]);
    CHECK(first.busy);
    CHECK_EQ(r.halt_word, 0);
    /* a COPY from DRAM nobody wrote faults AXI: [7:4] = 3, busy 0 */
    copy = kt_mv_copy(0x80000, 0x900000, 2);
    used = put_descriptor(spad, 0, &copy);
    r = run(&m, &p, spad, used);
    kt_rv32_node last = kt_rv32_node_decode(r.halt_word);
    CHECK(!last.busy);
    CHECK_EQ(last.mover_fault, KT_MV_F_AXI);
    CHECK_EQ(last.occ_fault, 0);
    CHECK_EQ(r.halt_word, (uint32_t)KT_MV_F_AXI << KT_RV32_NODE_MOVER_FAULT_SHIFT);
    /* the table and the header's constants agree */
    kt_rv32_node n = {true, 0xA, 0x5};
    CHECK_EQ(kt_word_pack(&kt_rv32_node_layout, &n),
             KT_RV32_NODE_BUSY | 0xAu << KT_RV32_NODE_MOVER_FAULT_SHIFT |
                 0x5u << KT_RV32_NODE_OCC_FAULT_SHIFT);
    ktsim_destroy(m.sim);
}

/* No AUX_CFG, no mover register in the processor's space: a store (or load) anywhere in the node
 * range but MVGO and the occupants' registers halts it, and the mover never sees a write. */
static void test_aux_cfg_absent(void)
{
    machine m;
    machine_open(&m);
    static const uint32_t addrs[] = {
        KT_RV32_NODE_BASE + 0x10,   /* the mover's source walker header, were it mirrored */
        KT_RV32_NODE_BASE + 0x800,  /* AUX_CFG's host offset */
        KT_RV32_NODE_BASE + 0x878,  /* AUX_STAT's */
        KT_RV32_NODE_BASE + 0x4,    /* beside MVGO */
        KT_RV32_NODE_BASE + 0x20000, /* past the occupant range */
        KT_RV32_OCC_BASE + 0x1000,  /* an occupant id beyond four bits */
    };
    for (unsigned i = 0; i < sizeof addrs / sizeof addrs[0]; i++) {
        for (unsigned is_load = 0; is_load < 2; is_load++) {
            prog p = {0};
            li(&p, S1, addrs[i]);
            emit(&p, rva_addi(T0, 0, 1));
            emit(&p, is_load ? lw(A0, S1, 0) : sw(T0, S1, 0));
            emit(&p, RVA_ECALL);
            kt_rv32_result r = run(&m, &p, NULL, 0);
            CHECK(r.faulted);
            CHECK_EQ(r.halt_word, 12); /* the access's pc */
            CHECK_EQ(m.rv->core.cause, KT_RV32_CAUSE_FAULT);
        }
    }
    /* MVGO and the occupants are words: a byte or half access faults too */
    prog p = {0};
    emit(&p, rva_lui(S1, KT_RV32_MVGO >> 12));
    emit(&p, rva_sb(0, S1, 0));
    emit(&p, RVA_ECALL);
    kt_rv32_result r = run(&m, &p, NULL, 0);
    CHECK(r.faulted);
    CHECK_EQ(r.halt_word, 4);
    /* an MVGO pointer outside the scratchpad is refused the same way */
    p.n = 0;
    emit(&p, rva_lui(S1, KT_RV32_MVGO >> 12));
    emit(&p, rva_lui(T0, KT_RV32_CTL_BASE >> 12));
    emit(&p, sw(T0, S1, 0));
    emit(&p, RVA_ECALL);
    r = run(&m, &p, NULL, 0);
    CHECK(r.faulted);
    CHECK_EQ(r.halt_word, 8);
    CHECK_EQ(m.rv->pulses, 0);
    uint64_t aux = 0;
    CHECK_EQ(kt_reg_read(&m.dev, KT_AUX_STAT, &aux), NPK_OK);
    CHECK_EQ(kt_mv_status_decode(aux).moves_done, 0);
    CHECK_EQ(kt_mv_status_decode(aux).fault, 0);
    ktsim_destroy(m.sim);
}

/* ---- a stand-in occupant: its register 0x10 reads the unit tick it is asked in ---- */

typedef struct fake_occ {
    ksim_rv32_side real;
    ksim_rv32c *rv;
    unsigned last_id;
    uint8_t last_reg;
    uint32_t last_value;
    unsigned writes;
    uint8_t fault;
} fake_occ;

static void f_cfg(void *ctx, uint8_t off, uint64_t v)
{
    fake_occ *f = ctx;
    f->real.mover_cfg(f->real.ctx, off, v);
}
static uint64_t f_stat(void *ctx)
{
    fake_occ *f = ctx;
    return f->real.mover_stat(f->real.ctx);
}
static bool f_read(void *ctx, unsigned id, uint8_t reg, uint32_t *v)
{
    fake_occ *f = ctx;
    if (id != 3)
        return false;
    *v = reg == 0x10 ? (uint32_t)f->rv->now : 0xC0DE0000u | reg;
    return true;
}
static bool f_write(void *ctx, unsigned id, uint8_t reg, uint32_t v)
{
    fake_occ *f = ctx;
    f->last_id = id, f->last_reg = reg, f->last_value = v, f->writes++;
    return true;
}
static uint8_t f_fault(void *ctx) { return ((fake_occ *)ctx)->fault; }

static void test_occupants(void)
{
    machine m;
    machine_open(&m);
    fake_occ f = {m.rv->side, m.rv, 0, 0, 0, 0, 0};
    /* in the machine itself no occupant has registers: the range reads zero */
    prog p = {0};
    li(&p, S1, KT_RV32_OCC_ADDR(1, 0x20));
    emit(&p, lw(A0, S1, 0));
    emit(&p, RVA_ECALL);
    kt_rv32_result r = run(&m, &p, NULL, 0);
    CHECK(!r.faulted);
    CHECK_EQ(r.halt_word, 0);
    ksim_rv32_side side = {&f, f_cfg, f_stat, f_read, f_write, f_fault, NULL, NULL};
    ksim_rv32c_set_side(m.rv, &side);
    /* two back-to-back loads of the tick counter: one cycle apart, each the value in the cycle it
     * was asked; then the same dependent use after an occupant load and after a scratchpad load
     * costs the same */
    p.n = 0;
    li(&p, S1, KT_RV32_OCC_ADDR(3, 0x10));
    emit(&p, rva_lui(S0, KT_RV32_SPAD_BASE >> 12));
    emit(&p, lw(T0, S1, 0));
    emit(&p, lw(T1, S1, 0));
    emit(&p, rva_sub(A0, T1, T0));
    emit(&p, lw(A1, S1, 0x14 - 0x10)); /* register 0x14 */
    emit(&p, rva_addi(A2, A1, 0));     /* uses it at once */
    emit(&p, sw(A2, S1, 0x24 - 0x10)); /* back out to 0x24 of occupant 3 */
    emit(&p, RVA_ECALL);
    r = run(&m, &p, NULL, 0);
    CHECK_EQ(r.halt_word, 1);
    /* the first load executes at the core's cycle 5 (two of fill, two for li, one for lui):
     * tick start + 5 */
    CHECK_EQ(m.rv->core.x[T0], m.rv->start_tick + 5);
    CHECK_EQ(m.rv->core.x[A2], 0xC0DE0014u);
    CHECK_EQ(f.writes, 1);
    CHECK_EQ(f.last_id, 3);
    CHECK_EQ(f.last_reg, 0x24);
    CHECK_EQ(f.last_value, 0xC0DE0014u);
    uint64_t occ_cycles = m.rv->core.cycles;
    /* the same program with the third load from the scratchpad instead */
    p.w[6] = lw(A1, S0, 0);
    r = run(&m, &p, NULL, 0);
    CHECK_EQ(m.rv->core.cycles, occ_cycles);
    /* an occupant id with nothing there reads zero */
    p.n = 0;
    li(&p, S1, KT_RV32_OCC_ADDR(4, 0x10));
    emit(&p, lw(A0, S1, 0));
    emit(&p, RVA_ECALL);
    r = run(&m, &p, NULL, 0);
    CHECK_EQ(r.halt_word, 0);
    /* the occupant's fault shows in the node word's [11:8] */
    f.fault = 0x6;
    CHECK_EQ(kt_rv32_node_decode(ksim_rv32c_node_word(m.rv)).occ_fault, 0x6);
    ktsim_destroy(m.sim);
}

/* The converting move (mode 5) from a descriptor: the occupant named on the source walker's
 * header (XFORM_ID 1, the MXFP7 quantiser; XFORM_MODE[0] the B packing), the source counting
 * beats and the destination entries of four words; each entry equals the hardware layer's
 * quantiser applied to its eight source beats. */
static void test_converting_move(void)
{
    enum { ENTRIES = 3, SRC = 0x30000, DST = 0x50000 };
    machine m;
    machine_open(&m);
    static uint8_t src[ENTRIES * KT_MX_ENTRY_IN];
    uint32_t x = 12345;
    for (unsigned i = 0; i < sizeof src; i += 2) {
        x = x * 1103515245u + 12345u;
        /* normal FP16: sign, exponent 8..22, any significand */
        uint16_t h = (uint16_t)((x >> 31) << 15 | (8 + (x >> 16) % 15) << 10 | (x & 0x3ff));
        src[i] = (uint8_t)h;
        src[i + 1] = (uint8_t)(h >> 8);
    }
    CHECK_EQ(ktsim_dram_write(m.sim, SRC, src, sizeof src), NPK_OK);
    kt_mv_move mv = kt_mv_copy(DST, SRC, ENTRIES * KT_MX_ENTRY_IN / KT_MV_WORD);
    mv.mode = KT_MV_XFORM;
    mv.src.xform_id = 1;
    mv.src.xform_mode = 1;
    mv.dst.dims[0].count = ENTRIES;
    mv.dst.dims[0].stride = KT_MX_ENTRY_OUT;
    static uint32_t spad[KT_RV32_SPAD_WORDS];
    size_t used = put_descriptor(spad, 0, &mv);
    uint32_t at[1] = {0};
    prog p;
    mvgo_program(&p, at, 1);
    kt_rv32_result r = run(&m, &p, spad, used);
    CHECK(!r.faulted);
    CHECK_EQ(r.halt_word, 0);
    uint8_t got[ENTRIES * KT_MX_ENTRY_OUT], want[KT_MX_ENTRY_OUT];
    CHECK_EQ(ktsim_dram_read(m.sim, DST, got, sizeof got), NPK_OK);
    for (unsigned e = 0; e < ENTRIES; e++) {
        kt_mx_quant_entry(src + e * KT_MX_ENTRY_IN, true, want);
        CHECK(memcmp(got + e * KT_MX_ENTRY_OUT, want, KT_MX_ENTRY_OUT) == 0);
    }
    ktsim_destroy(m.sim);
}

/* The transform bank's registers, through the processor's node range (KohakuTPU's bank):
 * register 0x04 is each id's geometry — the quantiser's 2048 bits in and 4 words out, the
 * bypass's one word, 0 for an id that holds nothing; register 0x00 is the bank's fault word,
 * the same from every id. A transform through an id that names no occupant (built here by
 * patching XFORM_ID into a bypass descriptor, since the driver refuses it) passes the data
 * through unchanged and raises fault bit 0, which the node word shows in [11:8] until a store to
 * register 0 clears it. */
static void test_transform_bank(void)
{
    enum { WORDS = 8, SRC = 0x70000, DST = 0x72000, OUT = 200, NO_OCCUPANT_ID = 3 };
    machine m;
    machine_open(&m);
    static const unsigned ids[] = {0, 1, 2, 15};
    static const uint32_t geometry[] = {1u << 16 | 256, 4u << 16 | 2048, 0, 0};
    prog p = {0};
    li(&p, S1, KT_RV32_SPAD_BASE + 4 * OUT);
    for (unsigned i = 0; i < 4; i++) {
        li(&p, T0, KT_RV32_OCC_ADDR(ids[i], KT_RV32_OCC_REG_GEOMETRY));
        emit(&p, lw(T1, T0, 0));
        emit(&p, sw(T1, S1, (int32_t)(4 * i)));
    }
    li(&p, T0, KT_RV32_OCC_ADDR(1, KT_RV32_OCC_REG_FAULT));
    emit(&p, lw(A0, T0, 0));
    emit(&p, RVA_ECALL);
    kt_rv32_result r = run(&m, &p, NULL, 0);
    CHECK_EQ(r.halt_word, 0);
    for (unsigned i = 0; i < 4; i++)
        CHECK_EQ(ksim_rv32c_spad_read(m.rv, OUT + i), geometry[i]);

    uint8_t src[WORDS * KT_MV_WORD];
    for (unsigned i = 0; i < sizeof src; i++)
        src[i] = (uint8_t)(i * 7 + 1);
    CHECK_EQ(ktsim_dram_write(m.sim, SRC, src, sizeof src), NPK_OK);
    kt_mv_move mv = kt_mv_copy(DST, SRC, WORDS);
    mv.mode = KT_MV_XFORM;
    mv.src.xform_id = KT_MV_SLOT_BYPASS;
    static uint32_t spad[KT_RV32_SPAD_WORDS];
    size_t used = put_descriptor(spad, 0, &mv);
    unsigned patched = 0;
    for (uint32_t i = 0; i < spad[0]; i++) {
        uint32_t *w = &spad[1 + 3 * i];
        if (w[0] == KT_MV_HDR && !(w[1] & 1)) { /* the source walker's header */
            w[2] |= (uint32_t)NO_OCCUPANT_ID << (47 - 32);
            patched++;
        }
    }
    CHECK_EQ(patched, 1);
    uint32_t at[1] = {0};
    mvgo_program(&p, at, 1);
    r = run(&m, &p, spad, used);
    kt_rv32_node n = kt_rv32_node_decode(r.halt_word);
    CHECK(!n.busy);
    CHECK_EQ(n.mover_fault, 0);
    CHECK_EQ(n.occ_fault, KT_RV32_OCC_FAULT_NO_OCCUPANT);
    uint8_t got[sizeof src];
    CHECK_EQ(ktsim_dram_read(m.sim, DST, got, sizeof got), NPK_OK);
    CHECK(memcmp(got, src, sizeof got) == 0);

    /* read the fault from another id, clear it through a third, read the node word */
    p.n = 0;
    li(&p, T0, KT_RV32_OCC_ADDR(7, KT_RV32_OCC_REG_FAULT));
    emit(&p, lw(A1, T0, 0));
    li(&p, S1, KT_RV32_SPAD_BASE + 4 * OUT);
    emit(&p, sw(A1, S1, 0));
    li(&p, T0, KT_RV32_OCC_ADDR(5, KT_RV32_OCC_REG_FAULT));
    emit(&p, sw(0, T0, 0));
    li(&p, T0, KT_RV32_MVGO);
    emit(&p, lw(A0, T0, 0));
    emit(&p, RVA_ECALL);
    r = run(&m, &p, NULL, 0);
    CHECK_EQ(ksim_rv32c_spad_read(m.rv, OUT), KT_RV32_OCC_FAULT_NO_OCCUPANT);
    CHECK_EQ(kt_rv32_node_decode(r.halt_word).occ_fault, 0);
    CHECK(ktsim_fault(m.sim) == NULL);
    ktsim_destroy(m.sim);
}

/* DRAM through the L1 (addr[31] set: offset addr[30:0] of the mesh's DRAM), write-back: a store
 * reaches DRAM at CTL_FLUSH or when its line is evicted, never before; a line stays until
 * CTL_INVAL drops it (dirty data included), across kicks; a miss holds the core l1_miss cycles
 * (32 by default); a fill from DRAM nobody wrote faults with the pc. */
static void test_dram_through_l1(void)
{
    enum { OFF = 0x200000, DRAM = 0x80000000u | OFF, ALIAS = OFF + 128 * 32 };
    machine m;
    machine_open(&m);
    uint32_t init[16];
    for (unsigned i = 0; i < 16; i++)
        init[i] = 0x1000 + i;
    CHECK_EQ(ktsim_dram_write(m.sim, OFF, init, sizeof init), NPK_OK);
    CHECK_EQ(ktsim_dram_write(m.sim, ALIAS, init, sizeof init), NPK_OK);
    prog p = {0};
    /* a0 = [DRAM]; [DRAM+4] = a0 + 1 */
    li(&p, S0, DRAM);
    emit(&p, lw(A0, S0, 0));
    emit(&p, rva_addi(T0, A0, 1));
    emit(&p, sw(T0, S0, 4));
    emit(&p, RVA_ECALL);
    kt_rv32_result r = run(&m, &p, NULL, 0);
    CHECK_EQ(r.halt_word, 0x1000);
    uint32_t got[16];
    CHECK_EQ(ktsim_dram_read(m.sim, OFF, got, sizeof got), NPK_OK);
    CHECK_EQ(got[1], 0x1001); /* still in the L1 */
    CHECK_EQ(m.rv->l1.misses, 1);
    uint64_t miss_run = m.rv->core.cycles;
    /* the same program again: a hit, 32 cycles sooner; then CTL_FLUSH */
    r = run(&m, &p, NULL, 0);
    CHECK_EQ(m.rv->core.cycles + 32, miss_run);
    CHECK_EQ(m.rv->l1.misses, 1);
    p.n = 0;
    li(&p, S1, KT_RV32_CTL_BASE);
    emit(&p, sw(0, S1, KT_RV32_CTL_FLUSH));
    emit(&p, RVA_ECALL);
    run(&m, &p, NULL, 0);
    CHECK_EQ(ktsim_dram_read(m.sim, OFF, got, sizeof got), NPK_OK);
    CHECK_EQ(got[1], 0x1001);
    /* another agent writes the line: the L1 keeps its copy until CTL_INVAL */
    init[0] = 0xBEEF;
    CHECK_EQ(ktsim_dram_write(m.sim, OFF, init, sizeof init), NPK_OK);
    p.n = 0;
    li(&p, S0, DRAM);
    emit(&p, lw(A0, S0, 0));
    emit(&p, RVA_ECALL);
    CHECK_EQ(run(&m, &p, NULL, 0).halt_word, 0x1000);
    p.n = 0;
    li(&p, S1, KT_RV32_CTL_BASE);
    emit(&p, sw(0, S1, KT_RV32_CTL_INVAL));
    li(&p, S0, DRAM);
    emit(&p, lw(A0, S0, 0));
    emit(&p, RVA_ECALL);
    CHECK_EQ(run(&m, &p, NULL, 0).halt_word, 0xBEEF);
    /* a dirty line dropped by CTL_INVAL never reaches DRAM; one evicted by a line at the same
     * index does */
    p.n = 0;
    li(&p, S0, DRAM);
    li(&p, T0, 0x55);
    emit(&p, sw(T0, S0, 8));
    li(&p, S1, KT_RV32_CTL_BASE);
    emit(&p, sw(0, S1, KT_RV32_CTL_INVAL));
    emit(&p, sw(0, S1, KT_RV32_CTL_FLUSH));
    li(&p, T0, 0x66);
    emit(&p, sw(T0, S0, 12));
    li(&p, S0, 0x80000000u | ALIAS);
    emit(&p, lw(A0, S0, 0));
    emit(&p, RVA_ECALL);
    r = run(&m, &p, NULL, 0);
    CHECK_EQ(r.halt_word, 0x1000);
    CHECK_EQ(ktsim_dram_read(m.sim, OFF, got, sizeof got), NPK_OK);
    CHECK_EQ(got[2], 0x1002);
    CHECK_EQ(got[3], 0x66);
    /* DRAM nobody wrote: the fill fails, the load faults with its pc */
    p.n = 0;
    li(&p, S0, 0x80000000u | 0x300000);
    emit(&p, lw(A0, S0, 0));
    emit(&p, RVA_ECALL);
    r = run(&m, &p, NULL, 0);
    CHECK(r.faulted);
    CHECK_EQ(r.halt_word, 8);
    ktsim_destroy(m.sim);
}

/* The windows' sizes are preset settings (log2 of words); a burst that does not fit the named
 * window is counted out and dropped, never wrapped onto its start. */
static void test_window_settings(void)
{
    ktsim_config cfg;
    CHECK_EQ(ktsim_preset_parse("grid 1 1\nmem_port 0 1\nunit 1 0 rv32 spad_bits=17\n", "text",
                                &cfg),
             NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "spad_bits=17 outside 3..16");
    CHECK_EQ(ktsim_preset_parse("grid 1 1\nmem_port 0 1\nunit 1 0 rv32 spad_bits=4\n", "text",
                                &cfg),
             NPK_OK);
    ktsim *sim = NULL;
    CHECK_EQ(ktsim_create(&cfg, &sim), NPK_OK);
    kt_dev dev;
    CHECK_EQ(kt_open(&dev, ktsim_transport(sim), cfg.ctrl_base, NULL), NPK_OK);
    const kt_coord at = {1, 0};
    ksim_rv32c *rv = ktsim_rv32(sim, at);
    CHECK(rv && rv->spad_words == 16);
    uint32_t words[16];
    for (unsigned i = 0; i < 16; i++)
        words[i] = 0x100 + i;
    CHECK_EQ(kt_rv32_write(&dev, at, KT_RV32_BUF_SPAD, 0, words, 16, 16), NPK_OK);
    /* granule 2 of a two-granule window: the unit drops it (the driver was told 64 words) */
    uint32_t more[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    CHECK_EQ(kt_rv32_write(&dev, at, KT_RV32_BUF_SPAD, 16, more, 8, 64), NPK_OK);
    ktsim_step(sim, 200);
    CHECK_EQ(rv->dropped_bursts, 1);
    unsigned kept = 0;
    for (unsigned i = 0; i < 16; i++)
        kept += ksim_rv32c_spad_read(rv, i) == 0x100 + i;
    CHECK_EQ(kept, 16);
    ktsim_destroy(sim);
}

/* (0,0) is the system node's coordinate: only the control processor sits there, as a client of
 * the memory ports. On a mesh with two ports (rows 1 and 3) it boots and completes through them,
 * and the host's requests, sent from (0, GRID_LO), are answered by the agent, not by it. */
static void test_system_node_coordinate(void)
{
    ktsim_config cfg;
    ktsim *sim = NULL;
    CHECK_EQ(ktsim_preset_parse("grid 1 1\nmem_port 0 1\nunit 0 0 test\n", "text", &cfg), NPK_OK);
    CHECK_EQ(ktsim_create(&cfg, &sim), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "unit at (0,0) is of kind 'test'");
    CHECK_STR_HAS(npk_last_error(), "only the control processor (kind rv32)");
    CHECK_EQ(ktsim_preset_parse("grid 1 3\nmem_port 0 1\nmem_port 0 3\nunit 0 0 rv32\n"
                                "unit 2 3 rv32\nunit 2 2 test\n",
                                "text", &cfg),
             NPK_OK);
    CHECK_EQ(ktsim_create(&cfg, &sim), NPK_OK);
    kt_dev dev;
    CHECK_EQ(kt_open(&dev, ktsim_transport(sim), cfg.ctrl_base, NULL), NPK_OK);
    CHECK(dev.opt.reply_to.x == 0 && dev.opt.reply_to.y == 1);
    kt_unit units[8];
    size_t n = 0;
    CHECK_EQ(kt_enumerate(&dev, units, 8, &n), NPK_OK);
    CHECK_EQ(n, 3);
    CHECK(n == 3 && kt_coord_eq(units[0].at, RV) && units[0].caps.type == KT_RV32_CU_TYPE);
    /* both processors run a program reading CTL_COREID: each answers with its own coordinate */
    const kt_coord at[2] = {{0, 0}, {2, 3}};
    for (unsigned i = 0; i < 2; i++) {
        prog p = {0};
        li(&p, T0, KT_RV32_CTL_BASE);
        emit(&p, lw(A0, T0, KT_RV32_CTL_COREID));
        emit(&p, RVA_ECALL);
        CHECK_EQ(kt_rv32_write(&dev, at[i], KT_RV32_BUF_IMEM, 0, p.w, p.n, KT_RV32_IMEM_WORDS),
                 NPK_OK);
        kt_rv32_result r = {0};
        CHECK_EQ(kt_rv32_run(&dev, at[i], 0, 0, 5000, &r), NPK_OK);
        CHECK_EQ(r.halt_word, kt_coord_pack(at[i]));
        CHECK(!r.faulted);
    }
    /* Peer pushes from (0,0) into (2,3): a word and a byte into its scratchpad (only the byte's
     * lane written), a word into its instruction window; a load from the peer window faults. */
    ksim_rv32c *peer = ktsim_rv32(sim, at[1]);
    ksim_rv32c_spad_write(peer, 6, 0x11223344u);
    prog p = {0};
    li(&p, T0, 0xABCD1234u);
    li(&p, S0, KT_RV32_PEER_ADDR(2, 3, 0, 5));
    emit(&p, sw(T0, S0, 0));
    li(&p, T1, 0xEE);
    emit(&p, rva_s(4 + 1, T1, S0, 0, 0x23)); /* sb to word 6, byte 1 */
    li(&p, S1, KT_RV32_PEER_ADDR(2, 3, 1, 40));
    emit(&p, sw(T0, S1, 0));
    emit(&p, RVA_ECALL);
    CHECK_EQ(kt_rv32_write(&dev, at[0], KT_RV32_BUF_IMEM, 0, p.w, p.n, KT_RV32_IMEM_WORDS), NPK_OK);
    kt_rv32_result r = {0};
    CHECK_EQ(kt_rv32_run(&dev, at[0], 0, 0, 5000, &r), NPK_OK);
    CHECK(!r.faulted);
    ktsim_step(sim, 200);
    CHECK_EQ(ksim_rv32c_spad_read(peer, 5), 0xABCD1234u);
    CHECK_EQ(ksim_rv32c_spad_read(peer, 6), 0x1122EE44u);
    CHECK_EQ(peer->imem[40], 0xABCD1234u);
    CHECK_EQ(ktsim_rv32(sim, at[0])->pushes, 3);
    p.n = 0;
    li(&p, S0, KT_RV32_PEER_ADDR(2, 3, 0, 5));
    emit(&p, lw(A0, S0, 0));
    emit(&p, RVA_ECALL);
    CHECK_EQ(kt_rv32_write(&dev, at[0], KT_RV32_BUF_IMEM, 0, p.w, p.n, KT_RV32_IMEM_WORDS), NPK_OK);
    CHECK_EQ(kt_rv32_run(&dev, at[0], 0, 0, 5000, &r), NPK_OK);
    CHECK(r.faulted);
    CHECK_EQ(r.halt_word, 8);
    CHECK(ktsim_fault(sim) == NULL);
    ktsim_destroy(sim);
}

int main(void)
{
    test_system_node_coordinate();
    test_transform_bank();
    test_dram_through_l1();
    test_window_settings();
    test_converting_move();
    test_enumerates();
    test_halts();
    test_mvgo_chain();
    test_node_word();
    test_aux_cfg_absent();
    test_occupants();
    return check_done();
}
