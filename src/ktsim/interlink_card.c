/* SPDX-License-Identifier: MIT */
/* A simulated card: meshes, movers, interlink, staging apertures and the engine, wired behind
 * one transport. The glue here decides where each mover access goes — local DRAM, the local
 * staging aperture, or (a write naming another mesh) the interlink — and keeps the meshes'
 * clocks together after every host access. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "interlink.h"
#include "mover.h"
#include "kt/hw/kt_interlink_hw.h"
#include "npukit/kt_regs.h"
#include "ktsim_card.h"

enum {
    MAX_MESHES = KSIM_ILINK_MAX_MESHES,
    STAGE_BYTES = KT_BOARD_STAGE_BYTES, /* the board's staging aperture (kt_board.h) */
    ENGINE_WINDOW = 0x10000,
    MAX_ROUTES = 4 * MAX_MESHES + 1,
};

typedef struct ktsim_card ktsim_card;

typedef struct mesh_ctx {
    ktsim_card *card;
    unsigned pos;
    ktsim *sim;
    ksim_mover *mover;
    uint8_t *stage; /* the staging store, allocated on first touch */
    uint64_t ctrl_base, mem_base, stage_base;
} mesh_ctx;

typedef struct route {
    uint64_t base, size;
    unsigned mesh;
} route;

struct ktsim_card {
    ktsim_config cfg;
    ktsim_card_opts opts;
    unsigned n;
    mesh_ctx mesh[MAX_MESHES];
    ksim_ilink *ilink;
    ksim_engine *engine;
    route routes[MAX_ROUTES];
    unsigned n_routes;
    kt_transport transport;
    char fault[320];
    bool has_fault;
};

static void card_fault(void *user, const char *msg)
{
    mesh_ctx *m = user;
    ktsim_card *c = m->card;
    if (!c->has_fault) {
        snprintf(c->fault, sizeof c->fault, "mesh %u, cycle %" PRIu64 ": %s", m->pos,
                 ktsim_cycle(m->sim), msg);
        c->has_fault = true;
    }
}

/* ---- the staging aperture ---- */

static uint8_t *stage_of(mesh_ctx *m)
{
    if (!m->stage)
        m->stage = calloc(1, STAGE_BYTES);
    return m->stage;
}

/* Offset in the staging store of an aperture address's local part, or -1 when it names another
 * aperture (index 0 is staging, the only one served) or lies beyond the store. */
static int64_t stage_offset(uint64_t local)
{
    kt_aperture_addr ap;
    kt_word_decode(&kt_word_aperture_offset, local, &ap);
    if (ap.index != 0)
        return -1;
    return ap.offset + (uint64_t)KT_MV_WORD <= STAGE_BYTES ? (int64_t)ap.offset : -1;
}

/* ---- the mover's memory ---- */

static unsigned local_id(const mesh_ctx *m)
{
    return m->card->ilink ? ksim_ilink_mesh_id(m->card->ilink, m->pos) : m->pos;
}

static ksim_mem_result local_read(mesh_ctx *m, uint64_t addr, uint8_t *out)
{
    kt_mesh_addr a = kt_mesh_addr_split(addr);
    if (a.aperture) {
        int64_t off = stage_offset(a.local);
        uint8_t *st = stage_of(m);
        if (off < 0 || !st)
            return KSIM_MEM_ERROR; /* DECERR: no such aperture */
        memcpy(out, st + off, KT_MV_WORD);
        return KSIM_MEM_OK;
    }
    /* Never-written DRAM answers SLVERR (uninitialised ECC), beyond it DECERR: both AXI faults. */
    return ktsim_dram_read(m->sim, a.local, out, KT_MV_WORD) == NPK_OK ? KSIM_MEM_OK
                                                                       : KSIM_MEM_ERROR;
}

static ksim_mem_result local_write(mesh_ctx *m, uint64_t addr, const uint8_t *in)
{
    kt_mesh_addr a = kt_mesh_addr_split(addr);
    if (a.aperture) {
        int64_t off = stage_offset(a.local);
        uint8_t *st = stage_of(m);
        if (off < 0 || !st)
            return KSIM_MEM_ERROR;
        memcpy(st + off, in, KT_MV_WORD);
        return KSIM_MEM_OK;
    }
    return ktsim_dram_write(m->sim, a.local, in, KT_MV_WORD) == NPK_OK ? KSIM_MEM_OK
                                                                       : KSIM_MEM_ERROR;
}

