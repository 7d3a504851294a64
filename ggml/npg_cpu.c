/* SPDX-License-Identifier: MIT */
/* The nodes of a graph the device does not compute itself, computed by ggml's CPU backend
 * inside this backend's graph_compute. ggml_backend_sched never hands the device such a node
 * (supports_op declined it), but a program that gives the device a whole graph does:
 * ggml's RPC server, whose client offers the remote device every node. The device's buffers
 * are host memory in ggml's own layout, so the CPU backend computes on the same bytes: a run
 * of consecutive such nodes becomes one graph of the CPU backend, in order.
 *
 * The device also claims the layout copies listed below, so that a graph whose device op reads
 * a view made contiguous (ggml's CWHN convolutions: CONT of a permuted input, then a permuted
 * view of it) runs here whole instead of being declined. A copy is host work either way: the
 * CPU backend does it here, on the same bytes, and counts it as such (host_copies), never as
 * NPU work. offload_op stays false for it (it has no op row), and the `auto` policy, which
 * leaves every non-matmul node to the CPU, declines it too: the device pulls no copy of a CPU
 * graph away from the CPU. */
#define _POSIX_C_SOURCE 200809L /* sysconf */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "npg.h"

/* The stream's CPU backend, created at its first use with a thread per online CPU. */
static ggml_backend_t cpu_backend(npg_stream *s)
{
    if (s->cpu)
        return s->cpu;
    ggml_backend_dev_t dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    if (!dev)
        return NULL;
    s->cpu = ggml_backend_dev_init(dev, NULL);
    if (!s->cpu)
        return NULL;
    ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(dev);
    ggml_backend_set_n_threads_t set_threads =
        reg ? (ggml_backend_set_n_threads_t)ggml_backend_reg_get_proc_address(
                  reg, "ggml_backend_set_n_threads")
            : NULL;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (set_threads && cpus > 0)
        set_threads(s->cpu, (int)cpus);
    return s->cpu;
}

/* The layout copies the device claims: a view's bytes rewritten in ggml's contiguous order.
 * The view ops themselves (PERMUTE, VIEW, RESHAPE, TRANSPOSE) compute nothing. */
static const enum ggml_op host_copy_ops[] = {GGML_OP_CONT};

static bool is_host_copy(enum ggml_op op)
{
    for (size_t i = 0; i < sizeof host_copy_ops / sizeof host_copy_ops[0]; i++)
        if (host_copy_ops[i] == op)
            return true;
    return false;
}

bool npg_cpu_claims(const npg_device *d, const struct ggml_tensor *op)
{
    if (!is_host_copy(op->op) || !npg_wants(op, d->cores))
        return false;
    for (int i = 0; i < GGML_MAX_SRC; i++)
        if (op->src[i] && !npg_host_buffer_ok(op->src[i]))
            return false;
    ggml_backend_dev_t cpu = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    return npg_host_buffer_ok(op) && cpu && ggml_backend_dev_supports_op(cpu, op);
}

bool npg_cpu_compute(npg_stream *s, struct ggml_cgraph *g, int first, int end)
{
    ggml_backend_t cpu = cpu_backend(s);
    if (!cpu) {
        fprintf(stderr, "ggml-npukit: %s (%s) is not computed by this device and no CPU backend "
                        "is loaded to compute it\n",
                ggml_graph_node(g, first)->name, ggml_op_name(ggml_graph_node(g, first)->op));
        return false;
    }
    size_t n = (size_t)(end - first), copies = 0;
    struct ggml_init_params params = {
        .mem_size = ggml_graph_overhead_custom(n, false), .mem_buffer = NULL, .no_alloc = true};
    struct ggml_context *ctx = ggml_init(params);
    if (!ctx) {
        fprintf(stderr, "ggml-npukit: out of memory for a CPU graph of %zu nodes\n", n);
        return false;
    }
    struct ggml_cgraph *run = ggml_new_graph_custom(ctx, n, false);
    for (int i = first; i < end; i++) {
        ggml_graph_add_node(run, ggml_graph_node(g, i));
        copies += is_host_copy(ggml_graph_node(g, i)->op);
    }
    enum ggml_status st = ggml_backend_graph_compute(cpu, run);
    ggml_free(ctx);
    if (st != GGML_STATUS_SUCCESS) {
        fprintf(stderr, "ggml-npukit: the CPU backend failed nodes %d..%d (%s first): status %d\n",
                first, end - 1, ggml_graph_node(g, first)->name, (int)st);
        return false;
    }
    pthread_mutex_lock(&s->dev->lock);
    s->dev->counters.cpu_nodes += n;
    s->dev->counters.host_copies += copies;
    pthread_mutex_unlock(&s->dev->lock);
    return true;
}

void npg_cpu_free(npg_stream *s)
{
    if (s->cpu)
        ggml_backend_free(s->cpu);
    s->cpu = NULL;
}
