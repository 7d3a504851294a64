/* SPDX-License-Identifier: MIT */
/* The device layer's shared part: every operation as kernel requests through a backend, with
 * errno values turned into npukit statuses whose messages name the request and the values. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_backend.h"

struct npk_rk_device {
    npk_rk_backend be;
    void *ctx;
    char name[128];
    const npk_rk_soc *soc;
    npk_rk_mem *live; /* buffers created and not yet destroyed, for close */
    size_t nlive, caplive;
    /* Imported handles and how many buffers hold each: importing a dma-buf again answers the
     * same handle (the DRM core's rule), so the handle is destroyed with its last holder. */
    struct import_ref {
        uint32_t handle;
        unsigned refs;
    } * imports;
    size_t nimports, capimports;
    pthread_mutex_t live_lock; /* threads (one per core) create and destroy buffers */
    unsigned domains;          /* rknpu IOMMU domains (npk_rk_device_info.domains) */
};

/* IOMMU domains of an rknpu device: the 0.9.8 driver's when its IOMMU is on (GET_IOMMU_EN; a
 * domain is an IOMMU page table), one otherwise. The driver generation is what GET_DRV_VERSION
 * answers: the 5.10 driver has no iommu_domain_id fields at all. */
static unsigned rknpu_domains(npk_rk_device *d)
{
    if (d->be.kernel && strcmp(d->be.kernel, "rknpu"))
        return 1;
    struct rknpu_action v = {.flags = RKNPU_GET_DRV_VERSION}, e = {.flags = RKNPU_GET_IOMMU_EN};
    if (d->be.ioctl(d->ctx, DRM_IOCTL_RKNPU_ACTION, &v) || v.value < RKNPU_DRV_VERSION_098 ||
        d->be.ioctl(d->ctx, DRM_IOCTL_RKNPU_ACTION, &e) || e.value != 1)
        return 1;
    return RKNPU_MAX_IOMMU_DOMAIN_NUM;
}

npk_status npk_rk_device_wrap(const npk_rk_backend *be, void *ctx, const char *name,
                              npk_rk_device **out)
{
    npk_rk_device *d = calloc(1, sizeof *d);
    if (!d) {
        be->close(ctx);
        return npk_fail(NPK_ENOMEM, "rk device: out of memory");
    }
    d->be = *be;
    d->ctx = ctx;
    d->soc = be->soc(ctx);
    pthread_mutex_init(&d->live_lock, NULL);
    strncpy(d->name, name, sizeof d->name - 1);
    d->domains = rknpu_domains(d);
    *out = d;
    return NPK_OK;
}

static npk_status from_errno(int err)
{
    switch (err) {
    case EINVAL: return NPK_EINVAL;
    case ENOMEM: return NPK_ENOMEM;
    case ETIMEDOUT: return NPK_ETIMEDOUT;
    case EOPNOTSUPP: return NPK_EUNSUPPORTED;
    case ENODEV:
    case ENOENT: return NPK_ENODEV;
    case EFAULT: return NPK_EFAULT;
    case EBUSY:
    case EAGAIN: return NPK_EBUSY;
    default: return NPK_EIO;
    }
}

static npk_status req_fail(npk_rk_device *d, int rc, const char *what, const char *detail_fmt,
                           unsigned long long a, unsigned long long b)
{
    char detail[160];
    snprintf(detail, sizeof detail, detail_fmt, a, b);
    const char *extra = d->be.detail ? d->be.detail(d->ctx) : NULL;
    return npk_fail(from_errno(-rc), "rknpu %s on %s: %s (%s)%s%s", what, d->name, strerror(-rc),
                    detail, extra && *extra ? ": " : "", extra ? extra : "");
}

const char *npk_rk_device_name(const npk_rk_device *d) { return d->name; }

void npk_rk_device_query(const npk_rk_device *d, npk_rk_device_info *info)
{
    info->backend = d->be.kind;
    info->simulated = d->be.simulated;
    info->soc = d->soc;
    info->kernel = d->be.kernel ? d->be.kernel : "rknpu";
    info->cores = d->be.cores ? d->be.cores : d->soc->cores;
    info->core_spaces = d->be.core_spaces;
    info->domains = d->domains;
    info->space_bytes = 1ull << 32; /* 32-bit IOVAs (facts B.1, I.3) */
}