static ksim_mem_result mover_read(void *ctx, uint64_t addr, uint8_t out[KT_MV_WORD])
{
    mesh_ctx *m = ctx;
    /* Reads never cross: a read naming another mesh aliases to local memory, and says so. */
    if (m->card->ilink && kt_il_addr_mesh(addr) != local_id(m))
        ksim_ilink_raise(m->card->ilink, m->pos, KT_IL_F_RD_REMOTE);
    /* The mover has its own AXI master: AUX_STAT's traffic counters (the memory ports') do not
     * see it (measured on the RTL: 0/0 after a copy). */
    return local_read(m, addr, out);
}

static ksim_mem_result mover_write(void *ctx, uint64_t addr, const uint8_t in[KT_MV_WORD])
{
    mesh_ctx *m = ctx;
    if (m->card->ilink && kt_il_addr_mesh(addr) != local_id(m))
        return ksim_ilink_remote_write(m->card->ilink, m->pos, addr, in) ? KSIM_MEM_OK
                                                                         : KSIM_MEM_RETRY;
    ksim_mem_result r = local_write(m, addr, in);
    if (r == KSIM_MEM_ERROR && m->card->ilink)
        ksim_ilink_raise(m->card->ilink, m->pos, KT_IL_F_AXI);
    return r;
}

static bool mover_drained(void *ctx)
{
    mesh_ctx *m = ctx;
    return !m->card->ilink || ksim_ilink_writes_drained(m->card->ilink, m->pos);
}

/* A write arriving over the link, already placed by the top address bit. */
static bool ilink_land(void *user, unsigned pos, uint64_t where, const uint8_t data[KT_MV_WORD])
{
    ktsim_card *c = user;
    /* Counted as before the mover's traffic left the counters: no RTL figure says otherwise. */
    ktsim_count_mem_traffic(c->mesh[pos].sim, 0, 1);
    return local_write(&c->mesh[pos], where, data) == KSIM_MEM_OK;
}

/* A flit the mesh marked for another one, at any memory port: to the interlink's queue. */
static bool ilink_take_flit(void *user, const kt_flit *f)
{
    mesh_ctx *m = user;
    return ksim_ilink_remote_flit(m->card->ilink, m->pos, f);
}

/* A flit from another mesh, readdressed: into this mesh by the memory port on its row. */
static bool ilink_inject(void *user, unsigned pos, const kt_flit *f)
{
    ktsim_card *c = user;
    return ktsim_inject_flit(c->mesh[pos].sim, f);
}

/* ---- AUX_CFG clients ---- */

static void mv_cfg(void *ctx, uint8_t off, uint64_t v)
{
    ksim_mover_cfg(((mesh_ctx *)ctx)->mover, off, v);
}
static uint64_t mv_stat(void *ctx) { return ksim_mover_stat(((mesh_ctx *)ctx)->mover); }
static void mv_tick(void *ctx) { ksim_mover_tick(((mesh_ctx *)ctx)->mover); }
static uint64_t mv_quiet(void *ctx) { return ksim_mover_quiet(((mesh_ctx *)ctx)->mover); }
static void mv_skip(void *ctx, uint64_t cycles)
{
    ksim_mover_skip(((mesh_ctx *)ctx)->mover, cycles);
}

static void il_cfg(void *ctx, uint8_t off, uint64_t v)
{
    mesh_ctx *m = ctx;
    ksim_ilink_cfg(m->card->ilink, m->pos, off, v);
}
static uint64_t il_statw(void *ctx, unsigned index)
{
    mesh_ctx *m = ctx;
    return ksim_ilink_statw(m->card->ilink, m->pos, index);
}
static void il_tick(void *ctx)
{
    mesh_ctx *m = ctx;
    ksim_ilink_tick(m->card->ilink, m->pos, ktsim_cycle(m->sim));
}

/* ---- host-bus regions: staging aperture and engine ---- */

static npk_status stage_r(void *ctx, uint64_t off, uint64_t *v)
{
    uint8_t *st = stage_of(ctx);
    if (!st)
        return npk_fail(NPK_ENOMEM, "staging store: out of memory");
    *v = kt_le64(st + off);
    return NPK_OK;
}

static npk_status stage_w(void *ctx, uint64_t off, uint64_t v, uint8_t strobes)
{
    uint8_t *st = stage_of(ctx);
    if (!st)
        return npk_fail(NPK_ENOMEM, "staging store: out of memory");
    for (unsigned b = 0; b < 8; b++) /* the bank memory is byte-enabled */
        if (strobes >> b & 1)
            st[off + b] = (uint8_t)(v >> (8 * b));
    return NPK_OK;
}

