/* SPDX-License-Identifier: MIT */
/* The mover model on its own: every mode, padding, transform through an occupant, every fault
 * code, the completed count, busy, and what a pre-strobe window's zeroed neighbours do to a move. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kt/hw/kt_rv32.h"
#include "kt/hw/mxfp.h"
#include "ktsim/mover.h"
#include "npukit/kt_mover.h"

enum { MEM = 1 << 16, GRAN = MEM / 32 };

typedef struct tmem {
    uint8_t bytes[MEM];
    bool written[GRAN];
    unsigned retry_every; /* back-pressure: refuse every Nth write once */
    unsigned writes_seen;
} tmem;

static ksim_mem_result t_read(void *ctx, uint64_t a, uint8_t *out)
{
    tmem *m = ctx;
    if (a + 32 > MEM || !m->written[a / 32])
        return KSIM_MEM_ERROR; /* DECERR beyond, SLVERR on never-written */
    memcpy(out, m->bytes + a, 32);
    return KSIM_MEM_OK;
}

static ksim_mem_result t_write(void *ctx, uint64_t a, const uint8_t *in)
{
    tmem *m = ctx;
    if (m->retry_every && ++m->writes_seen % m->retry_every == 0)
        return KSIM_MEM_RETRY;
    if (a + 32 > MEM)
        return KSIM_MEM_ERROR;
    memcpy(m->bytes + a, in, 32);
    m->written[a / 32] = true;
    return KSIM_MEM_OK;
}

static void put(tmem *m, uint64_t a, const void *src, size_t len)
{
    memcpy(m->bytes + a, src, len);
    for (uint64_t g = a / 32; g < (a + len + 31) / 32; g++)
        m->written[g] = true;
}

static char last_model_fault[256];
static void on_fault(void *user, const char *msg)
{
    (void)user;
    snprintf(last_model_fault, sizeof last_model_fault, "%s", msg);
}

static ksim_mover *make(tmem *m)
{
    ksim_mover_mem mem = {t_read, t_write, NULL, m};
    return ksim_mover_create(&mem, on_fault, NULL);
}

/* Feed the writes the driver builds, then run to idle. Returns the cycles it took. */
static unsigned run(ksim_mover *mv, const kt_mv_move *move)
{
    kt_mv_write w[KT_MV_MAX_WRITES];
    size_t n = 0;
    npk_status s = kt_mv_build(move, w, KT_MV_MAX_WRITES, &n);
    CHECK_EQ(s, NPK_OK);
    for (size_t i = 0; i < n; i++)
        ksim_mover_cfg(mv, w[i].offset, w[i].value);
    unsigned cycles = 0;
    while (ksim_mover_busy(mv) && cycles < 100000) {
        ksim_mover_tick(mv);
        cycles++;
    }
    return cycles;
}

/* Feed raw (offset, value) pulses — for moves the driver refuses to build. */
static void run_raw(ksim_mover *mv, const kt_mv_write *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ksim_mover_cfg(mv, w[i].offset, w[i].value);
    for (unsigned c = 0; ksim_mover_busy(mv) && c < 100000; c++)
        ksim_mover_tick(mv);
}

static kt_mv_status stat(const ksim_mover *mv) { return kt_mv_status_decode(ksim_mover_stat(mv)); }

static void pattern(uint8_t *buf, size_t len, uint8_t seed)
{
    for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t)(seed + i * 7);
}

