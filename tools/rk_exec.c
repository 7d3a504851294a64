/* SPDX-License-Identifier: MIT */
/* `npukit rk exec`: synthesize one matmul task, run it on the simulator with random operands,
 * compare with a CPU reference, print the errors, one status word (ok, mismatch, wedge, fault,
 * unsupported) and the modelled time. Exit status 0 only for ok.
 *
 * The driver's defences are applied unless --no-defences: ACT_RESET when the task enters
 * int8/int4 mode (hazard 3) and a warm-up submit on the fresh output buffer (hazard 1); the
 * task uses one stable feature buffer (hazard 2). Buffers are cacheable like ork's (flags
 * 0x403), so the raw hazards show without the defences: --no-defences runs a naive driver that
 * makes two calls, the second with its rows in the next buffer of a feature pool. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rk_operands.h"
#include "rk_opts.h"
#include "rk/device/rk_device.h"
#include "rk/device/rk_device_sim.h"
#include "npukit/rk_reference.h"
#include "npukit/rk_regcmd.h"
#include "rk/program/rk_sched.h"
#include "npukit/rksim.h"

/* NPU addresses are 32-bit IOVAs (facts B.1, I.3): no buffer can be larger. */
#define RK_EXEC_MAX_OPERAND (1ull << 32)

/* ork's data-buffer flags: NON_CONTIGUOUS | CACHEABLE | IOMMU_LIMIT_IOVA_ALIGNMENT (facts A.1). */
static const uint32_t EXEC_DATA_FLAGS = 0x403;
static const uint32_t EXEC_TIMEOUT_MS = 6000; /* the working userspace's timeout (facts A.1) */

typedef struct exec_opts {
    npk_rk_prec in, out;
    uint32_t m, k, n;
    int sched, mode, core;
    bool unchecked, ideal, no_defences, list_hazards;
    int kernel; /* index into exec_kernels */
    uint64_t seed;
    const npk_rk_soc *soc; /* --soc (NULL: the default row) */
} exec_opts;

/* The simulator's front ends: the kernel interface the task is submitted through, and so the
 * program form it is written in (rk_kernel.h). */
static const char *const exec_kernels[] = {"rknpu", "rocket", NULL};

/* The hazard table, one row a line: what docs/rk-simulator.md's table shows. */
static int list_hazards(void)
{
    for (unsigned i = 0; i < RKSIM_HZ_COUNT; i++) {
        const rksim_hazard *h = &rksim_hazards[i];
        printf("%u\t%s\t%s\t%s\t%s\n", h->id, h->name, rksim_kernels_name(h->kernels), h->source,
               h->scope);
    }
    return 0;
}

/* -1 to run, else the exit status. */
static int parse(int argc, char **argv, exec_opts *o)
{
    *o = (exec_opts){.in = NPK_PREC_FP16, .sched = NPK_SCHED_AUTO, .mode = -1, .seed = 1};
    rk_shape_opts so;
    rk_shape_opts_init(&so);
    const cli_opt own[] = {
        {.name = "--sched",
         .kind = CLI_CUSTOM,
         .dest = &o->sched,
         .parse = rk_parse_sched,
         .meta = "auto|0|1|chain",
         .help = "M-tiling schedule (default auto: the synthesizer's)"},
        {.name = "--core",
         .kind = CLI_INT,
         .dest = &o->core,
         .max = npk_rk_soc_default()->cores - 1,
         .meta = "C",
         .help = "the core that runs the task (default 0)"},
        {.name = "--seed",
         .kind = CLI_U64_HEX,
         .dest = &o->seed,
         .max = UINT64_MAX,
         .meta = "S",
         .help = "random operands' seed (default 1)"},
        {.name = "--kernel",
         .kind = CLI_CHOICE,
         .dest = &o->kernel,
         .choices = exec_kernels,
         .help = "the simulated kernel interface: the vendor rknpu (program enable 0x0D) or "
                 "mainline rocket (0x1D with the DPU_RDMA block)"},
        {.name = "--unchecked",
         .kind = CLI_FLAG,
         .dest = &o->unchecked,
         .help = "synthesize even when a hardware limit is broken"},
        {.name = "--ideal",
         .kind = CLI_FLAG,
         .dest = &o->ideal,
         .help = "every hazard in its ideal mode"},
        {.name = "--list-hazards",
         .kind = CLI_FLAG,
         .dest = &o->list_hazards,
         .help = "print the simulator's hazard table (number, name, kernels, source, why "
                 "those kernels; tab-separated) and exit"},
        {.name = "--no-defences",
         .kind = CLI_FLAG,
         .dest = &o->no_defences,
         .help = "a naive driver: no reset, no warm-up, a rotating feature buffer"},
        CLI_END,
    };
    const cli_opt *tables[] = {
        rk_shape_rows(&so, RK_OPT_SHAPE | RK_OPT_MODE | RK_OPT_SOC, UINT32_MAX), own, NULL};
    cli_spec spec = {.cmd = "rk exec",
                     .synopsis = "--dtype fp16|int8|int4 -m M -k K -n N [options]",
                     .about =
                         "one synthesized task on the simulator against a CPU reference; prints "
                         "ok, mismatch, wedge, fault or unsupported",
                     .tables = tables};
    int rc = cli_parse(&spec, argc, argv);
    if (rc >= 0)
        return rc;
    if (o->list_hazards)
        return list_hazards();
    if (!rk_shape_complete(&so, "rk exec"))
        return 2;
    o->in = so.in;
    o->out = so.out;
    o->m = so.m;
    o->k = so.k;
    o->n = so.n;
    o->mode = so.mode;
    o->soc = so.soc;
    return -1;
}

