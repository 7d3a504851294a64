/* SPDX-License-Identifier: MIT */
/* The RV64 complex's control region wired to the rest of the simulated node: a copy commanded
 * through the mover window and checked in memory (on the lone mesh's own mover and on a card's),
 * the half-width window (a FILL takes the immediate the host left: 0x40 is out of reach), the
 * mover status word at 0x20, a doorbell rung through the interlink window and counted at the
 * other mesh (0x28, the external interrupt level, the clear), the host winning a same-cycle
 * collision on the interlink's config port, the processor winning one on the mover's (the host's
 * write lost whatever register it addressed), a clear racing an arriving doorbell losing, and
 * the mailbox at (0,0) as a client of the system node's hub (dispatches out by the memory ports,
 * completions in, everything else dropped, a walk seeing the coordinate empty). Programs are
 * instruction words built here, so this runs without the RISC-V toolchain. */
#include "check.h"
#include "ktsim/rv64_asm.h"
#include "ktsim/rv64_complex.h"
#include "kt/hw/kt_interlink_hw.h"
#include "npukit/kt.h"
#include "npukit/kt_mover.h"
#include "npukit/kt_test_unit.h"
#include "npukit/kt_regs.h"
#include "npukit/ktsim.h"
#include "ktsim/ktsim_card.h"

enum { T0 = 5, T1 = 28, SPAD = 6, CTRL = 7, MAX_INSNS = 512, MAX_VALUES = 200 };
enum { MIP_MEIP = 1u << 11 };

/* A program: instruction words, and the 64-bit values it stores, kept in the scratchpad. */
typedef struct prog {
    uint32_t w[MAX_INSNS];
    unsigned n;
    uint64_t v[MAX_VALUES];
    unsigned nv;
} prog;

static void emit(prog *p, uint32_t w)
{
    if (p->n < MAX_INSNS)
        p->w[p->n++] = w;
}

static void prog_start(prog *p)
{
    memset(p, 0, sizeof *p);
    emit(p, rva_lui(SPAD, KT_RV64_SPAD_BASE >> 12));
    emit(p, rva_lui(CTRL, KT_RV64_CTRL_BASE >> 12));
}

/* Store `value` at control-region offset `off` (one ld from the scratchpad, one sd). */
static void store(prog *p, unsigned off, uint64_t value)
{
    p->v[p->nv] = value;
    emit(p, rva_ld(T0, SPAD, (int32_t)(8 * p->nv++)));
    emit(p, rva_sd(T0, CTRL, (int32_t)off));
}

/* Poll the mover status until busy drops (bit 32). */
static void wait_mover_idle(prog *p)
{
    emit(p, rva_ld(T0, CTRL, KT_RV64_R_MOVER));
    emit(p, rva_srli(T0, T0, 32));
    emit(p, rva_bne(T0, 0, -8));
}

/* Exit with the control-region register at `off`. */
static void exit_with(prog *p, unsigned off)
{
    emit(p, rva_ld(T0, CTRL, (int32_t)off));
    emit(p, rva_sd(T0, CTRL, KT_RV64_R_EXIT));
    emit(p, rva_jal(0, 0));
}

/* The writes of a move as the program can issue them: registers 0x00-0x3F only. */
static unsigned store_move(prog *p, const kt_mv_move *m)
{
    kt_mv_write w[KT_MV_MAX_WRITES];
    size_t n = 0;
    CHECK_EQ(kt_mv_build(m, w, KT_MV_MAX_WRITES, &n), NPK_OK);
    unsigned skipped = 0;
    for (size_t i = 0; i < n; i++) {
        if (w[i].offset >= 0x40) {
            skipped++;
            continue;
        }
        store(p, KT_RV64_R_MOVER_CFG + w[i].offset, w[i].value);
    }
    return skipped;
}

static uint32_t hs(unsigned region, uint32_t off)
{
    return (region << KT_RV64_HS_REGION_SHIFT) | off;
}

