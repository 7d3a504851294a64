/* SPDX-License-Identifier: MIT */
/* libFuzzer target: any bytes as a KohakuTPU mesh preset. Parsing must refuse or accept without
 * a crash; an accepted preset with a small DRAM is built into a simulator and torn down. */
#include <stdlib.h>
#include <string.h>

#include "npukit/ktsim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    ktsim_config cfg;
    ktsim *sim;
    if (ktsim_preset_parse(text, "fuzz", &cfg) == NPK_OK && cfg.dram_size <= (1u << 20) &&
        ktsim_create(&cfg, &sim) == NPK_OK)
        ktsim_destroy(sim);
    free(text);
    return 0;
}
