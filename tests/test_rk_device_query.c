/* SPDX-License-Identifier: MIT */
/* What a device says it is: the simulator backend reports itself as a model of the SoC the
 * simulator names, and the runtime learns its SoC and "simulated" from that query alone. */
#include <string.h>

#include "check.h"
#include "npukit/rk.h"
#include "rk/device/rk_device_sim.h"

int main(void)
{
    npk_rk_device *d = NULL;
    CHECK_EQ(npk_rk_device_open_sim(NULL, &d), NPK_OK);
    npk_rk_device_info info = {0};
    npk_rk_device_query(d, &info);
    CHECK(info.backend && !strcmp(info.backend, "sim"));
    CHECK(info.simulated);
    rksim *sim = npk_rk_device_sim(d);
    CHECK(sim != NULL);
    /* the SoC row is the one the simulator names, from the SoC table */
    CHECK(info.soc && sim && !strcmp(info.soc->name, rksim_soc_name(sim)));
    CHECK(info.soc == npk_rk_soc_find(rksim_soc_name(sim)));
    npk_rk_device_close(d);

    npk_rk *rt = NULL;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    npk_rk_info ri;
    CHECK_EQ(npk_rk_query(rt, &ri), NPK_OK);
    CHECK(ri.simulated);
    CHECK(ri.soc && !strcmp(ri.soc, "rk3588"));
    CHECK_EQ(ri.cores, npk_rk_soc_find("rk3588")->cores);
    npk_rk_close(rt);
    return check_done();
}
