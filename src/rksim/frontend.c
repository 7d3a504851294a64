/* SPDX-License-Identifier: MIT */
/* The kernel-interface front end: answers DRM/rknpu requests with the vendor driver's
 * semantics and errno values (facts A.1), after the DRM core's size adaptation. */
#define _POSIX_C_SOURCE 200809L /* lseek */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "npukit/rknpu_uapi.h"
#include "rksim/requests.h"
#include "rksim/sim.h"

void rksim_drm_version_string(const char *str, uint64_t ptr, uint64_t *len)
{
    size_t n = strlen(str);
    if (ptr && *len)
        memcpy((void *)(uintptr_t)ptr, str, n < *len ? n : *len);
    *len = n; /* the DRM core reports the full length */
}

static int do_version(struct rknpu_drm_version *v)
{
    /* Driver 0.9.8, the version the fact sheet saw (facts A.1). */
    static const char name[] = "rknpu", date[] = "20240424",
                      desc[] = "RKNPU driver " RKSIM_DRM_DESC_MARK;
    v->version_major = 0;
    v->version_minor = 9;
    v->version_patchlevel = 8;
    rksim_drm_version_string(name, v->name, &v->name_len);
    rksim_drm_version_string(date, v->date, &v->date_len);
    rksim_drm_version_string(desc, v->desc, &v->desc_len);
    return 0;
}

static int do_action(rksim *s, struct rknpu_action *a)
{
    switch (a->flags) {
    case RKNPU_GET_HW_VERSION:
        /* the row's reading; a SoC whose version no board has reported is not guessed */
        if (!s->soc->hw_version)
            return -EOPNOTSUPP;
        a->value = s->soc->hw_version;
        return 0;
    case RKNPU_GET_DRV_VERSION: a->value = RKNPU_DRV_VERSION_098; return 0;
    case RKNPU_GET_FREQ: a->value = s->freq_hz; return 0;
    case RKNPU_SET_FREQ:
        if (a->value == 0)
            return -EINVAL;
        s->freq_hz = a->value;
        return 0;
    case RKNPU_SET_VOLT:
        /* The driver's case does nothing and answers its default, EINVAL (rknpu_action). */
        return -EINVAL;
    case RKNPU_GET_VOLT:
        /* The driver always answers 0 here, with what its regulator reads (rknpu_drv.c,
         * rknpu_action). No source gives the NPU rail's voltage, so the model reads 0 uV, a
         * value no powered regulator gives, rather than invent one or answer an errno the
         * driver never returns. */
        a->value = 0;
        return 0;
    case RKNPU_ACT_RESET:
        /* Soft-resets every core: clears wedge/queue state, primes integer mode (spec "State
         * gotchas": the int8 fix and the wedge recovery). */
        for (unsigned i = 0; i < s->cfg.cores; i++)
            rksim_core_reset(&s->core[i], false);
        return 0;
    case RKNPU_GET_BW_PRIORITY:
    case RKNPU_GET_BW_EXPECT:
    case RKNPU_GET_BW_TW: a->value = 0; return 0;
    case RKNPU_SET_BW_PRIORITY:
    case RKNPU_SET_BW_EXPECT:
    case RKNPU_SET_BW_TW:
    case RKNPU_ACT_CLR_TOTAL_RW_AMOUNT:
    case RKNPU_SET_PROC_NICE:
    case RKNPU_SET_IOMMU_DOMAIN_ID:
        /* jobs complete before SUBMIT returns here, so a switch never waits */
        if (a->value >= RKNPU_MAX_IOMMU_DOMAIN_NUM)
            return -EINVAL;
        s->iommu_domain = a->value;
        return 0;
    case RKNPU_GET_DT_WR_AMOUNT:
    case RKNPU_GET_DT_RD_AMOUNT:
    case RKNPU_GET_WT_RD_AMOUNT:
    case RKNPU_GET_TOTAL_RW_AMOUNT:
        a->value = 0; /* RK3588's amount_top config is NULL: these read 0 (facts A.1) */
        return 0;
    case RKNPU_GET_IOMMU_EN: a->value = 1; return 0;
    case RKNPU_POWER_ON: s->power_refs++; return 0;
    case RKNPU_POWER_OFF:
        if (s->power_refs)
            s->power_refs--;
        return 0;
    case RKNPU_GET_TOTAL_SRAM_SIZE:
    case RKNPU_GET_FREE_SRAM_SIZE:
        a->value = 0; /* no SRAM is modelled: TRY_ALLOC_SRAM falls back to DRAM */
        return 0;
    case RKNPU_GET_IOMMU_DOMAIN_ID: a->value = s->iommu_domain; return 0;
    default: { /* the driver's answer to an action it does not know */
        char msg[80];
        snprintf(msg, sizeof msg, "RKNPU_ACTION: flags %u is no action of the driver", a->flags);
        rksim_report_reject(s, msg);
        return -EINVAL;
    }
    }
}

