/* SPDX-License-Identifier: MIT */
/* The simulator's top level: builds the machine from a configuration, runs the clock, and
 * presents it as a kt_transport. Host accesses go through a station-bus front end that packs
 * every write into 32-byte flits of four beats, exactly one of them strobed — which a current
 * orchestrator ignores and a pre-strobe one does not. The host bus is a table of regions. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dram.h"
#include "memport.h"
#include "mesh.h"
#include "mover.h"
#include "kt/hw/kt_interlink_hw.h"
#include "npukit/kt_regs.h"
#include "npukit/ktsim.h"
#include "orch.h"
#include "rv32_complex.h"
#include "rv64_complex.h"
#include "shell.h"
#include "timing.h"
#include "trace.h"

enum { MAX_REGIONS = 8 };

typedef enum region_kind { R_CTRL, R_MEM, R_PLUGGED } region_kind;

/* The RV64 complex's windows onto AUX_CFG clients' config ports (rows of rv64_windows). */
typedef enum rv64_window { RV64_W_MOVER, RV64_W_ILINK, RV64_W_COUNT } rv64_window;

typedef struct bus_region {
    region_kind kind;
    ktsim_region r;
    uint64_t (*quiet)(void *ctx); /* ktsim_set_quiet */
    void (*skip)(void *ctx, uint64_t cycles);
} bus_region;

struct ktsim {
    ktsim_config cfg;
    uint64_t cycle;
    ksim_orch *orch;
    ksim_mesh *mesh;
    const unsigned *mesh_in_flight; /* its flits in flight, asked before anything else each cycle */
    ksim_dram *dram;
    ksim_memport *ports[KTSIM_MAX_MEM_PORTS];
    ksim_shell *shells[KTSIM_MAX_UNITS];
    const uint64_t *shell_wake[KTSIM_MAX_UNITS]; /* each one's wake_at: not 0 while it sleeps */
    unsigned n_shells;
    bool ports_counting; /* quiet_cycles found a memory port counting down */
    bus_region regions[MAX_REGIONS];
    unsigned n_regions;
    bus_region *ticking[MAX_REGIONS]; /* the regions with a tick, in region order */
    unsigned n_ticking;
    kt_transport transport;
    char fault[320];
    bool has_fault;
    uint64_t lane[4]; /* station-bus lanes, for the stale-bytes variant */
    uint64_t stalled;
    /* The agent's AXI traffic counters: the memory ports' transactions and those of plugged
     * agent-side masters (the mover), added as they happen (16-bit, wrapping). */
    uint16_t traffic_rd, traffic_wr;
    uint16_t traffic_told_rd, traffic_told_wr; /* what the orchestrator was last told */
    ksim_mover *mover;                /* the memory agent's own mover, unless the preset drops it */
    ksim_rv64c *rv64;                 /* CPU_RV64 = 1 */
    uint64_t rv64_lost[RV64_W_COUNT]; /* writes lost to a same-cycle collision, per window */
    ksim_trace *trace;                /* NPUKIT_TRACE: this machine's trace process, or NULL */
    ksim_hub_client processor;        /* the unit at (0,0), a client of the node's ports */
    ksim_xform_bank *bank;            /* the mover's transform bank, or NULL */
};

static void sim_fault(void *user, const char *msg)
{
    ktsim *s = user;
    if (!s->has_fault) {
        snprintf(s->fault, sizeof s->fault, "cycle %" PRIu64 ": %s", s->cycle, msg);
        s->has_fault = true;
    }
}

const ktsim_config *ktsim_get_config(const ktsim *s) { return &s->cfg; }
uint64_t ktsim_cycle(const ktsim *s) { return s->cycle; }
const char *ktsim_fault(const ktsim *s) { return s->has_fault ? s->fault : NULL; }
void ktsim_clear_fault(ktsim *s) { s->has_fault = false; }
uint64_t ktsim_stalled_cycles(const ktsim *s) { return s->stalled; }
uint64_t ktsim_dropped_flits(const ktsim *s) { return ksim_mesh_dropped(s->mesh); }

static bool machine_idle(const ktsim *s)
{
    /* flits in the mesh first: the commonest reason, and the cheapest test */
    if (*s->mesh_in_flight)
        return false;
    /* then the units: one runs a kernel through most cycles that reach here */
    for (unsigned i = 0; i < s->n_shells; i++)
        if (!ksim_shell_idle(s->shells[i]))
            return false;
    if (!ksim_orch_idle(s->orch))
        return false;
    for (unsigned i = 0; i < s->cfg.n_mem_ports; i++)
        if (!ksim_memport_idle(s->ports[i]))
            return false;
    return true;
}

/* How many of the next cycles would change nothing but countdowns and counters: the mesh
 * empty, the orchestrator quiet, every memory port, shell, AUX_CFG client and ticking region
 * idle or counting down. 0 when the next cycle does real work. */
static uint64_t quiet_cycles(ktsim *s)
{
    /* flits in the mesh first: the commonest reason a cycle is not quiet, and the cheapest test */
    if (*s->mesh_in_flight || !s->cfg.skip_quiet || s->rv64 || !ksim_orch_quiet(s->orch))
        return 0;
    uint64_t q = UINT64_MAX;
    for (unsigned i = 0; i < s->cfg.n_mem_ports && q; i++) {
        uint64_t k = ksim_memport_quiet(s->ports[i]);
        q = k < q ? k : q;
    }
    if (!q)
        return 0;
    s->ports_counting = q != UINT64_MAX; /* the skip that follows has ports to count down */
    /* the units before the AUX_CFG clients: a unit with a request out is the commoner 0 */
    for (unsigned i = 0; i < s->n_shells && q; i++) {
        uint64_t w = *s->shell_wake[i];
        uint64_t k = w ? ksim_shell_asleep_quiet(w, s->cycle) : ksim_shell_quiet(s->shells[i]);
        q = k < q ? k : q;
    }
    if (q) {
        uint64_t a = ksim_orch_aux_quiet(s->orch);
        q = a < q ? a : q;
    }
    for (unsigned i = 0; i < s->n_ticking && q; i++) {
        const bus_region *b = s->ticking[i];
        uint64_t k = b->quiet ? b->quiet(b->r.ctx) : 0;
        q = k < q ? k : q;
    }
    return q;
}

