/* SPDX-License-Identifier: MIT */
/* The memory mover model: register decode, the IDLE checks in the RTL's order, then a walk of
 * 32-byte transfers paced by the mode's timing row (mover_timing.c), and a drain before busy
 * drops (a move ends only after every write's response). See mover.h for what is live and what
 * is latched. */
#include "mover.h"

#include "kt/hw/mxfp.h"
#include "out_of_line.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    MAX_OUT = 4, /* OUT_WORDS is at most 4: the bank presents four word outputs */
    MAX_IN = 16,
};

typedef enum phase { P_IDLE, P_INDEX, P_WALK, P_DRAIN } phase;

struct ksim_mover {
    ksim_mover_mem mem;
    ksim_fault_sink model; /* what the model cannot represent */

    /* registers */
    uint8_t mode, ewidth, flags;
    kt_mv_walker walker[2];
    unsigned last_sel;
    kt_mv_dim staged; /* DIM stages count and stride; AXIS commits */
    unsigned staged_dim;
    uint64_t index_base;
    uint16_t index_count;
    uint64_t seed;
    uint32_t imm;
    uint32_t gather_pitch;
    uint16_t gather_words;

    /* the running move (registers sampled at GO) */
    phase ph;
    uint8_t run_mode, run_ewidth;
    uint32_t run_imm;
    uint64_t run_seed, run_index_base;
    uint16_t run_index_count, run_gather_words;
    uint32_t run_gather_pitch;
    uint32_t idx_src[KT_MV_MAX_DIMS], idx_dst[KT_MV_MAX_DIMS];
    uint64_t element; /* destination elements done (gather row/word from it) */
    uint32_t indices[KT_MV_MAX_INDICES];
    unsigned index_words_read;
    ksim_xform_bank bank; /* the transform slot's occupants and their registers */
    const ksim_occupant *occ;
    const kt_mv_slot *slot; /* the occupant's geometry */
    unsigned beats_in, words_out;
    uint8_t in_buf[MAX_IN * KT_MV_WORD], out_buf[MAX_OUT * KT_MV_WORD];
    unsigned drain;
    const ksim_mover_timing *tm; /* the running mode's row */
    uint64_t timed_words;        /* words paid for so far in this move */
    uint32_t stream_frac;        /* the streaming rate's fraction of a cycle carried */
    int64_t flags_delta;         /* cycles the CTRL flags add to the row over the whole move */
    uint64_t flags_words;        /* the words it is spread over */
    int64_t flags_saving;        /* cycles of a negative difference still to take */
    uint64_t flags_k;            /* words charged so far */
    uint64_t wait;               /* ticks left before the next step (the row's costs) */
    bool ok_so_far;

    /* status */
    uint32_t moves_done;
    uint8_t fault;
    uint64_t reads, writes;

    ksim_track trace; /* tr NULL: not traced */
    uint64_t go_at, go_reads, go_writes;
};

/* ---- life cycle ---- */

void ksim_mover_reset(ksim_mover *m)
{
    ksim_mover_mem mem = m->mem;
    ksim_fault_sink model = m->model;
    memset(m, 0, sizeof *m);
    m->mem = mem;
    m->model = model;
    /* Reset values (facts §1.10): width 16-bit, one gather word, walkers of one dimension. */
    m->ewidth = KT_MV_W16;
    m->gather_words = 1;
    m->walker[0].ndim = m->walker[1].ndim = 1;
}

ksim_mover *ksim_mover_create(const ksim_mover_mem *mem, ksim_fault_fn fault, void *user)
{
    ksim_mover *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    if (mem)
        m->mem = *mem;
    m->model = (ksim_fault_sink){fault, user};
    ksim_mover_reset(m);
    return m;
}

void ksim_mover_destroy(ksim_mover *m) { free(m); }
void ksim_mover_set_mem(ksim_mover *m, const ksim_mover_mem *mem) { m->mem = *mem; }
bool ksim_mover_busy(const ksim_mover *m) { return m->ph != P_IDLE; }
uint64_t ksim_mover_quiet(const ksim_mover *m) { return m->ph == P_IDLE ? UINT64_MAX : m->wait; }
/* As `cycles` ticks would: an idle mover's count is left alone (a start sets it afresh). */
void ksim_mover_skip(ksim_mover *m, uint64_t cycles)
{
    if (m->ph != P_IDLE)
        m->wait = cycles < m->wait ? m->wait - cycles : 0;
}

/* A step that moved data costs `cycles` (this tick included). */
static void spend(ksim_mover *m, uint32_t cycles) { m->wait += cycles ? cycles - 1 : 0; }