struct rksim *npk_rk_device_backend_sim(npk_rk_device *d)
{
    return d && d->be.sim ? d->be.sim(d->ctx) : NULL;
}

void *npk_rk_device_ctx(npk_rk_device *d, const npk_rk_backend *be)
{
    return d->be.ioctl == be->ioctl ? d->ctx : NULL;
}

int npk_rk_device_ioctl(npk_rk_device *d, unsigned long request, void *arg)
{
    return d->be.ioctl(d->ctx, request, arg);
}

static void forget(npk_rk_device *d, uint32_t handle)
{
    pthread_mutex_lock(&d->live_lock);
    for (size_t i = 0; i < d->nlive; i++)
        if (d->live[i].handle == handle) {
            d->live[i] = d->live[--d->nlive];
            break;
        }
    pthread_mutex_unlock(&d->live_lock);
}

/* Record a created buffer for close; false when the list cannot grow. */
static bool remember(npk_rk_device *d, const npk_rk_mem *m)
{
    bool ok = true;
    pthread_mutex_lock(&d->live_lock);
    if (d->nlive == d->caplive) {
        size_t cap = d->caplive ? d->caplive * 2 : 16;
        npk_rk_mem *n = realloc(d->live, cap * sizeof *n);
        if (n) {
            d->live = n;
            d->caplive = cap;
        } else {
            ok = false;
        }
    }
    if (ok)
        d->live[d->nlive++] = *m;
    pthread_mutex_unlock(&d->live_lock);
    return ok;
}

/* MEM_MAP + mmap of `size` bytes of an object MEM_CREATE answered for, and the record for
 * close; on failure the object is destroyed. */
static npk_status map_created(npk_rk_device *d, const struct rknpu_mem_create *c, uint64_t size,
                              uint32_t flags, npk_rk_mem *out)
{
    struct rknpu_mem_map m = {.handle = c->handle};
    int rc = d->be.ioctl(d->ctx, DRM_IOCTL_RKNPU_MEM_MAP, &m);
    int err = 0;
    void *host = rc ? NULL : d->be.map(d->ctx, m.offset, size, &err);
    if (!host) {
        struct rknpu_mem_destroy x = {.handle = c->handle, .obj_addr = c->obj_addr};
        d->be.ioctl(d->ctx, DRM_IOCTL_RKNPU_MEM_DESTROY, &x);
        if (rc)
            return req_fail(d, rc, "MEM_MAP", "handle %llu%.0llu", c->handle, 0);
        return npk_fail(from_errno(err),
                        "rk mem_create: mmap of %llu bytes at offset 0x%llx "
                        "on %s failed: %s",
                        (unsigned long long)size, (unsigned long long)m.offset, d->name,
                        strerror(err));
    }
    *out = (npk_rk_mem){.handle = c->handle,
                        .flags = flags,
                        .size = size,
                        .obj_addr = c->obj_addr,
                        .iova = (uint32_t)c->dma_addr,
                        .host = host,
                        .map_offset = m.offset};
    if (!remember(d, out)) {
        d->be.unmap(d->ctx, host, size);
        struct rknpu_mem_destroy x = {.handle = c->handle, .obj_addr = c->obj_addr};
        d->be.ioctl(d->ctx, DRM_IOCTL_RKNPU_MEM_DESTROY, &x);
        memset(out, 0, sizeof *out);
        return npk_fail(NPK_ENOMEM, "rk mem_create: out of memory for the buffer list");
    }
    return NPK_OK;
}