/* `cycles` quiet cycles at once, leaving every counter where ticking would have. */
static void skip_quiet(ktsim *s, uint64_t cycles)
{
    s->cycle += cycles;
    ksim_orch_skip(s->orch, s->cycle);
    for (unsigned i = 0; i < s->cfg.n_mem_ports && s->ports_counting; i++)
        ksim_memport_skip(s->ports[i], cycles, s->cycle);
    for (unsigned i = 0; i < s->n_shells; i++)
        if (!*s->shell_wake[i]) /* a sleeping one owes them instead */
            ksim_shell_skip(s->shells[i], cycles);
    ksim_orch_aux_skip(s->orch, cycles);
    for (unsigned i = 0; i < s->n_ticking; i++)
        if (s->ticking[i]->skip)
            s->ticking[i]->skip(s->ticking[i]->r.ctx, cycles);
    s->stalled = machine_idle(s) ? 0 : s->stalled + cycles;
}

/* ktsim_step, carrying a quiet count between calls. Quiet skips are mostly cut short by the
 * host's own accesses (a register read is two cycles, the read, then a cycle), and a skip leaves
 * every part where ticking would have, so the cycles a cut-short skip did not use are still
 * quiet as long as nothing outside the machine's own cycles has touched it: *carry holds them
 * (UINT64_MAX: until something happens), and a caller passes it to its next step only across
 * an access that changes nothing (a read of the control window or of DRAM). */
static void step_carry(ktsim *s, uint64_t cycles, uint64_t *carry)
{
    while (cycles) {
        /* Event-driven where the machine is quiet: an idle machine, or units counting down their
         * compute and read waits, changes nothing else until the first countdown ends. */
        uint64_t q = *carry ? *carry : quiet_cycles(s);
        *carry = 0;
        if (q) {
            uint64_t k = q < cycles ? q : cycles;
            skip_quiet(s, k);
            cycles -= k;
            if (!cycles)
                *carry = q == UINT64_MAX ? q : q - k;
            continue;
        }
        cycles--;
        s->cycle++;
        ksim_orch_tick_begin(s->orch, s->cycle);
        bool moved = ksim_mesh_tick(s->mesh, s->cycle);
        /* The complex before the clients: its stores are cfg pulses of this cycle, so a doorbell
         * the interlink counts in this cycle survives a clear the program stores in it. */
        if (s->rv64)
            ksim_rv64c_tick(s->rv64);
        ksim_orch_tick_aux(s->orch);
        for (unsigned i = 0; i < s->n_ticking; i++)
            s->ticking[i]->r.tick(s->ticking[i]->r.ctx);
        ksim_orch_tick_end(s->orch);
        if (s->traffic_rd != s->traffic_told_rd || s->traffic_wr != s->traffic_told_wr) {
            ksim_orch_set_traffic(s->orch, s->traffic_rd, s->traffic_wr);
            s->traffic_told_rd = s->traffic_rd;
            s->traffic_told_wr = s->traffic_wr;
        }
        if (moved || machine_idle(s))
            s->stalled = 0;
        else
            s->stalled++;
    }
}

void ktsim_step(ktsim *s, uint64_t cycles)
{
    uint64_t carry = 0;
    step_carry(s, cycles, &carry);
}

/* The ports add theirs as they issue (ksim_memport_count_into), the plugged masters here. */
void ktsim_mem_traffic(const ktsim *s, uint16_t *reads, uint16_t *writes)
{
    *reads = s->traffic_rd;
    *writes = s->traffic_wr;
}

void ktsim_count_mem_traffic(ktsim *s, unsigned reads, unsigned writes)
{
    s->traffic_rd = (uint16_t)(s->traffic_rd + reads);
    s->traffic_wr = (uint16_t)(s->traffic_wr + writes);
}

void ktsim_set_remote_flits(ktsim *s, bool (*take)(void *user, const kt_flit *f), void *user)
{
    for (unsigned i = 0; i < s->cfg.n_mem_ports; i++)
        ksim_memport_set_remote(s->ports[i], take, user);
}

/* Upstream's mag sends the interlink's injected flit out by the port on its destination's row
 * (port 0 when no port is on it), as it does the agent's. */
bool ktsim_inject_flit(ktsim *s, const kt_flit *f)
{
    unsigned port = ksim_port_for_row(s->cfg.mem_port, s->cfg.n_mem_ports, kt_header_get(f).dst.y);
    return ksim_memport_inject(s->ports[port], f);
}

void ktsim_reset(ktsim *s)
{
    ksim_orch_reset(s->orch);
    ksim_mesh_reset(s->mesh);
    for (unsigned i = 0; i < s->cfg.n_mem_ports; i++)
        ksim_memport_reset(s->ports[i]);
    for (unsigned i = 0; i < s->n_shells; i++)
        ksim_shell_reset(s->shells[i]);
    if (s->mover)
        ksim_mover_reset(s->mover);
    s->stalled = 0;
}

/* ---- host bus ---- */

static bus_region *find_region(ktsim *s, uint64_t addr, size_t len, uint64_t *off)
{
    for (unsigned i = 0; i < s->n_regions; i++) {
        bus_region *b = &s->regions[i];
        if (addr >= b->r.base && addr - b->r.base < b->r.size &&
            len <= b->r.size - (addr - b->r.base)) {
            *off = addr - b->r.base;
            return b;
        }
    }
    return NULL;
}

