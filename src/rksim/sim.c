/* SPDX-License-Identifier: MIT */
/* The simulator instance: configuration, creation, per-core reset, diagnostics. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/big_alloc.h"
#include "rksim/sim.h"

void rksim_config_default(rksim_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->ideal_mask = 0;        /* faithful */
    cfg->timeout_scale = 0.001; /* a 6000 ms submit timeout waits 6 ms */
    cfg->cores = 0;             /* every core of the SoC */
    cfg->soc = NULL;            /* the default row (rk3588) */
    cfg->weight_cache_mib = RKSIM_WEIGHT_CACHE_DEFAULT_MIB;
}

npk_status rksim_config_from_env(rksim_config *cfg)
{
    /* A value that does not parse is an error naming it: ignoring it would run the faithful
     * simulator while the user believes some hazards are off (or the reverse). */
    rksim_config c = *cfg;
    const char *ideal = getenv("NPUKIT_RKSIM_IDEAL");
    if (ideal && *ideal) {
        if (!strcmp(ideal, "all")) {
            c.ideal_mask = RKSIM_HZ_ALL;
        } else {
            /* "all", or a comma-separated list of hazard numbers ("1,3") */
            c.ideal_mask = 0;
            for (const char *p = ideal;;) {
                char *end;
                unsigned long n = strtoul(p, &end, 10);
                if (end == p || !isdigit((unsigned char)*p) || n < 1 || n > RKSIM_HZ_COUNT ||
                    (*end && *end != ','))
                    return npk_fail(NPK_EINVAL,
                                    "NPUKIT_RKSIM_IDEAL='%s': expected 'all' or hazard numbers "
                                    "1..%d separated by commas",
                                    ideal, RKSIM_HZ_COUNT);
                c.ideal_mask |= RKSIM_HZ_BIT(n);
                if (!*end)
                    break;
                p = end + 1;
            }
        }
    }
    const char *scale = getenv("NPUKIT_RKSIM_TIMEOUT_SCALE");
    if (scale && *scale) {
        char *end;
        double v = strtod(scale, &end);
        if (*end || !(v >= 0) || v > 1e6)
            return npk_fail(NPK_EINVAL,
                            "NPUKIT_RKSIM_TIMEOUT_SCALE='%s': expected a number in 0..1e6 "
                            "(1 waits the real submit timeout, 0 not at all)",
                            scale);
        c.timeout_scale = v;
    }
    const char *cache = getenv("NPUKIT_RKSIM_WEIGHT_CACHE_MIB");
    if (cache && *cache) {
        char *end;
        unsigned long v = strtoul(cache, &end, 10);
        if (*end || !isdigit((unsigned char)*cache) || v > RKSIM_WEIGHT_CACHE_MAX_MIB)
            return npk_fail(NPK_EINVAL,
                            "NPUKIT_RKSIM_WEIGHT_CACHE_MIB='%s': expected MiB in 0..%d (the "
                            "decoded weights the simulator keeps; 0: only the block in use)",
                            cache, RKSIM_WEIGHT_CACHE_MAX_MIB);
        c.weight_cache_mib = (uint32_t)v;
    }
    const char *soc = getenv("NPUKIT_RKSIM_SOC");
    if (soc && *soc) {
        const npk_rk_soc *row = npk_rk_soc_find(soc);
        if (!row)
            return npk_fail(NPK_EINVAL, "NPUKIT_RKSIM_SOC='%s': not a row of the SoC table", soc);
        c.soc = row->name;
    }
    *cfg = c;
    return NPK_OK;
}

