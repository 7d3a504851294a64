/* SPDX-License-Identifier: MIT */
/* The RV32 example programs (examples/rv32, built by cmake/rv32.cmake with the RISC-V
 * toolchain for rv32i) booted on the rv32 preset as the hardware boots them: move_chain's three
 * moves land in memory — C holds the fill pattern the kick's argument named, word for word — and
 * it reports a clean node word (halt word 0); the mover counts three moves per run. Skips when
 * the toolchain was not there to build the program. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "kt/hw/kt_rv32.h"
#include "npukit/kt.h"
#include "npukit/kt_mover_hw.h"
#include "npukit/kt_regs.h"
#include "npukit/kt_rv32.h"
#include "npukit/ktsim.h"

enum { SKIP = 77, MAX_WORDS = 4096 };

/* build/rv32/NAME (beside the CLI) as little-endian words; false when it was not built. */
static bool read_image(const char *name, uint32_t *words, size_t *n)
{
    const char *cli = getenv("NPUKIT_CLI");
    const char *slash = cli ? strrchr(cli, '/') : NULL;
    char path[4096];
    snprintf(path, sizeof path, "%.*s/rv32/%s", slash ? (int)(slash - cli) : 1,
             slash ? cli : ".", name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    uint8_t b[4 * MAX_WORDS];
    size_t len = fread(b, 1, sizeof b, f);
    fclose(f);
    CHECK(len % 4 == 0 && len < sizeof b);
    *n = len / 4;
    for (size_t i = 0; i < *n; i++)
        words[i] = (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 | (uint32_t)b[4 * i + 2] << 16 |
                   (uint32_t)b[4 * i + 3] << 24;
    return true;
}

int main(void)
{
    static uint32_t text[MAX_WORDS], data[MAX_WORDS];
    size_t nt = 0, nd = 0;
    if (!read_image("move_chain.text", text, &nt) || !read_image("move_chain.data", data, &nd)) {
        printf("SKIP: build/rv32/move_chain.text not built. RV32 programs need "
               "gcc-riscv64-unknown-elf (scripts/deps.sh installs it as root)\n");
        return SKIP;
    }
    ktsim_config cfg;
    CHECK_EQ(ktsim_preset_load("rv32", &cfg), NPK_OK);
    ktsim *sim = NULL;
    CHECK_EQ(ktsim_create(&cfg, &sim), NPK_OK);
    kt_dev dev;
    CHECK_EQ(kt_open(&dev, ktsim_transport(sim), cfg.ctrl_base, NULL), NPK_OK);
    const kt_coord rv = {0, 0};
    enum { WORDS = 64, C = 0x180000 };
    static uint8_t poison[WORDS * KT_MV_WORD], got[WORDS * KT_MV_WORD];
    memset(poison, 0xEE, sizeof poison);
    const uint32_t patterns[2] = {0x600DF00Du, 0x13579BDFu};
    for (unsigned run = 0; run < 2; run++) {
        CHECK_EQ(ktsim_dram_write(sim, C, poison, sizeof poison), NPK_OK);
        CHECK_EQ(kt_rv32_write(&dev, rv, KT_RV32_BUF_IMEM, 0, text, nt, KT_RV32_IMEM_WORDS), NPK_OK);
        if (nd)
            CHECK_EQ(kt_rv32_write(&dev, rv, KT_RV32_BUF_SPAD, 0, data, nd, KT_RV32_SPAD_WORDS),
                     NPK_OK);
        kt_rv32_result r;
        CHECK_EQ(kt_rv32_run(&dev, rv, 0, patterns[run], 20000, &r), NPK_OK);
        CHECK(!r.faulted);
        CHECK_EQ(r.halt_word, 0);
        CHECK_EQ(ktsim_dram_read(sim, C, got, sizeof got), NPK_OK);
        unsigned bad = 0;
        for (unsigned i = 0; i < sizeof got; i += 4)
            bad += ((uint32_t)got[i] | (uint32_t)got[i + 1] << 8 | (uint32_t)got[i + 2] << 16 |
                    (uint32_t)got[i + 3] << 24) != patterns[run];
        CHECK_EQ(bad, 0);
        uint64_t aux = 0;
        CHECK_EQ(kt_reg_read(&dev, KT_AUX_STAT, &aux), NPK_OK);
        CHECK_EQ(kt_mv_status_decode(aux).moves_done, 3 * (run + 1));
        uint64_t dbg = 0;
        bool present = false;
        CHECK_EQ(kt_ctrl_read(&dev, rv, KT_CU_DBG, &dbg, &present), NPK_OK);
        CHECK(present && dbg >> 32 > 3); /* at least the three MVGO stores retired */
        printf("move_chain run %u: %u instructions, %u cycles on the processor\n", run,
               (unsigned)(dbg >> 32), (unsigned)dbg);
    }
    ktsim_destroy(sim);
    return check_done();
}
