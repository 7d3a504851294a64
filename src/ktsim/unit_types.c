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
extern const ksim_unit_ops ksim_unit_test, ksim_unit_saxpy;
static const ksim_unit_ops *const builtin[] = {&ksim_unit_test, &ksim_unit_saxpy};
enum { N_BUILTIN = sizeof builtin / sizeof builtin[0], MAX_REGISTERED = 16, KIND_MAX = 15 };

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

npk_status ksim_unit_register(const ksim_unit_ops *u)
{
    if (!u || !u->kind || !u->create || !u->destroy || !u->ready || !u->issue || !u->tick ||
        !u->recv)
        return npk_fail(NPK_EINVAL, "unit type: kind, create, destroy, ready, issue, tick and recv "
                                    "are required");
    size_t len = strlen(u->kind);
    if (!len || len > KIND_MAX)
        return npk_fail(NPK_ELIMIT, "unit type '%s': a kind is 1..%d characters", u->kind,
                        KIND_MAX);
    if (ksim_unit_find(u->kind))
        return npk_fail(NPK_EINVAL, "unit type '%s' is already in the table", u->kind);
    if (n_registered == MAX_REGISTERED)
        return npk_fail(NPK_ELIMIT, "unit type '%s': the table holds %d registered types", u->kind,
                        MAX_REGISTERED);
    if (u->timing && (!u->timing_source || !*u->timing_source))
        return npk_fail(NPK_EINVAL,
                        "unit type '%s': a timing row needs its source (timing_source: a spec "
                        "section, a facts entry, a figure measured on the RTL, or \"inferred\")",
                        u->kind);
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
