/* SPDX-License-Identifier: MIT */
/* The registry ("NPUKIT"), one device per runtime named in NPUKIT_GGML_DEVICE (default
 * "auto": the NPU if present, else the simulator, as npk_rk_open chooses), the backend
 * streams and graph_compute. The device is an accelerator beside the CPU backend
 * (GGML_BACKEND_DEVICE_TYPE_ACCEL): its buffers are host memory, so ggml_backend_sched runs
 * on the CPU whatever this device declines, on the same bytes. */
#define _POSIX_C_SOURCE 200809L /* strtok_r, sysconf */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npg.h"

static npg_device devices[NPG_MAX_DEVICES];
static size_t device_count;
static struct ggml_backend_reg reg;

static npg_device *dev_of(ggml_backend_dev_t dev) { return dev->context; }

/* ---- backend stream ---------------------------------------------------------------------- */

static npg_stream *stream_of(ggml_backend_t backend) { return backend->context; }

static const char *backend_name(ggml_backend_t backend) { return stream_of(backend)->dev->name; }

static void backend_free(ggml_backend_t backend)
{
    npg_cpu_free(stream_of(backend));
    free(backend->context);
    free(backend);
}

/* Ops that only re-describe bytes: nothing to compute. */
static bool is_view_op(enum ggml_op op)
{
    return op == GGML_OP_NONE || op == GGML_OP_RESHAPE || op == GGML_OP_VIEW ||
           op == GGML_OP_PERMUTE || op == GGML_OP_TRANSPOSE;
}

/* The ops the device computes: whether it can, and how. */
typedef struct npg_op_row {
    enum ggml_op op;
    bool (*can)(const struct ggml_tensor *node);
    bool (*compute)(npg_device *d, struct ggml_tensor *node);
    bool sdp; /* runs as SDP tasks: only where the kernel takes them */
    /* the node runs on the PDP only: where the kernel completes PDP tasks (NULL: never) */
    bool (*needs_pdp)(const struct ggml_tensor *node);
} npg_op_row;

static const npg_op_row op_rows[] = {
    {GGML_OP_MUL_MAT, npg_can_mul_mat, npg_mul_mat, false},
    {GGML_OP_MUL_MAT_ID, npg_can_mul_mat_id, npg_mul_mat_id, false},
    {GGML_OP_UNARY, npg_can_unary, npg_unary, true},
    {GGML_OP_SOFT_MAX, npg_can_soft_max, npg_soft_max, true},
    {GGML_OP_POOL_2D, npg_can_pool_2d, npg_pool_2d, false, npg_pool_2d_needs_pdp},
    {GGML_OP_CONV_2D, npg_can_conv_2d, npg_conv_2d, false, NULL},
};

static const npg_op_row *op_row(enum ggml_op op)
{
    for (size_t i = 0; i < sizeof op_rows / sizeof op_rows[0]; i++)
        if (op_rows[i].op == op)
            return &op_rows[i];
    return NULL;
}

/* The row that computes node on the device, or NULL when the device does not take it: an op
 * it has no row for, an SDP op on a kernel that runs no SDP tasks, a PDP-only node (max
 * pooling) on a kernel that does not complete PDP tasks, one it cannot compute, or one the
 * offload policy leaves to the CPU. */
static const npg_op_row *computed_here(const npg_device *d, const struct ggml_tensor *node)
{
    const npg_op_row *row = op_row(node->op);
    return row && (!row->sdp || d->sdp) && (!row->needs_pdp || d->pdp || !row->needs_pdp(node)) &&
                   row->can(node) && npg_wants(node, d->cores)
               ? row
               : NULL;
}

/* x's and y's bytes overlap. */
static bool overlaps(const struct ggml_tensor *x, const struct ggml_tensor *y)
{
    const uint8_t *xl = x->data, *yl = y->data;
    return xl < yl + ggml_nbytes(y) && yl < xl + ggml_nbytes(x);
}

/* The most MUL_MAT nodes one batch gathers (their matrices become one runtime call), and the
 * most other nodes a batch looks past for more. */