static const char *status_word(npk_status s, const rksim_report *r)
{
    if (s == NPK_EUNSUPPORTED)
        return "unsupported";
    if (r->outcome == RKSIM_FAULT)
        return "fault";
    return "wedge"; /* ETIMEDOUT, or a modelled crash */
}

/* One submit of the task, read back and compared; prints its errors line (prefixed by
 * `label` when there are several calls) and returns its status word. */
static const char *call(npk_rk_device *d, npk_rk_devtask *t, const exec_opts *o, const void *a,
                        const void *b, void *c, const char *label, uint32_t *hazards)
{
    struct rknpu_submit sub;
    npk_status s = npk_rk_devtask_submit(d, t, (unsigned)o->core, EXEC_TIMEOUT_MS, &sub);
    const rksim_report *rep = rksim_last_report(npk_rk_device_sim(d));
    *hazards |= rep->hazards;
    if (s == NPK_OK)
        s = npk_rk_devtask_read(d, t, c);
    if (label)
        printf("%s: ", label);
    if (s != NPK_OK) {
        printf("errors: none computed: %s\n", npk_last_error());
        if (rep->message[0] && !strstr(npk_last_error(), rep->message))
            printf("simulator: %s\n", rep->message);
        return status_word(s, rep);
    }
    /* the same verdict as rk matmul --check (npk_rk_check_matmul): exact integers, floats
     * within the bound that holds for any summation order */
    npk_rk_verdict v;
    if (npk_rk_check_matmul(o->in, o->out, o->m, o->k, o->n, a, b, c, &v) != NPK_OK) {
        printf("errors: not checked: %s\n", npk_last_error());
        return "unsupported";
    }
    printf("errors: max_abs %.6g, max_rel %.6g (|ref| up to %.6g), %llu of %zu outside "
           "the bound\n",
           v.max_abs, v.max_rel, v.ref_max, (unsigned long long)v.outside, (size_t)o->m * o->n);
    return v.outside ? "mismatch" : "ok";
}

static void print_hazards(uint32_t bits)
{
    printf("hazards:");
    if (!bits)
        printf(" none");
    for (unsigned i = 0; i < RKSIM_HZ_COUNT; i++)
        if (bits & RKSIM_HZ_BIT(rksim_hazards[i].id))
            printf(" %u:%s", rksim_hazards[i].id, rksim_hazards[i].name);
    printf("\n");
}