/* An IOVA above 32 bits is refused (the NPU's address registers are 32-bit). */
static npk_status check_iova(npk_rk_device *d, const struct rknpu_mem_create *c)
{
    if (c->dma_addr <= 0xffffffffull)
        return NPK_OK;
    struct rknpu_mem_destroy x = {.handle = c->handle, .obj_addr = c->obj_addr};
    d->be.ioctl(d->ctx, DRM_IOCTL_RKNPU_MEM_DESTROY, &x);
    return npk_fail(NPK_EPROTO, "rknpu MEM_CREATE on %s returned IOVA 0x%llx, not 32-bit", d->name,
                    (unsigned long long)c->dma_addr);
}

npk_status npk_rk_mem_create_in(npk_rk_device *d, unsigned domain, uint64_t size,
                                uint32_t flags, uint32_t core_mask, npk_rk_mem *out)
{
    memset(out, 0, sizeof *out);
    if (size == 0)
        return npk_fail(NPK_EINVAL, "rk mem_create: size 0");
    if (domain >= d->domains)
        return npk_fail(NPK_EINVAL, "rk mem_create: IOMMU domain %u on %s, which has %u", domain,
                        d->name, d->domains);
    struct rknpu_mem_create c = {.flags = flags, .size = size, .iommu_domain_id = (int32_t)domain};
    /* On rknpu MEM_CREATE's core_mask picks a core's SRAM or NBUF, which these buffers do not
     * ask for: it is named only to a device whose cores have address spaces of their own. */
    if (d->be.core_spaces)
        c.core_mask = core_mask;
    int rc = d->be.ioctl(d->ctx, DRM_IOCTL_RKNPU_MEM_CREATE, &c);
    if (rc == -ENOMEM)
        return req_fail(d, rc, "MEM_CREATE",
                        "size %llu: more than the free IOVA of the 4 GiB address space "
                        "(IOMMU domain %llu)",
                        size, domain);
    if (rc)
        return req_fail(d, rc, "MEM_CREATE", "size %llu, flags 0x%llx", size, flags);
    npk_status s = check_iova(d, &c);
    /* Rocket has no cacheability flag: every buffer object is cached shmem whose CPU access
     * PREP_BO / FINI_BO bracket (facts A.2), so it is recorded as what the kernel made. */
    if (d->be.kernel && !strcmp(d->be.kernel, "rocket"))
        flags |= RKNPU_MEM_CACHEABLE;
    if (s == NPK_OK)
        s = map_created(d, &c, size, flags, out);
    if (s == NPK_OK)
        out->domain = domain;
    for (unsigned core = 0; s == NPK_OK && d->be.iova_for && core < NPK_RK_SOC_MAX_CORES; core++) {
        uint32_t at = d->be.iova_for(d->ctx, out->handle, core);
        out->core_shift[core] = at ? at - out->iova : 0;
    }
    return s;
}

npk_status npk_rk_mem_create_for(npk_rk_device *d, uint64_t size, uint32_t flags,
                                 uint32_t core_mask, npk_rk_mem *out)
{
    return npk_rk_mem_create_in(d, 0, size, flags, core_mask, out);
}

npk_status npk_rk_mem_create(npk_rk_device *d, uint64_t size, uint32_t flags, npk_rk_mem *out)
{
    return npk_rk_mem_create_in(d, 0, size, flags, 0, out);
}

/* Under live_lock: the import record of handle, or NULL. */
static struct import_ref *import_of(npk_rk_device *d, uint32_t handle)
{
    for (size_t i = 0; i < d->nimports; i++)
        if (d->imports[i].handle == handle)
            return &d->imports[i];
    return NULL;
}

/* A buffer more of an import held already: its record copied, the count raised; false when the
 * handle is not one held. */
static bool share_import(npk_rk_device *d, uint32_t handle, npk_rk_mem *out)
{
    bool found = false;
    pthread_mutex_lock(&d->live_lock);
    struct import_ref *r = import_of(d, handle);
    for (size_t i = 0; r && i < d->nlive && !found; i++)
        if (d->live[i].handle == handle) {
            *out = d->live[i];
            r->refs++;
            found = true;
        }
    pthread_mutex_unlock(&d->live_lock);
    return found;
}

