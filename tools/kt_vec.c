/* SPDX-License-Identifier: MIT */
/* `npukit kt vec --kernel K -n N`: an elementwise kernel on the vector cores ('VC'). x and y are
 * FP16 in simulated DRAM; each vector core is loaded once with the kernel (npukit/kt_vec_job.h)
 * and then runs blocks of 128 elements, one short program each, the blocks dealt round-robin to
 * the cores a round at a time. z comes back as FP16 and is checked against the CPU: the
 * operation in double on the FP16 inputs, within one FP16 step of the result (the lanes round
 * to E8M15, then to FP16); how many are exactly the CPU's FP16 rounding is reported too. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kt_cli.h"
#include "npukit/fp16.h"
#include "npukit/kt_vec.h"
#include "npukit/kt_vec_job.h"

enum { VC_MAX_UNITS = 16, VC_MAX_ENUM = 64, VC_MAX_N = 1 << 20 };
static const double F16_MAX = 65504; /* FP16's largest finite */
static const uint64_t X_OFF = 0x100000, REGION = 0x100000;

typedef struct vec_job {
    kt_vec_kernel kernel;
    unsigned n;
    float a;
    uint16_t *x, *y, *z;
    uint64_t x_off, y_off, z_off;
    kt_unit vc[VC_MAX_UNITS];
    size_t nvc;
    uint64_t kernel_cycles; /* the RUNs' results, summed */
    unsigned runs;
} vec_job;