/* What one more word costs: the row's per-word cost, or past stream_after words its streaming
 * rate, whole cycles with the fraction carried to the next word. */
static uint32_t row_word_cost(ksim_mover *m)
{
    const ksim_mover_timing *t = m->tm;
    if (!t->stream_den || m->timed_words++ < t->stream_after)
        return t->word;
    m->stream_frac += t->stream_num;
    uint32_t c = m->stream_frac / t->stream_den;
    m->stream_frac %= t->stream_den;
    return c;
}

static int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

/* The row's cost adjusted by the flags' difference: a cost spread evenly over the words (the
 * steps of floor(k * delta / n)); a saving taken from the first words, each down to one cycle
 * (the row's words past a read burst already stream at about one). */
static uint32_t word_cost(ksim_mover *m)
{
    uint64_t k = m->flags_k++;
    int64_t c = row_word_cost(m);
    if (m->flags_delta > 0 && k < m->flags_words) {
        int64_t n = (int64_t)m->flags_words;
        c += floor_div((int64_t)(k + 1) * m->flags_delta, n) -
             floor_div((int64_t)k * m->flags_delta, n);
    } else if (m->flags_saving && c > 1) {
        int64_t take = c - 1 < m->flags_saving ? c - 1 : m->flags_saving;
        c -= take;
        m->flags_saving -= take;
    }
    return (uint32_t)c;
}

/* The contiguous run a walker's innermost dimension makes, in words (1 where it strides). */
static unsigned walker_run(const kt_mv_walker *w)
{
    const kt_mv_dim *d = &w->dims[w->ndim ? w->ndim - 1 : 0];
    return d->stride == KT_MV_WORD ? (d->count ? d->count : 1) : 1;
}

ksim_xform_bank *ksim_mover_bank(ksim_mover *m) { return &m->bank; }

uint64_t ksim_mover_stat(const ksim_mover *m)
{
    /* The traffic counters are the memory agent's: the orchestrator fills them in. */
    kt_mv_status st = {m->moves_done, 0, 0, m->fault, m->ph != P_IDLE};
    return kt_mv_status_encode(&st);
}

void ksim_mover_traffic(const ksim_mover *m, uint64_t *reads, uint64_t *writes)
{
    *reads = m->reads;
    *writes = m->writes;
}

void ksim_mover_walker(const ksim_mover *m, unsigned sel, kt_mv_walker *out)
{
    *out = m->walker[sel & 1];
}

/* ---- GO and the IDLE checks ---- */

static bool walker_binds_axis(const kt_mv_walker *w)
{
    return w->window[0].extent || w->window[1].extent;
}

static void finish(ksim_mover *m, uint8_t fault)
{
    /* A fault stops the walk; what was issued still drains before busy drops. */
    if (fault)
        m->fault = fault;
    m->ok_so_far = !fault && m->ok_so_far;
    m->ph = P_DRAIN;
    m->drain = m->tm && m->tm->drain ? m->tm->drain : 1;
}

static void go(ksim_mover *m)
{
    if (m->ph != P_IDLE)
        return;   /* GO is sampled only in IDLE */
    m->fault = 0; /* a fault is cleared at the next GO */
    /* The RTL's order of checks. */
    if (m->ewidth == KT_MV_W_INVALID) {
        m->fault = KT_MV_F_EWIDTH;
        return;
    }
    if (m->mode == KT_MV_TRANSPOSE || m->mode > KT_MV_XFORM) {
        m->fault = KT_MV_F_MODE;
        return;
    }
    if (m->mode == KT_MV_GATHER_MODE && m->index_count > KT_MV_MAX_INDICES) {
        m->fault = KT_MV_F_IDXLEN;
        return;
    }
    if (m->mode == KT_MV_XFORM &&
        (walker_binds_axis(&m->walker[0]) || walker_binds_axis(&m->walker[1]))) {
        m->fault = KT_MV_F_XFORM_AXIS;
        return;
    }
    m->run_mode = m->mode;
    m->run_ewidth = m->ewidth;
    m->run_imm = m->imm;
    m->run_seed = m->seed;
    m->run_index_base = m->index_base;
    m->run_index_count = m->index_count;
    m->run_gather_pitch = m->gather_pitch;
    m->run_gather_words = m->gather_words ? m->gather_words : 1;
    memset(m->idx_src, 0, sizeof m->idx_src);
    memset(m->idx_dst, 0, sizeof m->idx_dst);
    m->element = 0;
    m->index_words_read = 0;
    m->beats_in = m->words_out = 0;
    m->ok_so_far = true;
    m->occ = NULL;
    m->tm = ksim_mover_timing_row(m->mode); /* every mode past the checks has a row */
    m->wait = m->tm ? m->tm->setup : 0;
    m->timed_words = 0;
    m->stream_frac = 0;
    /* CTRL's flags change the bursts (mover_timing.c): spread their cost over the walk. */
    m->flags_words = kt_mv_walker_elements(&m->walker[1]);
    m->flags_delta = ksim_mover_flags_delta(m->mode, m->flags, m->flags_words,
                                            walker_run(&m->walker[0]), walker_run(&m->walker[1]));
    m->flags_saving = m->flags_delta < 0 ? -m->flags_delta : 0;
    m->flags_k = 0;
    if (m->mode == KT_MV_XFORM)
        ksim_xform_bank_start(&m->bank, m->walker[0].xform_id, &m->occ, &m->slot);
    m->ph = m->mode == KT_MV_GATHER_MODE ? P_INDEX : P_WALK;
}