static int run(const exec_opts *o)
{
    rksim_config cfg;
    rksim_config_default(&cfg);
    cfg.soc = o->soc ? o->soc->name : NULL; /* --soc: the SoC the simulator models */
    if (o->ideal)
        cfg.ideal_mask = RKSIM_HZ_ALL;
    npk_rk_device *d;
    if ((o->kernel ? npk_rk_device_open_sim_rocket : npk_rk_device_open_sim)(&cfg, &d))
        return cli_lib_error("rk exec");
    npk_rk_mm mm = npk_rk_mm_default(o->in, o->m, o->k, o->n);
    mm.out = o->out;
    mm.soc = o->soc;
    mm.sched = o->sched;
    mm.mode = o->mode;
    mm.unchecked = o->unchecked;
    /* Each operand becomes one NPU buffer at a 32-bit IOVA: refuse what cannot fit before
     * allocating it (an --unchecked shape can ask for hundreds of GB). */
    const struct {
        char name;
        uint64_t bytes;
    } ops[3] = {{'A', (uint64_t)o->m * o->k * 2},
                {'B', (uint64_t)o->k * o->n * 2},
                {'C', (uint64_t)o->m * o->n * 4}};
    for (unsigned i = 0; i < 3; i++)
        if (ops[i].bytes > RK_EXEC_MAX_OPERAND) {
            fprintf(stderr,
                    "npukit: rk exec: %c of M=%u K=%u N=%u needs %llu bytes; one buffer must "
                    "fit the 32-bit IOVA space (at most %llu)\n",
                    ops[i].name, o->m, o->k, o->n, (unsigned long long)ops[i].bytes,
                    (unsigned long long)RK_EXEC_MAX_OPERAND);
            npk_rk_device_close(d);
            return 1;
        }
    void *a = calloc((size_t)o->m * o->k, 2), *b = calloc((size_t)o->k * o->n, 2);
    void *c = calloc((size_t)o->m * o->n, 4);
    npk_rk_devtask t;
    int rc = 1;
    if (!a || !b || !c) {
        fprintf(stderr, "npukit: rk exec: out of memory\n");
        goto out;
    }
    uint64_t rng = o->seed; /* advanced by each fill */
    rk_fill_random(o->in, a, (uint64_t)o->m * o->k, &rng);
    rk_fill_random(o->in, b, (uint64_t)o->k * o->n, &rng);

    /* the driver's int8/int4 entry defence comes first: a fresh device is not in integer mode */
    bool integer = o->in == NPK_PREC_INT8 || o->in == NPK_PREC_INT4;
    if (!o->no_defences && integer && npk_rk_action(d, RKNPU_ACT_RESET, NULL)) {
        rc = cli_lib_error("rk exec: ACT_RESET");
        goto out;
    }
    if (npk_rk_devtask_create(d, &mm, EXEC_DATA_FLAGS, &t)) {
        rc = cli_lib_error("rk exec: synthesis");
        goto out;
    }
    printf("rk exec: %s -> %s, M=%u K=%u N=%u, %s mode, sched %d (CBUF_CON0 0x%X), core %d, "
           "%s, defences %s, %s kernel (enable 0x%X, %zu entries)\n",
           npk_rk_prec_name(o->in), npk_rk_prec_name(o->out), o->m, o->k, o->n,
           t.info.mode == NPK_MODE_LINE ? "line" : "cube", t.info.sched, t.info.cbuf_con0, o->core,
           o->ideal ? "ideal" : "faithful", o->no_defences ? "off" : "on", t.form->name,
           (unsigned)t.form->enable, t.body_count);
    npk_status s = npk_rk_devtask_load(d, &t, a, b);
    uint32_t hazards = 0;
    const char *word = NULL;
    if (s) {
        rc = cli_lib_error("rk exec: load");
        npk_rk_devtask_destroy(d, &t);
        goto out;
    }
    if (!o->no_defences) {
        /* warm-up: one throwaway submit into the fresh output buffer (facts E.4) */
        struct rknpu_submit sub;
        s = npk_rk_devtask_submit(d, &t, (unsigned)o->core, EXEC_TIMEOUT_MS, &sub);
        hazards |= rksim_last_report(npk_rk_device_sim(d))->hazards;
        word = s ? status_word(s, rksim_last_report(npk_rk_device_sim(d))) : NULL;
        if (s)
            printf("warm-up: %s\n", npk_last_error());
        if (!s)
            word = call(d, &t, o, a, b, c, NULL, &hazards);
    } else {
        /* a naive driver: no reset, no warm-up, and the next call's rows go to the next
         * buffer of a 2-deep feature pool; each call is compared */
        word = call(d, &t, o, a, b, c, "call 1", &hazards);
        npk_rk_mem first = t.a, next;
        bool go = !strcmp(word, "ok") || !strcmp(word, "mismatch");
        if (go && npk_rk_mem_create(d, t.a.size, EXEC_DATA_FLAGS, &next) == NPK_OK) {
            /* the second call's rows: new random A, packed into the next buffer */
            rk_fill_random(o->in, a, (uint64_t)o->m * o->k, &rng);
            t.a = next;
            for (size_t i = 0; i < t.body_count; i++)
                if (npk_rk_reg_lookup(npk_rk_entry_target(t.body[i]),
                                      npk_rk_entry_reg(t.body[i])) ==
                    npk_rk_reg_info(NPK_REG_CNA_FEATURE_DATA_ADDR))
                    t.body[i] = npk_rk_entry_reg_write(NPK_REG_CNA_FEATURE_DATA_ADDR, next.iova);
            if (npk_rk_devtask_load(d, &t, a, b) == NPK_OK &&
                npk_rk_devtask_write_program(d, &t) == NPK_OK) {
                const char *w2 = call(d, &t, o, a, b, c, "call 2 (next feature buffer)", &hazards);
                if (!strcmp(word, "ok"))
                    word = w2;
            }
            t.a = first;
            npk_rk_mem_destroy(d, &next);
        }
    }
    const rksim_report *rep = rksim_last_report(npk_rk_device_sim(d));
    printf("modelled time: %.1f us (hw_elapse_time of the timing model, not a measurement)\n",
           rep->model_us);
    print_hazards(hazards);
    printf("status: %s\n", word);
    rc = !strcmp(word, "ok") ? 0 : 1;
    npk_rk_devtask_destroy(d, &t);
out:
    free(a);
    free(b);
    free(c);
    npk_rk_device_close(d);
    return rc;
}

int rk_exec_main(int argc, char **argv)
{
    exec_opts o;
    int rc = parse(argc, argv, &o);
    if (rc >= 0)
        return rc;
    return run(&o);
}