static void job_free(vec_job *j)
{
    free(j->x);
    free(j->y);
    free(j->z);
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The operation in double on the FP16 inputs. */
static double reference(const vec_job *j, size_t i)
{
    double x = npk_f16_to_f32(j->x[i]), y = npk_f16_to_f32(j->y[i]);
    switch (j->kernel) {
    case KT_VEC_K_AXPY: return (double)j->a * x + y;
    case KT_VEC_K_ADD: return x + y;
    case KT_VEC_K_MUL: return x * y;
    case KT_VEC_K_MAX: return x > y ? x : y;
    case KT_VEC_K_RELU: return x > 0 ? x : 0;
    case KT_VEC_K_EXP2: return exp2(x);
    case KT_VEC_K_LOG2: return log2(x);
    case KT_VEC_K_INV: return 1 / x;
    case KT_VEC_K_RSQRT: return 1 / sqrt(x);
    case KT_VEC_K_COUNT: break;
    }
    return NAN;
}

/* One FP16 step at v: 2^(e - 10) for a normal, 2^-24 below. */
static double f16_step(double v)
{
    int e;
    frexp(fabs(v), &e);
    return e - 1 < -14 ? 0x1p-24 : ldexp(1.0, e - 1 - 10);
}

/* z against the CPU's value: within one FP16 step of it (the lanes round to E8M15, then to
 * FP16), a finite value past FP16's range read as its largest (the lanes' store saturates), NaN
 * for NaN, an infinity for itself; log2 may be 2^-19 further off, its seed's error being
 * absolute near x = 1, where the result is small. */
static bool matches(const vec_job *j, double ref, double got)
{
    if (isnan(ref) || isnan(got))
        return isnan(ref) && isnan(got);
    if (got == ref)
        return true;
    if (isfinite(ref) && fabs(ref) > F16_MAX)
        ref = copysign(F16_MAX, ref);
    return fabs(got - ref) <= f16_step(ref) + (j->kernel == KT_VEC_K_LOG2 ? 0x1p-19 : 0);
}

static npk_status job_init(vec_job *j, kt_dev *dev, uint64_t mem, uint64_t dram, uint64_t seed,
                           const char *preset)
{
    kt_unit all[VC_MAX_ENUM];
    size_t nall = 0;
    npk_status s = kt_enumerate(dev, all, VC_MAX_ENUM, &nall);
    if (s)
        return s;
    for (size_t i = 0; i < nall && j->nvc < VC_MAX_UNITS; i++)
        if (all[i].caps.type == KT_VEC_TYPE)
            j->vc[j->nvc++] = all[i];
    if (!j->nvc)
        return npk_fail(NPK_ENODEV, "no vector core ('VC') in preset %s", preset);
    size_t bytes = ((size_t)j->n + KT_VEC_BLOCK - 1) / KT_VEC_BLOCK * KT_VEC_BLOCK * 2;
    uint64_t span = (bytes + REGION - 1) / REGION * REGION;
    j->x_off = X_OFF;
    j->y_off = j->x_off + span;
    j->z_off = j->y_off + span;
    if (j->z_off + span > dram)
        return npk_fail(NPK_ELIMIT,
                        "vec n=%u: operands and result end at 0x%" PRIx64
                        ", past the preset's DRAM of 0x%" PRIx64 " bytes",
                        j->n, j->z_off + span, dram);
    j->x = calloc(bytes / 2, 2);
    j->y = calloc(bytes / 2, 2);
    j->z = calloc(bytes / 2, 2);
    if (!j->x || !j->y || !j->z)
        return npk_fail(NPK_ENOMEM, "vec n=%u: out of memory", j->n);
    uint64_t st = seed;
    /* x in [-2, 2), or [0, 2] for the seeds defined on positive numbers only */
    bool positive = j->kernel == KT_VEC_K_LOG2 || j->kernel == KT_VEC_K_RSQRT;
    for (size_t i = 0; i < j->n; i++) {
        double x = (double)(splitmix(&st) >> 11) * 0x1p-51 - 2.0;
        j->x[i] = npk_f32_to_f16((float)(positive ? fabs(x) : x));
        j->y[i] = npk_f32_to_f16((float)((double)(splitmix(&st) >> 11) * 0x1p-51 - 2.0));
    }
    if ((s = kt_write_block(dev->t, mem + j->x_off, j->x, bytes)))
        return s;
    return kt_write_block(dev->t, mem + j->y_off, j->y, bytes);
}

/* Stage `per` flits for each of `units` cores from `vc` (program u at u * per), dispatch and
 * wait; with `runs`, each program's RUN result (the kernel's cycles) is summed. */
static npk_status run_round(kt_dev *dev, vec_job *j, const kt_unit *vc, size_t units,
                            const kt_flit *p, size_t per, bool runs)
{
    npk_status s = kt_stage(dev, 0, p, per * units);
    kt_ticket tk[VC_MAX_UNITS];
    memset(tk, 0, sizeof tk); /* expect_cycles 0: no estimate of the kernel's work */
    for (size_t u = 0; u < units && !s; u++)
        s = kt_dispatch(dev, &vc[u], (unsigned)(u * per), (unsigned)per, 0, &tk[u]);
    for (size_t u = 0; u < units && !s; u++) {
        kt_wait_result r = {0};
        s = kt_wait(dev, &tk[u], &r);
        if (s == NPK_EFAULT && r.fault_seen && kt_vec_fault_name(r.fault_arg))
            return npk_fail(NPK_EFAULT, "vector core (%u,%u): %s", vc[u].at.x, vc[u].at.y,
                            kt_vec_fault_name(r.fault_arg));
        if (!s && runs) {
            j->kernel_cycles += r.last.arg;
            j->runs++;
        }
    }
    return s;
}

static npk_status job_run(kt_dev *dev, vec_job *j)
{
    unsigned stage = dev->opt.stage_flits;
    size_t per_round = j->nvc < stage / KT_VEC_LOAD_FLITS ? j->nvc : stage / KT_VEC_LOAD_FLITS;
    kt_flit *p = calloc(per_round * KT_VEC_LOAD_FLITS, sizeof *p);
    if (!p)
        return npk_fail(NPK_ENOMEM, "vec: out of memory for the programs");
    /* load every core, a round at a time, then deal the blocks */
    size_t nload = 0;
    npk_status s = kt_vec_kernel_load(j->kernel, j->a, KT_VEC_TXN, p, &nload, &j->a);
    for (size_t u = 1; u < per_round && !s; u++)
        memcpy(p + u * nload, p, nload * sizeof *p);
    for (size_t first = 0; first < j->nvc && !s; first += per_round) {
        size_t units = j->nvc - first < per_round ? j->nvc - first : per_round;
        s = run_round(dev, j, j->vc + first, units, p, nload, false);
    }
    unsigned blocks = (j->n + KT_VEC_BLOCK - 1) / KT_VEC_BLOCK;
    for (unsigned next = 0; next < blocks && !s;) {
        size_t units = 0;
        for (; units < per_round && next < blocks && !s; units++, next++) {
            uint64_t at = (uint64_t)next * KT_VEC_BLOCK * 2;
            unsigned left = j->n - next * KT_VEC_BLOCK;
            s = kt_vec_kernel_block(j->kernel, left < KT_VEC_BLOCK ? left : KT_VEC_BLOCK,
                                    j->x_off + at, j->y_off + at, j->z_off + at, KT_VEC_TXN,
                                    p + units * KT_VEC_BLOCK_FLITS);
        }
        if (!s)
            s = run_round(dev, j, j->vc, units, p, KT_VEC_BLOCK_FLITS, true);
    }
    free(p);
    return s;
}

static int fail(kt_cli *c, vec_job *j, const char *what)
{
    int rc = cli_lib_error(what);
    job_free(j);
    kt_cli_close(c);
    return rc;
}

int kt_vec_main(int argc, char **argv)
{
    kt_cli c = {0};
    uint64_t n = 1000, seed = 1;
    const char *kernel = "axpy", *a_text = "1.5";
    const cli_opt own[] = {
        {.name = "--kernel",
         .kind = CLI_STR,
         .dest = &kernel,
         .meta = "K",
         .help = "axpy (a x + y), add, mul, max, relu, or a seed of x: exp2, log2, inv "
                 "(1/x), rsqrt (default axpy)"},
        {.name = "-n",
         .kind = CLI_U64,
         .dest = &n,
         .min = 1,
         .max = VC_MAX_N,
         .meta = "N",
         .help = "elements of x and y (default 1000)"},
        {.name = "-a",
         .kind = CLI_STR,
         .dest = &a_text,
         .meta = "A",
         .help = "axpy's scalar (default 1.5; the lanes use it rounded to E8M15)"},
        {.name = "--seed",
         .kind = CLI_U64,
         .dest = &seed,
         .max = UINT64_MAX,
         .meta = "S",
         .help = "the operands' generator seed (default 1)"},
        CLI_END,
    };
    const cli_opt *tables[] = {own, kt_cli_rows(&c.o), kt_cli_discovery_rows(&c.o),
                               kt_cli_wait_rows(&c.o), NULL};
    cli_spec spec = {.cmd = "kt vec",
                     .synopsis = "[--kernel K] [-n N] [-a A] [--seed S] [options]",
                     .about = "run an elementwise kernel on the vector cores and check it "
                              "(the simulator's preset mg2_vc2 unless --sim names another)",
                     .tables = tables};
    int rc = cli_parse(&spec, argc, argv);
    if (rc >= 0)
        return rc;
    vec_job j = {.n = (unsigned)n};
    if (kt_vec_kernel_find(kernel, &j.kernel))
        return cli_lib_error("kt vec");
    char *end = NULL;
    double a = strtod(a_text, &end);
    if (!*a_text || *end || !isfinite(a) || fabs(a) > F16_MAX) {
        fprintf(stderr, "npukit kt vec: -a %s: a finite number within FP16's range (65504)\n",
                a_text);
        return 2;
    }
    j.a = (float)a;
    if (!c.o.m.preset && !c.o.m.card)
        c.o.m.preset = "mg2_vc2";
    if ((rc = kt_cli_open(&c)))
        return rc;
    const kt_board *board = kt_machine_board(c.m);
    uint64_t mem = kt_machine_mem_base(c.m, 0);
    kt_transport *t = kt_machine_transport(c.m);
    if (job_init(&j, &c.dev, mem, board->dram_size, seed, board->name))
        return fail(&c, &j, "kt vec");
    kt_cli_pace(&c.dev, c.m, &c.o);
    kt_cli_span_begin(c.m);
    c.dev.waits = (kt_wait_stats){0};
    if (job_run(&c.dev, &j))
        return fail(&c, &j, "kt vec");
    kt_cli_span_end(c.m);
    size_t z_bytes = ((size_t)j.n + 15) / 16 * 32; /* the words the drains wrote */
    if (kt_read_block(t, mem + j.z_off, j.z, z_bytes))
        return fail(&c, &j, "kt vec: reading z");
    size_t bad = 0, exact = 0;
    for (size_t i = 0; i < j.n; i++) {
        double ref = reference(&j, i), got = npk_f16_to_f32(j.z[i]);
        bad += !matches(&j, ref, got);
        exact += j.z[i] == npk_f32_to_f16((float)ref) ||
                 (got == 0 && ref == 0) || /* a zero's sign is the lanes' */
                 (isnan(got) && isnan(ref));
    }
    char fault_text[512];
    const char *fault = kt_machine_fault(c.m, fault_text, sizeof fault_text) ? fault_text : NULL;
    int out = 0;
    if (c.o.json) {
        cJSON *doc = json_doc();
        json_str(doc, "kernel", kt_vec_kernel_name(j.kernel));
        json_u64(doc, "n", j.n);
        json_sig(doc, "a", j.a, 8);
        json_u64(doc, "cores", j.nvc);
        json_u64(doc, "runs", j.runs);
        json_u64(doc, "kernel_cycles", j.kernel_cycles);
        json_u64(doc, "mismatches", bad);
        json_u64(doc, "exact", exact);
        json_bool(doc, "ok", !bad && !fault);
        kt_cli_json_counts(doc, &c);
        kt_cli_json_waits(doc, &c.dev.waits);
        kt_cli_json_timing(doc, c.m);
        out = json_print(doc, "kt vec");
    } else {
        printf("vec: %s over n=%u", kt_vec_kernel_name(j.kernel), j.n);
        if (j.kernel == KT_VEC_K_AXPY)
            printf(" (a = %.9g)", j.a);
        printf(" on %zu vector cores: %u runs, %" PRIu64 " kernel cycles\n", j.nvc, j.runs,
               j.kernel_cycles);
        printf("check: %s (%zu of %u elements beyond one FP16 step of the CPU; %zu exactly its "
               "FP16 rounding)\n",
               bad ? "MISMATCH" : "ok", bad, j.n, exact);
        kt_cli_print_timing(c.m);
        kt_cli_print_counts(&c);
        kt_cli_print_waits(&c.dev.waits);
    }
    if (fault)
        fprintf(stderr, "npukit kt vec: %s: %s\n", kt_machine_sim(c.m) ? "simulator" : "machine",
                fault);
    job_free(&j);
    return kt_cli_close(&c) || bad || fault || out ? 1 : 0;
}