static npk_status no_slave(uint64_t addr, size_t len)
{
    return npk_fail(NPK_EFAULT,
                    "no slave answers at 0x%" PRIx64 "+%zu on the host bus (decode error)", addr,
                    len);
}

/* One beat into the orchestrator, then one cycle. A beat that only stores (the staging RAM, the
 * TX_FLIT words) changes no part's quiet count, so *carry (step_carry's) holds across it; and
 * while the machine is quiet nothing reads what such a beat writes (the dispatcher and the
 * mailbox read them only on a kick or a push, which end a quiet stretch), so a run of them is
 * written at once and their cycles skipped together afterwards: *owed counts them. */
static void ctrl_beat(ktsim *s, uint32_t off, uint64_t data, uint8_t strb, uint64_t *carry,
                      uint64_t *owed)
{
    if (*carry > *owed && ksim_orch_beat_stores(s->orch, off, strb)) {
        ksim_orch_write_beat(s->orch, off, data, strb);
        ++*owed;
        return;
    }
    step_carry(s, *owed, carry);
    *owed = 0;
    if (!ksim_orch_write_beat(s->orch, off, data, strb))
        *carry = 0;
    step_carry(s, 1, carry);
}

/* The station bus: `words` words starting at window offset `off`, packed into 32-byte flits of
 * four beats each, with strobes only on the words the host sent. */
static void ctrl_write_words(ktsim *s, uint32_t off, const uint8_t *bytes, size_t words,
                             uint64_t *carry)
{
    uint32_t first = off & ~(uint32_t)(KT_BUS_FLIT_BYTES - 1);
    uint32_t end = off + (uint32_t)words * 8;
    uint64_t owed = 0;
    if (!s->cfg.station_bus) { /* a direct AXI master: each word is its own strobed beat */
        for (uint32_t a = off; a < end; a += 8)
            ctrl_beat(s, a, kt_le64(bytes + (a - off)), 0xFF, carry, &owed);
        step_carry(s, owed, carry);
        return;
    }
    for (uint32_t flit = first; flit < end; flit += KT_BUS_FLIT_BYTES) {
        for (unsigned b = 0; b < 4; b++) {
            uint32_t a = flit + b * 8;
            if (a >= off && a < end) {
                uint64_t v = kt_le64(bytes + (a - off));
                s->lane[b] = v;
                ctrl_beat(s, a, v, 0xFF, carry, &owed);
            } else {
                /* The packer clears at the flit's first beat: unsent lanes carry zeros (or, in
                 * the variant some boards show, whatever the lane last held). */
                ctrl_beat(s, a, s->cfg.stale_lanes ? s->lane[b] : 0, 0x00, carry, &owed);
            }
        }
    }
    step_carry(s, owed, carry);
}

/* The host memory window moves 256-bit beats at the preset's rate (a beat a cycle by default). */
static uint64_t mem_window_cycles(const ktsim *s, size_t len)
{
    uint64_t beats = (len + 31) / 32;
    return (beats * s->cfg.host_mem_cycles_x4 + 3) / 4;
}

static npk_status sim_write(ktsim *s, uint64_t addr, const uint8_t *bytes, size_t len, bool block)
{
    uint64_t off;
    bus_region *b = find_region(s, addr, len, &off);
    if (!b)
        return no_slave(addr, len);
    uint64_t carry = 0; /* the beats that only store carry the quiet count over them */
    step_carry(s, s->cfg.host_access_cycles, &carry);
    switch (b->kind) {
    case R_CTRL: ctrl_write_words(s, (uint32_t)off, bytes, len / 8, &carry); return NPK_OK;
    case R_MEM: {
        npk_status st = ksim_dram_host_write(s->dram, off, bytes, len);
        ktsim_step(s, mem_window_cycles(s, len));
        return st;
    }
    case R_PLUGGED:
        for (size_t i = 0; i < len; i += 8) {
            npk_status st = b->r.write64 ? b->r.write64(b->r.ctx, off + i, kt_le64(bytes + i), 0xFF)
                                         : npk_fail(NPK_EFAULT, "%s: not writable", b->r.name);
            if (st)
                return st;
            ktsim_step(s, 1);
        }
        (void)block;
        return NPK_OK;
    }
    return no_slave(addr, len);
}

static npk_status sim_read(ktsim *s, uint64_t addr, uint8_t *bytes, size_t len)
{
    uint64_t off;
    bus_region *b = find_region(s, addr, len, &off);
    if (!b)
        return no_slave(addr, len);
    /* the control window's and DRAM's reads change nothing: the quiet count carries over them */
    uint64_t carry = 0;
    step_carry(s, s->cfg.host_access_cycles, &carry);
    switch (b->kind) {
    case R_CTRL:
        for (size_t i = 0; i < len; i += 8) {
            kt_put_le64(bytes + i, ksim_orch_read(s->orch, (uint32_t)(off + i)));
            step_carry(s, 1, &carry);
        }
        return NPK_OK;
    case R_MEM: {
        npk_status st = ksim_dram_read(s->dram, off, bytes, len);
        step_carry(s, mem_window_cycles(s, len), &carry);
        return st;
    }
    case R_PLUGGED:
        for (size_t i = 0; i < len; i += 8) {
            uint64_t v = 0;
            npk_status st = b->r.read64 ? b->r.read64(b->r.ctx, off + i, &v) : NPK_OK;
            if (st)
                return st;
            kt_put_le64(bytes + i, v);
            ktsim_step(s, 1);
        }
        return NPK_OK;
    }
    return no_slave(addr, len);
}

static npk_status t_read64(void *ctx, uint64_t addr, uint64_t *value)
{
    uint8_t b[8];
    npk_status st = sim_read(ctx, addr, b, 8);
    *value = kt_le64(b);
    return st;
}