/* Load through the host window and boot. */
static void load_and_boot(ksim_rv64c *c, const prog *p)
{
    for (unsigned i = 0; i < p->n; i++)
        ksim_rv64c_hs_write(c, hs(KT_RV64_HS_IMEM, 4 * i), p->w[i], 0);
    for (unsigned i = 0; i < p->nv; i++)
        ksim_rv64c_hs_write(c, hs(KT_RV64_HS_SPAD, 8 * i), p->v[i], 0xff);
    ksim_rv64c_hs_write(c, hs(KT_RV64_HS_CTRL, KT_RV64_HR_BOOT), 1, 0);
}

static bool finished(const ksim_rv64c *c) { return c->exited || c->halted; }

/* ---- the mover through the window ---- */

static void seed_source(ktsim *m, uint64_t at, unsigned words, uint8_t *src)
{
    for (unsigned i = 0; i < words * KT_MV_WORD; i++)
        src[i] = (uint8_t)(i * 7 + 3);
    CHECK_EQ(ktsim_dram_write(m, at, src, words * KT_MV_WORD), NPK_OK);
}

static void copy_program(prog *p, uint64_t dst, uint64_t src, uint16_t words)
{
    prog_start(p);
    kt_mv_move mv = kt_mv_copy(dst, src, words);
    CHECK_EQ(store_move(p, &mv), 0); /* a copy needs nothing above 0x3F */
    wait_mover_idle(p);
    exit_with(p, KT_RV64_R_MOVER);
}

static void check_copy(ktsim *m, ksim_rv64c *c, void (*step)(void *, uint64_t), void *ctx)
{
    enum { WORDS = 12 };
    uint8_t src[WORDS * KT_MV_WORD], dst[WORDS * KT_MV_WORD];
    seed_source(m, 0x4000, WORDS, src);
    memset(dst, 0xEE, sizeof dst);
    CHECK_EQ(ktsim_dram_write(m, 0x9000, dst, sizeof dst), NPK_OK);
    prog p;
    copy_program(&p, 0x9000, 0x4000, WORDS);
    load_and_boot(c, &p);
    for (unsigned i = 0; i < 20000 && !finished(c); i++)
        step(ctx, 1);
    CHECK(c->exited && !c->halted);
    /* The status word the program read once the mover went idle: one move, no fault. */
    CHECK_EQ(c->exit_word, 1);
    CHECK_EQ(ktsim_dram_read(m, 0x9000, dst, sizeof dst), NPK_OK);
    CHECK(memcmp(src, dst, sizeof dst) == 0);
    /* The window writes reached the same mover the host sees through AUX_STAT. */
    uint64_t aux = 0;
    CHECK_EQ(ktsim_bus_read64(m, ktsim_get_config(m)->ctrl_base + KT_AUX_STAT, &aux), NPK_OK);
    CHECK_EQ(kt_mv_status_decode(aux).moves_done, 1);
}

static void step_sim(void *ctx, uint64_t n) { ktsim_step(ctx, n); }
static void step_card(void *ctx, uint64_t n) { ktsim_card_step(ctx, n); }

static ktsim *rv64_sim(void)
{
    ktsim_config cfg;
    CHECK_EQ(ktsim_preset_load("rv64", &cfg), NPK_OK);
    ktsim *s = NULL;
    CHECK_EQ(ktsim_create(&cfg, &s), NPK_OK);
    return s;
}

static ktsim_card *rv64_card(unsigned meshes, bool interlink)
{
    ktsim_card_opts o = {.meshes = meshes, .interlink = interlink};
    ktsim_card *c = NULL;
    CHECK_EQ(ktsim_card_open_preset("rv64", false, &o, &c), NPK_OK);
    return c;
}

static void test_copy(void)
{
    /* The lone mesh's own mover. */
    ktsim *s = rv64_sim();
    check_copy(s, ktsim_rv64(s), step_sim, s);
    ktsim_destroy(s);
    /* A card's mover (what `npukit kt` drives). */
    ktsim_card *c = rv64_card(1, false);
    ktsim *m = ktsim_card_mesh(c, 0);
    check_copy(m, ktsim_rv64(m), step_card, c);
    ktsim_card_destroy(c);
}