static void test_copy_fill_generate(void)
{
    tmem *m = calloc(1, sizeof *m);
    ksim_mover *mv = make(m);
    uint8_t src[256];
    pattern(src, sizeof src, 3);
    put(m, 0x1000, src, sizeof src);

    kt_mv_move c = kt_mv_copy(0x2000, 0x1000, 8);
    CHECK(stat(mv).busy == false);
    ksim_mover_cfg(mv, KT_MV_HDR, 0x1000ull << 4 | 1ull << 44);
    unsigned cycles = run(mv, &c);
    CHECK(cycles >= 8); /* one transfer per cycle, then the drain */
    CHECK(!memcmp(m->bytes + 0x2000, src, 256));
    CHECK_EQ(stat(mv).moves_done, 1);
    CHECK_EQ(stat(mv).fault, 0);

    /* Busy while running. */
    kt_mv_write w[KT_MV_MAX_WRITES];
    size_t n;
    kt_mv_build(&c, w, KT_MV_MAX_WRITES, &n);
    for (size_t i = 0; i < n; i++)
        ksim_mover_cfg(mv, w[i].offset, w[i].value);
    CHECK(stat(mv).busy);
    /* A GO while busy is ignored. */
    ksim_mover_cfg(mv, KT_MV_CTRL, 1ull << 16);
    while (ksim_mover_busy(mv))
        ksim_mover_tick(mv);
    CHECK_EQ(stat(mv).moves_done, 2);

    for (unsigned width = 0; width < 3; width++) {
        kt_mv_move f = kt_mv_fill(0x3000, 2, (kt_mv_width)width, 0xA1B2C3D4);
        run(mv, &f);
        uint8_t want[32];
        kt_mv_fill_word((kt_mv_width)width, 0xA1B2C3D4, want);
        CHECK(!memcmp(m->bytes + 0x3000, want, 32));
        CHECK(!memcmp(m->bytes + 0x3020, want, 32));
    }

    kt_mv_move g = kt_mv_generate(0x4000, 4, 0xDEADBEEF12345678ull);
    run(mv, &g);
    for (unsigned i = 0; i < 4; i++) {
        uint8_t want[32];
        kt_mv_generate_word(0xDEADBEEF12345678ull, 0x4000 + 32 * i, want);
        CHECK(!memcmp(m->bytes + 0x4000 + 32 * i, want, 32));
    }
    CHECK_EQ(stat(mv).moves_done, 2 + 3 + 1);
    uint64_t rd, wr;
    ksim_mover_traffic(mv, &rd, &wr);
    CHECK_EQ(rd, 16); /* two copies of 8 words */
    CHECK_EQ(wr, 16 + 6 + 4);
    ksim_mover_destroy(mv);
    free(m);
}

static void test_strided_padding_backpressure(void)
{
    tmem *m = calloc(1, sizeof *m);
    ksim_mover *mv = make(m);
    uint8_t src[4 * 32];
    pattern(src, sizeof src, 9);
    put(m, 0x1000, src, sizeof src);
    /* Source: 4 words walked from -1 .. 4 on a bound axis with extent 4: the first and last of
     * six destination words are padding with the immediate. */
    kt_mv_move c = kt_mv_copy(0x2000, 0x1000 - 32, 6);
    c.src.dims[0].axis = 1;
    c.src.dims[0].astep = 1;
    c.src.window[0] = (kt_mv_window){-1, 4};
    c.width = KT_MV_W32;
    c.imm = 0x77777777;
    m->retry_every = 3; /* and a slow destination */
    run(mv, &c);
    uint8_t pad[32];
    kt_mv_fill_word(KT_MV_W32, 0x77777777, pad);
    CHECK(!memcmp(m->bytes + 0x2000, pad, 32));
    CHECK(!memcmp(m->bytes + 0x2020, src, 128));
    CHECK(!memcmp(m->bytes + 0x20A0, pad, 32));
    CHECK_EQ(stat(mv).fault, 0);
    m->retry_every = 0;

    /* Destination window: invalid elements are walked but not written. Transposed 2x2 blocks. */
    kt_mv_move t = kt_mv_copy(0x3000, 0x1000, 1);
    t.dst.ndim = 2;
    t.dst.dims[0] = (kt_mv_dim){2, 32, 1, 1};
    t.dst.dims[1] = (kt_mv_dim){2, 64, 0, 0};
    t.dst.window[0] = (kt_mv_window){0, 1}; /* only the first row lands */
    t.src.dims[0].count = 4;
    run(mv, &t);
    CHECK(!memcmp(m->bytes + 0x3000, src, 32));
    CHECK(!memcmp(m->bytes + 0x3040, src + 32, 32));
    CHECK(!m->written[0x3020 / 32]);
    CHECK(!m->written[0x3060 / 32]);
    ksim_mover_destroy(mv);
    free(m);
}