/* ---- register decode: the fields come from the mover's register table ---- */

void ksim_mover_set_trace(ksim_mover *m, ksim_track t) { m->trace = t; }

/* A GO: the start of a move, or a move refused at once (an instant naming the fault). */
static void trace_go(ksim_mover *m)
{
    m->go_at = ksim_track_now(m->trace);
    m->go_reads = m->reads;
    m->go_writes = m->writes;
    if (m->ph == P_IDLE && m->fault) {
        npk_trace_arg a[] = {NPK_TRACE_S("mode", kt_mv_mode_name(m->mode)),
                             NPK_TRACE_S("fault", kt_mv_fault_name(m->fault))};
        ksim_trace_instant(m->trace, "move refused", m->go_at, a, 2);
    }
}

/* The move ends (busy drops): its span, with what it transferred. */
static void trace_end(const ksim_mover *m)
{
    npk_trace_arg a[] = {NPK_TRACE_S("mode", kt_mv_mode_name(m->run_mode)),
                         NPK_TRACE_U("words_read", m->reads - m->go_reads),
                         NPK_TRACE_U("words_written", m->writes - m->go_writes),
                         NPK_TRACE_S("fault", kt_mv_fault_name(m->fault))};
    ksim_trace_span(m->trace, "move", m->go_at, ksim_track_now(m->trace), a, 4);
}

void ksim_mover_cfg(ksim_mover *m, uint8_t offset, uint64_t v)
{
    kt_mv_word w;
    if (!kt_mv_word_decode(offset, v, &w))
        return; /* 0x08, 0x48, 0x58-0x78 decode to nothing */
    switch (offset & ~7u) {
    case KT_MV_CTRL:
        m->mode = w.ctrl.mode;
        m->ewidth = w.ctrl.width;
        m->flags = w.ctrl.flags;
        if (w.ctrl.go) {
            /* a GO while a move runs is ignored (go() samples it only in IDLE): the running
             * move's span keeps its start and counts */
            const bool idle = m->ph == P_IDLE;
            go(m);
            if (idle && m->trace.tr)
                trace_go(m);
        }
        break;
    case KT_MV_HDR: {
        kt_mv_walker *wk = &m->walker[w.hdr.sel];
        wk->base = w.hdr.base;
        wk->ndim = w.hdr.ndim;
        if (w.hdr.sel == 0) {
            wk->xform_id = w.hdr.xform_id;
            wk->xform_mode = w.hdr.xform_mode;
        }
        m->last_sel = w.hdr.sel;
        break;
    }
    case KT_MV_DIM:
        m->last_sel = w.dim.sel;
        m->staged_dim = w.dim.dim;
        m->staged.count = w.dim.count;
        m->staged.stride = w.dim.stride;
        break;
    case KT_MV_AXIS:
        if (m->staged_dim < KT_MV_MAX_DIMS) {
            kt_mv_dim *d = &m->walker[m->last_sel].dims[m->staged_dim];
            d->count = m->staged.count;
            d->stride = m->staged.stride;
            d->axis = w.axis.axis;
            d->astep = w.axis.astep;
        }
        break;
    case KT_MV_WINDOW:
        m->last_sel = w.window.sel;
        m->walker[w.window.sel].window[w.window.axis] =
            (kt_mv_window){w.window.base, w.window.extent};
        break;
    case KT_MV_INDEX:
        m->index_base = w.index.base;
        m->index_count = w.index.count;
        break;
    case KT_MV_SEED: m->seed = w.seed.seed; break;
    case KT_MV_IMM: m->imm = w.imm.imm; break;
    case KT_MV_GATHER:
        m->gather_pitch = w.gather.pitch;
        m->gather_words = w.gather.words;
        break;
    default: break;
    }
}

