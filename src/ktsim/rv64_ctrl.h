/* SPDX-License-Identifier: MIT */
/* Inside the RV64 complex: the processor's control region, the mailbox and the interrupt
 * levels (rv64_ctrl.c), which the complex (rv64_complex.c) calls. */
#ifndef NPUKIT_KTSIM_RV64_CTRL_H
#define NPUKIT_KTSIM_RV64_CTRL_H

#include "rv64_state.h"

uint64_t ksim_rv64c_ctrl_load(void *ctx, uint32_t off, unsigned width);
bool ksim_rv64c_ctrl_store(void *ctx, uint32_t off, unsigned width, uint64_t value);
void ksim_rv64c_mbox_reset(ksim_rv64c *c);
void ksim_rv64c_update_irq(ksim_rv64c *c);
void ksim_rv64c_console(ksim_rv64c *c, uint8_t byte);

/* The mailbox as an endpoint (ep = the complex): the hub client at (0,0) (memport.h). */
extern const ksim_endpoint_ops ksim_rv64c_endpoint;

#endif
