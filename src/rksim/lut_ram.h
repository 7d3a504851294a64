/* SPDX-License-Identifier: MIT */
/* The SDP LUT's two tables as a core holds them (a RAM, kept across tasks): filled and read
 * through rksim/lut.h. Its own header so the core's state (sim.h) holds one without the
 * functions that read the register file. */
#ifndef NPUKIT_RKSIM_LUT_RAM_H
#define NPUKIT_RKSIM_LUT_RAM_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/rk_act_hw.h"

typedef struct rksim_lut_ram {
    int16_t t[2][NPK_RK_LUT_ENTRIES]; /* [LUT_TABLE_ID]: 0 LE, 1 LO */
    uint16_t next;                     /* the address the next ACCESS_DATA write lands at */
    bool written[2][NPK_RK_LUT_ENTRIES];
    bool overrun;                      /* a write past the table's last entry */
    uint32_t overrun_addr;
} rksim_lut_ram;

#endif