/* ---- the walk ---- */

static ksim_mem_result mem_read(ksim_mover *m, int64_t addr, uint8_t *out, uint8_t *fault)
{
    if (!kt_mv_addr_in_range(addr)) {
        *fault = KT_MV_F_RANGE;
        return KSIM_MEM_ERROR;
    }
    ksim_mem_result r = m->mem.read ? m->mem.read(m->mem.ctx, (uint64_t)addr, out) : KSIM_MEM_ERROR;
    if (r == KSIM_MEM_OK)
        m->reads++;
    if (r == KSIM_MEM_ERROR)
        *fault = KT_MV_F_AXI;
    return r;
}

static ksim_mem_result mem_write(ksim_mover *m, int64_t addr, const uint8_t *in, uint8_t *fault)
{
    if (!kt_mv_addr_in_range(addr)) {
        *fault = KT_MV_F_RANGE;
        return KSIM_MEM_ERROR;
    }
    if (addr % KT_MV_WORD) { /* checked per destination element */
        *fault = KT_MV_F_ALIGN;
        return KSIM_MEM_ERROR;
    }
    ksim_mem_result r =
        m->mem.write ? m->mem.write(m->mem.ctx, (uint64_t)addr, in) : KSIM_MEM_ERROR;
    if (r == KSIM_MEM_OK)
        m->writes++;
    if (r == KSIM_MEM_ERROR)
        *fault = KT_MV_F_AXI;
    return r;
}

static void step_index_fetch(ksim_mover *m)
{
    unsigned words = (m->run_index_count + 7) / 8; /* eight 32-bit indices per word */
    if (m->index_words_read < words) {
        uint8_t buf[KT_MV_WORD], fault = 0;
        ksim_mem_result r = mem_read(
            m, (int64_t)(m->run_index_base + m->index_words_read * KT_MV_WORD), buf, &fault);
        if (r == KSIM_MEM_RETRY)
            return;
        if (r == KSIM_MEM_ERROR) {
            finish(m, fault);
            return;
        }
        for (unsigned i = 0; i < 8; i++) {
            unsigned k = m->index_words_read * 8 + i;
            if (k < KT_MV_MAX_INDICES)
                m->indices[k] = (uint32_t)buf[4 * i] | (uint32_t)buf[4 * i + 1] << 8 |
                                (uint32_t)buf[4 * i + 2] << 16 | (uint32_t)buf[4 * i + 3] << 24;
        }
        m->index_words_read++;
        spend(m, m->tm->index_word);
        if (m->index_words_read == words)
            m->ph = P_WALK; /* the walk starts once the last index word's cost is spent */
        return;
    }
    m->ph = P_WALK; /* no index to fetch */
}

/* The source word of the current element: read, pattern, or padding. */
static ksim_mem_result source_word(ksim_mover *m, uint8_t *word, uint8_t *fault)
{
    switch (m->run_mode) {
    case KT_MV_FILL: kt_mv_fill_word(m->run_ewidth, m->run_imm, word); return KSIM_MEM_OK;
    case KT_MV_GENERATE: return KSIM_MEM_OK; /* built from the destination address by the caller */
    case KT_MV_GATHER_MODE: {
        uint64_t row = m->element / m->run_gather_words, w = m->element % m->run_gather_words;
        if (row >= m->run_index_count) {
            ksim_report(&m->model, "mover: gather destination walks past %u indices x %u words",
                        m->run_index_count, m->run_gather_words);
            *fault = 0;
            return KSIM_MEM_ERROR;
        }
        int64_t a = (int64_t)m->walker[0].base + (int64_t)m->indices[row] * m->run_gather_pitch +
                    (int64_t)w * KT_MV_WORD;
        return mem_read(m, a, word, fault);
    }
    default: { /* copy: the source odometer steps in lockstep; an invalid element is padding */
        kt_mv_point p = kt_mv_walker_point(&m->walker[0], m->idx_src);
        if (!p.valid) {
            kt_mv_fill_word(m->run_ewidth, m->run_imm, word);
            return KSIM_MEM_OK;
        }
        return mem_read(m, p.addr, word, fault);
    }
    }
}

