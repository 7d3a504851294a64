/* SPDX-License-Identifier: MIT */
/* The RV64 complex's registers against the specification (§6, §7, §7.5): the host window's
 * regions and aliasing reads, the write-only memories, HR_BOOT/HR_PC/HR_DBELL, the console FIFO
 * that loses unread bytes, the control region's map (zero elsewhere, read-only registers, the
 * half-width mover window, the interlink window), the mailbox's flit, its ignored GO while
 * offered, its 16-deep completion queue with the sticky overflow bit, and the interrupt levels. */
#include "check.h"
#include "ktsim/rv64_asm.h"
#include "ktsim/rv64_complex.h"
#include "ktsim/rv64_ctrl.h"

static ksim_rv64c cx;
static uint8_t mover_regs[128], ilink_regs[256];
static unsigned mover_pulses, ilink_pulses;
static uint64_t db_counts;

static void mover_cfg(void *ctx, uint8_t reg, uint64_t v) { (void)ctx, (void)v; mover_regs[reg & 127]++; mover_pulses++; }
static uint64_t mover_status(void *ctx) { (void)ctx; return KT_RV64_MOVER_BUSY | 5; }
static void ilink_cfg(void *ctx, uint8_t reg, uint64_t v) { (void)ctx, (void)v; ilink_regs[reg]++; ilink_pulses++; }
static uint64_t db_status(void *ctx) { (void)ctx; return db_counts; }

static uint32_t hs(unsigned region, uint32_t off) { return (region << KT_RV64_HS_REGION_SHIFT) | off; }
static uint64_t ld(uint32_t off) { return ksim_rv64c_ctrl_load(&cx, off, 8); }
static bool st(uint32_t off, uint64_t v) { return ksim_rv64c_ctrl_store(&cx, off, 8, v); }

static void fresh(bool with_side)
{
    ksim_rv64c_free(&cx);
    ksim_rv64_cfg cfg;
    ksim_rv64_cfg_default(&cfg);
    ksim_rv64_side side = {NULL, mover_cfg, mover_status, ilink_cfg, db_status};
    CHECK(ksim_rv64c_init(&cx, &cfg, (kt_coord){0, 2}, with_side ? &side : NULL));
}

static void run_cycles(unsigned n)
{
    while (n--)
        ksim_rv64c_tick(&cx);
}

static void test_host_window(void)
{
    fresh(false);
    /* Instruction memory: the low 32 bits, whatever the strobes. */
    ksim_rv64c_hs_write(&cx, hs(0, 8), 0xaaaabbbbccccddddull, 0x01);
    CHECK_EQ(cx.core.imem[2], 0xccccdddd);
    /* Scratchpad: 64-bit, byte-enabled. */
    ksim_rv64c_hs_write(&cx, hs(1, 16), 0x1122334455667788ull, 0xf0);
    CHECK_EQ(cx.core.spad[16], 0);
    CHECK_EQ(cx.core.spad[20], 0x44);
    CHECK_EQ(cx.core.spad[23], 0x11);
    /* Region 3..15: writes ignored. */
    ksim_rv64c_hs_write(&cx, hs(3, 0), 1, 0xff);
    CHECK(!cx.running);
    /* A program that exits with a known word, so the read registers hold something. */
    const uint32_t p[] = {rva_lui(7, 0x20), rva_addi(5, 0, 0x5a), rva_sd(5, 7, 0)};
    for (unsigned i = 0; i < 3; i++)
        ksim_rv64c_hs_write(&cx, hs(0, i * 4), p[i], 0);
    ksim_rv64c_hs_write(&cx, hs(2, KT_RV64_HR_PC), 0x100, 0xff); /* stored, never used */
    ksim_rv64c_hs_write(&cx, hs(2, KT_RV64_HR_BOOT), 1, 0xff);
    run_cycles(20);
    CHECK_EQ(ksim_rv64c_hs_read(&cx, hs(2, KT_RV64_HR_STATUS)), KT_RV64_STATUS_EXITED);
    CHECK_EQ(ksim_rv64c_hs_read(&cx, hs(2, KT_RV64_HR_EXIT)), 0x5a);
    CHECK_EQ(ksim_rv64c_hs_read(&cx, hs(2, KT_RV64_HR_RETIRED)), 3);
    CHECK(ksim_rv64c_hs_read(&cx, hs(2, KT_RV64_HR_CYCLES)) >= 3);
    /* Reads ignore hs_addr[31:28]: every region (and the high bits) alias the host registers;
     * the write-only ones read zero. */
    for (unsigned r = 0; r < 16; r++) {
        CHECK_EQ(ksim_rv64c_hs_read(&cx, hs(r, KT_RV64_HR_EXIT)), 0x5a);
        CHECK_EQ(ksim_rv64c_hs_read(&cx, hs(r, 0x0ffff00 | KT_RV64_HR_STATUS)), KT_RV64_STATUS_EXITED);
        CHECK_EQ(ksim_rv64c_hs_read(&cx, hs(r, KT_RV64_HR_PC)), 0);
        CHECK_EQ(ksim_rv64c_hs_read(&cx, hs(r, 0x40)), 0);
    }
    /* A boot clears the exit latch and the counters. */
    ksim_rv64c_hs_write(&cx, hs(2, KT_RV64_HR_BOOT), 1, 0xff);
    CHECK_EQ(ksim_rv64c_hs_read(&cx, hs(2, KT_RV64_HR_STATUS)), 0);
    CHECK_EQ(ksim_rv64c_hs_read(&cx, hs(2, KT_RV64_HR_RETIRED)), 0);
    CHECK_EQ(ksim_rv64c_hs_read(&cx, hs(2, KT_RV64_HR_EXIT)), 0);
    run_cycles(20);
    CHECK_EQ(ksim_rv64c_hs_read(&cx, hs(2, KT_RV64_HR_EXIT)), 0x5a); /* it started at 0, not HR_PC */

    /* A halt latches cause and pc; the cause survives the core's reset. */
    ksim_rv64c_hs_write(&cx, hs(0, 4), RVA_EBREAK, 0);
    ksim_rv64c_hs_write(&cx, hs(2, KT_RV64_HR_BOOT), 1, 0xff);
    run_cycles(20);
    CHECK_EQ(ksim_rv64c_hs_read(&cx, hs(2, KT_RV64_HR_STATUS)), KT_RV64_STATUS_HALTED | 1);
    CHECK_EQ(ksim_rv64c_hs_read(&cx, hs(2, KT_RV64_HR_HALTPC)), 4);
}

