/* SPDX-License-Identifier: MIT */
/* Status messages and the fp16/bf16 conversions against values worked out by hand. */
#include <math.h>

#include "check.h"
#include "npukit/fp16.h"
#include "npukit/status.h"

static void test_status(void)
{
    npk_clear_error();
    CHECK(npk_last_error()[0] == '\0');
    CHECK_EQ(npk_fail(NPK_ELIMIT, "K=%u exceeds %u", 10784u, 10752u), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "K=10784 exceeds 10752");
    CHECK_STR_HAS(npk_status_name(NPK_ETIMEDOUT), "ETIMEDOUT");
    CHECK_STR_HAS(npk_status_name((npk_status)999), "E?");
}

static void test_fp16(void)
{
    CHECK_EQ(npk_f32_to_f16(1.0f), 0x3c00);
    CHECK_EQ(npk_f32_to_f16(-2.0f), 0xc000);
    CHECK_EQ(npk_f32_to_f16(65504.0f), 0x7bff);
    CHECK_EQ(npk_f32_to_f16(65520.0f), 0x7c00);        /* rounds up to infinity */
    CHECK_EQ(npk_f32_to_f16(1.0f + 1.0f / 2048), 0x3c00); /* tie to even (down) */
    CHECK_EQ(npk_f32_to_f16(1.0f + 3.0f / 2048), 0x3c02); /* tie to even (up) */
    CHECK_EQ(npk_f32_to_f16(5.960464477539063e-08f), 0x0001); /* smallest subnormal */
    CHECK_EQ(npk_f32_to_f16(2.98023223876953125e-08f), 0x0000); /* half of it: tie to 0 */
    CHECK_EQ(npk_f32_to_f16(0.0f), 0);
    CHECK(isnan(npk_f16_to_f32(npk_f32_to_f16(NAN))));
    CHECK(npk_f16_to_f32(0x0001) == 5.960464477539063e-08f);
    CHECK(npk_f16_to_f32(0x7bff) == 65504.0f);
    CHECK(isinf(npk_f16_to_f32(0xfc00)) && npk_f16_to_f32(0xfc00) < 0);
    /* Every finite half survives a round trip. */
    int bad = 0;
    for (uint32_t h = 0; h < 0x10000; h++) {
        if ((h & 0x7c00) == 0x7c00)
            continue;
        if (npk_f32_to_f16(npk_f16_to_f32((uint16_t)h)) != h)
            bad++;
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(npk_f32_to_bf16(1.0f), 0x3f80);
    CHECK_EQ(npk_f32_to_bf16(1.00390625f), 0x3f80); /* tie to even */
    CHECK(npk_bf16_to_f32(0x4049) == 3.140625f);
}

int main(void)
{
    test_status();
    test_fp16();
    return check_done();
}
