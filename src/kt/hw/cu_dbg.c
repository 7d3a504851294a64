/* SPDX-License-Identifier: MIT */
/* CU_DBG decoded per CU_TYPE: each unit type's published meaning of its 64-bit dbg_ctr, as a
 * table row (spec §1.4 and each unit's own description). */
#include <inttypes.h>
#include <stdio.h>

#include "npukit/kt_flit.h"
#include "npukit/kt_regs.h"
#include "npukit/kt_vec.h"
#include "npukit/kt_saxpy.h"
#include "npukit/kt_test_unit.h"

static const kt_cu_dbg_row rows[] = {
    /* the matmul cluster: the array running against the sequencer waiting on operands; both
     * free-running and independent, so they overlap and their sum is no total */
    {0x4D47,
     "matmul cluster (mx_cluster_cu)",
     false,
     {{"compute_cycles", 32, 32}, {"memory_cycles", 0, 32}},
     "spec §1.4"},
    /* the vector core: the last kernel's cycles, cleared at each RUN */
    {KT_VEC_TYPE,
     "vector core (vec_cu)",
     true,
     {{"kernel_cycles", 0, 32}, {NULL, 0, 0}},
     "spec §1.4"},
    /* the RV32 control processor: the program's retired instructions and cycles, both cleared
     * at each kick (the core's CTL_INSTRET / CTL_CYCLE) */
    {0x5256,
     "RV32 control processor (rv_pe)",
     true,
     {{"instructions", 32, 32}, {"cycles", 0, 32}},
     "upstream rv_pe.v: dbg_ctr = {ret_ctr, cyc_ctr}, cleared at each kick"},
    {KT_SAXPY_TYPE,
     "saxpy example unit",
     false,
     {{"elements", 0, 64}, {NULL, 0, 0}},
     "facts §3.3: cumulative elements processed"},
    {KT_TEST_UNIT_TYPE,
     "configurable test unit",
     false,
     {{"busy_cycles", 0, 64}, {NULL, 0, 0}},
     "src/ktsim/unit_test.c: cumulative cycles spent executing"},
};

const kt_cu_dbg_row *kt_cu_dbg_row_of(uint16_t type)
{
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (rows[i].type == type)
            return &rows[i];
    return NULL;
}

size_t kt_cu_dbg_describe(uint16_t type, uint64_t dbg, char *buf, size_t len)
{
    const kt_cu_dbg_row *r = kt_cu_dbg_row_of(type);
    char t[8];
    kt_cu_type_text(type, t);
    if (!r)
        return (size_t)snprintf(buf, len, "0x%016" PRIx64 " (undocumented for type %s)", dbg, t);
    size_t at = 0;
    for (int i = 0; i < 2 && r->f[i].name; i++) {
        uint64_t mask = r->f[i].width == 64 ? UINT64_MAX : (1ull << r->f[i].width) - 1;
        int n = snprintf(buf + (at < len ? at : len), at < len ? len - at : 0, "%s%s=%" PRIu64,
                         i ? " " : "", r->f[i].name, dbg >> r->f[i].lo & mask);
        at += n > 0 ? (size_t)n : 0;
    }
    int n = snprintf(buf + (at < len ? at : len), at < len ? len - at : 0, " (%s)",
                     r->per_run ? "per run: never difference" : "cumulative");
    return at + (n > 0 ? (size_t)n : 0);
}