#define NPG_GROUP_MAX 64
#define NPG_GROUP_LOOK_PAST 16

/* node reads bytes of t (any of its sources overlaps t). */
static bool reads(const struct ggml_tensor *node, const struct ggml_tensor *t)
{
    for (int s = 0; s < GGML_MAX_SRC; s++)
        if (node->src[s] && overlaps(node->src[s], t))
            return true;
    return false;
}

/* Node `later` can run before `earlier` (which precedes it in the graph) with the same results:
 * neither reads what the other writes, and they write different bytes. */
static bool can_pass(const struct ggml_tensor *later, const struct ggml_tensor *earlier)
{
    return !reads(later, earlier) && !reads(earlier, later) && !overlaps(later, earlier);
}

/* The MUL_MAT nodes that run as one batch with node i: the MUL_MAT nodes the device takes that
 * follow it and can run at its place — they read nothing the batch writes, and they can pass
 * every node between (up to NPG_GROUP_LOOK_PAST of them, view ops aside) that stays behind:
 * the projections of one input at decode (Q, K, V, with Q's rope between them in llama.cpp's
 * graphs; gate and up). Their results are written after every one of them has read its
 * operands; the nodes left behind run after the batch, in order. Marks the batched nodes in
 * done[] and returns how many it put in group[] (group[0] = node i). */
static int mul_mat_group(const npg_device *d, struct ggml_cgraph *g, int i,
                         struct ggml_tensor **group, bool *done)
{
    const int n = ggml_graph_n_nodes(g);
    const struct ggml_tensor *behind[NPG_GROUP_LOOK_PAST];
    int count = 1, left = 0;
    group[0] = ggml_graph_node(g, i);
    for (int j = i + 1; npg_settings_get()->batch && j < n && count < NPG_GROUP_MAX; j++) {
        struct ggml_tensor *node = ggml_graph_node(g, j);
        if (done[j] || is_view_op(node->op) || ggml_is_empty(node))
            continue;
        bool joins = node->op == GGML_OP_MUL_MAT && computed_here(d, node);
        for (int k = 0; joins && k < count; k++)
            joins = !reads(node, group[k]);
        for (int k = 0; joins && k < left; k++)
            joins = can_pass(node, behind[k]);
        if (joins) {
            group[count++] = node;
            done[j] = true;
        } else if (left < NPG_GROUP_LOOK_PAST) {
            behind[left++] = node;
        } else {
            break;
        }
    }
    return count;
}

/* Every node: the device's own on the NPU; a run of consecutive others on ggml's CPU backend
 * (ggml_backend_sched gives the device only what supports_op claimed, ggml's RPC server gives
 * it the whole graph). */
static enum ggml_status backend_graph_compute(ggml_backend_t backend, struct ggml_cgraph *g)
{
    npg_stream *s = stream_of(backend);
    npg_device *d = s->dev;
    const int n = ggml_graph_n_nodes(g);
    bool *done = calloc((size_t)n + 1, sizeof *done); /* nodes a batch ran ahead of their turn */
    if (!done)
        return GGML_STATUS_ALLOC_FAILED;
    enum ggml_status status = GGML_STATUS_SUCCESS;
    for (int i = 0; i < n && status == GGML_STATUS_SUCCESS;) {
        struct ggml_tensor *node = ggml_graph_node(g, i);
        if (done[i] || is_view_op(node->op) || ggml_is_empty(node)) {
            i++;
            continue;
        }
        const npg_op_row *row = computed_here(d, node);
        if (!row) {
            int end = i + 1; /* a batched node is one the device takes: the run stops there */
            while (end < n && !computed_here(d, ggml_graph_node(g, end)))
                end++;
            if (!npg_cpu_compute(s, g, i, end))
                status = GGML_STATUS_FAILED;
            for (; i < end; i++) /* packed copies of what the CPU overwrote are stale */
                npg_buffer_invalidate(ggml_graph_node(g, i)->buffer, ggml_graph_node(g, i)->data,
                                      ggml_nbytes(ggml_graph_node(g, i)));
            continue;
        }
        struct ggml_tensor *group[NPG_GROUP_MAX] = {node};
        int count = 1;
        if (node->op == GGML_OP_MUL_MAT)
            count = mul_mat_group(d, g, i, group, done);
        pthread_mutex_lock(&d->lock);
        bool ok = count > 1 ? npg_mul_mat_nodes(d, group, count) : row->compute(d, node);
        pthread_mutex_unlock(&d->lock);
        if (!ok)
            status = GGML_STATUS_FAILED;
        /* packed copies of what these nodes overwrote are stale */
        for (int k = 0; k < count; k++)
            npg_buffer_invalidate(group[k]->buffer, group[k]->data, ggml_nbytes(group[k]));
        i++;
    }
    free(done);
    return status;
}

