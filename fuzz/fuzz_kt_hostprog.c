/* SPDX-License-Identifier: MIT */
/* libFuzzer target: any bytes as a KohakuTPU host-control program in text (kt prog's input):
 * parse, print both forms, parse the printed text again. Never a crash, a leak or a read past
 * the input; a program that parses prints text that parses to the same commands. */
#include <stdlib.h>
#include <string.h>

#include "npukit/kt_hostprog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    kt_hostprog p, q;
    kt_hp_init(&p);
    kt_hp_init(&q);
    if (kt_hp_parse(text, "fuzz", &p) == NPK_OK) {
        size_t need = kt_hp_to_text(&p, NULL, 0) + 1;
        char *out = malloc(need), listing[256];
        if (out) {
            kt_hp_to_text(&p, out, need);
            kt_hp_format(&p, listing, sizeof listing);
            if (kt_hp_parse(out, "fuzz-printed", &q) != NPK_OK || q.n_cmds != p.n_cmds ||
                q.n_setup != p.n_setup)
                abort(); /* the printer wrote text its own parser refuses */
        }
        free(out);
    }
    kt_hp_free(&p);
    kt_hp_free(&q);
    free(text);
    return 0;
}
