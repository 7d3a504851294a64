/* SPDX-License-Identifier: MIT */
/* Which vector kernels the layout code may take: the widest the CPU has (layout_vec.h), or
 * narrower ones a test asks for, so each path is checked on one machine. */
#include <stdatomic.h>

#include "layout_vec.h"

static atomic_uint vector_limit = 64;

bool npk_layout_limit_vectors(unsigned bytes)
{
    if (bytes != 16 && bytes != 32 && bytes != 64)
        return false;
    atomic_store(&vector_limit, bytes);
    return true;
}

unsigned npk_layout_vector_limit(void)
{
    return atomic_load_explicit(&vector_limit, memory_order_relaxed);
}