static const struct ggml_backend_i backend_iface = {
    .get_name = backend_name,
    .free = backend_free,
    .graph_compute = backend_graph_compute,
};

static ggml_guid_t backend_guid(void)
{
    static ggml_guid guid = {0x6e, 0x70, 0x75, 0x6b, 0x69, 0x74, 0x2d, 0x72,
                             0x6b, 0x2d, 0x67, 0x67, 0x6d, 0x6c, 0x00, 0x01};
    return &guid;
}

/* ---- device ------------------------------------------------------------------------------ */

static const char *dev_name(ggml_backend_dev_t dev) { return dev_of(dev)->name; }

static const char *dev_description(ggml_backend_dev_t dev) { return dev_of(dev)->description; }

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* What the device can really hold: its packed weights live in the host's memory and in the
 * NPU's address spaces (the runtime's weight capacity: rknpu's IOMMU domains, or rocket's
 * cores' files, weights split by core), so the smaller of the two, less what packed weights
 * already hold of the address spaces. llama.cpp fits layers by this. */
static void dev_memory(ggml_backend_dev_t dev, size_t *free_bytes, size_t *total)
{
    npg_device *d = dev_of(dev);
    long page = sysconf(_SC_PAGESIZE), pages = sysconf(_SC_PHYS_PAGES),
         avail = sysconf(_SC_AVPHYS_PAGES);
    uint64_t host_total = page > 0 && pages > 0 ? (uint64_t)page * (uint64_t)pages : 0;
    uint64_t host_free = page > 0 && avail > 0 ? (uint64_t)page * (uint64_t)avail : 0;
    npk_rk_info info = {0};
    pthread_mutex_lock(&d->lock);
    bool known = npk_rk_query(d->rt, &info) == NPK_OK;
    uint64_t held = d->resident;
    pthread_mutex_unlock(&d->lock);
    uint64_t space = known ? info.weight_capacity : NPG_ADDRESS_SPACE;
    held = known && info.weight_used > held ? info.weight_used : held;
    held = held < space ? held : space;
    *total = (size_t)min_u64(host_total, space);
    *free_bytes = (size_t)min_u64(host_free, space - held);
}

static enum ggml_backend_dev_type dev_type(ggml_backend_dev_t dev)
{
    (void)dev;
    return GGML_BACKEND_DEVICE_TYPE_ACCEL;
}

static void dev_props(ggml_backend_dev_t dev, struct ggml_backend_dev_props *props)
{
    memset(props, 0, sizeof *props);
    props->name = dev_name(dev);
    props->description = dev_description(dev);
    props->type = dev_type(dev);
    dev_memory(dev, &props->memory_free, &props->memory_total);
}

static ggml_backend_t dev_init_backend(ggml_backend_dev_t dev, const char *params)
{
    (void)params;
    ggml_backend_t b = calloc(1, sizeof *b);
    npg_stream *s = calloc(1, sizeof *s);
    if (!b || !s) {
        free(b);
        free(s);
        return NULL;
    }
    s->dev = dev_of(dev);
    b->guid = backend_guid();
    b->iface = backend_iface;
    b->device = dev;
    b->context = s;
    return b;
}

