/* SPDX-License-Identifier: MIT */
/* Unit-type timing rows: the calibrated defaults and the preset's `timing KIND key=value ...`. */
#ifndef NPUKIT_KTSIM_TIMING_H
#define NPUKIT_KTSIM_TIMING_H

#include "npukit/ktsim.h"

/* The mailbox path's crossing cycles (cdc_tx, cdc_rx, cdc_unit), calibrated to the RTL. */
void ksim_crossing_defaults(ktsim_config *cfg);
/* Put every kind's calibrated row into cfg (ktsim_config_default calls it). */
void ksim_timing_defaults(ktsim_config *cfg);
/* One `timing KIND key=value ...` line, tokenised; changes only the keys given. first_line[row]
 * is the line a kind's row was first given on (0: not yet): a kind is given once. */
npk_status ksim_timing_parse(char **tok, int ntok, const char *origin, int line, ktsim_config *cfg,
                             int first_line[KTSIM_MAX_TIMINGS]);

#endif
