/* SPDX-License-Identifier: MIT */
/* The RV64 control complex around the core: the host window (§6: three regions by
 * hs_addr[31:28], write-only memories, the host registers, reads that ignore the region bits),
 * the load window a card's host reaches it through (stdin queue, LOAD_CTL/LOAD_DATA, the console
 * FIFO), the processor's control region (§7), the dispatch mailbox (§7.5) as the system node's
 * hub client at (0,0), and the two interrupt levels.
 *
 * The rest of the node (the mover, the interlink) is reached through ksim_rv64_side; a hook left
 * NULL is a block the bitstream does not have: its status reads zero and writes vanish. */
#ifndef NPUKIT_KTSIM_RV64_COMPLEX_H
#define NPUKIT_KTSIM_RV64_COMPLEX_H

#include <stdbool.h>
#include <stdint.h>

#include "rv64_ctrl.h"
#include "rv64_state.h"

bool ksim_rv64c_init(ksim_rv64c *c, const ksim_rv64_cfg *cfg, kt_coord at,
                     const ksim_rv64_side *side);
void ksim_rv64c_free(ksim_rv64c *c);

/* The hs_* port: one write (takes effect this cycle) and one read (a pure function of the
 * address: the caller has held it for the cycle the registered read needs). */
void ksim_rv64c_hs_write(ksim_rv64c *c, uint32_t addr, uint64_t data, uint8_t strobes);
uint64_t ksim_rv64c_hs_read(const ksim_rv64c *c, uint32_t addr);

/* The load window, offsets 0x000-0xFFF. */
void ksim_rv64c_lw_write(ksim_rv64c *c, uint32_t off, uint64_t value);
uint64_t ksim_rv64c_lw_read(ksim_rv64c *c, uint32_t off);

/* One cycle: the core runs every instruction that issues in it. */
void ksim_rv64c_tick(ksim_rv64c *c);

#endif