static void test_scratchpad_port(void)
{
    /* The core stores to the scratchpad every iteration; a host write in the cycle of a store
     * wins and the store is lost. */
    fresh(false);
    const uint32_t p[] = {rva_lui(10, 0x10), rva_addi(5, 5, 1), rva_sd(5, 10, 0), rva_jal(0, -8)};
    for (unsigned i = 0; i < 4; i++)
        ksim_rv64c_hs_write(&cx, hs(0, i * 4), p[i], 0);
    ksim_rv64c_hs_write(&cx, hs(2, KT_RV64_HR_BOOT), 1, 0xff);
    unsigned lost = 0;
    for (unsigned k = 0; k < 400; k++) {
        ksim_rv64c_tick(&cx);
        ksim_rv64c_hs_write(&cx, hs(1, 8 * 8), k, 0xff); /* another word entirely */
        lost = (unsigned)cx.core.lost_stores;
    }
    CHECK(lost > 0); /* some host writes landed in a store's cycle */
    uint64_t count;
    memcpy(&count, cx.core.spad, 8);
    CHECK(count < cx.core.x[5]); /* the stored counter lags the register: stores were lost */
}

static void test_console_and_stdin(void)
{
    fresh(false);
    for (unsigned i = 0; i < 300; i++)
        st(KT_RV64_R_CONSOLE, 'a' + i % 26);
    /* 300 bytes, nobody reading: the first 256 are gone, 44 remain. */
    CHECK_EQ(cx.cons_lost, 256);
    unsigned got = 0;
    uint64_t v;
    while ((v = ksim_rv64c_lw_read(&cx, KT_RV64_LW_CONS)) & KT_RV64_CONS_VALID) {
        if (got == 0)
            CHECK_EQ(v & 0xff, 'a' + 256 % 26);
        ksim_rv64c_lw_write(&cx, KT_RV64_LW_CONS, 0);
        got++;
    }
    CHECK_EQ(got, 44);
    /* A byte store to R_CONSOLE carries its byte in lane 0. */
    CHECK(!ksim_rv64c_ctrl_store(&cx, KT_RV64_R_CONSOLE, 1, 'Z'));
    CHECK_EQ(ksim_rv64c_lw_read(&cx, KT_RV64_LW_CONS), KT_RV64_CONS_VALID | 'Z');
    /* stdin: 64 deep, the 65th byte is dropped; R_STDIN reads {valid, byte}, a store pops. */
    for (unsigned i = 0; i < 70; i++)
        ksim_rv64c_lw_write(&cx, KT_RV64_LW_STDIN, '0' + i % 10);
    CHECK_EQ(ld(KT_RV64_R_STDIN), KT_RV64_CONS_VALID | '0');
    unsigned n = 0;
    while (ld(KT_RV64_R_STDIN) & KT_RV64_CONS_VALID) {
        st(KT_RV64_R_STDIN, 0);
        n++;
    }
    CHECK_EQ(n, KT_RV64_STDIN_DEPTH);
}

