/* SPDX-License-Identifier: MIT */
/* KohakuTPU: enumerate the compute units of a mesh through its AXI control window, on the
 * machine a spec names (kt_open.h): by default the simulated mesh of the bundled "default"
 * preset (found under share/npukit, or NPUKIT_DATA_DIR); or, for instance,
 *   kt_enumerate "pipe:npukit kt serve --sim card" card     (the card served over a pipe)
 *   kt_enumerate tcp:127.0.0.1:5555 card                    (a card harness on TCP)
 * where the second argument names the board's preset (its address map and STAGE_FLITS).
 *
 *   cc kt_enumerate.c $(pkg-config --cflags --libs npukit) -o kt_enumerate */
#include <stdio.h>

#include <npukit/kt.h>
#include <npukit/kt_open.h>

int main(int argc, char **argv)
{
    kt_open_opts mo = {0};
    mo.board = argc > 2 ? argv[2] : NULL;
    kt_machine *m;
    if (kt_open_spec(argc > 1 ? argv[1] : "sim:default", &mo, &m)) {
        fprintf(stderr, "%s\n", npk_last_error());
        return 1;
    }
    kt_dev dev;
    kt_options opt = {0};
    opt.stage_flits = kt_machine_board(m)->stage_flits; /* the hardware does not report it */
    kt_unit units[64];
    size_t n = 0;
    int rc = 1;
    if (kt_open(&dev, kt_machine_transport(m), kt_machine_ctrl_base(m, 0), &opt) ||
        kt_enumerate(&dev, units, 64, &n)) {
        fprintf(stderr, "%s\n", npk_last_error());
    } else {
        printf("%s, board %s:\n", kt_machine_kind(m), kt_machine_board(m)->name);
        for (size_t i = 0; i < n; i++)
            printf("(%u,%u) %s version %u, %u instruction slots\n", units[i].at.x, units[i].at.y,
                   units[i].type_text, units[i].caps.version, units[i].caps.inst_depth);
        rc = n == 0;
    }
    if (kt_machine_close(m)) {
        fprintf(stderr, "%s\n", npk_last_error());
        rc = 1;
    }
    return rc;
}