static ggml_backend_buffer_type_t dev_buffer_type(ggml_backend_dev_t dev)
{
    return &dev_of(dev)->buft;
}

/* op's weight is being placed: a matmul whose src0 sits in one of our buffers without bytes
 * yet. llama.cpp places each weight in the first buffer type whose device computes a 512-row
 * matmul with it there (an empty buffer of that type, the weight not yet allocated). */
static bool placing_weight(const struct ggml_tensor *op)
{
    const struct ggml_tensor *w = op->src[0];
    return (op->op == GGML_OP_MUL_MAT || op->op == GGML_OP_MUL_MAT_ID) && w && !w->data &&
           w->buffer && npg_buft_is_ours(w->buffer->buft);
}

static bool dev_supports_op(ggml_backend_dev_t dev, const struct ggml_tensor *op)
{
    if (is_view_op(op->op))
        return true;
    /* a weight the CPU would keep repacked is left to it: decode (which the cost policy leaves
     * to the CPU) keeps the CPU's fast kernels, and the matmuls worth the NPU still come here,
     * read from the CPU's repack buffer (npg_repack.c) */
    if (placing_weight(op) && npg_repack_cpu_keeps(op))
        return false;
    /* a layout copy is claimed for the CPU backend to make inside graph_compute (npg_cpu.c) */
    return computed_here(dev_of(dev), op) != NULL || npg_cpu_claims(dev_of(dev), op);
}

/* Our buffers, any host buffer (read in place: the device works in host memory), and the CPU's
 * repack buffer (its weights unpacked once, when the device packs its copy). */
static bool dev_supports_buft(ggml_backend_dev_t dev, ggml_backend_buffer_type_t buft)
{
    (void)dev;
    return npg_buft_is_ours(buft) || ggml_backend_buft_is_host(buft) ||
           (buft && buft == npg_repack_buft());
}

static bool dev_offload_op(ggml_backend_dev_t dev, const struct ggml_tensor *op)
{
    return op_row(op->op) && dev_supports_op(dev, op);
}

static const struct ggml_backend_device_i device_iface = {
    .get_name = dev_name,
    .get_description = dev_description,
    .get_memory = dev_memory,
    .get_type = dev_type,
    .get_props = dev_props,
    .init_backend = dev_init_backend,
    .get_buffer_type = dev_buffer_type,
    .supports_op = dev_supports_op,
    .supports_buft = dev_supports_buft,
    .offload_op = dev_offload_op,
};

/* ---- registry's own functions (ggml-npukit.h) -------------------------------------------- */

static void counters(ggml_backend_dev_t dev, ggml_npukit_counters *out)
{
    npg_device *d = dev_of(dev);
    pthread_mutex_lock(&d->lock);
    *out = d->counters;
    pthread_mutex_unlock(&d->lock);
}

static int cost(ggml_backend_dev_t dev, const struct ggml_tensor *op, ggml_npukit_cost *out)
{
    npg_cost c;
    if (!npg_mul_mat_cost(op, dev_of(dev)->cores, &c))
        return -1;
    *out = (ggml_npukit_cost){.npu_us = c.npu_us,
                              .host_us = c.host_us,
                              .cpu_us = c.cpu_us,
                              .offload_by_cost = c.offload,
                              .offload = dev_supports_op(dev, op)};
    return 0;
}

static const struct proc_row {
    const char *name;
    void *fn;
} proc_rows[] = {
    {GGML_NPUKIT_COUNTERS, (void *)counters},
    {GGML_NPUKIT_COST, (void *)cost},
    {GGML_NPUKIT_RELOAD, (void *)npg_settings_reload},
};

static void *reg_proc(ggml_backend_reg_t r, const char *name)
{
    (void)r;
    for (size_t i = 0; i < sizeof proc_rows / sizeof proc_rows[0]; i++)
        if (strcmp(name, proc_rows[i].name) == 0)
            return proc_rows[i].fn;
    return NULL;
}

/* ---- registry ----------------------------------------------------------------------------- */

