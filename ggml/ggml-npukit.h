/* SPDX-License-Identifier: MIT */
/* libggml-npukit's own functions, reached through ggml's registry:
 *
 *   ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(dev);
 *   ggml_npukit_counters_fn get = (ggml_npukit_counters_fn)
 *       ggml_backend_reg_get_proc_address(reg, GGML_NPUKIT_COUNTERS);
 *   ggml_npukit_counters c;
 *   get(dev, &c);
 *
 * Settings are environment variables (docs/ggml.md): NPUKIT_GGML_DEVICE, NPUKIT_GGML_OFFLOAD,
 * NPUKIT_GGML_CPU_GFLOPS, NPUKIT_GGML_CORES, NPUKIT_GGML_VERBOSE, NPUKIT_GGML_BATCH,
 * NPUKIT_GGML_WEIGHTS. */
#ifndef GGML_NPUKIT_H
#define GGML_NPUKIT_H

#include <stdint.h>

#include "ggml-backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a device has done since it was registered. */
typedef struct ggml_npukit_counters {
    uint64_t npu_matmuls;  /* MUL_MAT nodes computed by the device */
    uint64_t host_matmuls; /* weight matrices it computed on the host (beyond fp16's range) */
    uint64_t npu_calls;    /* runtime matmul calls (NPUKIT_GGML_BATCH=1: one per weight form of
                              a node, or of a run of independent MUL_MAT nodes; 0: one per
                              weight matrix) */
    uint64_t packs;        /* weight matrices packed into the NPU's layout */
    uint64_t npu_ns;       /* the runtime's NPU time (modelled on the simulator) */
    uint64_t host_ns;      /* host work: conversions, gathers, the runtime's host parts
                              (synth, pack, accumulate; syncs too on hardware, not on the
                              simulator, whose syncs copy its own memory) */
    uint64_t cpu_nodes;    /* nodes of its graphs ggml's CPU backend computed inside the
                              device's graph_compute: the layout copies it claims (host_copies)
                              and, in a whole graph given to it (ggml's RPC server), the nodes
                              it does not claim */
    uint64_t npu_elementwise;  /* UNARY and SOFT_MAX nodes computed by the device */
    uint64_t host_elementwise; /* those it computed on the host (a value beyond fp16's range) */
    uint64_t npu_matrices;     /* weight matrices multiplied on the NPU (items of the calls) */
    uint64_t submits;          /* the runtime's SUBMITs (warm-ups included) */
    uint64_t npu_pooling;      /* POOL_2D nodes computed by the device */
    uint64_t host_pooling;     /* those it computed on the host (a value beyond fp16's range) */
    uint64_t npu_convs;        /* CONV_2D nodes computed by the device */
    uint64_t host_convs;       /* those it computed on the host (a value beyond fp16's range) */
    uint64_t host_copies;      /* layout copies (CONT: a view made contiguous) ggml's CPU
                                  backend made inside its graph_compute: host work (counted in
                                  cpu_nodes too), never NPU work */
} ggml_npukit_counters;

#define GGML_NPUKIT_COUNTERS "ggml_npukit_counters"
typedef void (*ggml_npukit_counters_fn)(ggml_backend_dev_t dev, ggml_npukit_counters *out);

/* The offload decision for a MUL_MAT node: the modelled NPU and host time (microseconds), the
 * CPU estimate, and whether the device takes it under the current settings. */
typedef struct ggml_npukit_cost {
    double npu_us, host_us, cpu_us;
    int offload_by_cost; /* the cost model's decision */
    int offload;         /* the decision after NPUKIT_GGML_OFFLOAD */
} ggml_npukit_cost;

#define GGML_NPUKIT_COST "ggml_npukit_cost"
/* 0 on success; -1 for a node the device cannot compute. */
typedef int (*ggml_npukit_cost_fn)(ggml_backend_dev_t dev, const struct ggml_tensor *op,
                                   ggml_npukit_cost *out);

/* Re-read the environment settings (the offload policy, the CPU rate). */
#define GGML_NPUKIT_RELOAD "ggml_npukit_reload_settings"
typedef void (*ggml_npukit_reload_fn)(void);

#ifdef __cplusplus
}
#endif
#endif
