/* SPDX-License-Identifier: MIT */
/* The shared rk shape options as option rows. Limits come from the library: the SoC table's
 * core counts, the runtime's chain limit, the planner's dimension limit. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "rk_opts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/rk.h"
#include "rk/device/rk_device.h"
#include "rk/program/rk_sched.h"
#include "npukit/rk_synth.h"

void rk_shape_opts_init(rk_shape_opts *o)
{
    memset(o, 0, sizeof *o);
    o->in = NPK_PREC_FP16;
    o->out = NPK_PREC_FP32;
    o->mode = -1;
    o->device = "auto";
    o->seed = 1;
}

static bool parse_prec(const cli_opt *row, const char *v, const char *cmd)
{
    if (!npk_rk_prec_parse(v, row->dest)) {
        fprintf(stderr, "npukit %s: %s '%s' is not a precision (fp16, int8, int4, fp32, ...)\n",
                cmd, row->name, v);
        return false;
    }
    return true;
}

static bool parse_soc(const cli_opt *row, const char *v, const char *cmd)
{
    const npk_rk_soc *soc = npk_rk_soc_find(v);
    if (!soc) {
        fprintf(stderr, "npukit %s: --soc '%s' is not one of", cmd, v);
        for (unsigned i = 0; i < npk_rk_soc_count(); i++)
            fprintf(stderr, "%s %s", i ? "," : "", npk_rk_soc_at(i)->name);
        fprintf(stderr, "\n");
        return false;
    }
    /* On stderr, so --json output stays clean: an unvalidated row's numbers are partly
     * assumed, and a program for the wrong part may complete and write nothing. */
    if (!soc->validated)
        fprintf(stderr, "npukit: warning: %s is not validated on a board (%s)\n", soc->name,
                soc->source);
    /* What a program for it is: the synthesizer writes the one encoding the facts describe,
     * which this part may not read, so the simulator opens the row but refuses to run it. */
    if (!soc->encodings_described)
        fprintf(stderr,
                "npukit: warning: %s's register encodings are not described: programs are "
                "written in %s's, and the simulator refuses to run them\n",
                soc->name, npk_rk_soc_default()->name);
    *(const npk_rk_soc **)row->dest = soc;
    /* The simulator a command opens models this SoC too (rksim_config_from_env reads it). */
    setenv("NPUKIT_RKSIM_SOC", soc->name, 1);
    return true;
}

/* The most cores of any SoC in the table: the runtime and the planner then check the chosen
 * SoC's own count. */
static unsigned max_cores(void) { return npk_rk_soc_max_cores(); }