static npk_status eng_r(void *ctx, uint64_t off, uint64_t *v)
{
    *v = ksim_engine_read(ctx, (uint32_t)off);
    return NPK_OK;
}
static npk_status eng_w(void *ctx, uint64_t off, uint64_t v, uint8_t strobes)
{
    (void)strobes; /* the engine ignores wstrb */
    ksim_engine_write(ctx, (uint32_t)off, v);
    return NPK_OK;
}
static void eng_tick(void *ctx) { ksim_engine_tick(ctx); }
static uint64_t eng_quiet(void *ctx) { return ksim_engine_quiet(ctx); }
static void eng_skip(void *ctx, uint64_t cycles) { ksim_engine_skip(ctx, cycles); }

/* ---- routing and clocks ---- */

static int route_of(const ktsim_card *c, uint64_t addr, size_t len)
{
    for (unsigned i = 0; i < c->n_routes; i++) {
        const route *r = &c->routes[i];
        if (addr >= r->base && addr - r->base < r->size && len <= r->size - (addr - r->base))
            return (int)r->mesh;
    }
    return -1;
}

static void add_route(ktsim_card *c, uint64_t base, uint64_t size, unsigned mesh)
{
    if (c->n_routes < MAX_ROUTES)
        c->routes[c->n_routes++] = (route){base, size, mesh};
}

/* Bring every mesh up to the latest clock among them. */
static void sync_clocks(ktsim_card *c)
{
    uint64_t now = 0;
    for (unsigned i = 0; i < c->n; i++)
        if (ktsim_cycle(c->mesh[i].sim) > now)
            now = ktsim_cycle(c->mesh[i].sim);
    for (unsigned i = 0; i < c->n; i++)
        if (ktsim_cycle(c->mesh[i].sim) < now)
            ktsim_step(c->mesh[i].sim, now - ktsim_cycle(c->mesh[i].sim));
}

/* The mesh whose host bus decodes addr..addr+len, or NULL after failing with a decode error. */
static ktsim *decode(ktsim_card *c, uint64_t addr, size_t len)
{
    int m = route_of(c, addr, len);
    if (m >= 0)
        return c->mesh[m].sim;
    npk_fail(NPK_EFAULT,
             "no slave answers at 0x%" PRIx64 "+%zu on the card's host bus (decode error)", addr,
             len);
    return NULL;
}

/* A host access ran on one mesh's clock: bring the others level, then hand back its status. */
static npk_status synced(ktsim_card *c, npk_status s)
{
    sync_clocks(c);
    return s;
}

/* The engine's AXI master: one beat straight to the slave that decodes the address. */
static npk_status eng_bus_read(void *ctx, uint64_t addr, uint64_t *v)
{
    ktsim *m = decode(ctx, addr, 8);
    return m ? ktsim_bus_read64(m, addr, v) : NPK_EFAULT;
}
static npk_status eng_bus_write(void *ctx, uint64_t addr, uint64_t v)
{
    ktsim *m = decode(ctx, addr, 8);
    return m ? ktsim_bus_write64(m, addr, v) : NPK_EFAULT;
}

/* The card's host transport: each access goes to the mesh that decodes it. */
static npk_status t_read64(void *ctx, uint64_t addr, uint64_t *v)
{
    ktsim *m = decode(ctx, addr, 8);
    return m ? synced(ctx, kt_read64(ktsim_transport(m), addr, v)) : NPK_EFAULT;
}
static npk_status t_write64(void *ctx, uint64_t addr, uint64_t v)
{
    ktsim *m = decode(ctx, addr, 8);
    return m ? synced(ctx, kt_write64(ktsim_transport(m), addr, v)) : NPK_EFAULT;
}
static npk_status t_read_block(void *ctx, uint64_t addr, void *buf, size_t len)
{
    ktsim *m = decode(ctx, addr, len);
    return m ? synced(ctx, kt_read_block(ktsim_transport(m), addr, buf, len)) : NPK_EFAULT;
}
static npk_status t_write_block(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    ktsim *m = decode(ctx, addr, len);
    return m ? synced(ctx, kt_write_block(ktsim_transport(m), addr, buf, len)) : NPK_EFAULT;
}

static const kt_transport_ops card_ops = {t_read64, t_write64, t_read_block, t_write_block, NULL};

/* ---- construction ---- */