static void step_element(ksim_mover *m)
{
    uint8_t word[KT_MV_WORD], fault = 0;
    kt_mv_point d = kt_mv_walker_point(&m->walker[1], m->idx_dst);
    if (d.valid) {
        ksim_mem_result r = source_word(m, word, &fault);
        if (r == KSIM_MEM_RETRY)
            return;
        if (r == KSIM_MEM_ERROR) {
            finish(m, fault);
            if (!fault)
                m->ok_so_far = false;
            return;
        }
        if (m->run_mode == KT_MV_GENERATE && kt_mv_addr_in_range(d.addr))
            kt_mv_generate_word(m->run_seed, (uint64_t)d.addr, word);
        r = mem_write(m, d.addr, word, &fault);
        if (r == KSIM_MEM_RETRY)
            return; /* the source is re-fetched next cycle: harmless in a model with no side effects
                     */
        if (r == KSIM_MEM_ERROR) {
            finish(m, fault);
            return;
        }
        bool row_start = m->run_mode == KT_MV_GATHER_MODE && m->element % m->run_gather_words == 0;
        spend(m, word_cost(m) + (row_start ? m->tm->row : 0));
    }
    /* An invalid destination element is still walked (in one cycle): its write is suppressed. */
    m->element++;
    kt_mv_walker_next(&m->walker[0], m->idx_src);
    if (!kt_mv_walker_next(&m->walker[1], m->idx_dst))
        finish(m, 0);
}

/* Transform: the source defines the iteration space; IN beats feed one entry, whose OUT words
 * land at consecutive words from the destination element's address. */
static void step_xform(ksim_mover *m)
{
    const ksim_occupant *o = m->occ;
    const kt_mv_slot *slot = m->slot;
    uint8_t fault = 0;
    if (m->beats_in < slot->in_beats) {
        kt_mv_point p = kt_mv_walker_point(&m->walker[0], m->idx_src);
        ksim_mem_result r = mem_read(m, p.addr, m->in_buf + m->beats_in * KT_MV_WORD, &fault);
        if (r == KSIM_MEM_RETRY)
            return;
        if (r == KSIM_MEM_ERROR) {
            finish(m, fault);
            return;
        }
        m->beats_in++;
        spend(m, word_cost(m));
        bool more = kt_mv_walker_next(&m->walker[0], m->idx_src);
        if (!more && m->beats_in < slot->in_beats) {
            ksim_report(&m->model,
                        "mover: transform source ends %u beats into an entry of %u (the occupant "
                        "would wait "
                        "forever)",
                        m->beats_in, slot->in_beats);
            finish(m, 0);
            m->ok_so_far = false;
            return;
        }
        if (m->beats_in == slot->in_beats)
            o->convert(m->walker[0].xform_mode, m->in_buf, m->out_buf);
        return;
    }
    kt_mv_point d = kt_mv_walker_point(&m->walker[1], m->idx_dst);
    ksim_mem_result r = mem_write(m, d.addr + (int64_t)m->words_out * KT_MV_WORD,
                                  m->out_buf + m->words_out * KT_MV_WORD, &fault);
    if (r == KSIM_MEM_RETRY)
        return;
    if (r == KSIM_MEM_ERROR) {
        finish(m, fault);
        return;
    }
    spend(m, word_cost(m));
    if (++m->words_out < slot->out_words)
        return;
    m->words_out = m->beats_in = 0;
    bool src_more =
        m->idx_src[0] || m->idx_src[1] || m->idx_src[2] || m->idx_src[3] || m->idx_src[4] ||
        m->idx_src[5]; /* the source odometer wrapped to zero = the last entry is done */
    kt_mv_walker_next(&m->walker[1], m->idx_dst);
    if (!src_more)
        finish(m, 0);
}

/* A busy mover's cycle, out of ksim_mover_tick: an idle one (the commonest) returns at once. */
static KSIM_OUT_OF_LINE void tick_busy(ksim_mover *m)
{
    if (m->wait) {
        m->wait--;
        return;
    }
    switch (m->ph) {
    case P_IDLE: return;
    case P_INDEX: step_index_fetch(m); return;
    case P_WALK:
        if (m->run_mode == KT_MV_XFORM)
            step_xform(m);
        else
            step_element(m);
        return;
    case P_DRAIN:
        if (m->drain && --m->drain)
            return;
        if (m->mem.drained && !m->mem.drained(m->mem.ctx))
            return;
        m->ph = P_IDLE;
        if (m->ok_so_far && !m->fault)
            m->moves_done = (m->moves_done + 1) & 0xFFFFFF; /* only a fault-free move counts */
        if (m->trace.tr)
            trace_end(m);
        return;
    }
}

void ksim_mover_tick(ksim_mover *m)
{
    if (m->ph != P_IDLE)
        tick_busy(m);
}
