/* SPDX-License-Identifier: MIT */
/* The RV32 control processor's boot over the mesh (npukit/kt_rv32.h): the CU_DATA bursts and the
 * kick as flits, sent from the host through the mailbox or run as host control programs. */
#include "npukit/kt_rv32.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kt/hw/kt_rv32.h"
#include "kt/hw/rv32_regs.h"
#include "npukit/kt_regs.h"

enum { GRANULE_WORDS = 8, BURST_GRANULES = 256, BURST_WORDS = BURST_GRANULES * GRANULE_WORDS };

size_t kt_rv32_write_flits_needed(size_t n)
{
    size_t bursts = (n + BURST_WORDS - 1) / BURST_WORDS;
    return bursts + (n + GRANULE_WORDS - 1) / GRANULE_WORDS;
}

/* One burst: its header flit, then a granule a flit. */
static npk_status burst_flits(const kt_dev *d, kt_coord at, unsigned buf, uint32_t granule,
                              const uint32_t *words, size_t n, kt_flit *out)
{
    size_t granules = (n + GRANULE_WORDS - 1) / GRANULE_WORDS;
    kt_cu_data cd = {(uint8_t)buf, (uint16_t)granule, (uint8_t)(granules - 1), 0, {0, 0}};
    /* from the driver's reply coordinate, as its CU_CTRL requests are: a completion or a
     * DATA_RECEIVED addressed there reaches the orchestrator, never the processor at (0,0) */
    kt_header h = {at, d->opt.reply_to, KT_T_CU_DATA, 0, granules == 0, 0};
    memset(out, 0, sizeof *out);
    npk_status st;
    if ((st = kt_cu_data_put(out, &cd)) || (st = kt_header_put(out, &h)))
        return st;
    for (size_t g = 0; g < granules; g++) {
        kt_flit *f = &out[1 + g];
        memset(f, 0, sizeof *f);
        for (unsigned i = 0; i < GRANULE_WORDS; i++) {
            size_t k = g * GRANULE_WORDS + i;
            uint64_t w = k < n ? words[k] : 0;
            f->w[i / 2] |= w << (32 * (i % 2));
        }
        h.last = g + 1 == granules;
        if ((st = kt_header_put(f, &h)))
            return st;
    }
    return NPK_OK;
}

npk_status kt_rv32_write_flits(const kt_dev *d, kt_coord at, unsigned buf, uint32_t word,
                               const uint32_t *words, size_t n, uint32_t window_words,
                               kt_flit *out, size_t max, size_t *n_out)
{
    *n_out = 0;
    if (buf != KT_RV32_BUF_IMEM && buf != KT_RV32_BUF_SPAD)
        return npk_fail(NPK_EINVAL, "RV32 window buf_id %u: 0 (scratchpad) or 1 (instructions)",
                        buf);
    if (word % GRANULE_WORDS)
        return npk_fail(NPK_EINVAL, "RV32 window write at word %" PRIu32
                                    ": must start on a 32-byte granule (a multiple of 8 words)",
                        word);
    if ((uint64_t)word + n > window_words)
        return npk_fail(NPK_ELIMIT,
                        "RV32 %s write of %zu words at word %" PRIu32 " ends past the window's %" PRIu32
                        " words",
                        buf == KT_RV32_BUF_IMEM ? "instruction" : "scratchpad", n, word,
                        window_words);
    if (kt_rv32_write_flits_needed(n) > max)
        return npk_fail(NPK_ELIMIT, "RV32 window write of %zu words takes %zu flits, room for %zu",
                        n, kt_rv32_write_flits_needed(n), max);
    for (size_t done = 0; done < n; done += BURST_WORDS) {
        size_t k = n - done < BURST_WORDS ? n - done : BURST_WORDS;
        npk_status st = burst_flits(d, at, buf, (uint32_t)((word + done) / GRANULE_WORDS),
                                    words + done, k, out + *n_out);
        if (st)
            return st;
        *n_out += 1 + (k + GRANULE_WORDS - 1) / GRANULE_WORDS;
    }
    return NPK_OK;
}

