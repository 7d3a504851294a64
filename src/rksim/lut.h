/* SPDX-License-Identifier: MIT */
/* The SDP LUT's tables (rksim/lut_ram.h) filled by regcmd writes of LUT_ACCESS_CFG (a
 * table, write access, a start address) and LUT_ACCESS_DATA (one entry at the next address),
 * read by an SDP task whose EW stage has the LUT on (rksim/sdp.c). */
#ifndef NPUKIT_RKSIM_LUT_H
#define NPUKIT_RKSIM_LUT_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/rk_act_hw.h"
#include "rksim/lut_ram.h"
#include "rksim/regs_view.h"
#include "rksim/result.h"

/* A register write of the regcmd as it lands: LUT_ACCESS_CFG sets the next address,
 * LUT_ACCESS_DATA (write access) stores one entry there and moves on. Other writes: nothing. */
void rksim_lut_access(rksim_lut_ram *ram, const rksim_regfile *rf,
                      const rksim_entry *e);

/* The LUT program the registers and the RAM describe, checked: false with r "unsupported by
 * the model" naming the register and the rule (a table not wholly written, a field outside
 * the captured settings, an END that is not START + 512 steps). */
bool rksim_lut_decode(const rksim_lut_ram *ram, const rksim_regfile *rf, npk_rk_lut *lut,
                      rksim_core_result *r);

#endif
