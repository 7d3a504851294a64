/* SPDX-License-Identifier: MIT */
/* KohakuTPU: enumerate the compute units of a mesh through its AXI control window — here the
 * simulated mesh of the bundled "default" preset (found under share/npukit, or NPUKIT_DATA_DIR).
 *
 *   cc kt_enumerate.c $(pkg-config --cflags --libs npukit) -o kt_enumerate */
#include <stdio.h>

#include <npukit/kt.h>
#include <npukit/ktsim.h>

int main(void)
{
    ktsim_config cfg;
    ktsim *sim;
    kt_dev dev;
    kt_options opt = {0};
    if (ktsim_preset_load("default", &cfg) || ktsim_create(&cfg, &sim)) {
        fprintf(stderr, "%s\n", npk_last_error());
        return 1;
    }
    opt.stage_flits = cfg.stage_flits;
    kt_unit units[64];
    size_t n = 0;
    int rc = 1;
    if (kt_open(&dev, ktsim_transport(sim), cfg.ctrl_base, &opt) || kt_enumerate(&dev, units, 64, &n)) {
        fprintf(stderr, "%s\n", npk_last_error());
    } else {
        for (size_t i = 0; i < n; i++)
            printf("(%u,%u) %s version %u, %u instruction slots\n", units[i].at.x, units[i].at.y,
                   units[i].type_text, units[i].caps.version, units[i].caps.inst_depth);
        rc = n == 0;
    }
    ktsim_destroy(sim);
    return rc;
}