/* The mover status word carries the fault: a copy from never-written DRAM faults AXI. */
static void test_fault_status(void)
{
    ktsim *s = rv64_sim();
    ksim_rv64c *c = ktsim_rv64(s);
    prog p;
    copy_program(&p, 0x9000, 0x7000, 2);
    load_and_boot(c, &p);
    for (unsigned i = 0; i < 20000 && !finished(c); i++)
        ktsim_step(s, 1);
    CHECK(c->exited);
    CHECK_EQ(c->exit_word >> KT_RV64_MOVER_FAULT_SHIFT, KT_MV_F_AXI); /* busy 0, fault 3 */
    CHECK_EQ(c->exit_word & KT_RV64_MOVER_DONE_MASK, 0); /* only a fault-free move counts */
    ktsim_destroy(s);
}

/* Half the mover: a FILL's immediate (mover register 0x40) is beyond the window, so the fill
 * uses whatever the host last wrote there through AUX_CFG. */
static void test_half_width(void)
{
    ktsim *s = rv64_sim();
    ksim_rv64c *c = ktsim_rv64(s);
    uint64_t ctrl = ktsim_get_config(s)->ctrl_base;
    CHECK_EQ(ktsim_bus_write64(s, ctrl + KT_AUX_CFG + KT_MV_IMM, 0x5Au), NPK_OK);
    prog p;
    prog_start(&p);
    kt_mv_move mv = kt_mv_fill(0x3000, 2, KT_MV_W8, 0xC3);
    CHECK_EQ(store_move(&p, &mv), 1); /* the immediate is the one write out of reach */
    wait_mover_idle(&p);
    exit_with(&p, KT_RV64_R_MOVER);
    load_and_boot(c, &p);
    for (unsigned i = 0; i < 20000 && !finished(c); i++)
        ktsim_step(s, 1);
    CHECK(c->exited);
    CHECK_EQ(c->exit_word, 1);
    uint8_t got[2 * KT_MV_WORD], want[KT_MV_WORD];
    CHECK_EQ(ktsim_dram_read(s, 0x3000, got, sizeof got), NPK_OK);
    kt_mv_fill_word(KT_MV_W8, 0x5A, want);
    CHECK(memcmp(got, want, KT_MV_WORD) == 0 && memcmp(got + KT_MV_WORD, want, KT_MV_WORD) == 0);
    ktsim_destroy(s);
}

/* Boot a program that stores `value` at control-region offset `off` once and exits; `delay`
 * cycles after the boot the host writes AUX_CFG `host_off` = `host_value` (one beat with no
 * cycles of its own: it pulses in the next cycle the machine runs); run to the program's exit. */
static void store_against_host(ktsim *m, void (*step)(void *, uint64_t), void *ctx, unsigned off,
                               uint64_t value, unsigned delay, uint8_t host_off,
                               uint64_t host_value)
{
    ksim_rv64c *c = ktsim_rv64(m);
    prog p;
    prog_start(&p);
    store(&p, off, value);
    exit_with(&p, KT_RV64_R_DBCOUNT);
    load_and_boot(c, &p);
    step(ctx, delay);
    CHECK_EQ(
        ktsim_bus_write64(m, ktsim_get_config(m)->ctrl_base + KT_AUX_CFG + host_off, host_value),
        NPK_OK);
    for (unsigned i = 0; i < 2000 && !finished(c); i++)
        step(ctx, 1);
    CHECK(c->exited);
}

/* One collision run: the host writes through AUX_CFG `delay` cycles after the boot while the
 * program stores once through its window, to the same register (`same`) or another. Returns the
 * value the observed register ends with; *lost: writes the machine counted lost. */
typedef uint64_t (*collision_run)(unsigned delay, bool same, uint64_t *lost);

/* Two writers on one config port. Different registers, the host's write swept over 40 cycles:
 * the register reads `loss` in exactly one cycle (the one the program's store is in, one write
 * counted lost) and `kept` in every other. Same register, that cycle and the ones either side:
 * it ends with want[0..2], a write lost only in the shared cycle. */