static npk_status t_write64(void *ctx, uint64_t addr, uint64_t value)
{
    uint8_t b[8];
    kt_put_le64(b, value);
    return sim_write(ctx, addr, b, 8, false);
}

static npk_status t_read_block(void *ctx, uint64_t addr, void *buf, size_t len)
{
    return sim_read(ctx, addr, buf, len);
}
static npk_status t_write_block(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    return sim_write(ctx, addr, buf, len, true);
}

static const kt_transport_ops sim_ops = {t_read64, t_write64, t_read_block, t_write_block, NULL};

kt_transport *ktsim_transport(ktsim *s) { return &s->transport; }

npk_status ktsim_bus_write64(ktsim *s, uint64_t addr, uint64_t value)
{
    uint64_t off;
    bus_region *b = find_region(s, addr, 8, &off);
    if (!b || (addr & 7))
        return no_slave(addr, 8);
    switch (b->kind) {
    case R_CTRL: ksim_orch_write_beat(s->orch, (uint32_t)off, value, 0xFF); return NPK_OK;
    case R_MEM: {
        uint8_t bytes[8];
        kt_put_le64(bytes, value);
        return ksim_dram_host_write(s->dram, off, bytes, 8);
    }
    case R_PLUGGED: return b->r.write64 ? b->r.write64(b->r.ctx, off, value, 0xFF) : NPK_OK;
    }
    return no_slave(addr, 8);
}

npk_status ktsim_bus_read64(ktsim *s, uint64_t addr, uint64_t *value)
{
    uint64_t off;
    bus_region *b = find_region(s, addr, 8, &off);
    if (!b || (addr & 7))
        return no_slave(addr, 8);
    switch (b->kind) {
    case R_CTRL: *value = ksim_orch_read(s->orch, (uint32_t)off); return NPK_OK;
    case R_MEM: {
        uint8_t bytes[8];
        npk_status st = ksim_dram_read(s->dram, off, bytes, 8);
        *value = kt_le64(bytes);
        return st;
    }
    case R_PLUGGED: *value = 0; return b->r.read64 ? b->r.read64(b->r.ctx, off, value) : NPK_OK;
    }
    return no_slave(addr, 8);
}

static npk_status add_region(ktsim *s, region_kind kind, const ktsim_region *r)
{
    if (s->n_regions >= MAX_REGIONS)
        return npk_fail(NPK_ELIMIT, "bus region '%s': %u regions already (limit %u)", r->name,
                        s->n_regions, MAX_REGIONS);
    if (!r->size)
        return npk_fail(NPK_EINVAL, "bus region '%s' has size 0", r->name);
    for (unsigned i = 0; i < s->n_regions; i++) {
        const ktsim_region *o = &s->regions[i].r;
        if (r->base < o->base + o->size && o->base < r->base + r->size)
            return npk_fail(NPK_EINVAL,
                            "bus region '%s' 0x%" PRIx64 "+0x%" PRIx64 " overlaps '%s' 0x%" PRIx64
                            "+0x%" PRIx64,
                            r->name, r->base, r->size, o->name, o->base, o->size);
    }
    s->regions[s->n_regions] = (bus_region){kind, *r, NULL, NULL};
    if (r->tick)
        s->ticking[s->n_ticking++] = &s->regions[s->n_regions];
    s->n_regions++;
    return NPK_OK;
}

npk_status ktsim_add_region(ktsim *s, const ktsim_region *r) { return add_region(s, R_PLUGGED, r); }
npk_status ktsim_add_aux_client(ktsim *s, const ktsim_aux_client *c)
{
    return ksim_orch_add_aux(s->orch, c);
}

npk_status ktsim_set_quiet(ktsim *s, const char *name, uint64_t (*quiet)(void *ctx),
                           void (*skip)(void *ctx, uint64_t cycles))
{
    if (ksim_orch_set_aux_quiet(s->orch, name, quiet, skip))
        return NPK_OK;
    for (unsigned i = 0; i < s->n_regions; i++)
        if (s->regions[i].r.name && !strcmp(s->regions[i].r.name, name)) {
            s->regions[i].quiet = quiet;
            s->regions[i].skip = skip;
            return NPK_OK;
        }
    return npk_fail(NPK_EINVAL, "quiet hooks for '%s': no AUX_CFG client or region of that name",
                    name);
}

/* ---- the memory agent's mover: its AXI master reaches this mesh's DRAM ---- */

static ksim_mem_result agent_mover_read(void *ctx, uint64_t addr, uint8_t out[KT_MV_WORD])
{
    ktsim *s = ctx;
    kt_mesh_addr a = kt_mesh_addr_split(addr);
    /* A lone mesh serves no aperture (DECERR); never-written DRAM answers SLVERR: AXI faults. */
    if (a.aperture || ktsim_dram_read(s, a.local, out, KT_MV_WORD) != NPK_OK)
        return KSIM_MEM_ERROR;
    return KSIM_MEM_OK; /* the mover's own AXI master: not memory-port traffic (AUX_STAT 0/0) */
}

static ksim_mem_result agent_mover_write(void *ctx, uint64_t addr, const uint8_t in[KT_MV_WORD])
{
    ktsim *s = ctx;
    kt_mesh_addr a = kt_mesh_addr_split(addr);
    if (a.aperture || ktsim_dram_write(s, a.local, in, KT_MV_WORD) != NPK_OK)
        return KSIM_MEM_ERROR;
    return KSIM_MEM_OK;
}

static void agent_mover_cfg(void *ctx, uint8_t off, uint64_t v) { ksim_mover_cfg(ctx, off, v); }
static uint64_t agent_mover_stat(void *ctx) { return ksim_mover_stat(ctx); }
static void agent_mover_tick(void *ctx) { ksim_mover_tick(ctx); }
static uint64_t agent_mover_quiet(void *ctx) { return ksim_mover_quiet(ctx); }
static void agent_mover_skip(void *ctx, uint64_t cycles) { ksim_mover_skip(ctx, cycles); }

