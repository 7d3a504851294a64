/* SPDX-License-Identifier: MIT */
/* The saxpy example unit's datapath ('SX'): y[0:n] = a*x + y over float32, through the memory
 * protocol — one plain read of x, one of y, one burst write of y — like the example bench.
 *
 * This file is the unit type in the simulator: its datapath, faults, timing row and the table
 * entry (ksim_unit_saxpy, a line of unit_types.c). Its instruction word — type code, layout,
 * opcode, n's limit, fault codes, encoder — is hardware the driver builds too, so it lives in the
 * hardware layer, src/kt/hw/units/saxpy.c, which this file decodes through (kt_saxpy_decode).
 *
 * The write acknowledgement is dropped (no write fence): the completion does not order against
 * the DRAM write, and a host must poll the result.
 *
 * Arithmetic as the RTL does it (measured under Verilator): each float operand is converted to an
 * integer (toward zero), the multiply-add is done on 32-bit integers, and the result is converted
 * back, so the unit is exact only for whole-valued operands (x = 0.25, y = 2, a = 2.5 gives 2).
 * An operand the conversion cannot represent (NaN, infinity, beyond 32 bits) is a model error.
 * Faults (SIG_FAULT arg, the RTL's codes, KT_SAXPY_FAULT_*): a bad opcode, n > 64. n = 0
 * retires normally without touching memory; alignment is never checked.
 * CU_DBG: cumulative elements processed.
 *
 * Timing (the preset's `timing saxpy` row, calibrated to the RTL): `setup` cycles after the
 * instruction is accepted, read x and wait for all its beats plus `read_wait`, then the same for
 * y (one read at a time, as the RTL's unit does), `element` cycles per element, the write burst,
 * and `retire` cycles before exec_done. */
#include <stdlib.h>
#include <string.h>

#include "kt/hw/flit_header.h"
#include "shell.h"
#include "kt/hw/units/saxpy.h"

/* The unit's own transaction tags for its reads and its write (the RTL's). */
enum { SX_MAX_N = KT_SAXPY_INST_MAX_N, SX_TXN_X = 0x10, SX_TXN_Y = 0x20, SX_TXN_W = 0x30 };

/* Its timing keys, in the order of its timing row (sx_timing below). */
enum { SX_T_SETUP, SX_T_READ_WAIT, SX_T_ELEMENT, SX_T_RETIRE };

/* The timing the model runs on: the preset's row, read once at create. */
typedef struct sx_timing_row {
    uint32_t setup;     /* cycles from accepting an instruction to its first memory request */
    uint32_t read_wait; /* cycles each read round trip takes beyond the mesh and the port model
                         * (the bench DRAM's latency and the unit's response registers) */
    uint32_t element;   /* cycles per element computed, after the reads */
    uint32_t retire;    /* cycles from the last write beat sent to exec_done */
} sx_timing_row;

typedef enum sx_state {
    SX_IDLE,
    SX_REQ_X,
    SX_WAIT_X,
    SX_REQ_Y,
    SX_WAIT_Y,
    SX_COMPUTE,
    SX_WR_REQ,
    SX_WR_DATA,
    SX_RETIRE
} sx_state;

typedef struct saxpy_unit {
    kt_coord mem;
    sx_timing_row timing;
    sx_state state;
    uint32_t wait; /* cycles left before the current state may act */
    uint32_t n, beats, got_x, got_y, sent;
    float a;
    uint64_t x_addr, y_addr;
    uint32_t fault;
    float x[SX_MAX_N], y[SX_MAX_N];
    uint8_t ybytes[SX_MAX_N * 4]; /* y beats as read, so lanes past n are written back unchanged */
    uint64_t elements;
} saxpy_unit;

static void *sx_create(const ktsim_unit_cfg *cfg, kt_coord mem)
{
    saxpy_unit *u = calloc(1, sizeof *u);
    if (u) {
        u->mem = mem;
        const uint32_t *t = cfg->timing.value;
        u->timing =
            (sx_timing_row){t[SX_T_SETUP], t[SX_T_READ_WAIT], t[SX_T_ELEMENT], t[SX_T_RETIRE]};
    }
    return u;
}

static void sx_destroy(void *u) { free(u); }
static void sx_reset(void *p) { ((saxpy_unit *)p)->state = SX_IDLE; }
static bool sx_ready(void *p) { return ((saxpy_unit *)p)->state == SX_IDLE; }

static void sx_issue(void *p, const kt_flit *inst)
{
    saxpy_unit *u = p;
    kt_saxpy_fields in;
    u->fault = kt_saxpy_decode(inst, &in);
    u->n = in.n;
    u->a = in.a;
    u->x_addr = in.x_addr;
    u->y_addr = in.y_addr;
    u->beats = (u->n + 7) / 8;
    u->got_x = u->got_y = u->sent = 0;
    bool work = !u->fault && u->n != 0;
    u->state = work ? SX_REQ_X : SX_RETIRE;
    u->wait = work ? u->timing.setup : u->timing.retire;
}