static void check_collision(collision_run run, uint64_t loss, uint64_t kept, const uint64_t want[3])
{
    int when = -1, losses = 0;
    for (unsigned d = 0; d < 40; d++) {
        uint64_t lost;
        uint64_t v = run(d, false, &lost);
        CHECK_EQ(lost, v == loss);
        CHECK(v == loss || v == kept);
        if (v == loss) {
            losses++;
            when = (int)d;
        }
    }
    CHECK_EQ(losses, 1);
    CHECK(when > 0);
    if (when <= 0)
        return;
    for (int k = -1; k <= 1; k++) {
        uint64_t lost;
        CHECK_EQ(run((unsigned)(when + k), true, &lost), want[k + 1]);
        CHECK_EQ(lost, k == 0);
    }
}

/* ---- the mover's config port: the processor wins a same-cycle collision (§7.3) ---- */

enum { GEN_AT = 0x3000, GEN_WORDS = 2, GEN_BYTES = GEN_WORDS * KT_MV_WORD };
enum { SEED_OLD = 0x1111, SEED_HOST = 0x2222, SEED_CORE = 0x3333 };

static void host_mover_write(ktsim *s, uint8_t off, uint64_t v)
{
    CHECK_EQ(ktsim_bus_write64(s, ktsim_get_config(s)->ctrl_base + KT_AUX_CFG + off, v), NPK_OK);
    ktsim_step(s, 1);
}

/* The host runs a GENERATE sending every register but the seed, so the move shows the seed the
 * mover holds: its bytes at GEN_AT. */
static void generate_held_seed(ktsim *s, uint8_t out[GEN_BYTES])
{
    kt_mv_write w[KT_MV_MAX_WRITES];
    size_t n = 0;
    kt_mv_move mv = kt_mv_generate(GEN_AT, GEN_WORDS, 0);
    CHECK_EQ(kt_mv_build(&mv, w, KT_MV_MAX_WRITES, &n), NPK_OK);
    for (size_t i = 0; i < n; i++)
        if (w[i].offset != KT_MV_SEED)
            host_mover_write(s, w[i].offset, w[i].value);
    uint64_t aux = 0;
    for (unsigned i = 0; i < 1000; i++) {
        ktsim_step(s, 1); /* the backdoor read takes no cycles */
        CHECK_EQ(ktsim_bus_read64(s, ktsim_get_config(s)->ctrl_base + KT_AUX_STAT, &aux), NPK_OK);
        if (!kt_mv_status_decode(aux).busy)
            break;
    }
    CHECK(!kt_mv_status_decode(aux).busy && !kt_mv_status_decode(aux).fault);
    CHECK_EQ(ktsim_dram_read(s, GEN_AT, out, GEN_BYTES), NPK_OK);
}

/* What a GENERATE writes with `seed`, the host alone driving the mover. */
static void seed_pattern(uint64_t seed, uint8_t out[GEN_BYTES])
{
    ktsim *s = rv64_sim();
    host_mover_write(s, KT_MV_SEED, seed);
    generate_held_seed(s, out);
    ktsim_destroy(s);
}

static const uint64_t seeds[3] = {SEED_OLD, SEED_HOST, SEED_CORE};
static uint8_t seed_patterns[3][GEN_BYTES]; /* seed_pattern of each */

/* One run: the host sets the seed to SEED_OLD, boots a program that stores mover register
 * `core_reg` = `core_value` through the window once, and writes the seed SEED_HOST through
 * AUX_CFG `delay` cycles after the boot. Returns the seed the mover ends with (one of the three,
 * told apart by the GENERATE it drives; 0 when none matches); *lost: host writes lost. */
static uint64_t seed_after(unsigned delay, uint8_t core_reg, uint64_t core_value, uint64_t *lost)
{
    uint8_t got[GEN_BYTES];
    ktsim *s = rv64_sim();
    host_mover_write(s, KT_MV_SEED, SEED_OLD);
    store_against_host(s, step_sim, s, KT_RV64_R_MOVER_CFG + core_reg, core_value, delay,
                       KT_MV_SEED, SEED_HOST);
    *lost = ktsim_rv64_mover_host_lost(s);
    CHECK_EQ(ktsim_rv64_ilink_lost(s), 0);
    generate_held_seed(s, got);
    ktsim_destroy(s);
    for (unsigned i = 0; i < 3; i++)
        if (!memcmp(got, seed_patterns[i], GEN_BYTES))
            return seeds[i];
    return 0;
}

