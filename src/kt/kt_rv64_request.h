/* SPDX-License-Identifier: MIT */
/* Requests a program on the RV64 complex makes to the host over its console: npukit's loader
 * convention (kt_rv64_run acts on them), not hardware, so it lives apart from the register map.
 * Included by the loader and by the runtime the programs are built with. */
#ifndef NPUKIT_KT_RV64_REQUEST_H
#define NPUKIT_KT_RV64_REQUEST_H

/* The console byte KT_RV64_REQ is not text: the byte after it names something the program asks
 * the host to do. kt_rv64_run acts on it and keeps both bytes out of the console text. The
 * doorbell (HR_DBELL) is a level only the host can lower, so a program acknowledges its
 * software interrupt by asking for the clear. */
#define KT_RV64_REQ 0x05u
#define KT_RV64_REQ_RING 'R'  /* HR_DBELL = 1: the host rings (here, because the program asks) */
#define KT_RV64_REQ_CLEAR 'C' /* HR_DBELL = 0: the acknowledgement of a doorbell */

#endif
