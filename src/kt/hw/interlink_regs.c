/* SPDX-License-Identifier: MIT */
/* The interlink's sticky fault bits by name. */
#include <stdio.h>

#include "kt_interlink_hw.h"

static const char *const fault_names[] = {"RD_REMOTE", "ACK0", "SWITCH", "AXI", "INJ"};

const char *kt_il_fault_name(unsigned bit) { return bit < 5 ? fault_names[bit] : "?"; }

size_t kt_il_faults_text(uint8_t faults, char *buf, size_t len)
{
    size_t used = 0;
    if (len)
        buf[0] = 0;
    for (unsigned b = 0; b < 8; b++) {
        if (!(faults >> b & 1))
            continue;
        int k = snprintf(buf + (used < len ? used : len), used < len ? len - used : 0, "%s%s",
                         used ? "|" : "", b < 5 ? fault_names[b] : "bit?");
        if (k > 0)
            used += (size_t)k;
    }
    if (!used) {
        int k = snprintf(buf, len, "none");
        used = k > 0 ? (size_t)k : 0;
    }
    return used;
}
