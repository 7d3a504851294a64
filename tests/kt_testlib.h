/* SPDX-License-Identifier: MIT */
/* Shared set-up of the KohakuTPU tests: a simulator built from a bundled preset, checked. */
#ifndef NPUKIT_TESTS_KT_TESTLIB_H
#define NPUKIT_TESTS_KT_TESTLIB_H

#include "check.h"
#include "npukit/ktsim.h"

enum { KT_GEN_PRESET = -1 /* keep the preset's own bitstream generation */ };

/* The preset `name` with generation `gen` (or KT_GEN_PRESET), its config copied to *cfg when cfg
 * is not NULL. A preset that does not load or build fails a CHECK and yields NULL. */
static inline ktsim *kt_test_sim(const char *name, int gen, ktsim_config *cfg)
{
    ktsim_config c;
    ktsim *s = NULL;
    CHECK_EQ(ktsim_preset_load(name, &c), NPK_OK);
    if (gen != KT_GEN_PRESET)
        c.gen = (ktsim_gen)gen;
    CHECK_EQ(ktsim_create(&c, &s), NPK_OK);
    if (cfg)
        *cfg = c;
    return s;
}

#endif
