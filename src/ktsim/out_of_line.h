/* SPDX-License-Identifier: MIT */
/* KSIM_OUT_OF_LINE marks a per-cycle function's heavy or rare part, kept out of the function
 * itself: the common cycle (a part with nothing to do, a short state) then returns without
 * saving the registers that part needs. */
#ifndef NPUKIT_KTSIM_OUT_OF_LINE_H
#define NPUKIT_KTSIM_OUT_OF_LINE_H

#define KSIM_OUT_OF_LINE __attribute__((noinline))

#endif