static const char *reg_name(ggml_backend_reg_t r)
{
    (void)r;
    return "NPUKIT";
}

static size_t reg_device_count(ggml_backend_reg_t r)
{
    (void)r;
    return device_count;
}

static ggml_backend_dev_t reg_device(ggml_backend_reg_t r, size_t i)
{
    (void)r;
    return i < device_count ? &devices[i].dev : NULL;
}

static const struct ggml_backend_reg_i reg_iface = {
    .get_name = reg_name,
    .get_device_count = reg_device_count,
    .get_device = reg_device,
    .get_proc_address = reg_proc,
};

/* Open the runtime named `open_name` as device number device_count (false: reported). */
static bool device_open(const char *open_name)
{
    npg_device *d = &devices[device_count];
    npk_rk_info info;
    npk_status st = npk_rk_open(open_name, &d->rt);
    if (st == NPK_OK && (st = npk_rk_query(d->rt, &info)) != NPK_OK)
        npk_rk_close(d->rt);
    if (st != NPK_OK) {
        fprintf(stderr, "ggml-npukit: device \"%s\" not opened: %s: %s\n", open_name,
                npk_status_name(st), npk_last_error());
        return false;
    }
    unsigned cores = npg_settings_get()->cores;
    if (cores && (st = npk_rk_set_cores(d->rt, cores)) != NPK_OK) {
        fprintf(stderr, "ggml-npukit: device \"%s\": NPUKIT_GGML_CORES=%u: %s\n", open_name, cores,
                npk_last_error());
        npk_rk_close(d->rt);
        return false;
    }
    unsigned chain = npg_settings_get()->chain;
    if ((st = npk_rk_set_chain(d->rt, chain)) != NPK_OK) {
        fprintf(stderr, "ggml-npukit: device \"%s\": NPUKIT_GGML_CHAIN=%u: %s\n", open_name, chain,
                npk_last_error());
        npk_rk_close(d->rt);
        return false;
    }
    d->cores = cores ? cores : info.cores;
    snprintf(d->name, sizeof d->name, "NPUKIT%zu", device_count);
    snprintf(d->open_name, sizeof d->open_name, "%s", open_name);
    snprintf(d->description, sizeof d->description, "%s NPU (%s%s, %s interface, %u of %u cores)",
             info.soc, info.simulated ? "simulated: " : "", info.device, info.kernel, d->cores,
             info.cores);
    d->simulated = info.simulated;
    d->sdp = info.sdp;
    d->pdp = info.pdp;
    if (!npg_foreign_init(d)) {
        fprintf(stderr, "ggml-npukit: device \"%s\": out of memory\n", open_name);
        npk_rk_close(d->rt);
        return false;
    }
    pthread_mutex_init(&d->lock, NULL);
    d->dev.iface = device_iface;
    d->dev.reg = &reg;
    d->dev.context = d;
    npg_buft_init(d);
    device_count++;
    return true;
}

static void registry_init(void)
{
    char list[sizeof npg_settings_get()->devices];
    memcpy(list, npg_settings_get()->devices, sizeof list);
    char *save = NULL;
    for (char *name = strtok_r(list, ",", &save); name && device_count < NPG_MAX_DEVICES;
         name = strtok_r(NULL, ",", &save))
        device_open(name);
    reg.api_version = GGML_BACKEND_API_VERSION;
    reg.iface = reg_iface;
    reg.context = NULL;
}

static ggml_backend_reg_t npg_reg(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, registry_init);
    return &reg;
}

/* Close the runtimes when the library is unloaded (ggml unloads its backends at exit). */
__attribute__((destructor)) static void registry_fini(void)
{
    for (size_t i = 0; i < device_count; i++) {
        npg_foreign_free(&devices[i]);
        npk_rk_close(devices[i].rt);
        npg_scratch_free(&devices[i].scratch);
        pthread_mutex_destroy(&devices[i].lock);
    }
    device_count = 0;
}

GGML_BACKEND_DL_IMPL(npg_reg)