static npk_status add_agent_mover(ktsim *s)
{
    ksim_mover_mem mem = {agent_mover_read, agent_mover_write, NULL, s};
    if (!(s->mover = ksim_mover_create(&mem, sim_fault, s)))
        return npk_fail(NPK_ENOMEM, "simulator: out of memory (mover)");
    ksim_mover_set_trace(s->mover, ksim_trace_track(s->trace, "mover"));
    s->bank = ksim_mover_bank(s->mover);
    ktsim_aux_client c = {"mover",          0x00, KT_MV_AUX_LIMIT - 1, agent_mover_cfg,
                          agent_mover_stat, NULL, agent_mover_tick,    s->mover};
    npk_status st = ktsim_add_aux_client(s, &c);
    return st ? st : ktsim_set_quiet(s, "mover", agent_mover_quiet, agent_mover_skip);
}

/* ---- construction ---- */

/* (0,0) is the system node's own coordinate (control-registers §6, upstream sn_hub): a corner,
 * which touches no router, so whatever answers there is a client of the node's memory ports and
 * not a mesh endpoint (memport.h). With CPU_RV64 = 0 that is the RV32 control processor (a unit
 * of kind rv32), with CPU_RV64 = 1 the RV64 complex's mailbox; never both, nothing else. */
static const kt_coord processor_at = {0, 0};

static npk_status attach_hub_client(ktsim *s, const ksim_endpoint_ops *ops, void *ep)
{
    if (s->processor.ops)
        return npk_fail(NPK_EINVAL, "two endpoints at (0,0)");
    s->processor = (ksim_hub_client){ops, ep, s->cfg.mem_port, s->cfg.n_mem_ports};
    for (unsigned i = 0; i < s->cfg.n_mem_ports; i++)
        ksim_memport_set_processor(s->ports[i], &s->processor, i);
    return NPK_OK;
}

static npk_status check_config(const ktsim_config *c)
{
    if (c->flit_width != KT_FLIT_WIDTH || c->pos_width != KT_POS_WIDTH)
        return npk_fail(NPK_EUNSUPPORTED,
                        "flit %u bits / position %u bits: only the reference 288/4 is modelled",
                        c->flit_width, c->pos_width);
    if (c->grid_lo < 1 || c->grid_hi < c->grid_lo || c->grid_hi > 14)
        return npk_fail(NPK_EINVAL, "grid %u..%u: need 1 <= GRID_LO <= GRID_HI <= 14", c->grid_lo,
                        c->grid_hi);
    if (c->stage_flits < 1 || c->stage_flits > 204)
        return npk_fail(NPK_ELIMIT, "stage_flits=%u outside 1..204 (the 10-bit word pointer)",
                        c->stage_flits);
    if (!c->clock_mhz) /* simulated time (the trace's timeline) is cycles over the clock */
        return npk_fail(NPK_EINVAL, "clock_mhz=0 in preset '%s': the mesh clock needs 1..10000 MHz",
                        c->name);
    if (c->n_mem_ports < 1 || c->n_mem_ports > KTSIM_MAX_MEM_PORTS)
        return npk_fail(NPK_EINVAL, "%u memory ports, need 1..%u", c->n_mem_ports,
                        KTSIM_MAX_MEM_PORTS);
    const struct {
        const char *key;
        unsigned depth;
    } fifos[] = {{"tx_depth", c->tx_depth},
                 {"rx_depth", c->rx_depth},
                 {"router_fifo", c->router_fifo},
                 {"recv_depth", c->recv_depth},
                 {"mem_queue", c->mem_queue}};
    for (size_t i = 0; i < sizeof fifos / sizeof fifos[0]; i++)
        if (!fifos[i].depth)
            return npk_fail(NPK_EINVAL, "%s=0 in preset '%s': a FIFO holds at least 1 entry",
                            fifos[i].key, c->name);
    if (c->cpu_rv64 && !kt_coord_eq(c->rv64_at, processor_at))
        return npk_fail(NPK_EINVAL,
                        "rv64 at (%u,%u) in preset '%s': the RV64 complex is part of the system "
                        "node and sits at its coordinate, (0,0) (write 'rv64 0 0')",
                        c->rv64_at.x, c->rv64_at.y, c->name);
    for (unsigned i = 0; i < c->n_units; i++) {
        if (c->cpu_rv64 && kt_coord_eq(c->units[i].at, processor_at))
            return npk_fail(NPK_EINVAL,
                            "unit '%s' at (0,0) and the RV64 complex in preset '%s': (0,0) holds "
                            "one control complex, the RV32 processor or the RV64 complex "
                            "(CPU_RV64 picks which)",
                            c->units[i].kind, c->name);
        if (!ksim_unit_find(c->units[i].kind)) {
            char kinds[256];
            ksim_unit_kinds(kinds, sizeof kinds, false);
            return npk_fail(NPK_EINVAL, "unit at (%u,%u): unknown model '%s' (known: %s)",
                            c->units[i].at.x, c->units[i].at.y, c->units[i].kind, kinds);
        }
        if (c->units[i].inst_depth == 0)
            return npk_fail(NPK_EINVAL,
                            "unit at (%u,%u): inst_depth=0, at least 1 (credit is seeded from it)",
                            c->units[i].at.x, c->units[i].at.y);
    }
    return NPK_OK;
}

/* ---- the RV64 complex ---- */

static npk_status rv64_lw_read(void *ctx, uint64_t off, uint64_t *v)
{
    *v = ksim_rv64c_lw_read(ctx, (uint32_t)off);
    return NPK_OK;
}
static npk_status rv64_lw_write(void *ctx, uint64_t off, uint64_t v, uint8_t strobes)
{
    (void)strobes;
    ksim_rv64c_lw_write(ctx, (uint32_t)off, v);
    return NPK_OK;
}

