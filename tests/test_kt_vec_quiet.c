/* SPDX-License-Identifier: MIT */
/* The vector core's quiet steps, every kernel: with quiet cycles skipped (the default) the core
 * sleeps through the steps that only count down, hold, or stay inside it (a walk, the ALU's
 * beats, a reduction, the fetch and the EXEC of the word it fetches) and takes them at once when
 * it wakes. The reference is the same machine with skip_quiet off, which ticks every step. Each
 * kernel of kt_vec_kernels.h, at sizes that end its walks on every chunk count modulo 8 and
 * with VL below, at and beyond a chunk, must leave the same RUN signal (the kernel's cycles, or
 * the fault), busy cycles, CU_DBG, memory read back, final cycle and model faults both ways. */
#include <stdio.h>
#include <string.h>

#include "kt_vec_testlib.h"

typedef struct outcome {
    npk_status st;
    kt_node_status last;
    uint32_t busy, fnv;
    uint64_t dbg, cycle;
    char fault[320];
} outcome;

static bool run(const char *kind, unsigned n, bool skip, outcome *o)
{
    vk_kernel k;
    memset(o, 0, sizeof *o);
    if (!vk_build(kind, n, &k))
        return false;
    vk_run r;
    if (!vk_open_skip(&r, skip))
        return false;
    o->st = vk_exec(&r, &k, &o->last, &o->busy);
    o->dbg = vk_ctrl(&r, KT_CU_DBG);
    static uint8_t out[256 * 32];
    if (k.dump_words && k.dump_words <= 256 &&
        ktsim_dram_read(r.s, k.dump_addr, out, 32ull * k.dump_words) == NPK_OK)
        o->fnv = vk_fnv(out, 32ull * k.dump_words);
    o->cycle = ktsim_cycle(r.s);
    snprintf(o->fault, sizeof o->fault, "%s", ktsim_fault(r.s) ? ktsim_fault(r.s) : "");
    ktsim_destroy(r.s);
    return true;
}

int main(void)
{
    static const char *const kinds[] = {"fma",    "ops",  "edge",   "chain",     "indep", "ldst",
                                        "drain",  "fill", "pdrain", "d2",        "d4",    "d2loop",
                                        "d4loop", "red",  "seed",   "d4loop128", "expsum"};
    static const unsigned sizes[] = {1, 9, 16, 40, 48, 100, 128};
    unsigned compared = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++) {
            outcome a, b;
            if (!run(kinds[i], sizes[j], true, &a))
                continue; /* a size the kernel does not take */
            CHECK(run(kinds[i], sizes[j], false, &b));
            bool same = a.st == b.st && a.last.code == b.last.code && a.last.arg == b.last.arg &&
                        a.busy == b.busy && a.dbg == b.dbg && a.fnv == b.fnv &&
                        a.cycle == b.cycle && !strcmp(a.fault, b.fault);
            if (!same)
                printf("  %s %u: skipped: arg %u busy %u dbg %llu cycle %llu fnv %08x; ticked: arg "
                       "%u busy %u dbg %llu cycle %llu fnv %08x\n",
                       kinds[i], sizes[j], (unsigned)a.last.arg, a.busy,
                       (unsigned long long)a.dbg, (unsigned long long)a.cycle, a.fnv,
                       (unsigned)b.last.arg, b.busy, (unsigned long long)b.dbg,
                       (unsigned long long)b.cycle, b.fnv);
            CHECK(same);
            compared++;
        }
    printf("  %u kernels compared\n", compared);
    CHECK(compared >= 60);
    return check_done();
}