npk_status ktsim_card_create(const ktsim_config *cfg, const ktsim_card_opts *opts, ktsim_card **out)
{
    *out = NULL;
    ktsim_card_opts o = opts ? *opts : (ktsim_card_opts){0};
    if (!o.meshes)
        o.meshes = 1;
    if (o.meshes > MAX_MESHES)
        return npk_fail(NPK_ELIMIT, "%u meshes on one card: the interlink joins at most %u",
                        o.meshes, MAX_MESHES);
    if (o.meshes > 1)
        o.interlink = true;
    ktsim_card *c = calloc(1, sizeof *c);
    if (!c)
        return npk_fail(NPK_ENOMEM, "card: out of memory");
    c->cfg = *cfg;
    c->opts = o;
    c->n = o.meshes;
    npk_status s = NPK_OK;
    if (o.interlink) {
        ksim_ilink_params p;
        ksim_ilink_params_default(&p, o.meshes);
        if (o.link_latency)
            p.latency = o.link_latency;
        if (o.link_beat_cycles)
            p.beat_cycles = o.link_beat_cycles;
        if (!(c->ilink = ksim_ilink_create(&p, ilink_land, c))) {
            ktsim_card_destroy(c);
            return npk_fail(NPK_ENOMEM, "card: out of memory (interlink)");
        }
        ksim_ilink_set_inject(c->ilink, ilink_inject);
    }
    kt_board board;
    ktsim_config_board(cfg, &board);
    for (unsigned i = 0; i < c->n && !s; i++) {
        mesh_ctx *m = &c->mesh[i];
        m->card = c;
        m->pos = i;
        ktsim_config mc = *cfg;
        mc.mover = false; /* the card plugs its own, which also reaches the staging aperture and the
                             link */
        /* Each mesh where the board's map puts it (kt_board.h). */
        m->ctrl_base = mc.ctrl_base = kt_board_ctrl_base(&board, i);
        m->mem_base = mc.mem_base = kt_board_mem_base(&board, i);
        m->stage_base = kt_board_stage_base(&board, i);
        if ((s = ktsim_create(&mc, &m->sim)))
            break;
        ksim_mover_mem mem = {mover_read, mover_write, mover_drained, m};
        if (!(m->mover = ksim_mover_create(&mem, card_fault, m))) {
            s = npk_fail(NPK_ENOMEM, "card: out of memory (mover)");
            break;
        }
        ksim_mover_set_trace(m->mover, ksim_trace_track(ktsim_trace_of(m->sim), "mover"));
        ktsim_set_xform_bank(m->sim, ksim_mover_bank(m->mover));
        /* With no interlink the split is a constant and the mover sees every AUX_CFG write. */
        ktsim_aux_client mv = {
            "mover", 0x00, (uint8_t)(c->ilink ? 0x7F : 0xFF), mv_cfg, mv_stat, NULL, mv_tick, m};
        if ((s = ktsim_add_aux_client(m->sim, &mv)) ||
            (s = ktsim_set_quiet(m->sim, "mover", mv_quiet, mv_skip)))
            break;
        if (c->ilink) {
            ktsim_aux_client il = {"interlink", 0x80, 0xFF, il_cfg, NULL, il_statw, il_tick, m};
            if ((s = ktsim_add_aux_client(m->sim, &il)))
                break;
            ktsim_set_remote_flits(m->sim, ilink_take_flit, m);
        }
        ktsim_region st = {
            "staging aperture", m->stage_base, STAGE_BYTES, stage_r, stage_w, NULL, m};
        if ((s = ktsim_add_region(m->sim, &st)))
            break;
        add_route(c, m->ctrl_base, KT_WINDOW_BYTES, i);
        add_route(c, m->mem_base, cfg->dram_size, i);
        add_route(c, m->stage_base, STAGE_BYTES, i);
    }
    if (!s && o.engine) {
        ksim_engine_bus bus = {eng_bus_read, eng_bus_write, c};
        if (!(c->engine = ksim_engine_create(
                  &bus, o.engine_poll_ivl ? o.engine_poll_ivl : KSIM_ENGINE_POLL_IVL, 32))) {
            s = npk_fail(NPK_ENOMEM, "card: out of memory (engine)");
        } else {
            ktsim_region er = {"host control-program engine",
                               cfg->engine_base,
                               ENGINE_WINDOW,
                               eng_r,
                               eng_w,
                               eng_tick,
                               c->engine};
            ksim_engine_set_trace(c->engine,
                                  ksim_trace_track(ktsim_trace_of(c->mesh[0].sim), "engine"));
            s = ktsim_add_region(c->mesh[0].sim, &er);
            if (!s)
                s = ktsim_set_quiet(c->mesh[0].sim, er.name, eng_quiet, eng_skip);
            add_route(c, cfg->engine_base, ENGINE_WINDOW, 0);
        }
    }
    if (s) {
        ktsim_card_destroy(c);
        return s;
    }
    kt_transport_init(&c->transport, "ktsim-card", &card_ops, c);
    c->transport.bulk = true;
    ktsim_trace_transport(c->mesh[0].sim, &c->transport);
    *out = c;
    return NPK_OK;
}