/* The program stores CTRL (no GO), a register the host does not touch, or the seed itself. */
static uint64_t mover_run(unsigned delay, bool same, uint64_t *lost)
{
    return same ? seed_after(delay, KT_MV_SEED, SEED_CORE, lost)
                : seed_after(delay, KT_MV_CTRL, 0, lost);
}

static void test_core_wins_mover(void)
{
    /* The three seeds drive three different patterns, so the seed in effect is observable. */
    for (unsigned i = 0; i < 3; i++)
        seed_pattern(seeds[i], seed_patterns[i]);
    CHECK(memcmp(seed_patterns[0], seed_patterns[1], GEN_BYTES) &&
          memcmp(seed_patterns[0], seed_patterns[2], GEN_BYTES) &&
          memcmp(seed_patterns[1], seed_patterns[2], GEN_BYTES));
    /* The host's seed is lost whatever register the program's store addressed (the old seed
     * stays); on the seed itself the program's is the later write before that cycle, wins in
     * it, and the host's is the later one after. */
    static const uint64_t want[3] = {SEED_CORE, SEED_CORE, SEED_HOST};
    check_collision(mover_run, SEED_OLD, SEED_HOST, want);
}

/* ---- the interlink through the window ---- */

static uint64_t statw(ktsim *m, unsigned index)
{
    uint64_t v = 0;
    CHECK_EQ(ktsim_bus_read64(m, ktsim_get_config(m)->ctrl_base + KT_AUX_STATW + 8 * index, &v),
             NPK_OK);
    return v;
}

/* Mesh 0's program rings mesh 1 with a tag; mesh 1's program waits for the count at 0x28,
 * reports it with mip, clears the counts through 0xC0 and exits with 0x28 read again. */
static void test_doorbell(void)
{
    ktsim_card *card = rv64_card(2, true);
    ktsim *m0 = ktsim_card_mesh(card, 0), *m1 = ktsim_card_mesh(card, 1);
    ksim_rv64c *c0 = ktsim_rv64(m0), *c1 = ktsim_rv64(m1);
    CHECK(c0 && c1);
    prog ring, wait;
    prog_start(&ring);
    store(&ring, KT_RV64_R_ILINK_RING, 1 | 0x2A << 8);
    exit_with(&ring, KT_RV64_R_DBCOUNT);
    prog_start(&wait);
    emit(&wait, rva_ld(T0, CTRL, KT_RV64_R_DBCOUNT)); /* spin until a count appears */
    emit(&wait, rva_beq(T0, 0, -4));
    emit(&wait, rva_csrrs(T1, 0x344, 0));             /* mip */
    emit(&wait, rva_sd(T0, CTRL, KT_RV64_R_CONSOLE)); /* count of mesh 0, low byte */
    emit(&wait, rva_srli(T1, T1, 11));
    emit(&wait, rva_sd(T1, CTRL, KT_RV64_R_CONSOLE)); /* MEIP */
    store(&wait, KT_RV64_R_ILINK_CTRL, KT_IL_CTRL_ENABLE | KT_IL_CTRL_CLEAR_DOORBELLS);
    exit_with(&wait, KT_RV64_R_DBCOUNT);
    load_and_boot(c1, &wait);
    load_and_boot(c0, &ring);
    for (unsigned i = 0; i < 5000 && !(finished(c0) && finished(c1)); i++)
        ktsim_card_step(card, 1);
    CHECK(c0->exited && c1->exited);
    CHECK_EQ(c0->exit_word, 0); /* nothing rang mesh 0 */
    CHECK_EQ(c1->cons_wr, 2);
    CHECK_EQ(c1->cons[0], 1);     /* one ring from mesh 0, in [15:0] */
    CHECK_EQ(c1->cons[1] & 1, 1); /* the external interrupt was raised while it counted */
    CHECK_EQ(c1->exit_word, 0);   /* cleared by the program */
    CHECK_EQ(c1->core.csr.mip & MIP_MEIP, 0); /* and the level dropped */
    /* The host sees the same interlink: mesh 0 sent one ring, mesh 1 has no count left. */
    CHECK_EQ(statw(m0, KT_IL_W_DOORBELLS_SENT), 1);
    CHECK_EQ(statw(m1, KT_IL_W_DOORBELL0) & 0xffff, 0);
    ktsim_card_destroy(card);
}

