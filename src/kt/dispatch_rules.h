/* SPDX-License-Identifier: MIT */
/* What the core's staging and dispatch (dispatch.c) and their host-program forms (hostprog_seq.c)
 * share, so the two forms build the same blocks and refuse the same arguments with the same words.
 */
#ifndef NPUKIT_KT_DISPATCH_RULES_H
#define NPUKIT_KT_DISPATCH_RULES_H

#include "npukit/kt.h"

/* A staging block ready to write at window offset `offset`: `len` bytes from staging word `lo`,
 * the flits' words [first, end) plus the padding around them. */
typedef struct kt_stage_buf {
    uint8_t *bytes;
    size_t len, lo, first, end;
    uint32_t offset;
} kt_stage_buf;
/* Build the block for n flits at `base`, padded out to whole 32-byte bus flits with the words this
 * session staged there before (a pre-strobe bitstream zeroes every unsent word of a flit the block
 * touches); never with words it did not write. */
npk_status kt_stage_block(const kt_dev *d, unsigned base, const kt_flit *flits, size_t n,
                          kt_stage_buf *b);
/* The block is on its way: remember its words as staged, free it. */
void kt_stage_commit(kt_dev *d, kt_stage_buf *b);
/* A program of n flits at `base` for `unit`; *credit 0 becomes the unit's inst_depth, more than
 * that is refused (it is the one way to reintroduce the deadlock). */
npk_status kt_dispatch_check(const kt_dev *d, const kt_unit *unit, unsigned base, unsigned n,
                             unsigned *credit);
/* The ticket of a dispatch to `unit`: its NODE_STATUS count now, read before any dispatch write
 * (counts are cumulative and 16-bit). */
npk_status kt_ticket_baseline(kt_dev *d, const kt_unit *unit, unsigned n, kt_ticket *tk);

/* A read saw node `at` reach `count`: when that is the target of its latest program, the count
 * is known until the next dispatch to it (its next baseline costs no read). */
void kt_note_count_seen(kt_dev *d, kt_coord at, uint16_t count);
/* Remember the most recent dispatch and the credit it seeded, for kt_check_credit_returned. */
void kt_note_last_dispatch(kt_dev *d, const kt_ticket *tk, unsigned credit);
/* For the most recent dispatch, once its signals have all arrived: PROG_CRED must have come back
 * to seed - 1, or an instruction faulted where NODE_STATUS (last code only) no longer shows it. */
npk_status kt_check_credit_returned(kt_dev *d, const kt_ticket *tk);

#endif