npk_status kt_rv32_write(kt_dev *d, kt_coord at, unsigned buf, uint32_t word,
                         const uint32_t *words, size_t n, uint32_t window_words)
{
    size_t max = kt_rv32_write_flits_needed(n), got = 0;
    kt_flit *f = calloc(max ? max : 1, sizeof *f);
    if (!f)
        return npk_fail(NPK_ENOMEM, "RV32 window write: out of memory");
    npk_status st = kt_rv32_write_flits(d, at, buf, word, words, n, window_words, f, max, &got);
    for (size_t i = 0; i < got && !st; i++)
        st = kt_mailbox_send(d, &f[i]);
    free(f);
    return st;
}

npk_status kt_rv32_kick(const kt_dev *d, kt_coord at, uint32_t pc, uint32_t arg, kt_flit *f)
{
    npk_status st = kt_rv32_kick_inst(f, pc, arg, 0);
    if (st)
        return st;
    kt_header h = kt_header_get(f);
    h.dst = at;
    h.src = d->opt.reply_to; /* the completion returns to the kick's source */
    return kt_header_put(f, &h);
}

/* The completion in NODE_STATUS: the halt word, and INST_COMPLETE or FAULT. */
static npk_status completion(kt_coord at, kt_node_status ns, kt_rv32_result *res)
{
    res->halt_word = ns.arg;
    res->faulted = ns.code == KT_SIG_FAULT;
    if (ns.code != KT_SIG_FAULT && ns.code != KT_SIG_INST_COMPLETE)
        return npk_fail(NPK_EPROTO,
                        "the RV32 processor at (%u,%u) completed with signal code 0x%02x (%s), "
                        "not INST_COMPLETE or FAULT: no halt word",
                        at.x, at.y, ns.code, kt_signal_name(ns.code));
    return NPK_OK;
}

static npk_status status_count(kt_dev *d, kt_coord at, uint16_t *count)
{
    uint64_t v = 0;
    npk_status st = kt_reg_read(d, kt_node_status_offset(at), &v);
    *count = kt_node_status_decode(v).count;
    return st;
}

npk_status kt_rv32_run(kt_dev *d, kt_coord at, uint32_t pc, uint32_t arg, uint32_t max_polls,
                       kt_rv32_result *res)
{
    memset(res, 0, sizeof *res);
    uint16_t baseline;
    kt_flit f;
    npk_status st;
    if ((st = status_count(d, at, &baseline)) || (st = kt_rv32_kick(d, at, pc, arg, &f)) ||
        (st = kt_mailbox_send(d, &f)))
        return st;
    for (res->polls = 1; res->polls <= max_polls; res->polls++) {
        uint64_t v;
        if ((st = kt_reg_read(d, kt_node_status_offset(at), &v)))
            return st;
        kt_node_status ns = kt_node_status_decode(v);
        if (ns.count != baseline)
            return completion(at, ns, res);
    }
    return npk_fail(NPK_ETIMEDOUT,
                    "the RV32 processor at (%u,%u) sent no completion within %" PRIu32
                    " NODE_STATUS reads (still running, or not an rv32 unit)",
                    at.x, at.y, max_polls);
}

npk_status kt_hp_mailbox_send(kt_hostprog *p, const kt_dev *d, const kt_flit *f)
{
    uint64_t b = d->base;
    uint64_t words[KT_FLIT_WORDS];
    kt_flit_to_words(f, words);
    npk_status st;
    if ((st = kt_hp_poll(p, b + KT_PROG_STAT, 0,
                         kt_word_mask(&kt_word_prog_stat, KT_PROG_STAT_F_RUN), "PROG_STAT.run")) ||
        (st = kt_hp_poll(p, b + KT_TX_STATUS, 0,
                         kt_word_mask(&kt_word_tx_status, KT_TX_STATUS_F_FULL),
                         "TX_STATUS.tx_full")))
        return st;
    for (unsigned w = 0; w < d->flit_words && !st; w++)
        st = kt_hp_wr(p, b + KT_TX_FLIT + 8u * w, words[w], "TX_FLIT");
    return st ? st : kt_hp_wr(p, b + KT_TX_KICK, 1, "TX_KICK");
}