static bool send_read(saxpy_unit *u, ksim_shell *sh, uint64_t addr, uint8_t txn)
{
    kt_flit f = {{0}};
    kt_mem_req r = {0};
    r.addr = addr & ((1ull << KT_MEM_ADDR_BITS) - 1);
    r.len = (uint8_t)(u->beats - 1);
    kt_mem_req_put(&f, &r);
    kt_header h = {u->mem, ksim_shell_coord(sh), KT_T_MEM_RD_REQ, txn, true, 0};
    kt_header_put(&f, &h);
    return ksim_shell_send(sh, &f);
}

/* Whether the RTL's float-to-integer conversion has a 32-bit answer (NaN compares false). */
static bool in_int_range(float f) { return f >= -2147483648.0f && f < 2147483648.0f; }

/* That conversion (toward zero); false where it has no 32-bit answer. */
static bool to_int(float f, int32_t *out)
{
    if (!in_int_range(f))
        return false;
    *out = (int32_t)f;
    return true;
}

/* a*x + y as the unit computes it: 32-bit integer multiply-add, wrapping, back to float. */
static float rtl_madd(int32_t ia, int32_t ix, int32_t iy)
{
    return (float)(int32_t)((uint32_t)ia * (uint32_t)ix + (uint32_t)iy);
}

/* The same on one element whose operands may have no integer value (false then, y kept); `ia`
 * is a, converted once per instruction (a_ok: it has a value). */
static bool rtl_saxpy(bool a_ok, int32_t ia, float x, float *y)
{
    int32_t ix, iy;
    if (!a_ok || !to_int(x, &ix) || !to_int(*y, &iy))
        return false;
    *y = rtl_madd(ia, ix, iy);
    return true;
}

/* Enter `next` once `wait` more cycles have passed. */
static void after(saxpy_unit *u, sx_state next, uint32_t wait)
{
    u->state = next;
    u->wait = wait;
}

static void sx_tick(void *p, ksim_shell *sh)
{
    saxpy_unit *u = p;
    if (u->state != SX_IDLE && u->wait) {
        u->wait--;
        return;
    }
    switch (u->state) {
    case SX_IDLE: break;
    case SX_REQ_X:
        if (send_read(u, sh, u->x_addr, SX_TXN_X))
            u->state = SX_WAIT_X;
        break;
    case SX_WAIT_X:
        if (u->got_x == u->beats)
            after(u, SX_REQ_Y, u->timing.read_wait);
        break;
    case SX_REQ_Y:
        if (send_read(u, sh, u->y_addr, SX_TXN_Y))
            u->state = SX_WAIT_Y;
        break;
    case SX_WAIT_Y:
        if (u->got_y == u->beats)
            after(u, SX_COMPUTE, u->timing.read_wait);
        break;
    case SX_COMPUTE: {
        int32_t ia = 0;
        bool a_ok = to_int(u->a, &ia), all_ok = a_ok;
        for (uint32_t i = 0; i < u->n; i++) /* one test for the whole instruction */
            all_ok = all_ok && in_int_range(u->x[i]) && in_int_range(u->y[i]);
        if (all_ok) /* the common case, as a loop the compiler can vectorise */
            for (uint32_t i = 0; i < u->n; i++)
                u->y[i] = rtl_madd(ia, (int32_t)u->x[i], (int32_t)u->y[i]);
        else
            for (uint32_t i = 0; i < u->n; i++)
                if (!rtl_saxpy(a_ok, ia, u->x[i], &u->y[i]))
                    ksim_shell_report(sh,
                                      "saxpy operand a=%g x=%g y=%g has no 32-bit integer value "
                                      "(the RTL's conversion is not modelled there)",
                                      (double)u->a, (double)u->x[i], (double)u->y[i]);
        memcpy(u->ybytes, u->y, 4 * u->n);
        /* `element` cycles per element, this cycle the first */
        uint32_t cycles = u->n * u->timing.element;
        after(u, SX_WR_REQ, cycles ? cycles - 1 : 0);
        break;
    }
    case SX_WR_REQ: {
        kt_flit f = {{0}};
        kt_mem_req r = {0};
        r.addr = u->y_addr & ((1ull << KT_MEM_ADDR_BITS) - 1);
        r.len = (uint8_t)(u->beats - 1);
        kt_mem_req_put(&f, &r);
        kt_header h = {u->mem, ksim_shell_coord(sh), KT_T_MEM_WR_REQ, SX_TXN_W, true, 0};
        kt_header_put(&f, &h);
        if (ksim_shell_send(sh, &f))
            u->state = SX_WR_DATA;
        break;
    }
    case SX_WR_DATA: {
        kt_flit f = {{0}};
        for (int w = 0; w < 4; w++) {
            uint64_t v = 0;
            memcpy(&v, u->ybytes + u->sent * 32 + w * 8, 8);
            f.w[w] = v;
        }
        kt_header h = {u->mem,   ksim_shell_coord(sh),    KT_T_MEM_WR_DATA,
                       SX_TXN_W, u->sent + 1 == u->beats, 0};
        kt_header_put(&f, &h);
        if (ksim_shell_send(sh, &f) && ++u->sent == u->beats)
            after(u, SX_RETIRE, u->timing.retire); /* sent, not landed: there is no fence */
        break;
    }
    case SX_RETIRE:
        if (!u->fault)
            u->elements += u->n;
        u->state = SX_IDLE;
        ksim_shell_done(sh, u->fault ? u->fault : u->n, u->fault != 0);
        break;
    }
}