static void test_gather(void)
{
    tmem *m = calloc(1, sizeof *m);
    ksim_mover *mv = make(m);
    uint8_t rows[8 * 64];
    pattern(rows, sizeof rows, 1);
    put(m, 0x8000, rows, sizeof rows);
    uint32_t idx[9] = {5, 0, 7, 7, 2, 1, 3, 6, 4}; /* two index words */
    put(m, 0x400, idx, sizeof idx);
    kt_mv_move g = kt_mv_gather(0x1000, 0x8000, idx, 9, 0x400, 64, 2);
    run(mv, &g);
    for (unsigned i = 0; i < 9; i++)
        CHECK(!memcmp(m->bytes + 0x1000 + i * 64, rows + idx[i] * 64, 64));
    CHECK_EQ(stat(mv).fault, 0);
    CHECK_EQ(stat(mv).moves_done, 1);
    ksim_mover_destroy(mv);
    free(m);
}

static void test_transform(void)
{
    tmem *m = calloc(1, sizeof *m);
    ksim_mover *mv = make(m);
    uint8_t src[2 * 8 * 32];
    pattern(src, sizeof src, 4);
    put(m, 0x1000, src, sizeof src);
    /* Two entries of eight source beats each -> four words each, destination stride 128. */
    kt_mv_move x = kt_mv_copy(0x2000, 0x1000, 16);
    x.mode = KT_MV_XFORM;
    x.src.xform_id = 1;
    x.dst.dims[0] = (kt_mv_dim){2, 128, 0, 0};
    run(mv, &x);
    CHECK_EQ(stat(mv).fault, 0);
    CHECK_EQ(stat(mv).moves_done, 1);
    /* slot 1 is the MXFP7 quantiser: each entry as the hardware layer packs it (A, mode 0) */
    for (unsigned e = 0; e < 2; e++) {
        uint8_t want[KT_MX_ENTRY_OUT];
        kt_mx_quant_entry(src + e * KT_MX_ENTRY_IN, false, want);
        CHECK(!memcmp(m->bytes + 0x2000 + e * 128, want, sizeof want));
    }
    x.src.xform_mode = 1; /* mode[0]: the B packing */
    uint8_t ones[KT_MX_ENTRY_IN];
    for (unsigned i = 0; i < sizeof ones; i += 2) {
        ones[i] = 0x00; /* 1.0 everywhere: scale {-6, 9} (field 0x71), every q = 57 */
        ones[i + 1] = 0x3C;
    }
    put(m, 0x1000, ones, sizeof ones);
    run(mv, &x);
    for (unsigned w = 0; w < 4; w++) {
        const uint8_t *word = m->bytes + 0x2000 + w * 32;
        CHECK_EQ(word[0] | word[1] << 8 | word[2] << 16 | (uint32_t)word[3] << 24, 0x71717171u);
        CHECK_EQ(word[31] >> 1, 57); /* slot 0 at bits [255:249] */
    }
    put(m, 0x1000, src, sizeof src);
    /* Bypass (slot 0): a plain copy through the transform path. */
    kt_mv_move b = kt_mv_copy(0x3000, 0x1000, 4);
    b.mode = KT_MV_XFORM;
    run(mv, &b);
    CHECK(!memcmp(m->bytes + 0x3000, src, 128));
    /* An id naming no occupant passes through the bypass and raises the bank's fault (the
     * driver refuses it, so the words are patched), as upstream's bank answers it. */
    last_model_fault[0] = 0;
    memset(m->bytes + 0x3000, 0, 128);
    CHECK_EQ(ksim_mover_bank(mv)->fault, 0);
    kt_mv_write raw[KT_MV_MAX_WRITES];
    size_t nraw = 0;
    CHECK_EQ(kt_mv_build(&b, raw, KT_MV_MAX_WRITES, &nraw), NPK_OK);
    CHECK_EQ(raw[0].offset, KT_MV_HDR);
    raw[0].value |= 9ull << 47; /* XFORM_ID 9 on the source header */
    run_raw(mv, raw, nraw);
    CHECK_EQ(last_model_fault[0], 0);
    CHECK(!memcmp(m->bytes + 0x3000, src, 128));
    CHECK_EQ(ksim_mover_bank(mv)->fault, KT_RV32_OCC_FAULT_NO_OCCUPANT);
    CHECK_EQ(stat(mv).moves_done, 4);
    ksim_xform_bank_write(ksim_mover_bank(mv), 9, KT_RV32_OCC_REG_FAULT, 0);
    CHECK_EQ(ksim_mover_bank(mv)->fault, 0);
    ksim_mover_destroy(mv);
    free(m);
}