/* "rk3588|rk3576": the table's names, so a new row shows in --help without an edit here. */
static const char *soc_names(void)
{
    static char buf[256];
    size_t n = 0;
    buf[0] = 0;
    for (unsigned i = 0; i < npk_rk_soc_count() && n < sizeof buf; i++)
        n +=
            (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", i ? "|" : "", npk_rk_soc_at(i)->name);
    return buf;
}

bool rk_soc_matches(const rk_shape_opts *o, const char *device_soc, const char *cmd)
{
    if (!o->soc || !device_soc || !strcmp(o->soc->name, device_soc))
        return true;
    fprintf(stderr,
            "npukit %s: --soc %s, but the device is %s (--soc chooses what the simulator "
            "models; a real NPU is what it is)\n",
            cmd, o->soc->name, device_soc);
    return false;
}

/* --soc's help, from the table: which row is the default, and what holds for the rows whose
 * register encodings the facts do not describe (planned and synthesized, never simulated). */
static const char *soc_help(void)
{
    static char buf[512];
    const char *def = npk_rk_soc_default()->name;
    size_t n =
        (size_t)snprintf(buf, sizeof buf, "the SoC row (default %s): limits, cores, timing", def);
    unsigned undescribed = 0;
    for (unsigned i = 0; i < npk_rk_soc_count() && n < sizeof buf; i++) {
        const npk_rk_soc *s = npk_rk_soc_at(i);
        if (s->encodings_described)
            continue;
        n +=
            (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", undescribed++ ? ", " : "; ", s->name);
    }
    if (undescribed && n < sizeof buf)
        snprintf(buf + n, sizeof buf - n,
                 ": encodings not described, programs are written in %s's and the simulator "
                 "refuses to run them",
                 def);
    return buf;
}

/* --device's placeholder: the device layer's names (one table) and a path. */
static const char *device_meta(void)
{
    static char meta[160];
    if (!meta[0])
        snprintf(meta, sizeof meta, "%s|PATH", npk_rk_device_names());
    return meta;
}

const cli_opt *rk_shape_rows(rk_shape_opts *o, unsigned groups, uint32_t max_dim)
{
    static const char *const modes[] = {"line", "cube", NULL}; /* = npk_rk_mode's values */
    const struct {
        unsigned group;
        cli_opt row;
    } all[RK_OPT_ROWS] = {
        {RK_OPT_SHAPE,
         {.name = "--dtype",
          .kind = CLI_CUSTOM,
          .dest = &o->in,
          .parse = parse_prec,
          .given = &o->have_in,
          .meta = "fp16|int8|int4",
          .help = "input precision"}},
        {RK_OPT_SHAPE,
         {.name = "--out",
          .kind = CLI_CUSTOM,
          .dest = &o->out,
          .parse = parse_prec,
          .given = &o->have_out,
          .meta = "P",
          .help = "output precision (default fp32 for fp16, int32 for int8/int4)"}},
        {RK_OPT_SHAPE,
         {.name = "-m",
          .kind = CLI_U32,
          .dest = &o->m,
          .min = 1,
          .max = max_dim,
          .given = &o->have_m,
          .meta = "M",
          .help = "rows of A and C"}},
        {RK_OPT_SHAPE,
         {.name = "-k",
          .kind = CLI_U32,
          .dest = &o->k,
          .min = 1,
          .max = max_dim,
          .given = &o->have_k,
          .meta = "K",
          .help = "columns of A, rows of B"}},
        {RK_OPT_SHAPE,
         {.name = "-n",
          .kind = CLI_U32,
          .dest = &o->n,
          .min = 1,
          .max = max_dim,
          .given = &o->have_n,
          .meta = "N",
          .help = "columns of B and C"}},
        {RK_OPT_MODE,
         {.name = "--mode",
          .kind = CLI_CHOICE,
          .dest = &o->mode,
          .choices = modes,
          .help = "feature/output geometry (default: the dtype's)"}},
        {RK_OPT_SOC,
         {.name = "--soc",
          .kind = CLI_CUSTOM,
          .dest = &o->soc,
          .parse = parse_soc,
          .meta = soc_names(),
          .help = soc_help()}},
        {RK_OPT_CORES,
         {.name = "--cores",
          .kind = CLI_INT,
          .dest = &o->cores,
          .min = 1,
          .max = max_cores(),
          .meta = "C",
          .help = "NPU cores to use"}},
        {RK_OPT_CHAIN,
         {.name = "--chain",
          .kind = CLI_INT,
          .dest = &o->chain,
          .min = 1,
          .max = NPK_RK_MAX_CHAIN,
          .meta = "T",
          .help = "tasks chained into one submit (default 1)"}},
        {RK_OPT_CHAIN,
         {.name = "--submit",
          .kind = CLI_STR,
          .dest = &o->submit,
          .meta = "FORM",
          .help = "submission form: auto (default: single, or multitask for int4 where the "
                  "cost model prefers it), single, chained, concat, multitask, nonblock, "
                  "rowoffset (rk bench: all)"}},
        {RK_OPT_DEVICE,
         {.name = "--device",
          .kind = CLI_STR,
          .dest = &o->device,
          .meta = device_meta(),
          .help = "(default auto: the NPU if present)"}},
        {RK_OPT_DEVICE,
         {.name = "--trace",
          .kind = CLI_CUSTOM,
          .parse = cli_parse_trace,
          .meta = "FILE",
          .help = "write a Chrome/Perfetto trace of the runtime's phases (as NPUKIT_TRACE=FILE)"}},
        {RK_OPT_SEED,
         {.name = "--seed",
          .kind = CLI_U64_HEX,
          .dest = &o->seed,
          .max = UINT64_MAX,
          .meta = "S",
          .help = "random operands' seed (default 1)"}},
        {0, CLI_END},
    };
    size_t n = 0;
    for (size_t i = 0; i < RK_OPT_ROWS; i++)
        if (all[i].group & groups)
            o->rows[n++] = all[i].row;
    o->rows[n] = (cli_opt)CLI_END;
    return o->rows;
}

/* --sched auto|0|1|chain: the synthesizer's choice or a fixed schedule (chain: an M-tile of
 * the PC-chained schedule, rk_cbuf.h). */
bool rk_parse_sched(const cli_opt *row, const char *v, const char *cmd)
{
    uint64_t x;
    if (!strcmp(v, "auto"))
        *(int *)row->dest = NPK_SCHED_AUTO;
    else if (!strcmp(v, "chain"))
        *(int *)row->dest = NPK_SCHED_CHAIN;
    else if (cli_number_scan(v, strlen(v), false, &x) == CLI_NUM_OK && x <= 1)
        *(int *)row->dest = (int)x;
    else {
        fprintf(stderr, "npukit %s: --sched '%s' is not auto, 0, 1 or chain\n", cmd, v);
        return false;
    }
    return true;
}

/* --imm V[,V2]: an SDP immediate, or batchnorm's scale and shift, into double[2] (finite). */
bool rk_parse_imm(const cli_opt *row, const char *value, const char *cmd)
{
    double *imm = row->dest;
    char *end = NULL;
    imm[0] = strtod(value, &end);
    if (end != value && *end == ',') {
        const char *second = end + 1;
        imm[1] = strtod(second, &end);
        if (end == second)
            end = NULL;
    }
    if (end && end != value && !*end && isfinite(imm[0]) && isfinite(imm[1]))
        return true;
    fprintf(stderr, "npukit: %s: --imm '%s' is not V or V,V2 (finite numbers)\n", cmd, value);
    return false;
}

bool rk_shape_complete(rk_shape_opts *o, const char *cmd)
{
    if (!o->have_in || !o->have_m || !o->have_k || !o->have_n) {
        fprintf(stderr, "npukit %s: needs --dtype, -m, -k and -n (npukit %s --help)\n", cmd, cmd);
        return false;
    }
    if (!o->have_out)
        o->out = npk_rk_default_out(o->in);
    return true;
}