static int do_mem_create(rksim *s, struct rknpu_mem_create *c)
{
    /* The driver looks the handle up first: an existing object (a PRIME import) is answered
     * as it is, without allocating. */
    rksim_buf *old = c->handle ? rksim_mem_by_handle(&s->mem, (uint32_t)c->handle) : NULL;
    if (old) {
        c->size = old->size;
        c->obj_addr = old->obj_addr;
        c->dma_addr = old->iova;
        c->sram_size = 0;
        return 0;
    }
    if (c->flags & RKNPU_MEM_SECURE)
        return -EINVAL; /* secure buffers need the TEE; not modelled */
    /* the driver switches to the domain named and allocates in its own 4 GiB of IOVA (a 40-byte
     * 5.10 struct, zero-filled by the size rule, names domain 0) */
    if (c->iommu_domain_id < 0 || c->iommu_domain_id >= RKNPU_MAX_IOMMU_DOMAIN_NUM)
        return -EINVAL;
    rksim_buf *b;
    int rc = rksim_mem_create_in(&s->mem, rksim_space_domain((unsigned)c->iommu_domain_id),
                                 c->size, c->flags, &b);
    if (rc)
        return rc;
    s->iommu_domain = (unsigned)c->iommu_domain_id;
    c->handle = b->handle;
    c->obj_addr = b->obj_addr;
    c->dma_addr = b->iova;
    c->sram_size = 0;
    return 0;
}

/* What stands for a dma-buf here, by the descriptor's name: a memfd (what the LD_PRELOAD
 * shim's DMA heap hands out, and what a program without a heap can make) or a real dma-buf.
 * A regular file, a pipe or a socket is none: the kernel's dma_buf_get() refuses those with
 * EINVAL, and so does the model, rather than import a file a board would not. */
static bool stands_for_dmabuf(int fd)
{
    static const char *const kinds[] = {"/memfd:", "/dmabuf:", "anon_inode:dmabuf"};
    char link[32], name[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, name, sizeof name - 1);
    if (n <= 0)
        return false;
    name[n] = '\0';
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strncmp(name, kinds[i], strlen(kinds[i])) == 0)
            return true;
    return false;
}

/* DRM_IOCTL_PRIME_FD_TO_HANDLE: the dma-buf's size is its file's (lseek to the end, as for a
 * dma-buf). A descriptor that is not open is EBADF; one that is no dma-buf, or has no size,
 * EINVAL. */
static int do_prime_import(rksim *s, struct rknpu_drm_prime_handle *p)
{
    if (p->flags)
        return -EINVAL;
    if (fcntl(p->fd, F_GETFD) < 0)
        return -EBADF;
    if (!stands_for_dmabuf(p->fd))
        return -EINVAL;
    off_t end = lseek(p->fd, 0, SEEK_END);
    if (end < 0)
        return errno == EBADF ? -EBADF : -EINVAL;
    rksim_buf *b;
    int rc = rksim_mem_import(&s->mem, p->fd, (uint64_t)end, &b);
    if (rc)
        return rc;
    p->handle = b->handle;
    return 0;
}

static int do_mem_map(rksim *s, struct rknpu_mem_map *m)
{
    rksim_buf *b = rksim_mem_by_handle(&s->mem, m->handle);
    if (!b)
        return -EINVAL;
    m->offset = b->map_offset;
    return 0;
}

static int do_mem_destroy(rksim *s, struct rknpu_mem_destroy *d)
{
    return rksim_mem_destroy(&s->mem, d->handle, d->obj_addr);
}

