/* SPDX-License-Identifier: MIT */
/* Large zeroed buffers that are filled once and then used: mapped straight from the kernel,
 * aligned to 2 MiB and marked for transparent huge pages where the system offers them, so that
 * filling one costs a page fault per 2 MiB instead of one per page. The simulator's DRAM and the
 * CLI's operands use them: a 1M-element `kt saxpy` took 6 000 faults, a sixth of its CPU time.
 * Below 2 MiB, or where there is no such mapping, plain calloc and free. */
#ifndef NPUKIT_BIG_ALLOC_H
#define NPUKIT_BIG_ALLOC_H

#include <stddef.h>

/* `len` zeroed bytes (NULL when out of memory); free them with npk_big_free and the same len. */
void *npk_big_alloc(size_t len);
void npk_big_free(void *p, size_t len);

#endif