static void test_every_fault(void)
{
    tmem *m = calloc(1, sizeof *m);
    ksim_mover *mv = make(m);
    uint8_t src[64] = {1};
    put(m, 0x1000, src, 64);
    put(m, 0x400, src, 64);
    uint32_t done = 0;

    /* 1 index length: 2049 indices. */
    kt_mv_write idxlen[] = {{KT_MV_INDEX, 0x400 | 2049ull << 40}, {KT_MV_CTRL, 2 | 1 << 3 | 1 << 16}};
    run_raw(mv, idxlen, 2);
    CHECK_EQ(stat(mv).fault, KT_MV_F_IDXLEN);
    CHECK(!stat(mv).busy);

    /* A fault is cleared at the next GO, and only a fault-free move counts. */
    kt_mv_move ok = kt_mv_copy(0x2000, 0x1000, 2);
    run(mv, &ok);
    CHECK_EQ(stat(mv).fault, 0);
    CHECK_EQ(stat(mv).moves_done, ++done);

    /* 2 range: a destination walking below address zero. */
    kt_mv_write range[] = {{KT_MV_HDR, 1 | 0x20ull << 4 | 1ull << 44},
                           {KT_MV_DIM, 1 | 3ull << 4 | (uint64_t)(uint32_t)-32 << 20},
                           {KT_MV_AXIS, 0},
                           {KT_MV_CTRL, KT_MV_FILL | 1 << 16}};
    run_raw(mv, range, 4);
    CHECK_EQ(stat(mv).fault, KT_MV_F_RANGE);
    CHECK_EQ(stat(mv).moves_done, done);
    CHECK(m->written[0x20 / 32] && m->written[0]); /* the two in-range words were written first */

    /* 3 AXI: a source never written (SLVERR). */
    kt_mv_move axi = kt_mv_copy(0x2000, 0x9000, 2);
    run(mv, &axi);
    CHECK_EQ(stat(mv).fault, KT_MV_F_AXI);
    CHECK_EQ(stat(mv).moves_done, done);

    /* 4 mode: transpose, and an undefined mode. */
    kt_mv_write tr[] = {{KT_MV_CTRL, KT_MV_TRANSPOSE | 1 << 3 | 1 << 16}};
    run_raw(mv, tr, 1);
    CHECK_EQ(stat(mv).fault, KT_MV_F_MODE);
    kt_mv_write m7[] = {{KT_MV_CTRL, 7 | 1 << 3 | 1 << 16}};
    run_raw(mv, m7, 1);
    CHECK_EQ(stat(mv).fault, KT_MV_F_MODE);

    /* 5 element width 3. */
    kt_mv_write ew[] = {{KT_MV_CTRL, KT_MV_COPY | 3 << 3 | 1 << 16}};
    run_raw(mv, ew, 1);
    CHECK_EQ(stat(mv).fault, KT_MV_F_EWIDTH);

    /* 6 alignment: a destination stride of 16 — the first word lands, the second faults. */
    kt_mv_write al[] = {{KT_MV_HDR, 1 | 0x5000ull << 4 | 1ull << 44},
                        {KT_MV_DIM, 1 | 2ull << 4 | 16ull << 20},
                        {KT_MV_AXIS, 0},
                        {KT_MV_CTRL, KT_MV_FILL | 1 << 3 | 1 << 16}};
    run_raw(mv, al, 4);
    CHECK_EQ(stat(mv).fault, KT_MV_F_ALIGN);
    CHECK(m->written[0x5000 / 32]);

    /* 7 a bound axis in a transform. */
    kt_mv_write xa[] = {{KT_MV_HDR, 0x1000ull << 4 | 1ull << 44 | 1ull << 47},
                        {KT_MV_WINDOW, 0 | 0 << 1 | 4ull << 18},
                        {KT_MV_CTRL, KT_MV_XFORM | 1 << 3 | 1 << 16}};
    run_raw(mv, xa, 3);
    CHECK_EQ(stat(mv).fault, KT_MV_F_XFORM_AXIS);
    CHECK_EQ(stat(mv).moves_done, done);
    ksim_mover_destroy(mv);
    free(m);
}

