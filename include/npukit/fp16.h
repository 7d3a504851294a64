/* SPDX-License-Identifier: MIT */
/* IEEE binary16 and bfloat16 conversions (round to nearest, ties to even). */
#ifndef NPUKIT_FP16_H
#define NPUKIT_FP16_H

#include <stdint.h>
#include "npukit/export.h"

#ifdef __cplusplus
extern "C" {
#endif

NPUKIT_API uint16_t npk_f32_to_f16(float f);
NPUKIT_API float npk_f16_to_f32(uint16_t h);
NPUKIT_API uint16_t npk_f32_to_bf16(float f);
NPUKIT_API float npk_bf16_to_f32(uint16_t h);

#ifdef __cplusplus
}
#endif
#endif
