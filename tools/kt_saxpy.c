/* `npukit kt saxpy -n N`: put x and y in simulated DRAM, stage one program per saxpy unit (64
 * elements per instruction), dispatch with credit from each unit's CU_CAPS, wait on NODE_STATUS,
 * and check y against the host's own a*x + y. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kt_card_cli.h"
#include "kt_cli.h"

enum { CHUNK = 64, MAX_UNITS = 16, CHECK_POLLS = 64 };
static const uint64_t X_OFF = 0x100000, Y_OFF = 0x200000;

static int fail(kt_cli *c, const char *what)
{
    int rc = cli_lib_error(what);
    kt_cli_close(c);
    return rc;
}

int kt_saxpy_main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) /* the engine form lives in kt_saxpy_engine.c */
        if (!strcmp(argv[i], "--engine"))
            return kt_saxpy_engine_main(argc, argv);
    kt_cli c = {0};
    uint64_t n = 1000;
    double a = 2.5;
    for (int i = 1; i < argc; i++) {
        int r = kt_cli_option(&c, argc, argv, &i);
        if (r < 0)
            return 2;
        if (r)
            continue;
        if (!strcmp(argv[i], "-n")) {
            const char *v = cli_value(argc, argv, &i);
            if (!v || !cli_u64("-n", v, 1u << 20, &n))
                return 2;
            if (n == 0) {
                fprintf(stderr, "npukit kt saxpy: -n must be at least 1\n");
                return 2;
            }
        } else {
            fprintf(stderr, "npukit kt saxpy: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    int rc = kt_cli_open(&c);
    if (rc)
        return rc;
    kt_unit all[64], sx[MAX_UNITS];
    size_t nall = 0, nsx = 0;
    if (kt_enumerate(&c.dev, all, 64, &nall) != NPK_OK)
        return fail(&c, "kt saxpy");
    for (size_t i = 0; i < nall && nsx < MAX_UNITS; i++)
        if (all[i].caps.type == 0x5358)
            sx[nsx++] = all[i];
    if (!nsx) {
        fprintf(stderr, "npukit kt saxpy: no saxpy unit ('SX') in preset %s\n", ktsim_get_config(c.sim)->name);
        kt_cli_close(&c);
        return 1;
    }
    /* Operands: whole 32-byte granules (the memory window zero-fills partial ones). */
    size_t padded = (size_t)((n + 7) / 8 * 8);
    float *x = calloc(padded, sizeof *x), *y = calloc(padded, sizeof *y), *want = calloc(padded, sizeof *want);
    float *got = calloc(padded, sizeof *got);
    kt_flit *prog = calloc(c.dev.opt.stage_flits, sizeof *prog);
    if (!x || !y || !want || !got || !prog) {
        fprintf(stderr, "npukit kt saxpy: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        x[i] = (float)(i % 97) * 0.25f;
        y[i] = 1.0f + (float)(i % 13);
        want[i] = (float)a * x[i] + y[i];
    }
    for (size_t i = n; i < padded; i++)
        want[i] = y[i];
    uint64_t mem = ktsim_get_config(c.sim)->mem_base;
    kt_transport *t = ktsim_transport(c.sim);
    if (kt_write_block(t, mem + X_OFF, x, padded * 4) || kt_write_block(t, mem + Y_OFF, y, padded * 4))
        return fail(&c, "kt saxpy: uploading x and y");
    kt_counters_reset(t); /* count the control plane's work from here */
    uint64_t chunks = (n + CHUNK - 1) / CHUNK, next = 0, programs = 0;
    uint8_t txn = 0x40;
    while (next < chunks) {
        /* One round: each unit gets a contiguous run of chunks, staged upward in one block. */
        unsigned per = (unsigned)((chunks - next + nsx - 1) / nsx);
        if (per * nsx > c.dev.opt.stage_flits)
            per = c.dev.opt.stage_flits / (unsigned)nsx;
        unsigned slot = 0, base[MAX_UNITS], count[MAX_UNITS];
        for (size_t u = 0; u < nsx; u++) {
            base[u] = slot;
            count[u] = 0;
            for (unsigned k = 0; k < per && next < chunks; k++, next++) {
                uint64_t first = next * CHUNK;
                uint32_t len = (uint32_t)(n - first < CHUNK ? n - first : CHUNK);
                count[u]++;
                if (kt_saxpy_inst(&prog[slot++], len, (float)a, X_OFF + first * 4, Y_OFF + first * 4, txn, false))
                    return fail(&c, "kt saxpy");
            }
            if (count[u])
                kt_flit_set_bits(&prog[slot - 1], 259, 1, 1); /* `last` on each program's final flit */
        }
        if (kt_stage(&c.dev, 0, prog, slot))
            return fail(&c, "kt saxpy: staging");
        kt_ticket tk[MAX_UNITS];
        for (size_t u = 0; u < nsx; u++)
            if (count[u] && kt_dispatch(&c.dev, &sx[u], base[u], count[u], 0, &tk[u]))
                return fail(&c, "kt saxpy: dispatch");
        for (size_t u = 0; u < nsx; u++) {
            if (!count[u])
                continue;
            programs++;
            if (kt_wait(&c.dev, &tk[u], NULL))
                return fail(&c, "kt saxpy: waiting");
        }
        txn++;
    }
    /* No write fence: a completion does not order against the unit's DRAM write, so poll. */
    size_t bad = 0;
    for (int poll = 0; poll < CHECK_POLLS; poll++) {
        if (kt_read_block(t, mem + Y_OFF, got, padded * 4))
            return fail(&c, "kt saxpy: reading y");
        bad = 0;
        for (size_t i = 0; i < padded; i++)
            bad += memcmp(&got[i], &want[i], 4) != 0;
        if (!bad)
            break;
    }
    const char *fault = ktsim_fault(c.sim);
    if (c.json) {
        printf("{\"n\": %" PRIu64 ", \"a\": %g, \"units\": %zu, \"instructions\": %" PRIu64 ", \"programs\": %" PRIu64
               ", \"mismatches\": %zu, \"ok\": %s, ",
               n, a, nsx, chunks, programs, bad, bad || fault ? "false" : "true");
        kt_cli_print_counts(&c);
        printf("}\n");
    } else {
        printf("saxpy: y = %g*x + y, n=%" PRIu64 " on %zu units: %" PRIu64 " instructions in %" PRIu64
               " programs\n",
               a, n, nsx, chunks, programs);
        printf("check: %s (%zu of %zu elements differ)\n", bad ? "MISMATCH" : "ok", bad, (size_t)n);
        kt_cli_print_counts(&c);
    }
    if (fault)
        fprintf(stderr, "npukit kt saxpy: simulator: %s\n", fault);
    free(x);
    free(y);
    free(want);
    free(got);
    free(prog);
    kt_cli_close(&c);
    return bad || fault ? 1 : 0;
}