npk_status ktsim_card_open_preset(const char *preset, bool prestrobe, const ktsim_card_opts *opts,
                                  ktsim_card **out)
{
    ktsim_config cfg;
    npk_status s = ktsim_preset_load(preset ? preset : "default", &cfg);
    if (s)
        return s;
    if (prestrobe)
        cfg.gen = KTSIM_GEN_PRESTROBE;
    return ktsim_card_create(&cfg, opts, out);
}

void ktsim_card_destroy(ktsim_card *c)
{
    if (!c)
        return;
    for (unsigned i = 0; i < MAX_MESHES; i++) {
        ktsim_destroy(c->mesh[i].sim);
        ksim_mover_destroy(c->mesh[i].mover);
        free(c->mesh[i].stage);
    }
    ksim_ilink_destroy(c->ilink);
    ksim_engine_destroy(c->engine);
    free(c);
}

kt_transport *ktsim_card_transport(ktsim_card *c) { return &c->transport; }
unsigned ktsim_card_meshes(const ktsim_card *c) { return c->n; }
ktsim *ktsim_card_mesh(ktsim_card *c, unsigned m) { return m < c->n ? c->mesh[m].sim : NULL; }
uint64_t ktsim_card_ctrl_base(const ktsim_card *c, unsigned m)
{
    return c->mesh[m % MAX_MESHES].ctrl_base;
}
uint64_t ktsim_card_mem_base(const ktsim_card *c, unsigned m)
{
    return c->mesh[m % MAX_MESHES].mem_base;
}
uint64_t ktsim_card_stage_base(const ktsim_card *c, unsigned m)
{
    return c->mesh[m % MAX_MESHES].stage_base;
}
uint64_t ktsim_card_engine_base(const ktsim_card *c) { return c->cfg.engine_base; }
bool ktsim_card_has_engine(const ktsim_card *c) { return c->engine != NULL; }
bool ktsim_card_has_interlink(const ktsim_card *c) { return c->ilink != NULL; }
uint64_t ktsim_card_cycle(const ktsim_card *c) { return ktsim_cycle(c->mesh[0].sim); }

void ktsim_card_step(ktsim_card *c, uint64_t cycles)
{
    if (c->n == 1) {
        ktsim_step(c->mesh[0].sim, cycles);
        return;
    }
    /* Lockstep, so a beat sent by one mesh is seen by the next when its clock gets there. */
    while (cycles--)
        for (unsigned i = 0; i < c->n; i++)
            ktsim_step(c->mesh[i].sim, 1);
}

const char *ktsim_card_fault(const ktsim_card *c)
{
    if (c->has_fault)
        return c->fault;
    for (unsigned i = 0; i < c->n; i++)
        if (ktsim_fault(c->mesh[i].sim))
            return ktsim_fault(c->mesh[i].sim);
    return NULL;
}

npk_status ktsim_card_stage_read(ktsim_card *c, unsigned m, uint64_t off, void *buf, size_t len)
{
    if (m >= c->n || off > STAGE_BYTES || len > STAGE_BYTES - off)
        return npk_fail(NPK_EINVAL,
                        "staging read mesh %u 0x%" PRIx64 "+%zu: outside %u meshes x %u bytes", m,
                        off, len, c->n, STAGE_BYTES);
    uint8_t *st = stage_of(&c->mesh[m]);
    if (!st)
        return npk_fail(NPK_ENOMEM, "staging store: out of memory");
    memcpy(buf, st + off, len);
    return NPK_OK;
}

void ktsim_card_mover_traffic(const ktsim_card *c, unsigned m, uint64_t *reads, uint64_t *writes)
{
    ksim_mover_traffic(c->mesh[m % MAX_MESHES].mover, reads, writes);
}

uint64_t ktsim_card_db_status(const ktsim_card *c, unsigned m)
{
    return c->ilink && m < c->n ? ksim_ilink_db_status(c->ilink, m) : 0;
}