enum { BOOT_DONE_CODE = 0x5256 /* 'RV': every boot program ends with it */ };

/* The engine form: the flits in programs of KT_RV32_ENGINE_FLITS; the last ends with a POLL of
 * the unit's NODE_STATUS for count baseline + 1. */
static npk_status run_engine(kt_dev *d, kt_engine *e, kt_coord at, const kt_flit *f, size_t n,
                             uint32_t max_polls, kt_rv32_result *res)
{
    uint16_t baseline;
    npk_status st = status_count(d, at, &baseline);
    kt_hostprog hp;
    kt_hp_init(&hp);
    for (size_t first = 0; first < n && !st; first += KT_RV32_ENGINE_FLITS) {
        size_t last = first + KT_RV32_ENGINE_FLITS < n ? first + KT_RV32_ENGINE_FLITS : n;
        kt_hp_free(&hp);
        for (size_t i = first; i < last && !st; i++)
            st = kt_hp_mailbox_send(&hp, d, &f[i]);
        if (!st && last == n) {
            const kt_word_layout *L = &kt_word_node_status;
            uint16_t want = (uint16_t)(baseline + 1);
            st = kt_hp_poll(&hp, d->base + kt_node_status_offset(at),
                            kt_word_bits(L, KT_NODE_STATUS_F_COUNT, want),
                            kt_word_mask(L, KT_NODE_STATUS_F_COUNT), "NODE_STATUS.count");
        }
        kt_hp_opts ho = {.poll_budget = max_polls};
        kt_hp_result r;
        if (!st && !(st = kt_hp_done(&hp, BOOT_DONE_CODE)) &&
            !(st = kt_engine_run(e, &hp, 0, &ho, &r))) {
            res->programs++;
            res->polls += r.waits;
        }
    }
    kt_hp_free(&hp);
    uint64_t v = 0;
    if (st || (st = kt_reg_read(d, kt_node_status_offset(at), &v)))
        return st;
    return completion(at, kt_node_status_decode(v), res);
}

npk_status kt_rv32_boot_run(kt_dev *d, const kt_rv32_boot_opts *o, kt_coord at,
                            const kt_rv32_image *img, uint32_t pc, uint32_t arg,
                            kt_rv32_result *res)
{
    memset(res, 0, sizeof *res);
    uint32_t max_polls = o && o->max_polls ? o->max_polls : 100000;
    kt_engine eng, *e = NULL;
    if (o && o->engine) {
        kt_engine_init(&eng, d->t, o->engine_base, d);
        e = &eng;
    }
    size_t max = kt_rv32_write_flits_needed(img->text_words) +
                 kt_rv32_write_flits_needed(img->data_words) + 1;
    kt_flit *f = calloc(max, sizeof *f);
    if (!f)
        return npk_fail(NPK_ENOMEM, "RV32 boot: out of memory");
    size_t nt = 0, nd = 0;
    npk_status st = kt_rv32_write_flits(d, at, KT_RV32_BUF_IMEM, 0, img->text, img->text_words,
                                        KT_RV32_IMEM_WORDS, f, max, &nt);
    if (!st && img->data_words)
        st = kt_rv32_write_flits(d, at, KT_RV32_BUF_SPAD, 0, img->data, img->data_words,
                                 KT_RV32_SPAD_WORDS, f + nt, max - nt, &nd);
    if (!st && e)
        st = kt_rv32_kick(d, at, pc, arg, &f[nt + nd]);
    if (!st && e)
        st = run_engine(d, e, at, f, nt + nd + 1, max_polls, res);
    for (size_t i = 0; !st && !e && i < nt + nd; i++)
        st = kt_mailbox_send(d, &f[i]);
    if (!st && !e)
        st = kt_rv32_run(d, at, pc, arg, max_polls, res);
    free(f);
    return st;
}
