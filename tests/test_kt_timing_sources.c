/* SPDX-License-Identifier: MIT */
/* Every KohakuTPU timing number the simulator uses names its source, as the RK side's do: the
 * machine's FIFO depths, host costs and crossings (src/ktsim/timing.c), each unit type's timing
 * row (its own file) and each mover mode's row (src/ktsim/mover_timing.c). A source is a spec
 * section, a facts entry, a figure measured on the RTL, or says it is inferred. The machine's
 * rows are what ktsim_config_default puts in the configuration. */
#include <ctype.h>
#include <string.h>

#include "check.h"
#include "ktsim/mover.h"
#include "ktsim/shell.h"
#include "ktsim/timing.h"
#include "npukit/kt_mover_hw.h"

/* Names where its figure comes from. */
static bool cites(const char *source)
{
    static const char *const kinds[] = {"spec", "facts", "RTL", "inferred"};
    if (!source || !*source)
        return false;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strstr(source, kinds[i]))
            return true;
    return false;
}

static void check_source(const char *what, const char *source)
{
    if (!cites(source)) {
        CHECK(cites(source));
        fprintf(stderr, "  %s: source '%s' names no spec, facts, RTL or inferred origin\n", what,
                source ? source : "(none)");
    }
}

static void test_machine_numbers(void)
{
    size_t n = 0;
    const ksim_machine_number *rows = ksim_machine_numbers(&n);
    CHECK(n >= 11); /* depths (5), the FIFO model, host costs (2), crossings (3) */
    ktsim_config c;
    ktsim_config_default(&c);
    for (size_t i = 0; i < n; i++) {
        check_source(rows[i].field, rows[i].source);
        CHECK(rows[i].offset + sizeof(unsigned) <= sizeof c);
        unsigned v;
        memcpy(&v, (const unsigned char *)&c + rows[i].offset, sizeof v);
        CHECK_EQ(v, rows[i].value); /* the row is the default, not a copy of it */
        for (size_t j = 0; j < i; j++)
            CHECK(rows[j].offset != rows[i].offset && strcmp(rows[j].field, rows[i].field));
    }
    /* the facts' figures (noc_orchestrator, noc_cu_base, mag_mem_port, router, sync_fifo) */
    CHECK_EQ(c.tx_depth, 16);
    CHECK_EQ(c.rx_depth, 16);
    CHECK_EQ(c.router_fifo, 32);
    CHECK_EQ(c.recv_depth, 16);
    CHECK_EQ(c.mem_queue, 64);
    CHECK_EQ(c.sync_fifo_extra, 2);
}

static void test_unit_rows(void)
{
    unsigned timed = 0;
    for (unsigned i = 0; i < ksim_unit_count(); i++) {
        const ksim_unit_ops *u = ksim_unit_at(i);
        CHECK_EQ(ksim_unit_check(u), NPK_OK); /* the checks a registered type passes */
        if (!u->timing)
            continue;
        timed++;
        check_source(u->kind, u->timing_source);
    }
    CHECK(timed >= 1); /* saxpy */
}

static void test_mover_rows(void)
{
    unsigned rows = 0;
    for (unsigned mode = 0; mode < 16; mode++) {
        const ksim_mover_timing *t = ksim_mover_timing_row(mode);
        if (!t)
            continue;
        rows++;
        CHECK_EQ(t->mode, mode);
        check_source("mover mode", t->source);
    }
    CHECK_EQ(rows, 5); /* copy, gather, generate, fill, transform */
    CHECK(ksim_mover_timing_row(KT_MV_COPY) != NULL);
}

int main(void)
{
    test_machine_numbers();
    test_unit_rows();
    test_mover_rows();
    return check_done();
}