/* The interlink window writes the registers the host writes: a mesh id stored by the program
 * is what the capability word reports. */
static void test_mesh_id(void)
{
    ktsim_card *card = rv64_card(1, true);
    ktsim *m = ktsim_card_mesh(card, 0);
    ksim_rv64c *c = ktsim_rv64(m);
    prog p;
    prog_start(&p);
    store(&p, KT_RV64_R_ILINK_MESHID, 3);
    exit_with(&p, KT_RV64_R_DBCOUNT);
    load_and_boot(c, &p);
    for (unsigned i = 0; i < 2000 && !finished(c); i++)
        ktsim_card_step(card, 1);
    CHECK(c->exited);
    CHECK_EQ(statw(m, KT_IL_W_CAPS) >> 20 & 3, 3);
    ktsim_card_destroy(card);
}

/* One run of a program that stores mesh id 1 through the window, with the host writing
 * interlink register `host_off` = `host_value` through AUX_CFG `delay` cycles after the boot.
 * Returns the mesh id the interlink ends with; *lost: processor writes lost to the host. */
static unsigned collide(unsigned delay, uint8_t host_off, uint64_t host_value, uint64_t *lost)
{
    ktsim_card *card = rv64_card(1, true);
    ktsim *m = ktsim_card_mesh(card, 0);
    store_against_host(m, step_card, card, KT_RV64_R_ILINK_MESHID, 1, delay, host_off, host_value);
    unsigned id = (unsigned)(statw(m, KT_IL_W_CAPS) >> 20 & 3);
    *lost = ktsim_rv64_ilink_lost(m);
    ktsim_card_destroy(card);
    return id;
}

/* The host pulses the control register (enable stays 1), or the mesh id itself. */
static uint64_t ilink_run(unsigned delay, bool same, uint64_t *lost)
{
    return same ? collide(delay, KT_IL_MESH_ID, 2, lost)
                : collide(delay, KT_IL_CONTROL, KT_IL_CTRL_ENABLE, lost);
}

static void test_host_wins(void)
{
    /* The program's mesh id is lost in the cycle the host pulses the interlink, whatever it
     * addressed (the id stays 0); on the mesh id itself the program's value is the later one
     * before that cycle, and the host's from it on — including the cycle they share. */
    static const uint64_t want[3] = {1, 2, 2};
    check_collision(ilink_run, 0, 1, want);
}

/* A clear racing an arriving doorbell loses to it. Mesh 1's program stores one clear (cycle T,
 * found as the cycle a host pulse collides with it); the host rings from mesh 0 so the ring
 * arrives at mesh 1 before, in, or after cycle T. */
