/* SPDX-License-Identifier: MIT */
/* Unit-type timing rows: the calibrated defaults and the preset's `timing KIND key=value ...`. */
#ifndef NPUKIT_KTSIM_TIMING_H
#define NPUKIT_KTSIM_TIMING_H

#include <stddef.h>

#include "npukit/ktsim.h"

/* A number of the machine that is no unit's: a FIFO depth, a host cost, a crossing. */
typedef struct ksim_machine_number {
    const char *field;  /* the ktsim_config field ("tx_depth") */
    size_t offset;      /* ... its offset (an unsigned) */
    unsigned value;     /* the default */
    const char *source; /* a spec section, a facts entry, "measured on RTL" or "inferred" */
} ksim_machine_number;
/* The table, for listing and checking. */
const ksim_machine_number *ksim_machine_numbers(size_t *count);
/* Put every row's default into cfg (ktsim_config_default calls it): the FIFO depths, the host
 * costs and the mailbox path's crossing cycles (cdc_tx, cdc_rx, cdc_unit). */
void ksim_machine_defaults(ktsim_config *cfg);
/* Put every kind's calibrated row into cfg (ktsim_config_default calls it). */
void ksim_timing_defaults(ktsim_config *cfg);
/* Key `key`=`text` of a unit type's key table (`what`: "timing", "unit setting"): its index
 * and value, or an error at origin:line naming the key and its range (or the known keys). */
npk_status ksim_unit_key_value(const ktsim_unit_key *keys, const char *what, const char *key,
                               const char *text, const char *origin, int line, unsigned *index,
                               uint32_t *value);
/* One `timing KIND key=value ...` line, tokenised; changes only the keys given. first_line[row]
 * is the line a kind's row was first given on (0: not yet): a kind is given once. */
npk_status ksim_timing_parse(char **tok, int ntok, const char *origin, int line, ktsim_config *cfg,
                             int first_line[KTSIM_MAX_TIMINGS]);

#endif
