/* SPDX-License-Identifier: MIT */
/* Simulated DRAM: sparse 4 KiB pages with a written bit per 32-byte granule, because reading a
 * granule that was never written is an error on the card (uninitialised ECC answers SLVERR). */
#ifndef NPUKIT_KTSIM_DRAM_H
#define NPUKIT_KTSIM_DRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npukit/status.h"

typedef struct ksim_dram ksim_dram;

ksim_dram *ksim_dram_create(uint64_t size);
void ksim_dram_destroy(ksim_dram *d);
uint64_t ksim_dram_size(const ksim_dram *d);

/* Raw access (backdoor and whole-granule paths). A write marks every touched granule written. */
npk_status ksim_dram_write(ksim_dram *d, uint64_t off, const void *buf, size_t len);
/* Fails with NPK_EFAULT naming the first never-written granule (and reads zeros for it). */
npk_status ksim_dram_read(ksim_dram *d, uint64_t off, void *buf, size_t len);
/* Host memory window semantics: the window ignores byte strobes, so every 32-byte granule the
 * write touches is painted whole — bytes the host did not send become zero. */
npk_status ksim_dram_host_write(ksim_dram *d, uint64_t off, const void *buf, size_t len);
bool ksim_dram_written(const ksim_dram *d, uint64_t off);

enum { KSIM_GRANULE = 32 };

#endif