static void test_control_region_map(void)
{
    fresh(true);
    /* Everything the map does not name reads zero. */
    for (uint32_t off = 0; off < 256; off += 8) {
        bool named = off == KT_RV64_R_MOVER || (off >= KT_RV64_R_MBOX && off < KT_RV64_R_MOVER_CFG);
        if (!named)
            CHECK_EQ(ld(off), 0);
    }
    CHECK_EQ(ld(KT_RV64_R_MOVER), KT_RV64_MOVER_BUSY | 5);
    /* R_DBELL mirrors HR_DBELL; a store there changes nothing; the level drives MSIP. */
    ksim_rv64c_hs_write(&cx, hs(2, KT_RV64_HR_DBELL), 1, 0xff);
    CHECK_EQ(ld(KT_RV64_R_DBELL), 1);
    CHECK(cx.core.csr.mip & KSIM_RV64_MSIP);
    st(KT_RV64_R_DBELL, 0);
    CHECK_EQ(ld(KT_RV64_R_DBELL), 1);
    ksim_rv64c_hs_write(&cx, hs(2, KT_RV64_HR_DBELL), 0, 0xff);
    CHECK(!(cx.core.csr.mip & KSIM_RV64_MSIP));
    /* R_SATP mirrors the CSR. */
    cx.core.csr.satp = 0x8000000000012345ull;
    CHECK_EQ(ld(KT_RV64_R_SATP), 0x8000000000012345ull);
    st(KT_RV64_R_SATP, 0);
    CHECK_EQ(cx.core.csr.satp, 0x8000000000012345ull);
    /* The mover window: 0x80 + k writes mover register k, k in 0x00-0x3F only. */
    for (uint32_t off = KT_RV64_R_MOVER_CFG; off < KT_RV64_R_ILINK_CFG; off += 8)
        st(off, 1);
    CHECK_EQ(mover_pulses, 8);
    unsigned high = 0;
    for (unsigned r = 0x40; r < 128; r++)
        high += mover_regs[r];
    CHECK_EQ(high, 0); /* IMM (0x40) and GATHER (0x50) are unreachable */
    CHECK_EQ(mover_regs[0x38], 1);
    /* The interlink window: 0xC0 + k writes interlink register 0x80 + k. */
    st(KT_RV64_R_ILINK_RING, 0x0102);
    CHECK_EQ(ilink_regs[0x90], 1);
    CHECK_EQ(ilink_pulses, 1);
    /* Doorbell counts read at 0x28 and raise the external level while non-zero. */
    db_counts = 3ull << 16;
    ksim_rv64c_hs_write(&cx, hs(2, KT_RV64_HR_BOOT), 1, 0xff);
    run_cycles(2);
    CHECK_EQ(ld(KT_RV64_R_DBCOUNT), 3ull << 16);
    CHECK(cx.core.csr.mip & KSIM_RV64_MEIP);
    db_counts = 0;
    run_cycles(2);
    CHECK(!(cx.core.csr.mip & KSIM_RV64_MEIP));
    /* Without the blocks: status zero, writes vanish. */
    fresh(false);
    CHECK_EQ(ld(KT_RV64_R_MOVER), 0);
    CHECK_EQ(ld(KT_RV64_R_DBCOUNT), 0);
    st(KT_RV64_R_MOVER_CFG, 1);
    st(KT_RV64_R_ILINK_CTRL, 1);
}

static kt_flit signal_from(uint8_t x, uint8_t y, uint8_t code, uint32_t arg)
{
    kt_flit f;
    kt_flit_signal(&f, (kt_coord){0, 2}, (kt_coord){x, y}, 7, code, arg);
    return f;
}