/* What a pre-strobe window hands the mover for one host write64 at client offset `off`: four
 * pulses over the 32-byte flit, ascending, the three neighbours carrying zero. */
static void prestrobe_write(ksim_mover *mv, uint8_t off, uint64_t v)
{
    uint8_t first = off & ~31u;
    for (uint8_t a = first; a < first + 32; a += 8) {
        ksim_mover_cfg(mv, a, a == off ? v : 0);
        ksim_mover_tick(mv); /* one beat per cycle */
    }
}

static void test_prestrobe_flit_sharing(void)
{
    tmem *m = calloc(1, sizeof *m);
    ksim_mover *mv = make(m);
    uint8_t src[128], zero[128] = {0};
    pattern(src, sizeof src, 5);
    put(m, 0x1000, src, sizeof src);
    put(m, 0, zero, sizeof zero);
    kt_mv_move c = kt_mv_copy(0x2000, 0x1000, 4);
    kt_mv_write w[KT_MV_MAX_WRITES];
    size_t n;
    CHECK_EQ(kt_mv_build(&c, w, KT_MV_MAX_WRITES, &n), NPK_OK);
    for (size_t i = 0; i < n; i++)
        prestrobe_write(mv, w[i].offset, w[i].value);
    while (ksim_mover_busy(mv))
        ksim_mover_tick(mv);
    /* The DIM writes (0x18) share a flit with HDR (0x10): each one rewrote the source walker's
     * header with zero — base 0, no dimensions. The CTRL|GO write then did the same mid-move.
     * The move completes, without a fault, with the wrong bytes. */
    kt_mv_walker sw;
    ksim_mover_walker(mv, 0, &sw);
    CHECK_EQ(sw.base, 0);
    CHECK_EQ(sw.ndim, 0);
    CHECK_EQ(stat(mv).fault, 0);
    CHECK_EQ(stat(mv).moves_done, 1);
    CHECK(memcmp(m->bytes + 0x2000, src, 128) != 0);
    CHECK(!memcmp(m->bytes + 0x2000, zero, 128)); /* word 0 of memory, four times */
    /* The same writes one pulse each (a current bitstream) move the right bytes. */
    for (size_t i = 0; i < n; i++)
        ksim_mover_cfg(mv, w[i].offset, w[i].value);
    while (ksim_mover_busy(mv))
        ksim_mover_tick(mv);
    CHECK(!memcmp(m->bytes + 0x2000, src, 128));
    ksim_mover_destroy(mv);
    free(m);
}

static void test_reset_values(void)
{
    ksim_mover *mv = ksim_mover_create(NULL, NULL, NULL);
    kt_mv_walker w;
    ksim_mover_walker(mv, 1, &w);
    CHECK_EQ(w.ndim, 1);
    CHECK_EQ(w.window[0].extent, 0);
    CHECK_EQ(ksim_mover_stat(mv), 0);
    /* Windows persist across moves until reset. */
    ksim_mover_cfg(mv, KT_MV_WINDOW, 1 | 5ull << 18);
    ksim_mover_walker(mv, 1, &w);
    CHECK_EQ(w.window[0].extent, 5);
    ksim_mover_reset(mv);
    ksim_mover_walker(mv, 1, &w);
    CHECK_EQ(w.window[0].extent, 0);
    ksim_mover_destroy(mv);
}