static bool sx_recv(void *p, const kt_flit *f)
{
    saxpy_unit *u = p;
    kt_header h = kt_flit_header(f);
    if (h.type != KT_T_MEM_RD_RESP || (u->state != SX_WAIT_X && u->state != SX_WAIT_Y))
        return true; /* write acks and strays are dropped */
    bool is_x = h.txn == SX_TXN_X;
    uint32_t *got = is_x ? &u->got_x : &u->got_y;
    if (h.txn != SX_TXN_X && h.txn != SX_TXN_Y)
        return true;
    if (*got >= u->beats)
        return true;
    /* the beat's bytes straight into the operand, little-endian word by word */
    uint8_t *beat = (uint8_t *)(is_x ? u->x : u->y) + *got * 32;
    for (int w = 0; w < 4; w++)
        kt_put_le64(beat + 8 * w, f->w[w]);
    if (!is_x)
        memcpy(u->ybytes + *got * 32, beat, 32);
    (*got)++;
    return true;
}

static uint64_t sx_dbg(void *p) { return ((saxpy_unit *)p)->elements; }
static bool sx_idle(void *p) { return ((saxpy_unit *)p)->state == SX_IDLE; }

/* A countdown only decrements; idle, or waiting for beats not yet arrived, does nothing. */
static uint64_t sx_quiet(void *p)
{
    const saxpy_unit *u = p;
    if (u->state == SX_IDLE)
        return UINT64_MAX;
    if (u->wait)
        return u->wait;
    if ((u->state == SX_WAIT_X && u->got_x < u->beats) ||
        (u->state == SX_WAIT_Y && u->got_y < u->beats))
        return UINT64_MAX;
    return 0;
}

static void sx_skip(void *p, uint64_t cycles)
{
    saxpy_unit *u = p;
    if (u->state != SX_IDLE && u->wait)
        u->wait -= (uint32_t)cycles;
}

/* Calibrated against the RTL (the saxpy_mesh top under Verilator, facts §3.3): one 64-element
 * instruction takes 149 cycles from PROG_KICK to its NODE_STATUS update, and 8 instructions of 64
 * elements leave CU_COUNTERS busy_cycles at 1139 and 1120 on the two units; the unit computes one
 * element per cycle after two read round trips, then writes one burst. The mesh and the memory
 * port model their own cycles, so read_wait is what the bench's round trip takes beyond them.
 * tests/test_kt_unit_timing.c checks the figures. */
static const ktsim_unit_key sx_timing[] = {
    [SX_T_SETUP] = {"setup", 1, 0, 1u << 20},     [SX_T_READ_WAIT] = {"read_wait", 17, 0, 1u << 20},
    [SX_T_ELEMENT] = {"element", 1, 1, 1u << 16}, /* at least a cycle each */
    [SX_T_RETIRE] = {"retire", 1, 0, 1u << 20},   {NULL, 0, 0, 0},
};

const ksim_unit_ops ksim_unit_saxpy = {
    .kind = "saxpy",
    .default_type = KT_SAXPY_TYPE,
    .create = sx_create,
    .destroy = sx_destroy,
    .reset = sx_reset,
    .ready = sx_ready,
    .issue = sx_issue,
    .tick = sx_tick,
    .recv = sx_recv,
    .dbg = sx_dbg,
    .idle = sx_idle,
    .layout = kt_layout_saxpy,
    .timing = sx_timing,
    .timing_source = "RTL saxpy_mesh: 149 cycles PROG_KICK to NODE_STATUS for 64 elements; "
                     "busy_cycles 1139 / 1120 for 8 x 64",
    .quiet = sx_quiet,
    .skip = sx_skip,
};