static int do_mem_sync(rksim *s, struct rknpu_mem_sync *y)
{
    /* The BSP driver dereferences obj_addr as a kernel pointer; a bad one is refused here. */
    rksim_buf *b = rksim_mem_by_obj(&s->mem, y->obj_addr);
    if (!b)
        return -EINVAL;
    /* The driver syncs CACHEABLE objects only: any other (a non-cacheable buffer, an imported
     * dma-buf) is refused with EINVAL (rknpu_gem_sync_ioctl; docs/facts-dma-buf.md D.2). */
    if (!(b->flags & RKNPU_MEM_CACHEABLE))
        return -EINVAL;
    return rksim_mem_sync(&s->mem, b, y->flags, y->offset, y->size);
}

/* A raw SUBMIT through the render node: accepted, and no task runs (spec "Submission model":
 * raw RKNPU_SUBMIT only works on the card node; facts A.1, from-scratch submits through
 * renderD129 "ran 0 tasks"). The answer is the successful one with nothing done: 0,
 * task_counter 0 (a completed job reports task_counter = task_number, rknpu_job.c), no
 * elapsed time, no memory touched. Which of the driver's paths drops the job is not
 * documented; the model keeps only what was observed. */
static int render_submit(rksim *s, struct rknpu_submit *sub)
{
    memset(&s->report, 0, sizeof s->report);
    s->report.outcome = RKSIM_OK;
    snprintf(s->report.message, sizeof s->report.message,
             "render node: SUBMIT of %u task(s) accepted, none run (raw SUBMIT runs only on "
             "the card node)",
             sub->task_number);
    sub->task_counter = 0;
    if (!s->gen_510)
        sub->u48_.hw_elapse_time = 0;
    return 0;
}

static int do_submit(rksim *s, rksim_node node, struct rknpu_submit *sub)
{
    if (!(sub->flags & RKNPU_JOB_PC)) {
        rksim_report_reject(s, "submit without RKNPU_JOB_PC: only the PC path is modelled");
        return -EINVAL;
    }
    if (sub->flags & (RKNPU_JOB_FENCE_IN | RKNPU_JOB_FENCE_OUT)) {
        rksim_report_reject(s, "fence flags are not modelled");
        return -EINVAL;
    }
    if (sub->task_number == 0 || sub->task_number > RKNPU_MAX_SUBMIT_NUMBER) {
        rksim_report_reject(s, "task_number must be 1..4095 (pc_task_number_bits 12)");
        return -EINVAL;
    }
    if (sub->core_mask > RKNPU_CORE_ALL_MASK) {
        rksim_report_reject(s, "core_mask above 0x7");
        return -EINVAL;
    }
    rksim_buf *tb = rksim_mem_by_obj(&s->mem, sub->task_obj_addr);
    if (!tb) {
        rksim_report_reject(s, "task_obj_addr names no live buffer");
        return -EINVAL;
    }
    if (!(tb->flags & RKNPU_MEM_KERNEL_MAPPING)) {
        /* the kernel reads the task records through its own mapping (facts A.1) */
        rksim_report_reject(s, "task buffer was created without RKNPU_MEM_KERNEL_MAPPING");
        return -EINVAL;
    }
    char why[sizeof s->report.message];
    if (rksim_mem_check_imports(&s->mem, why, sizeof why)) {
        rksim_report_reject(s, why);
        return -EFAULT;
    }
    if (node == RKSIM_NODE_RENDER)
        return render_submit(s, sub);
    /* 0.9.8: the job runs in the IOMMU domain it names (the driver switches to it): its DMA,
     * the regcmd fetch included, sees that domain's buffers only */
    uint32_t domain = sub->u32_.v098.iommu_domain_id;
    if (domain >= RKNPU_MAX_IOMMU_DOMAIN_NUM) {
        rksim_report_reject(s, "iommu_domain_id above 15 (the driver has 16 IOMMU domains)");
        return -EINVAL;
    }
    s->iommu_domain = domain;
    s->mem.space = rksim_space_domain(domain);
    /* The kernel's mapping sees the CPU's writes (same physical lines): read the CPU view. */
    int rc = rksim_run_submit(s, sub, tb->cpu, tb->size);
    s->mem.space = 0;
    return rc;
}

/* The requests the nodes answer, one row each (DRM core requests below 0x40, the driver's from
 * 0x40; the generation-specific struct sizes are the 0.9.8 ones, the largest). */
static int run_version(rksim *s, int node, void *k)
{
    (void)s, (void)node;
    return do_version(k);
}

static int run_prime_import(rksim *s, int node, void *k)
{
    (void)node;
    return do_prime_import(s, k);
}

static int run_action(rksim *s, int node, void *k)
{
    (void)node;
    return do_action(s, k);
}