npk_status rksim_create(const rksim_config *cfg, rksim **out)
{
    rksim_config def;
    if (!cfg) {
        rksim_config_default(&def);
        cfg = &def;
    }
    const npk_rk_soc *soc = cfg->soc ? npk_rk_soc_find(cfg->soc) : npk_rk_soc_default();
    if (!soc)
        return npk_fail(NPK_EINVAL, "rksim: soc '%s' is not a row of the SoC table (rk_soc.h)",
                        cfg->soc);
    if (soc->cores > RKSIM_MAX_CORES)
        return npk_fail(NPK_ELIMIT, "rksim: %s has %u cores, the model holds at most %d", soc->name,
                        soc->cores, RKSIM_MAX_CORES);
    if (cfg->cores > soc->cores)
        return npk_fail(NPK_EINVAL, "rksim: cores = %u, %s has 1..%u", cfg->cores, soc->name,
                        soc->cores);
    if (cfg->weight_cache_mib > RKSIM_WEIGHT_CACHE_MAX_MIB)
        return npk_fail(NPK_EINVAL, "rksim: weight_cache_mib = %u, at most %d",
                        cfg->weight_cache_mib, RKSIM_WEIGHT_CACHE_MAX_MIB);
    if (!(cfg->timeout_scale >= 0))
        return npk_fail(NPK_EINVAL, "rksim: timeout_scale = %g, must be >= 0", cfg->timeout_scale);
    rksim *s = calloc(1, sizeof *s);
    if (!s)
        return npk_fail(NPK_ENOMEM, "rksim: out of memory for the simulator state");
    s->cfg = *cfg;
    s->soc = soc;
    if (!s->cfg.cores)
        s->cfg.cores = soc->cores;
    s->cfg.soc = soc->name; /* the table's string, not the caller's */
    rksim_mem_init(&s->mem, rksim_faithful(s, RKSIM_HZ_STALE_FRESH_OUTPUT));
    for (unsigned i = 0; i < RKSIM_MAX_CORES; i++) {
        s->core[i].last_prec = -1;
        s->core[i].int_primed = false; /* power-on is not integer mode (hazard 3) */
    }
    /* The row's clock: the one the timing model's figures are fitted at, so GET_FREQ reads the
     * clock hw_elapse_time is modelled at (SET_FREQ then changes both). */
    s->freq_hz = soc->clock_mhz * 1000000u;
    *out = s;
    return NPK_OK;
}

const char *rksim_soc_name(const rksim *s) { return s->soc->name; }

void rksim_destroy(rksim *s)
{
    if (!s)
        return;
    for (unsigned i = 0; i < RKSIM_MAX_CORES; i++) {
        free(s->core[i].feat_cache);
        free(s->core[i].resident);
    }
    rksim_weights_free(s->weights);
    for (unsigned i = 0; i < RKSIM_SCRATCH_SLOTS; i++)
        npk_big_free(s->scratch[i], s->scratch_size[i]);
    if (s->rocket_free)
        s->rocket_free(s);
    rksim_mem_free(&s->mem);
    free(s);
}

void rksim_core_reset(rksim_core *c, bool soft_after_timeout)
{
    /* A reset clears the queue/wedge state and primes the integer mode (spec "State gotchas":
     * ACT_RESET on int8 entry; the kernel's own soft reset after a timeout recovers too). */
    /* the kernel's own soft reset after a timeout does not clear the storm count (hazard 5) */
    if (!soft_after_timeout)
        c->storm = 0;
    c->int_primed = true;
    c->feat_valid = false;
    c->resident_valid = false;
    memset(&c->regs, 0, sizeof c->regs);
}

void *rksim_scratch(rksim *s, unsigned slot, size_t bytes)
{
    if (bytes > s->scratch_size[slot]) {
        /* large operands on huge pages: fewer first-touch faults and TLB misses for the GEMM */
        npk_big_free(s->scratch[slot], s->scratch_size[slot]);
        s->scratch[slot] = npk_big_alloc(bytes);
        s->scratch_size[slot] = s->scratch[slot] ? bytes : 0;
    }
    return s->scratch[slot];
}

const rksim_report *rksim_last_report(const rksim *s) { return &s->report; }

bool rksim_is_dead(const rksim *s) { return s->dead; }

const char *rksim_outcome_name(rksim_outcome o)
{
    static const char *const names[] = {"ok", "wedge", "fault", "unsupported", "crash", "rejected"};
    return (unsigned)o < sizeof names / sizeof names[0] ? names[o] : "?";
}
