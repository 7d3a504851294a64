/* SPDX-License-Identifier: MIT */
/* The simulator backend of the device layer: a device whose requests rksim answers. Kept
 * apart from rk_device.h so that code above the device layer does not see the simulator. */
#ifndef NPUKIT_RK_DEVICE_SIM_H
#define NPUKIT_RK_DEVICE_SIM_H

#include "rk_device.h"
#include "npukit/rksim.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Open a fresh simulator (cfg NULL: defaults, then the NPUKIT_RKSIM_* environment). */
npk_status npk_rk_device_open_sim(const rksim_config *cfg, npk_rk_device **out);
/* A fresh simulator answering through its rocket front end (one rocket file). */
npk_status npk_rk_device_open_sim_rocket(const rksim_config *cfg, npk_rk_device **out);
/* The simulator behind the device, for diagnostics only (its last report); NULL for any other
 * backend. */
rksim *npk_rk_device_sim(npk_rk_device *dev);

#ifdef __cplusplus
}
#endif
#endif