static int run_submit(rksim *s, int node, void *k) { return do_submit(s, (rksim_node)node, k); }

static int run_mem_create(rksim *s, int node, void *k)
{
    (void)node;
    return do_mem_create(s, k);
}

static int run_mem_map(rksim *s, int node, void *k)
{
    (void)node;
    return do_mem_map(s, k);
}

static int run_mem_destroy(rksim *s, int node, void *k)
{
    (void)node;
    return do_mem_destroy(s, k);
}

static int run_mem_sync(rksim *s, int node, void *k)
{
    (void)node;
    return do_mem_sync(s, k);
}

static const rksim_request node_rows[] = {
    {0x00, "VERSION", sizeof(struct rknpu_drm_version), run_version},
    {0x2e, "PRIME_FD_TO_HANDLE", sizeof(struct rknpu_drm_prime_handle), run_prime_import},
    {0x40 + RKNPU_NR_ACTION, "ACTION", sizeof(struct rknpu_action), run_action},
    {0x40 + RKNPU_NR_SUBMIT, "SUBMIT", sizeof(struct rknpu_submit), run_submit},
    {0x40 + RKNPU_NR_MEM_CREATE, "MEM_CREATE", sizeof(struct rknpu_mem_create), run_mem_create},
    {0x40 + RKNPU_NR_MEM_MAP, "MEM_MAP", sizeof(struct rknpu_mem_map), run_mem_map},
    {0x40 + RKNPU_NR_MEM_DESTROY, "MEM_DESTROY", sizeof(struct rknpu_mem_destroy),
     run_mem_destroy},
    {0x40 + RKNPU_NR_MEM_SYNC, "MEM_SYNC", sizeof(struct rknpu_mem_sync), run_mem_sync},
};

const rksim_requests rksim_node_requests = {"rknpu", node_rows,
                                            sizeof node_rows / sizeof node_rows[0]};

int rksim_ioctl(rksim *s, unsigned long request, void *arg)
{
    return rksim_node_ioctl(s, RKSIM_NODE_CARD, request, arg);
}

int rksim_node_ioctl(rksim *s, rksim_node node, unsigned long request, void *arg)
{
    if (node != RKSIM_NODE_CARD && node != RKSIM_NODE_RENDER)
        return -ENODEV; /* no such node */
    const rksim_request *r = rksim_request_of(&rksim_node_requests, request);
    if (!r)
        return rksim_request_refuse(s, &rksim_node_requests, request);
    if (s->dead)
        return -ENODEV;
    size_t usize = RKNPU_IOC_SIZE(request);
    unsigned dir = (unsigned)RKNPU_IOC_DIR(request);
    if (usize && !arg)
        return -EFAULT;

    /* The DRM core: copy in the smaller size, zero-fill the rest, copy back what fits. */
    union {
        struct rknpu_drm_version version;
        struct rknpu_action action;
        struct rknpu_submit submit;
        struct rknpu_mem_create create;
        struct rknpu_mem_map map;
        struct rknpu_mem_destroy destroy;
        struct rknpu_mem_sync sync;
        struct rknpu_drm_prime_handle prime;
    } k;
    memset(&k, 0, sizeof k);
    size_t n = usize < r->ksize ? usize : r->ksize;
    if (dir & RKNPU_IOC_WRITE)
        memcpy(&k, arg, n);

    if (r->nr == 0x40 + RKNPU_NR_MEM_CREATE)
        s->gen_510 = usize < sizeof(struct rknpu_mem_create);

    int rc = r->run(s, (int)node, &k);
    /* drm_ioctl copies the struct back even on failure (submit's task_counter matters then) */
    if (dir & RKNPU_IOC_READ)
        memcpy(arg, &k, n);
    return rc;
}

void *rksim_mmap(rksim *s, uint64_t offset, size_t length, int *err)
{
    if (s->dead) {
        *err = ENODEV;
        return NULL;
    }
    rksim_buf *b = rksim_mem_by_offset(&s->mem, offset);
    if (!b || length == 0 || length > b->span) {
        *err = EINVAL;
        return NULL;
    }
    b->cpu_maps++;
    return b->cpu;
}

bool rksim_munmap(rksim *s, void *addr, size_t length)
{
    (void)length;
    rksim_buf *b = rksim_mem_by_cpu(&s->mem, addr);
    if (!b)
        return false;
    rksim_mem_release_cpu(&s->mem, b);
    return true;
}
