/* SPDX-License-Identifier: MIT */
/* Opening the orchestrator window, register access, and the raw-flit mailbox. */
#include <inttypes.h>
#include <string.h>

#include "npukit/kt.h"

enum { STALE_DRAIN_LIMIT = 64 };

npk_status kt_reg_read(kt_dev *d, uint32_t off, uint64_t *v)
{
    return kt_read64(d->t, d->base + off, v);
}
npk_status kt_reg_write(kt_dev *d, uint32_t off, uint64_t v)
{
    /* A write anywhere in the 32-byte flit holding PROG_CRED may change the credit (directly, or
     * by zeroing it on a pre-strobe bitstream): the last dispatch's credit says nothing after. */
    if ((off & ~(uint32_t)(KT_BUS_FLIT_BYTES - 1)) == KT_PROG_CRED)
        d->have_last = false;
    /* PROG_LEN fires a dispatch on a pre-strobe bitstream (so may any write into its flit) and
     * KICK on a current one (where nothing else starts a stream): after it the stream may run. */
    if (d->opt.bitstream_current ? off == KT_PROG_KICK
                                 : (off & ~(uint32_t)(KT_BUS_FLIT_BYTES - 1)) == KT_PROG_DST)
        d->stream_idle = false;
    return kt_write64(d->t, d->base + off, v);
}

npk_status kt_open(kt_dev *d, kt_transport *t, uint64_t base, const kt_options *opt)
{
    memset(d, 0, sizeof *d);
    d->t = t;
    d->base = base;
    t->trace_window = base + 1; /* a trace names the window's registers */
    if (opt)
        d->opt = *opt;
    if (!d->opt.stage_flits)
        d->opt.stage_flits = KT_STAGE_FLITS_DEFAULT;
    if (!d->opt.reply_budget)
        d->opt.reply_budget = 256;
    if (!d->opt.poll_budget)
        d->opt.poll_budget = 20000;
    d->next_txn = 1;
    uint64_t v;
    npk_status s = kt_reg_read(d, KT_CAPS, &v);
    if (s)
        return s;
    d->caps = kt_agent_caps_decode(v);
    /* An orchestrator answers CAPS with a 288-bit flit and a small position width; anything
     * else is not a control window (or not one this driver speaks to). */
    if (d->caps.flit_width != KT_FLIT_WIDTH || d->caps.pos_width == 0 || d->caps.pos_width > 8)
        return npk_fail(NPK_ENODEV,
                        "no orchestrator at 0x%" PRIx64 ": CAPS=0x%016" PRIx64
                        " (flit width %u, want %u; "
                        "position width %u, want 1..8)",
                        base, v, d->caps.flit_width, KT_FLIT_WIDTH, d->caps.pos_width);
    if (d->caps.pos_width != KT_POS_WIDTH)
        return npk_fail(NPK_EUNSUPPORTED,
                        "position width %u: the flit codec handles the reference %u only",
                        d->caps.pos_width, KT_POS_WIDTH);
    if (d->caps.grid_lo < 1 || d->caps.grid_hi < d->caps.grid_lo)
        return npk_fail(NPK_EPROTO, "CAPS grid %u..%u is empty", d->caps.grid_lo, d->caps.grid_hi);
    /* (0,0) is the system node's processor coordinate when the bitstream has the RV32 complex
     * (§6), and a reply or completion addressed there is the processor's, not the mailbox's.
     * (0, GRID_LO) is the edge cell the corner's clamp delivers onto, so the route is the same
     * and the memory agent's port, which hands the agent every flit not meant for the
     * processor, takes it. */
    if (!d->opt.reply_to.x && !d->opt.reply_to.y)
        d->opt.reply_to = (kt_coord){0, d->caps.grid_lo};
    d->flit_words = (d->caps.flit_width + 63) / 64;
    if ((s = kt_reg_read(d, KT_STATUS, &v)))
        return s;
    if (!kt_status_decode(v).mesh_ready)
        return npk_fail(NPK_EIO, "STATUS=0x%" PRIx64 ": mesh_ready is 0", v);
    /* A previous session may have left replies in the mailbox; they would be mistaken for ours. */
    return kt_mailbox_drain(d, STALE_DRAIN_LIMIT, &d->stale_drained);
}

static npk_status wait_can_send(kt_dev *d)
{
    uint64_t ps = 0, tx = 0;
    for (uint32_t i = 0; i < d->opt.poll_budget; i++) {
        npk_status s;
        if ((s = kt_reg_read(d, KT_PROG_STAT, &ps)) || (s = kt_reg_read(d, KT_TX_STATUS, &tx)))
            return s;
        if (!kt_prog_stat_decode(ps).run &&
            !kt_word_get(&kt_word_tx_status, KT_TX_STATUS_F_FULL, tx))
            return NPK_OK;
    }
    return npk_fail(
        NPK_ETIMEDOUT,
        "mailbox kick would be ignored: after %u polls PROG_STAT.run=%u, TX_STATUS.tx_full=%u",
        d->opt.poll_budget, kt_prog_stat_decode(ps).run,
        (unsigned)kt_word_get(&kt_word_tx_status, KT_TX_STATUS_F_FULL, tx));
}

npk_status kt_mailbox_send(kt_dev *d, const kt_flit *f)
{
    npk_status s = wait_can_send(d);
    if (s)
        return s;
    uint8_t bytes[KT_FLIT_WORDS * 8];
    kt_flit_to_bytes(f, bytes);
    /* TX_FLIT always honoured byte strobes, so words or a block are both safe here. */
    if (d->t->bulk)
        s = kt_write_block(d->t, d->base + KT_TX_FLIT, bytes, d->flit_words * 8u);
    else
        for (unsigned w = 0; w < d->flit_words && !s; w++)
            s = kt_reg_write(d, KT_TX_FLIT + 8 * w, kt_le64(bytes + 8 * w));
    return s ? s : kt_reg_write(d, KT_TX_KICK, 1);
}

npk_status kt_mailbox_recv(kt_dev *d, kt_flit *f, bool *got)
{
    uint64_t st;
    *got = false;
    npk_status s = kt_reg_read(d, KT_RX_STATUS, &st);
    if (s || kt_word_get(&kt_word_rx_status, KT_RX_STATUS_F_EMPTY, st))
        return s;
    uint8_t bytes[KT_FLIT_WORDS * 8] = {0};
    if (d->t->bulk)
        s = kt_read_block(d->t, d->base + KT_RX_FLIT, bytes, d->flit_words * 8u);
    else
        for (unsigned w = 0; w < d->flit_words && !s; w++) {
            uint64_t v;
            s = kt_reg_read(d, KT_RX_FLIT + 8 * w, &v);
            kt_put_le64(bytes + 8 * w, v);
        }
    if (s)
        return s;
    uint64_t words[KT_FLIT_WORDS];
    for (int w = 0; w < KT_FLIT_WORDS; w++)
        words[w] = kt_le64(bytes + 8 * w);
    words[4] &= 0xFFFFFFFFull;
    kt_flit_from_words(f, words);
    if ((s = kt_reg_write(d, KT_RX_POP, 1)))
        return s;
    *got = true;
    return NPK_OK;
}

npk_status kt_mailbox_drain(kt_dev *d, unsigned limit, unsigned *drained)
{
    unsigned n = 0;
    for (; n < limit; n++) {
        kt_flit f;
        bool got;
        npk_status s = kt_mailbox_recv(d, &f, &got);
        if (s)
            return s;
        if (!got)
            break;
    }
    if (drained)
        *drained = n;
    return NPK_OK;
}
