/* SPDX-License-Identifier: MIT */
/* The unit-type table: the one place the simulator learns which kinds of compute unit exist.
 * A type added by a program is one file registered at run time with ksim_unit_register
 * (tests/test_kt_unit_plugin.c adds one from the test tree). The library's own are the rows
 * below, each two files because the driver builds their instructions and may not reach into the
 * simulator: the instruction word as hardware (src/kt/hw/units/<kind>.c: CU_CAPS type code,
 * layout, codes, encoder) and the behaviour here (unit_<kind>.c: datapath, faults, timing row). */
#include <stdio.h>
#include <string.h>

#include "shell.h"

/* The library's own types, each defined in its unit_<kind>.c: a new one is a line here. */
extern const ksim_unit_ops ksim_unit_test, ksim_unit_saxpy, ksim_unit_mat, ksim_unit_vec,
    ksim_unit_rv32;
static const ksim_unit_ops *const builtin[] = {&ksim_unit_test, &ksim_unit_saxpy, &ksim_unit_mat,
                                               &ksim_unit_vec, &ksim_unit_rv32};
enum {
    N_BUILTIN = sizeof builtin / sizeof builtin[0],
    MAX_REGISTERED = 16,
    KIND_MAX = KTSIM_KIND_MAX - 1
};

static const ksim_unit_ops *registered[MAX_REGISTERED];
static unsigned n_registered;

unsigned ksim_unit_count(void) { return N_BUILTIN + n_registered; }

const ksim_unit_ops *ksim_unit_at(unsigned i)
{
    if (i < N_BUILTIN)
        return builtin[i];
    return i - N_BUILTIN < n_registered ? registered[i - N_BUILTIN] : NULL;
}

const ksim_unit_ops *ksim_unit_find(const char *kind)
{
    for (unsigned i = 0; i < ksim_unit_count(); i++)
        if (!strcmp(ksim_unit_at(i)->kind, kind))
            return ksim_unit_at(i);
    return NULL;
}

void ksim_unit_kinds(char *buf, size_t len, bool timed_only)
{
    size_t at = 0;
    if (len)
        buf[0] = '\0';
    for (unsigned i = 0; i < ksim_unit_count() && at < len; i++) {
        const ksim_unit_ops *u = ksim_unit_at(i);
        if (timed_only && !u->timing)
            continue;
        int n = snprintf(buf + at, len - at, "%s%s", at ? ", " : "", u->kind);
        at += n > 0 ? (size_t)n : 0;
    }
}

unsigned ksim_unit_keys(const ktsim_unit_key *keys)
{
    unsigned n = 0;
    while (keys && keys[n].name)
        n++;
    return n;
}

/* The keys of the shell every unit has: a type may not name them again. */
static const char *const shell_keys[] = {"type", "version", "n_buffers", "inst_depth",
                                         "reply_delay"};

/* A key table is at most KTSIM_UNIT_MAX_KEYS keys, each named once, none the shell's, each
 * default inside its range. */
static npk_status check_keys(const char *kind, const char *what, const ktsim_unit_key *keys)
{
    unsigned n = ksim_unit_keys(keys);
    if (n > KTSIM_UNIT_MAX_KEYS)
        return npk_fail(NPK_ELIMIT, "unit type '%s': %u %s keys, at most %d", kind, n, what,
                        KTSIM_UNIT_MAX_KEYS);
    for (unsigned i = 0; i < n; i++) {
        const ktsim_unit_key *k = &keys[i];
        for (size_t j = 0; j < sizeof shell_keys / sizeof shell_keys[0]; j++)
            if (!strcmp(k->name, shell_keys[j]))
                return npk_fail(NPK_EINVAL, "unit type '%s': %s key '%s' is the shell's", kind,
                                what, k->name);
        for (unsigned j = 0; j < i; j++)
            if (!strcmp(k->name, keys[j].name))
                return npk_fail(NPK_EINVAL, "unit type '%s': %s key '%s' named twice", kind, what,
                                k->name);
        if (k->min > k->max || k->def < k->min || k->def > k->max)
            return npk_fail(NPK_ELIMIT, "unit type '%s': %s key '%s' default %u outside %u..%u",
                            kind, what, k->name, k->def, k->min, k->max);
    }
    return NPK_OK;
}

void ksim_unit_settings_defaults(ktsim_unit_cfg *u, const ksim_unit_ops *ops)
{
    for (unsigned i = 0; i < ksim_unit_keys(ops->settings); i++)
        if (!(u->settings_given & 1u << i))
            u->setting[i] = ops->settings[i].def;
}

npk_status ksim_unit_check(const ksim_unit_ops *u)
{
    if (!u || !u->kind || !u->create || !u->destroy || !u->ready || !u->issue || !u->tick ||
        !u->recv)
        return npk_fail(NPK_EINVAL, "unit type: kind, create, destroy, ready, issue, tick and recv "
                                    "are required");
    size_t len = strlen(u->kind);
    if (!len || len > KIND_MAX)
        return npk_fail(NPK_ELIMIT, "unit type '%s': a kind is 1..%d characters", u->kind,
                        KIND_MAX);
    npk_status s = check_keys(u->kind, "setting", u->settings);
    if (!s)
        s = check_keys(u->kind, "timing", u->timing);
    if (s)
        return s;
    if (u->timing && (!u->timing_source || !*u->timing_source))
        return npk_fail(NPK_EINVAL,
                        "unit type '%s': a timing row needs its source (timing_source: a spec "
                        "section, a facts entry, a figure measured on the RTL, or \"inferred\")",
                        u->kind);
    return NPK_OK;
}

npk_status ksim_unit_register(const ksim_unit_ops *u)
{
    npk_status s = ksim_unit_check(u);
    if (s)
        return s;
    if (ksim_unit_find(u->kind))
        return npk_fail(NPK_EINVAL, "unit type '%s' is already in the table", u->kind);
    if (n_registered == MAX_REGISTERED)
        return npk_fail(NPK_ELIMIT, "unit type '%s': the table holds %d registered types", u->kind,
                        MAX_REGISTERED);
    if (u->timing) {
        unsigned timed = 0;
        for (unsigned i = 0; i < ksim_unit_count(); i++)
            timed += ksim_unit_at(i)->timing != NULL;
        if (timed >= KTSIM_MAX_TIMINGS)
            return npk_fail(NPK_ELIMIT,
                            "unit type '%s': %u types already have timing rows, at most %d",
                            u->kind, timed, KTSIM_MAX_TIMINGS);
    }
    registered[n_registered++] = u;
    return NPK_OK;
}
