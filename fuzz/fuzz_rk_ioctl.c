/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the argument handling behind the LD_PRELOAD shim. The input is a sequence of
 * rknpu requests — a request number, the struct size a program's header claims, and the struct's
 * bytes — issued in order to one simulator (so buffers created by one request can be mapped,
 * synced, submitted and destroyed by the next). Every request must be answered with a value or
 * an errno, never a crash; a dead simulator (a modelled kernel crash) is re-created. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/rknpu_uapi.h"
#include "npukit/rksim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rksim_config cfg;
    rksim_config_default(&cfg);
    cfg.timeout_scale = 0;
    rksim *sim;
    if (rksim_create(&cfg, &sim) != NPK_OK)
        return 0;
    size_t at = 0;
    for (unsigned n = 0; at + 2 <= size && n < 64; n++) {
        /* the rknpu requests (ACTION .. MEM_SYNC) and one past them; not DRM_IOCTL_VERSION,
         * whose struct holds pointers the caller owns */
        unsigned nr = 0x40 + data[at] % (RKNPU_NR_MEM_SYNC + 2), claimed = data[at + 1];
        at += 2;
        uint8_t arg[256] = {0};
        size_t take = size - at < claimed ? size - at : claimed;
        memcpy(arg, data + at, take);
        at += take;
        if (nr == 0x40 + RKNPU_NR_MEM_CREATE) {
            /* buffers up to 1 MiB: the 4 GiB IOVA space is the model's to refuse, but a fuzzer
             * process cannot hold gigabytes per input */
            uint64_t sz;
            memcpy(&sz, arg + offsetof(struct rknpu_mem_create, size), 8);
            sz %= 1u << 20;
            memcpy(arg + offsetof(struct rknpu_mem_create, size), &sz, 8);
        }
        rksim_ioctl(sim, RKNPU_DRM_IOWR(nr, claimed), arg);
    }
    rksim_destroy(sim);
    return 0;
}
