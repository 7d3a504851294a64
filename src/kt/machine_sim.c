/* SPDX-License-Identifier: MIT */
/* The simulator backend: the simulated card of a preset, in this process. */
#include <stdio.h>

#include "machine_backend.h"

#include "npukit/ktsim.h"

static npk_status sim_open(kt_machine *m, const char *spec, const char *arg, const kt_open_opts *o)
{
    (void)spec;
    const char *preset = arg ? arg : o->board ? o->board : "default";
    ktsim_config cfg;
    npk_status s = ktsim_preset_load(preset, &cfg);
    if (s)
        return s;
    if (o->engine && !cfg.engine)
        return npk_fail(NPK_EUNSUPPORTED,
                        "preset %s has no host control-program engine (engine 0): run the "
                        "program from the host instead",
                        preset);
    if (o->prestrobe)
        m->board.bitstream_current = false;
    ktsim_config_set_board(&cfg, &m->board); /* the bases the options override */
    ktsim_card_opts co = {m->meshes, false, o->engine, 0, 0, 0};
    if ((s = ktsim_card_create(&cfg, &co, &m->sim)))
        return s;
    m->t = ktsim_card_transport(m->sim);
    m->engine = o->engine;
    return NPK_OK; /* backdoor: the simulator's DRAM is in this process already */
}

static void sim_step(kt_machine *m, uint64_t cycles) { ktsim_card_step(m->sim, cycles); }

static bool sim_cycle(kt_machine *m, uint64_t *cycle)
{
    *cycle = ktsim_card_cycle(m->sim);
    return true;
}

static bool sim_fault(kt_machine *m, char *buf, size_t len)
{
    const char *f = ktsim_card_fault(m->sim);
    if (f)
        snprintf(buf, len, "%s", f);
    return f != NULL;
}

static npk_status sim_close(kt_machine *m)
{
    if (m->sim)
        ktsim_card_destroy(m->sim);
    return NPK_OK;
}

const kt_machine_backend kt_machine_sim_backend = {
    .kind = KT_MACHINE_SIM,
    .name = "simulator",
    .is_preset = true,
    .open = sim_open,
    .step = sim_step,
    .cycle = sim_cycle,
    .fault = sim_fault,
    .close = sim_close,
};
