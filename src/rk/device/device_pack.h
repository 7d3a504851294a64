/* SPDX-License-Identifier: MIT */
/* Operand packing for npk_rk_devtask: the glue between a task's geometry and the layout
 * module (rk_layout.h), in plain types so the task code needs only this header. */
#ifndef NPUKIT_RK_DEVICE_PACK_H
#define NPUKIT_RK_DEVICE_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "npukit/rk_types.h"
#include "npukit/status.h"

/* Bytes of each operand block. */
typedef struct npk_rk_pack_geom {
    npk_rk_prec in, out;
    npk_rk_mode mode;
    size_t m, k, n;
    size_t a_stride, c_stride; /* line mode, elements; 0 in cube mode */
} npk_rk_pack_geom;

size_t npk_rk_devpack_a_bytes(const npk_rk_pack_geom *g);
size_t npk_rk_devpack_b_bytes(const npk_rk_pack_geom *g);
size_t npk_rk_devpack_c_bytes(const npk_rk_pack_geom *g);
npk_status npk_rk_devpack_a(const npk_rk_pack_geom *g, const void *a, void *dst, size_t size);
npk_status npk_rk_devpack_b(const npk_rk_pack_geom *g, const void *b, void *dst, size_t size);
npk_status npk_rk_devpack_unpack_c(const npk_rk_pack_geom *g, const void *src, size_t size,
                                   void *c);

#endif
