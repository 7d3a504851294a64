/* `npukit rk info [--device D] [--json]`. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "rk_opts.h"
#include "npukit/rk.h"

int rk_info_main(int argc, char **argv)
{
    const char *device = "auto";
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) {
            json = true;
        } else if (!strcmp(argv[i], "--device")) {
            if (!(device = cli_value(argc, argv, &i)))
                return 2;
        } else {
            bool help = !strcmp(argv[i], "-h") || !strcmp(argv[i], "--help");
            fprintf(help ? stdout : stderr,
                    "usage: npukit rk info [--device sim|npu|auto|PATH] [--json]\n");
            return help ? 0 : 2;
        }
    }
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
               "\"drv_version\":%u,\"hw_version\":%u}\n",
               rk_json_escape(info.device, esc, sizeof esc), info.simulated ? "true" : "false",
               info.soc, info.cores, info.drv_version, info.hw_version);
    else
        printf("device %s%s\nsoc %s, %u cores\ndriver version %u, hardware version 0x%08x\n",
               info.device, info.simulated ? " (simulator)" : "", info.soc, info.cores,
               info.drv_version, info.hw_version);
    return 0;
}
