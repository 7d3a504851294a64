/* SPDX-License-Identifier: MIT */
/* The rk subcommands of the runtime module. */
#include "cli.h"

int rk_matmul_main(int argc, char **argv);
int rk_ew_main(int argc, char **argv);
int rk_bench_main(int argc, char **argv);
int rk_info_main(int argc, char **argv);

const cli_command rk_runtime_commands[] = {
    {"matmul", "C = A . B of any shape on the NPU or the simulator, checked on the CPU",
     rk_matmul_main},
    {"ew", "C = A op B element-wise (add, mul, max, min) on the NPU's SDP, checked on the CPU",
     rk_ew_main},
    {"bench", "repeated matmuls: median GOP/s and host overhead per submit", rk_bench_main},
    {"info", "the device: SoC, cores, driver and hardware versions", rk_info_main},
    {NULL, NULL, NULL},
};
