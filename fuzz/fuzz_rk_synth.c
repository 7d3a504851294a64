/* SPDX-License-Identifier: MIT */
/* libFuzzer target: arbitrary matmul descriptions -> check, synthesize (checked and
 * unchecked), decode, and plan. Every refusal must be an error status, never a crash, and a
 * checked program must hold the pitches it was asked for (a value cut to its field is a
 * silently wrong program). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/rk_decode.h"
#include "npukit/rk_plan.h"
#include "npukit/rk_synth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *devnull;
    if (!devnull)
        devnull = fopen("/dev/null", "w");
    uint8_t b[32] = {0};
    memcpy(b, data, size < sizeof b ? size : sizeof b);
    uint32_t m, k, n, ap, cp;
    memcpy(&m, b + 4, 4);
    memcpy(&k, b + 8, 4);
    memcpy(&n, b + 12, 4);
    memcpy(&ap, b + 16, 4);
    memcpy(&cp, b + 20, 4);
    npk_rk_mm mm = npk_rk_mm_default((npk_rk_prec)(b[0] & 7), m % 40000, k % 40000, n % 40000);
    mm.out = (npk_rk_prec)(b[1] & 7);
    mm.mode = (int)(b[2] % 4) - 1;
    mm.sched = (int)(b[3] % 4) - 1;
    /* Full-range pitches every other input: the fields' widths are what is being tested. */
    mm.a_pitch = (b[28] & 1) ? ap : ap % 50000;
    mm.c_pitch = (b[28] & 2) ? cp : cp % 50000;
    mm.unchecked = b[24] & 1;
    npk_rk_entry body[NPK_RK_MATMUL_BODY];
    npk_rk_synth_info info;
    if (npk_rk_synth_matmul(&mm, body, &info) == NPK_OK) {
        npk_rk_decode_print(devnull, body, NPK_RK_MATMUL_BODY);
        if (!mm.unchecked && info.mode == NPK_MODE_LINE) {
            uint32_t line = 0, notch = 0;
            for (unsigned i = 0; i < NPK_RK_MATMUL_BODY; i++) {
                if (npk_rk_entry_reg(body[i]) == 0x107C)
                    line = npk_rk_entry_value(body[i]);
                if (npk_rk_entry_reg(body[i]) == 0x4038)
                    notch = npk_rk_entry_value(body[i]) >> 16;
            }
            uint64_t per16 = mm.in == NPK_PREC_FP16 ? 8 : 16;
            uint64_t ap_e = mm.a_pitch ? mm.a_pitch : mm.k, cp_e = mm.c_pitch ? mm.c_pitch : mm.n;
            if (line != ap_e / per16 || notch != cp_e * npk_rk_prec_bits(mm.out) / 128 - 1)
                abort();
        }
    }
    /* The planner's checks at full range (the K slice only: no plan is built). */
    npk_rk_plan_request big;
    npk_rk_plan_request_init(&big, mm.in, m, k, n);
    big.out = mm.out;
    (void)npk_rk_plan_k_slice(&big);
    npk_rk_plan_request req;
    npk_rk_plan_request_init(&req, mm.in, m % 3000, k % 30000, n % 30000);
    req.out = mm.out;
    req.cores = 1 + b[25] % 4;
    req.mode = mm.mode;
    req.k_slice = (b[26] & 1) ? (uint32_t)b[27] * 32 : 0;
    npk_rk_plan p;
    if (npk_rk_plan_matmul(&req, &p) == NPK_OK)
        npk_rk_plan_free(&p);
    return 0;
}