/* Record a new import held once; false when the table cannot grow. */
static bool add_import(npk_rk_device *d, uint32_t handle)
{
    pthread_mutex_lock(&d->live_lock);
    if (d->nimports == d->capimports) {
        size_t cap = d->capimports ? d->capimports * 2 : 8;
        struct import_ref *n = realloc(d->imports, cap * sizeof *n);
        if (n) {
            d->imports = n;
            d->capimports = cap;
        }
    }
    bool ok = d->nimports < d->capimports;
    if (ok)
        d->imports[d->nimports++] = (struct import_ref){handle, 1};
    pthread_mutex_unlock(&d->live_lock);
    return ok;
}

/* Drop one holder of an import: true when others still hold it (nothing to destroy yet). */
static bool release_import(npk_rk_device *d, uint32_t handle)
{
    pthread_mutex_lock(&d->live_lock);
    struct import_ref *r = import_of(d, handle);
    bool held = r && r->refs > 1;
    if (held)
        r->refs--;
    else if (r)
        *r = d->imports[--d->nimports];
    pthread_mutex_unlock(&d->live_lock);
    return held;
}

npk_status npk_rk_mem_import(npk_rk_device *d, int fd, npk_rk_mem *out)
{
    memset(out, 0, sizeof *out);
    struct rknpu_drm_prime_handle p = {.fd = fd};
    int rc = d->be.ioctl(d->ctx, RKNPU_DRM_IOCTL_PRIME_FD_TO_HANDLE, &p);
    if (rc)
        return req_fail(d, rc, "PRIME_FD_TO_HANDLE", "fd %lld%.0llu", (unsigned long long)fd, 0);
    if (share_import(d, p.handle, out))
        return NPK_OK;
    /* the driver answers MEM_CREATE for an existing handle with the object's address */
    struct rknpu_mem_create c = {.handle = p.handle};
    rc = d->be.ioctl(d->ctx, DRM_IOCTL_RKNPU_MEM_CREATE, &c);
    if (rc) {
        struct rknpu_mem_destroy x = {.handle = p.handle};
        d->be.ioctl(d->ctx, DRM_IOCTL_RKNPU_MEM_DESTROY, &x);
        return req_fail(d, rc, "MEM_CREATE", "imported handle %llu%.0llu", p.handle, 0);
    }
    if (c.handle != p.handle || !c.size) { /* a driver that allocated instead of looking up */
        struct rknpu_mem_destroy x = {.handle = c.handle, .obj_addr = c.obj_addr};
        d->be.ioctl(d->ctx, DRM_IOCTL_RKNPU_MEM_DESTROY, &x);
        x = (struct rknpu_mem_destroy){.handle = p.handle};
        d->be.ioctl(d->ctx, DRM_IOCTL_RKNPU_MEM_DESTROY, &x);
        return npk_fail(NPK_EUNSUPPORTED,
                        "rknpu on %s does not answer MEM_CREATE for an imported handle", d->name);
    }
    npk_status s = check_iova(d, &c);
    if (s == NPK_OK)
        s = map_created(d, &c, c.size, RKNPU_MEM_NON_CONTIGUOUS, out);
    if (s == NPK_OK && !add_import(d, p.handle)) {
        npk_rk_mem_destroy(d, out);
        s = npk_fail(NPK_ENOMEM, "rk mem_import: out of memory for the import list");
    }
    return s;
}

npk_status npk_rk_mem_sync(npk_rk_device *d, const npk_rk_mem *mem, uint64_t offset, uint64_t size,
                           uint32_t dir)
{
    /* A buffer without CPU caches has nothing to sync, and rknpu refuses MEM_SYNC on it
     * (EINVAL): no request, only the range check the kernel would have made. */
    if (!(mem->flags & RKNPU_MEM_CACHEABLE)) {
        if (offset > mem->size || size > mem->size - offset)
            return npk_fail(NPK_EINVAL,
                            "rk mem_sync on %s: [%llu, +%llu) is outside the %llu-byte buffer",
                            d->name, (unsigned long long)offset, (unsigned long long)size,
                            (unsigned long long)mem->size);
        return NPK_OK;
    }
    struct rknpu_mem_sync y = {
        .flags = dir, .obj_addr = mem->obj_addr, .offset = offset, .size = size};
    int rc = d->be.ioctl(d->ctx, DRM_IOCTL_RKNPU_MEM_SYNC, &y);
    if (rc)
        return req_fail(d, rc, "MEM_SYNC", "offset %llu, size %llu", offset, size);
    return NPK_OK;
}