static void test_mailbox(void)
{
    fresh(false);
    st(KT_RV64_M_DST, 0xfff); /* only x[3:0] and y[11:8] are kept */
    CHECK_EQ(ld(KT_RV64_M_DST), 0xf0f);
    st(KT_RV64_M_DST, (1u << 8) | 2u);
    for (unsigned i = 0; i < 4; i++)
        st(KT_RV64_M_ARG0 + 8 * i, 0x1111111111111111ull * (i + 1));
    CHECK_EQ(ld(KT_RV64_M_ARG3), 0x4444444444444444ull);
    CHECK_EQ(ld(KT_RV64_M_STAT), 0);
    CHECK(ksim_rv64c_endpoint.out_peek(&cx) == NULL);
    st(KT_RV64_M_GO, 1);
    CHECK_EQ(ld(KT_RV64_M_STAT), KT_RV64_MSTAT_OFFERED);
    const kt_flit *f = ksim_rv64c_endpoint.out_peek(&cx);
    CHECK(f != NULL);
    kt_header h = kt_header_get(f);
    CHECK_EQ(h.type, KT_T_CU_INST);
    CHECK_EQ(h.dst.x, 2);
    CHECK_EQ(h.dst.y, 1);
    CHECK_EQ(h.src.x, 0);
    CHECK_EQ(h.src.y, 2);
    CHECK(h.last);
    CHECK_EQ(h.txn, 0);
    CHECK_EQ(f->w[3] >> 60, 4); /* the opcode nibble is ARG3's top */
    CHECK_EQ(f->w[0], 0x1111111111111111ull);
    /* A second GO while offered is ignored: nothing changes, nothing reports it. */
    st(KT_RV64_M_ARG0, 0xdead);
    st(KT_RV64_M_GO, 1);
    CHECK_EQ(cx.ignored_go, 1);
    CHECK_EQ(ksim_rv64c_endpoint.out_peek(&cx)->w[0], 0x1111111111111111ull);
    ksim_rv64c_endpoint.out_pop(&cx);
    CHECK_EQ(ld(KT_RV64_M_STAT), 0);
    st(KT_RV64_M_GO, 1);
    CHECK_EQ(kt_header_get(ksim_rv64c_endpoint.out_peek(&cx)).txn, 1); /* txn increments */
    ksim_rv64c_endpoint.out_pop(&cx);

    /* Completions: queued as {src_y, src_x, code, arg}; the 17th is taken and dropped. */
    CHECK(!(cx.core.csr.mip & KSIM_RV64_MEIP));
    for (unsigned i = 0; i < 17; i++) {
        kt_flit s = signal_from(1 + i % 2, 1, (uint8_t)(i & 1), 0xabc000 + i);
        CHECK(ksim_rv64c_endpoint.offer(&cx, &s));
    }
    CHECK(cx.core.csr.mip & KSIM_RV64_MEIP); /* a non-empty queue raises the external level */
    uint64_t stat = ld(KT_RV64_M_STAT);
    CHECK_EQ(stat & KT_RV64_MSTAT_QUEUED, 16);
    CHECK(stat & KT_RV64_MSTAT_OVERFLOW);
    uint64_t head = ld(KT_RV64_M_HEAD);
    CHECK_EQ(KT_RV64_CQ_SRC_X(head), 1);
    CHECK_EQ(KT_RV64_CQ_SRC_Y(head), 1);
    CHECK_EQ(KT_RV64_CQ_CODE(head), 0);
    CHECK_EQ(KT_RV64_CQ_ARG(head), 0xabc000);
    CHECK_EQ(head & 0xff000000000000ffull, 0);
    CHECK_EQ(ld(KT_RV64_M_HEAD), head); /* reading does not pop */
    for (unsigned i = 0; i < 16; i++) {
        CHECK_EQ(KT_RV64_CQ_ARG(ld(KT_RV64_M_HEAD)), 0xabc000 + i);
        st(KT_RV64_M_HEAD, 0);
    }
    CHECK_EQ(ld(KT_RV64_M_HEAD), 0);
    CHECK(!(cx.core.csr.mip & KSIM_RV64_MEIP));
    CHECK(ld(KT_RV64_M_STAT) & KT_RV64_MSTAT_OVERFLOW); /* sticky */
    /* Anything but a CU_SIGNAL is taken and dropped. */
    kt_flit r;
    kt_flit_ctrl_request(&r, (kt_coord){0, 2}, (kt_coord){0, 1}, 0, 3);
    CHECK(ksim_rv64c_endpoint.offer(&cx, &r));
    CHECK_EQ(cx.dropped_flits, 1);
    CHECK_EQ(ld(KT_RV64_M_STAT) & KT_RV64_MSTAT_QUEUED, 0);
    /* A boot resets the mailbox with the core. */
    ksim_rv64c_hs_write(&cx, hs(2, KT_RV64_HR_BOOT), 1, 0xff);
    CHECK_EQ(ld(KT_RV64_M_STAT), 0);
}

int main(void)
{
    test_host_window();
    test_scratchpad_port();
    test_console_and_stdin();
    test_control_region_map();
    test_mailbox();
    ksim_rv64c_free(&cx);
    return check_done();
}