/* Random strided, windowed copies against a reference written out as plain loops here (not the
 * shared walker code): the destination's odometer drives, the source's steps in lockstep and
 * wraps, padding where a source window excludes, no write where a destination window does. */
static uint32_t rng_state = 12345;
static uint32_t rnd(uint32_t n)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return (rng_state >> 8) % n;
}

static void random_walker(kt_mv_walker *w, uint64_t base)
{
    memset(w, 0, sizeof *w);
    w->base = base;
    w->ndim = 1 + rnd(3);
    for (unsigned i = 0; i < w->ndim; i++) {
        w->dims[i].count = (uint16_t)(1 + rnd(4));
        w->dims[i].stride = (int32_t)(rnd(9) - 4) * 32;
        w->dims[i].axis = (uint8_t)rnd(3);
        w->dims[i].astep = (int16_t)(rnd(5) - 2);
    }
    for (unsigned a = 0; a < 2; a++)
        if (rnd(2))
            w->window[a] = (kt_mv_window){(int16_t)(rnd(5) - 2), (uint16_t)(1 + rnd(4))};
}

/* Element k of a walker, by explicit mixed-radix decomposition (innermost fastest). */
static int64_t ref_addr(const kt_mv_walker *w, uint64_t k, bool *valid)
{
    uint64_t total = 1;
    for (unsigned i = 0; i < w->ndim; i++)
        total *= w->dims[i].count;
    k %= total;
    int64_t addr = (int64_t)w->base, axis[2] = {w->window[0].base, w->window[1].base};
    for (int i = (int)w->ndim - 1; i >= 0; i--) {
        uint64_t idx = k % w->dims[i].count;
        k /= w->dims[i].count;
        addr += (int64_t)idx * w->dims[i].stride;
        if (w->dims[i].axis)
            axis[w->dims[i].axis - 1] += (int64_t)idx * w->dims[i].astep;
    }
    *valid = true;
    for (unsigned a = 0; a < 2; a++)
        if (w->window[a].extent && (axis[a] < 0 || axis[a] >= w->window[a].extent))
            *valid = false;
    return addr;
}

static void test_random_copies(void)
{
    tmem *m = calloc(1, sizeof *m);
    uint8_t *want = malloc(MEM);
    uint8_t src[0x2000];
    pattern(src, sizeof src, 77);
    for (int trial = 0; trial < 40; trial++) {
        memset(m, 0, sizeof *m);
        put(m, 0x1000, src, sizeof src);
        ksim_mover *mv = make(m);
        kt_mv_move c = kt_mv_copy(0, 0, 1);
        random_walker(&c.src, 0x2000);
        random_walker(&c.dst, 0x8000);
        c.width = (kt_mv_width)rnd(3);
        c.imm = 0xC0DE0000u + (uint32_t)trial;
        if (kt_mv_validate(&c) != NPK_OK) {
            ksim_mover_destroy(mv);
            continue;
        }
        memcpy(want, m->bytes, MEM);
        uint64_t total = 1;
        for (unsigned i = 0; i < c.dst.ndim; i++)
            total *= c.dst.dims[i].count;
        uint8_t pad[32];
        kt_mv_fill_word(c.width, c.imm, pad);
        for (uint64_t k = 0; k < total; k++) {
            bool dv, sv;
            int64_t da = ref_addr(&c.dst, k, &dv), sa = ref_addr(&c.src, k, &sv);
            if (dv)
                memcpy(want + da, sv ? m->bytes + sa : pad, 32);
        }
        run(mv, &c);
        CHECK_EQ(stat(mv).fault, 0);
        CHECK(!memcmp(m->bytes + 0x6000, want + 0x6000, 0x4000));
        ksim_mover_destroy(mv);
    }
    free(want);
    free(m);
}

int main(void)
{
    test_copy_fill_generate();
    test_strided_padding_backpressure();
    test_gather();
    test_transform();
    test_every_fault();
    test_prestrobe_flit_sharing();
    test_reset_values();
    test_random_copies();
    return check_done();
}