static uint64_t race(int ring_delay, int pulse_delay, uint64_t *arrived_at, uint64_t *lost)
{
    ktsim_card *card = rv64_card(2, true);
    ktsim *m0 = ktsim_card_mesh(card, 0), *m1 = ktsim_card_mesh(card, 1);
    ksim_rv64c *c1 = ktsim_rv64(m1);
    prog p;
    prog_start(&p);
    for (unsigned i = 0; i < 40; i++) /* time for a ring to cross */
        emit(&p, RVA_NOP);
    store(&p, KT_RV64_R_ILINK_CTRL, KT_IL_CTRL_ENABLE | KT_IL_CTRL_CLEAR_DOORBELLS);
    for (unsigned i = 0; i < 80; i++)
        emit(&p, RVA_NOP);
    exit_with(&p, KT_RV64_R_DBCOUNT);
    load_and_boot(c1, &p);
    uint64_t boot = ktsim_card_cycle(card);
    *arrived_at = 0;
    for (int t = 0; t < 4000 && !finished(c1); t++) {
        if (t == ring_delay)
            CHECK_EQ(
                ktsim_bus_write64(m0, ktsim_get_config(m0)->ctrl_base + KT_AUX_CFG + KT_IL_RING, 1),
                NPK_OK);
        if (t == pulse_delay)
            CHECK_EQ(ktsim_bus_write64(m1,
                                       ktsim_get_config(m1)->ctrl_base + KT_AUX_CFG + KT_IL_CONTROL,
                                       KT_IL_CTRL_ENABLE),
                     NPK_OK);
        uint64_t before = ktsim_card_db_status(card, 1);
        ktsim_card_step(card, 1);
        if (!*arrived_at && ktsim_card_db_status(card, 1) > before)
            *arrived_at = ktsim_card_cycle(card) - boot;
    }
    CHECK(c1->exited);
    *lost = ktsim_rv64_ilink_lost(m1);
    uint64_t left = c1->exit_word;
    ktsim_card_destroy(card);
    return left;
}

static void test_clear_race(void)
{
    uint64_t arrived, lost;
    /* The clear's cycle: the one delay at which a host pulse takes the processor's write. */
    int t_clear = -1;
    for (int d = 0; d < 120 && t_clear < 0; d++) {
        race(-1, d, &arrived, &lost);
        if (lost)
            t_clear = d;
    }
    CHECK(t_clear > 0);
    if (t_clear <= 0)
        return;
    /* How long a ring rung at delay 0 takes to be counted. */
    race(0, -1, &arrived, &lost);
    CHECK(arrived > 0);
    int latency = (int)arrived - 1; /* a delay d arrives in the step ending at d + latency + 1 */
    int ring = t_clear - latency;
    CHECK(ring > 1);
    if (ring <= 1)
        return;
    /* Arrival in the cycle before the clear: cleared. In its cycle: the doorbell wins. After:
     * counted. */
    CHECK_EQ(race(ring - 1, -1, &arrived, &lost), 0);
    CHECK_EQ(arrived, (uint64_t)t_clear);
    CHECK_EQ(race(ring, -1, &arrived, &lost), 1);
    CHECK_EQ(arrived, (uint64_t)t_clear + 1);
    CHECK_EQ(race(ring + 1, -1, &arrived, &lost), 1);
}

/* ---- the mailbox at (0,0), a client of the system node's hub ---- */

/* Dispatch one CU_INST through the mailbox, wait for a completion, exit with its word. */
static void dispatch_program(prog *p, kt_coord to, const kt_flit *inst)
{
    prog_start(p);
    store(p, KT_RV64_M_DST, (uint64_t)to.y << 8 | to.x);
    for (unsigned i = 0; i < 4; i++)
        store(p, KT_RV64_M_ARG0 + 8 * i, inst->w[i]);
    store(p, KT_RV64_M_GO, 1);
    emit(p, rva_ld(T0, CTRL, KT_RV64_M_STAT));
    emit(p, rva_andi(T0, T0, KT_RV64_MSTAT_QUEUED));
    emit(p, rva_beq(T0, 0, -8));
    exit_with(p, KT_RV64_M_HEAD);
}

static void refused(const char *preset, const char *why)
{
    ktsim_config cfg;
    ktsim *s = NULL;
    CHECK_EQ(ktsim_preset_parse(preset, "text", &cfg), NPK_OK);
    CHECK_EQ(ktsim_create(&cfg, &s), NPK_EINVAL);
    CHECK(!s);
    CHECK_STR_HAS(npk_last_error(), why);
}

/* §6: the complex sits at (0,0), a live hub client with no compute-unit shell. On a mesh with
 * two memory ports (rows 1 and 3) a dispatch to either row completes into its mailbox with the
 * unit's coordinate; the host's CU_SIGNAL for (0,0) is queued there too, while a CU_CTRL read
 * is taken and dropped, so a walk sees (0,0) as empty and the host's own requests (sent from
 * (0, GRID_LO)) are still answered. */