/* The rest of the node as the complex's control region reaches it: the mover and the interlink
 * are whatever AUX_CFG clients this machine plugged (the agent's own mover, or a card's mover and
 * interlink), so the processor is a second writer on their cfg port. Each port is one address
 * and one data muxed between the two writers, so "wins" means the loser's pulse is gone whatever
 * register it addressed — as the scratchpad's one write port (§6.2: the winner "replaces both
 * the address and the data", the other store "lost silently") and the interlink (§7.4: the
 * processor loses and "can retry"). §7.3 gives the mover's collisions to the processor. */
static const struct rv64_window_row {
    uint8_t lo, hi; /* the client offsets the window's port serves */
    bool host_wins; /* who keeps a cycle both pulse */
} rv64_windows[] = {
    [RV64_W_MOVER] = {0x00, KT_MV_AUX_LIMIT - 1, false}, /* §7.3: a host write then is lost */
    [RV64_W_ILINK] = {KT_MV_AUX_LIMIT, 0xFF, true},      /* §7.4: the processor's is lost */
};

static void rv64_window_write(ktsim *s, rv64_window w, uint8_t reg, uint64_t v)
{
    const struct rv64_window_row *row = &rv64_windows[w];
    if (row->host_wins) {
        if (ksim_orch_host_pulsed(s->orch, row->lo, row->hi)) {
            s->rv64_lost[w]++;
            return;
        }
    } else if (ksim_orch_drop_host_pulse(s->orch, row->lo, row->hi)) {
        s->rv64_lost[w]++; /* held for this cycle (ksim_orch_hold_host_pulses), now discarded */
    }
    ksim_orch_aux_pulse(s->orch, reg, v);
}

static void rv64_mover_cfg(void *ctx, uint8_t reg, uint64_t v)
{
    rv64_window_write(ctx, RV64_W_MOVER, reg, v);
}

static void rv64_ilink_cfg(void *ctx, uint8_t reg, uint64_t v)
{
    rv64_window_write(ctx, RV64_W_ILINK, reg, v);
}

/* AUX_STAT's mover fields repacked as the control region's 0x20 word: {busy[32], fault[31:28],
 * moves completed[27:0]}. */
static uint64_t rv64_mover_status(void *ctx)
{
    kt_mv_status st = kt_mv_status_decode(ksim_orch_aux_stat(((ktsim *)ctx)->orch));
    return (st.busy ? KT_RV64_MOVER_BUSY : 0) |
           ((uint64_t)(st.fault & 0xf) << KT_RV64_MOVER_FAULT_SHIFT) |
           (st.moves_done & KT_RV64_MOVER_DONE_MASK);
}

/* db_status: the interlink's four inbound doorbell counts (AUX_STATW 2-5, received in [15:0]),
 * zero when no interlink is plugged. */
static uint64_t rv64_db_status(void *ctx)
{
    ktsim *s = ctx;
    uint64_t v = 0;
    for (unsigned m = 0; m < KT_IL_MAX_MESHES; m++)
        v |= (ksim_orch_aux_statw(s->orch, KT_IL_W_DOORBELL0 + m) & 0xffff) << (16 * m);
    return v;
}

static npk_status add_rv64(ktsim *s)
{
    const ktsim_config *cfg = &s->cfg;
    ksim_rv64_cfg rc;
    ksim_rv64_cfg_default(&rc);
    for (unsigned k = 0; k < KSIM_RV64_CLASS_COUNT; k++)
        if (cfg->rv64_cost[k])
            rc.costs.cycles[k] = cfg->rv64_cost[k];
    s->rv64 = calloc(1, sizeof *s->rv64);
    ksim_rv64_side side = {s, rv64_mover_cfg, rv64_mover_status, rv64_ilink_cfg, rv64_db_status};
    if (!s->rv64 || !ksim_rv64c_init(s->rv64, &rc, cfg->rv64_at, &side))
        return npk_fail(NPK_ENOMEM, "simulator: out of memory (RV64 complex)");
    /* The complex ticks with the clock from the moment it exists (its cycle counter runs while
     * the core is out of reset). */
    s->rv64->now = s->cycle;
    for (unsigned w = 0; w < RV64_W_COUNT; w++)
        if (!rv64_windows[w].host_wins)
            ksim_orch_hold_host_pulses(s->orch, rv64_windows[w].lo, rv64_windows[w].hi);
    /* Its mailbox is a live client of the node's hub at (0,0) (§6): it takes every flit for that
     * coordinate and keeps only CU_SIGNALs; its dispatches leave by a memory port. */
    npk_status st = attach_hub_client(s, &ksim_rv64c_endpoint, s->rv64);
    if (st)
        return st;
    ktsim_region lw = {"rv64 load window",
                       cfg->ctrl_base + KT_RV64_LOAD_WINDOW,
                       KT_RV64_LOAD_WINDOW_SIZE,
                       rv64_lw_read,
                       rv64_lw_write,
                       NULL, /* ticked by ktsim_step ahead of the AUX_CFG clients */
                       s->rv64};
    return add_region(s, R_PLUGGED, &lw);
}

/* ---- the RV32 control processor (CPU_RV64 = 0): a unit of kind rv32 ---- */

/* Its executor drives the mover's cfg port register by register (§3.1) — whichever mover this
 * machine plugged as an AUX_CFG client — and its node word reads the mover's status fields. */
static void rv32_mover_cfg(void *ctx, uint8_t off, uint64_t v)
{
    ksim_orch_aux_pulse(((ktsim *)ctx)->orch, off, v);
}
static uint64_t rv32_mover_stat(void *ctx) { return ksim_orch_aux_stat(((ktsim *)ctx)->orch); }

void ktsim_set_xform_bank(ktsim *s, ksim_xform_bank *b) { s->bank = b; }

