/* SPDX-License-Identifier: MIT */
/* Running a kt_vec_kernels.h kernel on a vector core beside the memory agent (the RTL bench's
 * shape) with a second core to receive its drains to a node: DRAM loaded, the kernel staged as
 * DESC, IMEM and RUN flits and dispatched, the RUN's signal and the read-back region collected. */
#ifndef NPUKIT_TESTS_KT_VEC_TESTLIB_H
#define NPUKIT_TESTS_KT_VEC_TESTLIB_H

#include <stdlib.h>

#include "check.h"
#include "kt_vec_kernels.h"
#include "npukit/kt.h"
#include "npukit/kt_regs.h"
#include "npukit/ktsim.h"

typedef struct vk_run {
    ktsim *s;
    kt_dev d;
    kt_unit unit, peer; /* the core under test, the one beside it */
    kt_unit units[2];
} vk_run;

/* skip_quiet: false ticks every unit every cycle (the reference for the quiet-cycle skips). */
static inline bool vk_open_skip(vk_run *r, bool skip_quiet)
{
    /* the core under test at (1,1); a second at (1,2) receives drains to a node */
    const char *text = "name vc_bench\ngrid 1 1\nmem_port 0 1\n"
                       "unit 1 1 vec version=4 n_buffers=2 inst_depth=512\n"
                       "unit 1 2 vec version=4 n_buffers=2 inst_depth=512\n";
    ktsim_config c;
    r->s = NULL;
    if (ktsim_preset_parse(text, "vc", &c) != NPK_OK)
        return false;
    c.skip_quiet = skip_quiet;
    if (ktsim_create(&c, &r->s) != NPK_OK)
        return false;
    size_t n = 0;
    if (kt_open(&r->d, ktsim_transport(r->s), c.ctrl_base, NULL) != NPK_OK ||
        kt_enumerate(&r->d, r->units, 2, &n) != NPK_OK || n != 2) {
        ktsim_destroy(r->s);
        return false;
    }
    r->unit = r->units[0].at.y == 1 ? r->units[0] : r->units[1];
    r->peer = r->units[0].at.y == 1 ? r->units[1] : r->units[0];
    return true;
}

static inline bool vk_open(vk_run *r) { return vk_open_skip(r, true); }

static inline uint64_t vk_ctrl(vk_run *r, uint8_t index)
{
    uint64_t v = 0;
    bool present = false;
    CHECK_EQ(kt_ctrl_read(&r->d, r->unit.at, index, &v, &present), NPK_OK);
    return v;
}

/* Dispatch flits; the last signal's code and arg, and the busy cycles the shell counted. */
static inline npk_status vk_dispatch(vk_run *r, const kt_flit *p, unsigned n, kt_node_status *last,
                                     uint32_t *busy)
{
    uint32_t b0 = kt_cu_counters_decode(vk_ctrl(r, KT_CU_COUNTERS)).busy_cycles;
    npk_status s = kt_stage(&r->d, 0, p, n);
    kt_ticket tk;
    memset(&tk, 0, sizeof tk); /* expect_cycles 0: no estimate */
    if (!s)
        s = kt_dispatch(&r->d, &r->unit, 0, n, 0, &tk);
    kt_wait_result res = {0};
    if (!s)
        s = kt_wait(&r->d, &tk, &res);
    if (last)
        *last = res.last;
    if (busy)
        *busy = kt_cu_counters_decode(vk_ctrl(r, KT_CU_COUNTERS)).busy_cycles - b0;
    return s;
}

/* Load and run a kernel: memory, then DESC and IMEM words, then RUN on its own (so busy counts
 * the RUN alone). Returns the RUN's status (NPK_EFAULT when it faulted). */
static inline npk_status vk_exec(vk_run *r, const vk_kernel *k, kt_node_status *last,
                                 uint32_t *busy)
{
    static const uint8_t zero[32];
    for (unsigned i = 0; i < k->zero_words; i++)
        CHECK_EQ(ktsim_dram_write(r->s, k->zero_addr + 32ull * i, zero, 32), NPK_OK);
    for (unsigned i = 0; i < k->nmem; i++)
        CHECK_EQ(ktsim_dram_write(r->s, k->mem[i].addr, k->mem[i].b, 32), NPK_OK);
    kt_flit *p = calloc(k->ndesc + k->nimem, sizeof *p);
    unsigned n = 0;
    for (unsigned i = 0; i < k->ndesc; i++)
        CHECK_EQ(
            kt_vec_desc(&p[n++], k->desc[i].ad, k->desc[i].fld, k->desc[i].v, KT_VEC_TXN, false),
            NPK_OK);
    for (unsigned i = 0; i < k->nimem; i++)
        CHECK_EQ(kt_vec_imem(&p[n++], i, k->imem[i], KT_VEC_TXN, false), NPK_OK);
    /* staged a slot window at a time */
    for (unsigned at = 0; at < n; at += 64)
        CHECK_EQ(vk_dispatch(r, p + at, n - at < 64 ? n - at : 64, NULL, NULL), NPK_OK);
    free(p);
    kt_flit run;
    CHECK_EQ(kt_vec_run(&run, 0, KT_VEC_TXN, false), NPK_OK);
    return vk_dispatch(r, &run, 1, last, busy);
}

#endif