static void test_hub_client(void)
{
    refused("grid 1 2\nmem_port 0 1\nrv64 0 2\n", "rv64 at (0,2) in preset");
    refused("grid 1 2\nmem_port 0 1\nrv64 0 2\n", "sits at its coordinate, (0,0)");
    refused("grid 1 2\nmem_port 0 1\nrv64 0 0\nunit 0 0 rv32\n",
            "unit 'rv32' at (0,0) and the RV64 complex");
    ktsim_config cfg;
    ktsim *s = NULL;
    CHECK_EQ(ktsim_preset_parse("grid 1 3\nmem_port 0 1\nmem_port 0 3\nrv64 0 0\n"
                                "unit 2 1 test latency=30\nunit 3 3 test latency=50\n",
                                "text", &cfg),
             NPK_OK);
    CHECK_EQ(ktsim_create(&cfg, &s), NPK_OK);
    ksim_rv64c *c = ktsim_rv64(s);
    const kt_coord unit[2] = {{2, 1}, {3, 3}};
    for (unsigned i = 0; i < 2; i++) {
        kt_flit inst;
        CHECK_EQ(kt_test_inst(&inst, KT_TU_RETIRE, 0, 0, 0, false), NPK_OK);
        prog p;
        dispatch_program(&p, unit[i], &inst);
        load_and_boot(c, &p);
        for (unsigned k = 0; k < 5000 && !finished(c); k++)
            ktsim_step(s, 1);
        CHECK(c->exited && !c->halted);
        CHECK_EQ(KT_RV64_CQ_SRC_X(c->exit_word), unit[i].x);
        CHECK_EQ(KT_RV64_CQ_SRC_Y(c->exit_word), unit[i].y);
        /* The mailbox's CU_INST has last set (§7.5), so the unit reports the batch with the
         * flit's txn: the first dispatch since the boot's, 0. */
        CHECK_EQ(KT_RV64_CQ_CODE(c->exit_word), KT_SIG_BATCH_COMPLETE);
        CHECK_EQ(KT_RV64_CQ_ARG(c->exit_word), 0);
    }
    CHECK_EQ(c->dropped_flits, 0);

    kt_dev dev;
    CHECK_EQ(kt_open(&dev, ktsim_transport(s), cfg.ctrl_base, NULL), NPK_OK);
    kt_unit units[8];
    size_t n = 0;
    CHECK_EQ(kt_enumerate(&dev, units, 8, &n), NPK_OK);
    CHECK_EQ(n, 2);
    for (size_t i = 0; i < n; i++)
        CHECK(kt_coord_eq(units[i].at, unit[i]));
    CHECK_EQ(c->dropped_flits, 1); /* the walk's CU_CAPS read of (0,0) */
    uint64_t v;
    bool present = true;
    CHECK_EQ(kt_ctrl_read(&dev, (kt_coord){0, 0}, 0, &v, &present), NPK_OK);
    CHECK(!present);
    CHECK_EQ(c->dropped_flits, 2);
    unsigned queued = c->cq_count;
    kt_flit f;
    CHECK_EQ(kt_flit_signal(&f, (kt_coord){0, 0}, (kt_coord){3, 2}, 9, 0x42, 0xCAFE), NPK_OK);
    CHECK_EQ(kt_mailbox_send(&dev, &f), NPK_OK);
    ktsim_step(s, 200);
    CHECK_EQ(c->cq_count, queued + 1);
    CHECK_EQ(c->cq[(c->cq_head + queued) % KT_RV64_CQ_DEPTH],
             (2ull << 52) | (3ull << 48) | (0x42ull << 40) | (0xCAFEull << 8));
    CHECK_EQ(c->dropped_flits, 2);
    CHECK(ktsim_fault(s) == NULL);
    ktsim_destroy(s);
}

int main(void)
{
    test_hub_client();
    test_copy();
    test_fault_status();
    test_half_width();
    test_core_wins_mover();
    test_doorbell();
    test_mesh_id();
    test_host_wins();
    test_clear_race();
    return check_done();
}