npk_status npk_rk_mem_destroy(npk_rk_device *d, npk_rk_mem *mem)
{
    if (!mem->handle)
        return NPK_OK;
    if (release_import(d, mem->handle)) { /* another buffer holds the import and its mapping */
        memset(mem, 0, sizeof *mem);
        return NPK_OK;
    }
    if (mem->host)
        d->be.unmap(d->ctx, mem->host, mem->size);
    struct rknpu_mem_destroy x = {.handle = mem->handle, .obj_addr = mem->obj_addr};
    int rc = d->be.ioctl(d->ctx, DRM_IOCTL_RKNPU_MEM_DESTROY, &x);
    forget(d, mem->handle);
    uint32_t handle = mem->handle;
    memset(mem, 0, sizeof *mem);
    if (rc)
        return req_fail(d, rc, "MEM_DESTROY", "handle %llu%.0llu", handle, 0);
    return NPK_OK;
}

npk_status npk_rk_action(npk_rk_device *d, uint32_t code, uint32_t *value)
{
    struct rknpu_action a = {.flags = code, .value = value ? *value : 0};
    int rc = d->be.ioctl(d->ctx, DRM_IOCTL_RKNPU_ACTION, &a);
    if (rc)
        return req_fail(d, rc, "ACTION", "code %llu, value %llu", code, a.value);
    if (value)
        *value = a.value;
    return NPK_OK;
}

npk_status npk_rk_submit(npk_rk_device *d, struct rknpu_submit *sub)
{
    int rc = d->be.ioctl(d->ctx, DRM_IOCTL_RKNPU_SUBMIT, sub);
    if (rc == -ETIMEDOUT)
        return req_fail(d, rc, "SUBMIT", "task_counter %llu of %llu; the core needs ACT_RESET",
                        sub->task_counter, sub->task_number);
    if (rc)
        return req_fail(d, rc, "SUBMIT", "task_number %llu, core_mask 0x%llx", sub->task_number,
                        sub->core_mask);
    /* A blocking job that completes reports task_counter = task_number (rknpu_job.c); fewer
     * with success is a job the kernel took and never ran, as a render node does. */
    if (!(sub->flags & RKNPU_JOB_NONBLOCK) && sub->task_counter < sub->task_number)
        return req_fail(d, -EIO, "SUBMIT",
                        "accepted but ran %llu of %llu tasks (a render node runs none: use "
                        "the card node)",
                        sub->task_counter, sub->task_number);
    return NPK_OK;
}

npk_status npk_rk_wait(npk_rk_device *d, unsigned core, uint32_t timeout_ms, uint64_t *npu_us)
{
    double us = 0;
    if (npu_us)
        *npu_us = 0;
    if (!d->be.wait)
        return NPK_OK;
    int rc = d->be.wait(d->ctx, core, timeout_ms, &us);
    if (npu_us && us > 0)
        *npu_us = (uint64_t)(us + 0.5);
    if (rc)
        return req_fail(d, rc, "completion wait", "core %llu, timeout %llu ms", core, timeout_ms);
    return NPK_OK;
}

void npk_rk_device_close(npk_rk_device *d)
{
    if (!d)
        return;
    d->nimports = 0; /* every buffer goes now: each import once */
    while (d->nlive) {
        npk_rk_mem m = d->live[d->nlive - 1];
        uint32_t handle = m.handle;
        npk_rk_mem_destroy(d, &m);
        /* a failed destroy still forgets the buffer */
        if (d->nlive && d->live[d->nlive - 1].handle == handle)
            d->nlive--;
    }
    free(d->live);
    free(d->imports);
    d->be.close(d->ctx);
    pthread_mutex_destroy(&d->live_lock);
    free(d);
}
