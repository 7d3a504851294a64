/* SPDX-License-Identifier: MIT */
/* The RV32 control processor's boot over the mesh (kt_rv32_boot.h). */
#include "kt_rv32_boot.h"

#include <inttypes.h>
#include <string.h>

#include "kt/hw/kt_rv32.h"
#include "kt/hw/rv32_regs.h"
#include "npukit/kt_regs.h"

enum { GRANULE_WORDS = 8, BURST_GRANULES = 256 };

static npk_status send_burst(kt_dev *d, kt_coord at, unsigned buf, uint32_t granule,
                             const uint32_t *words, size_t n)
{
    size_t granules = (n + GRANULE_WORDS - 1) / GRANULE_WORDS;
    kt_flit f;
    memset(&f, 0, sizeof f);
    kt_cu_data cd = {(uint8_t)buf, (uint16_t)granule, (uint8_t)(granules - 1), 0, {0, 0}};
    /* from the driver's reply coordinate, as its CU_CTRL requests are: a completion or a
     * DATA_RECEIVED addressed there reaches the orchestrator, never the processor at (0,0) */
    kt_header h = {at, d->opt.reply_to, KT_T_CU_DATA, 0, granules == 0, 0};
    npk_status st;
    if ((st = kt_cu_data_put(&f, &cd)) || (st = kt_header_put(&f, &h)) ||
        (st = kt_mailbox_send(d, &f)))
        return st;
    for (size_t g = 0; g < granules; g++) {
        memset(&f, 0, sizeof f);
        for (unsigned i = 0; i < GRANULE_WORDS; i++) {
            size_t k = g * GRANULE_WORDS + i;
            uint64_t w = k < n ? words[k] : 0;
            f.w[i / 2] |= w << (32 * (i % 2));
        }
        h.last = g + 1 == granules;
        if ((st = kt_header_put(&f, &h)) || (st = kt_mailbox_send(d, &f)))
            return st;
    }
    return NPK_OK;
}

npk_status kt_rv32_write(kt_dev *d, kt_coord at, unsigned buf, uint32_t word,
                         const uint32_t *words, size_t n, uint32_t window_words)
{
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
    for (size_t done = 0; done < n; done += (size_t)BURST_GRANULES * GRANULE_WORDS) {
        size_t k = n - done < (size_t)BURST_GRANULES * GRANULE_WORDS
                       ? n - done
                       : (size_t)BURST_GRANULES * GRANULE_WORDS;
        npk_status st = send_burst(d, at, buf, (uint32_t)((word + done) / GRANULE_WORDS),
                                   words + done, k);
        if (st)
            return st;
    }
    return NPK_OK;
}

npk_status kt_rv32_run(kt_dev *d, kt_coord at, uint32_t pc, uint32_t arg, uint32_t max_polls,
                       kt_rv32_result *res)
{
    memset(res, 0, sizeof *res);
    uint64_t v = 0;
    npk_status st = kt_reg_read(d, kt_node_status_offset(at), &v);
    if (st)
        return st;
    uint16_t baseline = kt_node_status_decode(v).count;
    kt_flit f;
    if ((st = kt_rv32_kick_inst(&f, pc, arg, 0)))
        return st;
    kt_header h = kt_header_get(&f);
    h.dst = at;
    h.src = d->opt.reply_to; /* the completion returns to the kick's source */
    if ((st = kt_header_put(&f, &h)) || (st = kt_mailbox_send(d, &f)))
        return st;
    for (res->polls = 1; res->polls <= max_polls; res->polls++) {
        if ((st = kt_reg_read(d, kt_node_status_offset(at), &v)))
            return st;
        kt_node_status ns = kt_node_status_decode(v);
        if (ns.count == baseline)
            continue;
        res->halt_word = ns.arg;
        res->faulted = ns.code == KT_SIG_FAULT;
        if (ns.code != KT_SIG_FAULT && ns.code != KT_SIG_INST_COMPLETE)
            return npk_fail(NPK_EPROTO,
                            "the RV32 processor at (%u,%u) completed with signal code 0x%02x "
                            "(%s), not INST_COMPLETE or FAULT: no halt word",
                            at.x, at.y, ns.code, kt_signal_name(ns.code));
        return NPK_OK;
    }
    return npk_fail(NPK_ETIMEDOUT,
                    "the RV32 processor at (%u,%u) sent no completion within %" PRIu32
                    " NODE_STATUS reads (still running, or not an rv32 unit)",
                    at.x, at.y, max_polls);
}