/* The occupants' registers are the transform bank's (xform_bank.h); with no bank nothing answers
 * there. */
static bool rv32_occ_read(void *ctx, unsigned id, uint8_t reg, uint32_t *value)
{
    const ktsim *s = ctx;
    if (!s->bank)
        return false;
    *value = ksim_xform_bank_read(s->bank, id, reg);
    return true;
}
static bool rv32_occ_write(void *ctx, unsigned id, uint8_t reg, uint32_t value)
{
    ktsim *s = ctx;
    if (!s->bank)
        return false;
    ksim_xform_bank_write(s->bank, id, reg, value);
    return true;
}
static uint8_t rv32_occ_fault(void *ctx)
{
    const ktsim *s = ctx;
    return s->bank ? s->bank->fault : 0;
}

/* DRAM behind the processor's L1: this mesh's, at offset addr[30:0] (upstream's DRAM_BASE 0). */
static bool rv32_dram_read(void *ctx, uint64_t offset, uint8_t line[KSIM_RV32_L1_LINE])
{
    return ktsim_dram_read(ctx, offset, line, KSIM_RV32_L1_LINE) == NPK_OK;
}
static bool rv32_dram_write(void *ctx, uint64_t offset, const uint8_t line[KSIM_RV32_L1_LINE])
{
    return ktsim_dram_write(ctx, offset, line, KSIM_RV32_L1_LINE) == NPK_OK;
}

/* The machine's rv32 units get the rest of their node. */
static void wire_rv32(ktsim *s, ksim_shell *sh)
{
    if (ksim_shell_ops(sh) != &ksim_unit_rv32)
        return;
    ksim_rv32_side side = {s,
                           rv32_mover_cfg,
                           rv32_mover_stat,
                           rv32_occ_read,
                           rv32_occ_write,
                           rv32_occ_fault,
                           rv32_dram_read,
                           rv32_dram_write};
    ksim_rv32c_set_side(ksim_shell_unit(sh), &side);
}

ksim_rv32c *ktsim_rv32(ktsim *s, kt_coord at)
{
    for (unsigned i = 0; i < s->n_shells; i++)
        if (ksim_shell_ops(s->shells[i]) == &ksim_unit_rv32 &&
            kt_coord_eq(ksim_shell_coord(s->shells[i]), at))
            return ksim_shell_unit(s->shells[i]);
    return NULL;
}

struct ksim_rv64c *ktsim_rv64(ktsim *s) { return s->rv64; }
uint64_t ktsim_rv64_ilink_lost(const ktsim *s) { return s->rv64_lost[RV64_W_ILINK]; }
uint64_t ktsim_rv64_mover_host_lost(const ktsim *s) { return s->rv64_lost[RV64_W_MOVER]; }

static npk_status attach_processor(ktsim *s, ksim_shell *sh)
{
    if (ksim_shell_ops(sh) != &ksim_unit_rv32)
        return npk_fail(NPK_EINVAL,
                        "unit at (0,0) is of kind '%s': (0,0) is the system node's own coordinate, "
                        "where only the control processor (kind rv32) answers",
                        ksim_shell_ops(sh)->kind);
    return attach_hub_client(s, &ksim_shell_endpoint, sh);
}

