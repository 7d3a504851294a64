/* SPDX-License-Identifier: MIT */
/* `npukit rk info [--device D] [--json]`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "cli.h"
#include "rk_opts.h"
#include "npukit/rk.h"

/* --soc NAME: the SoC row itself, each value with its source (no device is opened). */
static int print_soc(const npk_rk_soc *s, bool json)
{
    const npk_rk_soc_sources *src = &s->sources;
    const npk_rk_soc_timing *t = &s->timing;
    if (json) {
        cJSON *doc = json_doc();
        json_str(doc, "soc", s->name);
        json_bool(doc, "validated", s->validated);
        json_bool(doc, "encodings_described", s->encodings_described);
        json_u64(doc, "cores", s->cores);
        json_u64(doc, "cbuf_banks", s->cbuf_banks);
        json_u64(doc, "bank_bytes", s->bank_bytes);
        json_u64(doc, "cbuf_entry_bytes", s->cbuf_entry_bytes);
        json_u64(doc, "clock_mhz", s->clock_mhz);
        json_u64(doc, "hw_version", s->hw_version);
        json_u64(doc, "k_max_single", s->k_max_single);
        json_u64(doc, "n_max", s->n_max);
        json_u64(doc, "m_max", s->m_max);
        json_u64(doc, "grains_max", s->grains_max);
        cJSON *timing = json_obj(doc, "timing");
        json_sig(timing, "job_floor_us", t->job_floor_us, 6);
        json_sig(timing, "task_us", t->task_us, 6);
        json_sig(timing, "dma_bytes_per_s", t->dma_bytes_per_s, 6);
        cJSON *eff = json_obj(timing, "mac_efficiency");
        for (unsigned i = 0; i < NPK_RK_SOC_EFFICIENCIES; i++)
            json_sig(eff, npk_rk_prec_name(t->mac_efficiency[i].in), t->mac_efficiency[i].fraction,
                     6);
        return json_print(doc, "rk info");
    }
    printf("soc %s (%s%s)\n", s->name, s->validated ? "validated on a board" : "unvalidated",
           s->encodings_described ? ""
                                  : "; its register encodings are not described: the "
                                    "simulator refuses its programs");
    printf("cores            %u   [%s]\n", s->cores, src->cores);
    printf("cbuf             %u banks x %u bytes   [%s]\n", s->cbuf_banks, s->bank_bytes,
           src->cbuf);
    printf("cbuf entry       %u bytes   [%s]\n", s->cbuf_entry_bytes, src->cbuf_entry);
    printf("clock            %u MHz   [%s]\n", s->clock_mhz, src->clock);
    if (s->hw_version)
        printf("hardware version 0x%08x   [%s]\n", s->hw_version, src->hw_version);
    else
        printf("hardware version unknown   [%s]\n", src->hw_version);
    printf("limits           K %u, N %u, M %u, FEATURE_GRAINS %u   [%s]\n", s->k_max_single,
           s->n_max, s->m_max, s->grains_max, src->limits);
    printf("job floor        %g us   [%s]\n", t->job_floor_us, src->job_floor);
    printf("per task         %g us   [%s]\n", t->task_us, src->task);
    printf("DMA per core     %g GB/s   [%s]\n", t->dma_bytes_per_s / 1e9, src->dma);
    printf("MAC efficiency  ");
    for (unsigned i = 0; i < NPK_RK_SOC_EFFICIENCIES; i++)
        printf(" %s %g%%%s", npk_rk_prec_name(t->mac_efficiency[i].in),
               100 * t->mac_efficiency[i].fraction, i + 1 < NPK_RK_SOC_EFFICIENCIES ? "," : "");
    printf("   [%s]\n", src->mac_efficiency);
    return 0;
}

int rk_info_main(int argc, char **argv)
{
    rk_shape_opts so;
    rk_shape_opts_init(&so);
    bool json = false;
    const cli_opt own[] = {
        {.name = "--json", .kind = CLI_FLAG, .dest = &json, .help = "machine-readable output"},
        CLI_END,
    };
    const cli_opt *tables[] = {rk_shape_rows(&so, RK_OPT_DEVICE | RK_OPT_SOC, 0), own, NULL};
    cli_spec spec = {.cmd = "rk info",
                     .synopsis = "[options]",
                     .about = "the device: SoC, cores, driver and hardware versions; with --soc, "
                              "that SoC's row and each value's source",
                     .tables = tables};
    int rc = cli_parse(&spec, argc, argv);
    if (rc >= 0)
        return rc;
    if (so.soc)
        return print_soc(so.soc, json);
    const char *device = so.device;
    npk_rk *rt;
    npk_rk_info info;
    if (npk_rk_open(device, &rt))
        return cli_lib_error("rk info");
    npk_status s = npk_rk_query(rt, &info);
    npk_rk_close(rt);
    if (s)
        return cli_lib_error("rk info");
    if (json) {
        cJSON *doc = json_doc();
        json_str(doc, "device", info.device);
        json_bool(doc, "simulated", info.simulated);
        json_str(doc, "soc", info.soc);
        json_u64(doc, "cores", info.cores);
        json_u64(doc, "drv_version", info.drv_version);
        json_u64(doc, "hw_version", info.hw_version);
        json_str(doc, "kernel", info.kernel);
        json_u64(doc, "weight_spaces", info.weight_spaces);
        json_u64(doc, "weight_capacity", info.weight_capacity);
        return json_print(doc, "rk info");
    }
    printf("device %s%s\nkernel interface %s\nsoc %s, %u cores\n"
           "driver version %u, hardware version 0x%08x\n"
           "packed weights: up to %llu bytes over %u address space%s\n",
           info.device, info.simulated ? " (simulator)" : "", info.kernel, info.soc, info.cores,
           info.drv_version, info.hw_version, (unsigned long long)info.weight_capacity,
           info.weight_spaces, info.weight_spaces == 1 ? "" : "s");
    return 0;
}
