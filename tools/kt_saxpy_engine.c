/* `npukit kt saxpy --engine -n N`: the same work as `kt saxpy` (same operands, 64 elements per
 * instruction, one program per saxpy unit per round), but each round's stage + dispatch + wait is
 * one host control program loaded into the engine and started with one GO. The host's part is
 * the staging block, the command words, the GO and the wait for done; the polls of PROG_STAT and
 * NODE_STATUS run in the engine. --wait-cycles C lets the host sleep C mesh cycles between two
 * reads of the engine's CTRL, as a host that is not in the loop can. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kt_card_cli.h"
#include "npukit/kt_hostprog.h"

enum { CHUNK = 64, MAX_UNITS = 16, CHECK_POLLS = 64, SAXPY_TYPE = 0x5358 };
static const uint64_t X_OFF = 0x100000, Y_OFF = 0x200000;

typedef struct sleeper {
    ktsim_card *card;
    uint64_t cycles;
} sleeper;

static void host_sleep(void *user)
{
    sleeper *s = user;
    ktsim_card_step(s->card, s->cycles);
}

static int fail(kt_card_cli *c, const char *what)
{
    int rc = cli_lib_error(what);
    kt_card_cli_close(c);
    return rc;
}

int kt_saxpy_engine_main(int argc, char **argv)
{
    kt_card_cli c = {0};
    c.engine = true;
    uint64_t n = 1000, wait_cycles = 0;
    const double a = 2.5;
    for (int i = 1; i < argc; i++) {
        int r = kt_card_cli_option(&c, argc, argv, &i);
        if (r < 0)
            return 2;
        if (r || !strcmp(argv[i], "--engine"))
            continue;
        if (!strcmp(argv[i], "-n")) {
            const char *v = cli_value(argc, argv, &i);
            if (!v || !cli_u64("-n", v, 1u << 20, &n))
                return 2;
            if (!n) {
                fprintf(stderr, "npukit kt saxpy: -n must be at least 1\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--wait-cycles")) {
            const char *v = cli_value(argc, argv, &i);
            if (!v || !cli_u64("--wait-cycles", v, 1u << 24, &wait_cycles))
                return 2;
        } else {
            fprintf(stderr, "npukit kt saxpy: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    int rc = kt_card_cli_open(&c);
    if (rc)
        return rc;
    kt_dev dev;
    const ktsim_config *cfg = ktsim_get_config(ktsim_card_mesh(c.card, 0));
    kt_options opt = {0};
    opt.stage_flits = cfg->stage_flits;
    if (kt_open(&dev, c.t, ktsim_card_ctrl_base(c.card, 0), &opt) != NPK_OK)
        return fail(&c, "kt saxpy --engine: opening the control window");
    kt_unit all[64], sx[MAX_UNITS];
    size_t nall = 0, nsx = 0;
    if (kt_enumerate(&dev, all, 64, &nall) != NPK_OK)
        return fail(&c, "kt saxpy --engine");
    for (size_t i = 0; i < nall && nsx < MAX_UNITS; i++)
        if (all[i].caps.type == SAXPY_TYPE)
            sx[nsx++] = all[i];
    if (!nsx) {
        fprintf(stderr, "npukit kt saxpy: no saxpy unit ('SX') in preset %s\n", cfg->name);
        kt_card_cli_close(&c);
        return 1;
    }
    size_t padded = (size_t)((n + 7) / 8 * 8);
    float *x = calloc(padded, 4), *y = calloc(padded, 4), *want = calloc(padded, 4), *got = calloc(padded, 4);
    kt_flit *prog = calloc(dev.opt.stage_flits, sizeof *prog);
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
    uint64_t mem = ktsim_card_mem_base(c.card, 0), eng = ktsim_card_engine_base(c.card);
    if (kt_write_block(c.t, mem + X_OFF, x, padded * 4) || kt_write_block(c.t, mem + Y_OFF, y, padded * 4))
        return fail(&c, "kt saxpy --engine: uploading x and y");
    kt_counters_reset(c.t); /* count the control plane's work from here, as `kt saxpy` does */
    sleeper sl = {c.card, wait_cycles};
    kt_hp_opts ho = {0, wait_cycles ? host_sleep : NULL, &sl};
    uint64_t chunks = (n + CHUNK - 1) / CHUNK, next = 0, programs = 0, commands = 0, engine_polls = 0;
    uint8_t txn = 0x40;
    while (next < chunks) {
        unsigned per = (unsigned)((chunks - next + nsx - 1) / nsx);
        if (per * nsx > dev.opt.stage_flits)
            per = dev.opt.stage_flits / (unsigned)nsx;
        unsigned slot = 0, base[MAX_UNITS], count[MAX_UNITS];
        for (size_t u = 0; u < nsx; u++) {
            base[u] = slot;
            count[u] = 0;
            for (unsigned k = 0; k < per && next < chunks; k++, next++) {
                uint64_t first = next * CHUNK;
                uint32_t len = (uint32_t)(n - first < CHUNK ? n - first : CHUNK);
                count[u]++;
                if (kt_saxpy_inst(&prog[slot++], len, (float)a, X_OFF + first * 4, Y_OFF + first * 4, txn, false))
                    return fail(&c, "kt saxpy --engine");
            }
            if (count[u])
                kt_flit_set_bits(&prog[slot - 1], 259, 1, 1);
        }
        /* One program: stage (setup), every dispatch, every wait, DONE. */
        kt_hostprog hp;
        kt_hp_init(&hp);
        kt_ticket tk[MAX_UNITS];
        npk_status s = kt_hp_stage(&hp, &dev, 0, prog, slot);
        /* kt_hp_dispatch emits the core's rule: a dispatch waits for the earlier program's
         * credit returns (PROG_CRED is one counter refilled from any node). */
        for (size_t u = 0; u < nsx && !s; u++)
            if (count[u])
                s = kt_hp_dispatch(&hp, &dev, &sx[u], base[u], count[u], 0, &tk[u]);
        for (size_t u = 0; u < nsx && !s; u++)
            if (count[u])
                s = kt_hp_await(&hp, &dev, &tk[u]);
        if (!s)
            s = kt_hp_done(&hp, txn);
        kt_hp_result r;
        if (!s)
            s = kt_hp_run_engine(c.t, eng, &hp, &ho, &r);
        for (size_t u = 0; u < nsx && !s; u++)
            if (count[u]) {
                programs++;
                s = kt_hp_check_ticket(&dev, &tk[u]);
            }
        commands += hp.n_cmds;
        engine_polls += r.polls;
        kt_hp_free(&hp);
        if (s)
            return fail(&c, "kt saxpy --engine");
        txn++;
    }
    size_t bad = 0;
    for (int poll = 0; poll < CHECK_POLLS; poll++) {
        if (kt_read_block(c.t, mem + Y_OFF, got, padded * 4))
            return fail(&c, "kt saxpy --engine: reading y");
        bad = 0;
        for (size_t i = 0; i < padded; i++)
            bad += memcmp(&got[i], &want[i], 4) != 0;
        if (!bad)
            break;
    }
    bool fault = kt_card_cli_report_fault(&c, "kt saxpy --engine");
    if (c.json) {
        printf("{\"form\": \"engine\", \"n\": %" PRIu64 ", \"a\": %g, \"units\": %zu, \"instructions\": %" PRIu64
               ", \"programs\": %" PRIu64 ", \"engine_commands\": %" PRIu64 ", \"engine_polls\": %" PRIu64
               ", \"mismatches\": %zu, \"ok\": %s, ",
               n, a, nsx, chunks, programs, commands, engine_polls, bad, bad || fault ? "false" : "true");
        kt_card_cli_print_counts(&c);
        printf("}\n");
    } else {
        printf("saxpy (engine): y = %g*x + y, n=%" PRIu64 " on %zu units: %" PRIu64 " instructions in %" PRIu64
               " programs, %" PRIu64 " engine commands, %" PRIu64 " polls run by the engine\n",
               a, n, nsx, chunks, programs, commands, engine_polls);
        printf("check: %s (%zu of %zu elements differ)\n", bad ? "MISMATCH" : "ok", bad, (size_t)n);
        kt_card_cli_print_counts(&c);
    }
    free(x);
    free(y);
    free(want);
    free(got);
    free(prog);
    kt_card_cli_close(&c);
    return bad || fault ? 1 : 0;
}