npk_status ktsim_create(const ktsim_config *cfg, ktsim **out)
{
    *out = NULL;
    npk_status st = check_config(cfg);
    if (st)
        return st;
    ktsim *s = calloc(1, sizeof *s);
    if (!s)
        return npk_fail(NPK_ENOMEM, "simulator: out of memory");
    s->cfg = *cfg;
    char machine[KTSIM_NAME_MAX + 32];
    snprintf(machine, sizeof machine, "'%s' at 0x%" PRIx64, cfg->name, cfg->ctrl_base);
    s->trace = ksim_trace_open(machine, cfg->clock_mhz, &s->cycle);
    ksim_orch_params p = {cfg->flit_width,
                          cfg->pos_width,
                          cfg->grid_lo,
                          cfg->grid_hi,
                          (cfg->flit_width + 63) / 64,
                          cfg->stage_flits,
                          cfg->tx_depth + cfg->sync_fifo_extra,
                          cfg->rx_depth + cfg->sync_fifo_extra,
                          cfg->mem_port[0],
                          cfg->gen,
                          cfg->cdc_tx,
                          cfg->cdc_rx};
    s->orch = ksim_orch_create(&p, sim_fault, s);
    s->mesh = ksim_mesh_create(cfg->grid_lo, cfg->grid_hi, cfg->router_fifo + cfg->sync_fifo_extra);
    s->dram = ksim_dram_create(cfg->dram_size);
    if (!s->orch || !s->mesh || !s->dram) {
        ktsim_destroy(s);
        return npk_fail(NPK_ENOMEM, "simulator: out of memory building '%s'", cfg->name);
    }
    s->mesh_in_flight = ksim_mesh_in_flight_count(s->mesh);
    for (unsigned i = 0; i < cfg->n_mem_ports; i++) {
        s->ports[i] = ksim_memport_create(cfg->mem_port[i], cfg->mem_queue, s->dram,
                                          i == 0 ? s->orch : NULL, sim_fault, s);
        if (!s->ports[i]) {
            ktsim_destroy(s);
            return npk_fail(NPK_ENOMEM, "simulator: out of memory (memory port %u)", i);
        }
        ksim_memport_count_into(s->ports[i], &s->traffic_rd, &s->traffic_wr);
        if (i)
            ksim_memport_share_agent(s->ports[i], s->orch);
        if ((st = ksim_mesh_attach(s->mesh, cfg->mem_port[i], &ksim_memport_endpoint,
                                   s->ports[i]))) {
            ktsim_destroy(s);
            return st;
        }
        /* event-driven, as the units below: the port sleeps while idle (skip_quiet 0, the
         * reference, ticks it every cycle) */
        if (cfg->skip_quiet) {
            uint64_t *wake = ksim_memport_sleep_on(s->ports[i], &s->cycle);
            ksim_mesh_set_wake(s->mesh, cfg->mem_port[i], wake);
            if (i == 0)
                ksim_orch_set_out_wake(s->orch, wake);
        }
    }
    for (unsigned i = 0; i < cfg->n_units; i++) {
        ktsim_unit_cfg u = cfg->units[i];
        const ksim_unit_ops *ops = ksim_unit_find(u.kind);
        const ktsim_unit_timing *t = ktsim_timing_find(cfg, u.kind);
        /* the configuration's row, or the type's defaults (a type registered after the
         * configuration was made) */
        memset(&u.timing, 0, sizeof u.timing);
        snprintf(u.timing.kind, sizeof u.timing.kind, "%s", u.kind);
        for (unsigned k = 0; k < ksim_unit_keys(ops->timing); k++)
            u.timing.value[k] = t ? t->value[k] : ops->timing[k].def;
        ksim_unit_settings_defaults(&u, ops);
        u.cdc = cfg->cdc_unit;
        ksim_shell *sh =
            ksim_shell_create(&u, ops, cfg->mem_port[0], cfg->recv_depth, cfg->sync_fifo_extra);
        if (!sh) {
            ktsim_destroy(s);
            return npk_fail(NPK_ENOMEM, "simulator: out of memory (unit %u)", i);
        }
        ksim_shell_set_model_fault(sh, sim_fault, s);
        if (s->trace) {
            char track[64];
            snprintf(track, sizeof track, "CU (%u,%u) %s", u.at.x, u.at.y, u.kind);
            ksim_shell_set_trace(sh, ksim_trace_track(s->trace, track));
        }
        s->shell_wake[s->n_shells] = ksim_shell_wake_at(sh);
        s->shells[s->n_shells++] = sh;
        wire_rv32(s, sh);
        if ((st = kt_coord_eq(u.at, processor_at) ? attach_processor(s, sh)
                                                   : ksim_mesh_attach(s->mesh, u.at,
                                                                      &ksim_shell_endpoint, sh))) {
            ktsim_destroy(s);
            return st;
        }
        /* event-driven: the shell sleeps through its quiet ticks on the machine's clock
         * (skip_quiet 0, the reference, ticks it every cycle) */
        if (cfg->skip_quiet) {
            ksim_shell_set_clock(sh, &s->cycle);
            ksim_mesh_set_wake(s->mesh, u.at, ksim_shell_wake_at(sh));
        }
    }
    if (cfg->mover && (st = add_agent_mover(s))) {
        ktsim_destroy(s);
        return st;
    }
    /* With the RV64 complex the node's control window holds its load window at +0x8000, so the
     * orchestrator window ends there. */
    ktsim_region ctrl = {"orchestrator",
                         cfg->ctrl_base,
                         cfg->cpu_rv64 ? KT_RV64_LOAD_WINDOW : KT_WINDOW_BYTES,
                         NULL,
                         NULL,
                         NULL,
                         NULL};
    ktsim_region mem = {"memory", cfg->mem_base, cfg->dram_size, NULL, NULL, NULL, NULL};
    if ((st = add_region(s, R_CTRL, &ctrl)) || (st = add_region(s, R_MEM, &mem)) ||
        (cfg->cpu_rv64 && (st = add_rv64(s)))) {
        ktsim_destroy(s);
        return st;
    }
    kt_transport_init(&s->transport, "ktsim", &sim_ops, s);
    s->transport.bulk = true;
    ktsim_trace_transport(s, &s->transport);
    *out = s;
    return NPK_OK;
}

void ktsim_destroy(ktsim *s)
{
    if (!s)
        return;
    ksim_mover_destroy(s->mover);
    if (s->rv64) {
        ksim_rv64c_free(s->rv64);
        free(s->rv64);
    }
    for (unsigned i = 0; i < s->n_shells; i++)
        ksim_shell_destroy(s->shells[i]);
    for (unsigned i = 0; i < KTSIM_MAX_MEM_PORTS; i++)
        ksim_memport_destroy(s->ports[i]);
    ksim_mesh_destroy(s->mesh);
    ksim_orch_destroy(s->orch);
    ksim_dram_destroy(s->dram);
    free(s->trace);
    free(s);
}

const ksim_trace *ktsim_trace_of(const ktsim *s) { return s->trace; }

static uint64_t transport_clock(const void *s) { return ktsim_cycle(s); }

void ktsim_trace_transport(const ktsim *s, kt_transport *t)
{
    if (!s->trace)
        return;
    t->clock = transport_clock;
    t->clock_ctx = s;
    t->clock_mhz = s->trace->clock_mhz;
    t->trace_pid = s->trace->pid;
}

npk_status ktsim_dram_write(ktsim *s, uint64_t offset, const void *buf, size_t len)
{
    return ksim_dram_write(s->dram, offset, buf, len);
}

npk_status ktsim_dram_read(ktsim *s, uint64_t offset, void *buf, size_t len)
{
    return ksim_dram_read(s->dram, offset, buf, len);
}

void ktsim_poke_node_status(ktsim *s, kt_coord at, uint64_t value)
{
    ksim_orch_poke_node_status(s->orch, kt_coord_pack(at), value);
}

npk_status ktsim_poke_unit_counters(ktsim *s, kt_coord at, uint32_t retired, uint32_t busy_cycles)
{
    for (unsigned i = 0; i < s->n_shells; i++)
        if (kt_coord_eq(ksim_shell_coord(s->shells[i]), at)) {
            ksim_shell_poke_counters(s->shells[i], retired, busy_cycles);
            return NPK_OK;
        }
    return npk_fail(NPK_ENODEV, "no unit at (%u,%u)", at.x, at.y);
}
