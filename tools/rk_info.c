/* SPDX-License-Identifier: MIT */
/* `npukit rk info [--device D] [--json]`. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "rk_opts.h"
#include "npukit/rk.h"

int rk_info_main(int argc, char **argv)
{
    rk_shape_opts so;
    rk_shape_opts_init(&so);
    bool json = false;
    const cli_opt own[] = {
        {.name = "--json", .kind = CLI_FLAG, .dest = &json, .help = "machine-readable output"},
        CLI_END,
    };
    const cli_opt *tables[] = {rk_shape_rows(&so, RK_OPT_DEVICE, 0), own, NULL};
    cli_spec spec = {.cmd = "rk info",
                     .synopsis = "[options]",
                     .about = "the device: SoC, cores, driver and hardware versions",
                     .tables = tables};
    int rc = cli_parse(&spec, argc, argv);
    if (rc >= 0)
        return rc;
    const char *device = so.device;
    npk_rk *rt;
    npk_rk_info info;
    if (npk_rk_open(device, &rt))
        return cli_lib_error("rk info");
    npk_status s = npk_rk_query(rt, &info);
    npk_rk_close(rt);
    if (s)
        return cli_lib_error("rk info");
    char esc[6 * sizeof info.device + 1];
    if (json)
        printf("{\"device\":\"%s\",\"simulated\":%s,\"soc\":\"%s\",\"cores\":%u,"
               "\"drv_version\":%u,\"hw_version\":%u,\"kernel\":\"%s\"}\n",
               rk_json_escape(info.device, esc, sizeof esc), info.simulated ? "true" : "false",
               info.soc, info.cores, info.drv_version, info.hw_version, info.kernel);
    else
        printf("device %s%s\nkernel interface %s\nsoc %s, %u cores\n"
               "driver version %u, hardware version 0x%08x\n",
               info.device, info.simulated ? " (simulator)" : "", info.kernel, info.soc, info.cores,
               info.drv_version, info.hw_version);
    return 0;
}
