/* SPDX-License-Identifier: MIT */
/* rksim IOVA memory: every buffer at its own 32-bit IOVA, bounds-checked DMA, and the CPU-cache
 * model behind hazard 1.
 *
 * Each buffer has a CPU view (what mmap returns) and a device view (what DMA reads and writes).
 * For non-cacheable buffers, and for every buffer when hazard 1 is ideal, the two are the same
 * memory. For CACHEABLE buffers in the faithful mode they are separate: MEM_SYNC TO_DEVICE
 * copies CPU -> device (a cache clean), FROM_DEVICE copies device -> CPU (an invalidate). A
 * freshly created cacheable buffer starts with dirty CPU lines; the first job that DMA-writes
 * it gets those lines written back over its output when the job ends (eviction), so that one
 * result is stale. A MEM_SYNC of the whole buffer in either direction (a clean, or an
 * invalidate that discards the lines) leaves no dirty line. See rksim_hazards[0] and the
 * README for why this model was chosen.
 */
#ifndef NPUKIT_RKSIM_MEM_H
#define NPUKIT_RKSIM_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct rksim_buf {
    uint32_t handle;
    uint32_t flags; /* RKNPU_MEM_* */
    uint64_t size;  /* as requested */
    uint64_t span;  /* page-rounded: the IOVA range it owns */
    uint64_t iova;
    uint64_t obj_addr;   /* the fake kernel object pointer */
    uint64_t map_offset; /* the fake mmap offset MEM_MAP returns */
    uint8_t *cpu;        /* CPU view (page-aligned anonymous mapping) */
    uint8_t *dev;        /* device view: == cpu when coherent */
    bool cpu_dirty;      /* fresh cacheable buffer: dirty CPU lines (hazard 1) */
    bool dma_written;    /* written by DMA during the current job */
    bool live;           /* false once destroyed (kept while still mapped) */
    unsigned cpu_maps;   /* outstanding rksim_mmap mappings */
    bool imported;       /* a dma-buf's pages (PRIME import): one coherent view, not owned */
    unsigned space;      /* the NPU address space it is mapped in (rksim_space_*): rknpu IOMMU
                            domain d, or rocket file f's own domain; each space is a 4 GiB
                            IOVA space of its own */
    uint64_t import_dev, import_ino; /* which dma-buf (its file's identity) */
    int import_fd;                   /* a descriptor of it kept to check its length (-1: none) */
} rksim_buf;

typedef struct rksim_mem {
    rksim_buf **bufs; /* live and destroyed-but-mapped buffers */
    size_t count, cap;
    uint32_t next_handle;
    bool incoherent; /* hazard 1 faithful: cacheable buffers get two views */
    unsigned space;  /* the address space the running job sees */
} rksim_mem;

/* Address spaces: rknpu's IOMMU domain d (domain 0 is space 0, where imports live too), and
 * rocket file f's domain. */
enum { RKSIM_SPACE_ROCKET = 1, RKSIM_SPACE_RKNPU = 0x100 };
static inline unsigned rksim_space_domain(unsigned d) { return d ? RKSIM_SPACE_RKNPU + d : 0; }
static inline unsigned rksim_space_file(int f) { return RKSIM_SPACE_ROCKET + (unsigned)f; }

/* A DMA failure: the first address outside every live buffer. */
typedef struct rksim_fault {
    bool hit;
    uint64_t iova;
    uint64_t len;
    bool write;
    const char *what; /* "feature read", "output write", "regcmd fetch", ... */
} rksim_fault;

void rksim_mem_init(rksim_mem *m, bool incoherent);
void rksim_mem_free(rksim_mem *m);

/* Allocate a buffer (top-down in the 4 GiB IOVA space, page-aligned, as the IOMMU allocator
 * hands them out on the board). Returns 0 or -ENOMEM / -EINVAL. */
int rksim_mem_create(rksim_mem *m, uint64_t size, uint32_t flags, rksim_buf **out);
/* The same in address space `space` (rksim_space_*); rksim_mem_create is space 0. */
int rksim_mem_create_in(rksim_mem *m, unsigned space, uint64_t size, uint32_t flags,
                        rksim_buf **out);
/* Import the `size` bytes of a dma-buf fd (PRIME): its pages mapped shared, one coherent
 * view, an IOVA like any buffer's; a dma-buf imported already (any descriptor of it) answers
 * its existing buffer, as the DRM core answers the same handle. 0, -EINVAL (not mappable) or
 * -ENOMEM. */
int rksim_mem_import(rksim_mem *m, int fd, uint64_t size, rksim_buf **out);
/* 0, or -EFAULT with `why` filled when a live import's file (a memfd standing for a dma-buf)
 * is now shorter than its import: the NPU would read pages that are gone, and the simulator's
 * own reads of them would fault (SIGBUS). A real dma-buf cannot shrink. */
int rksim_mem_check_imports(const rksim_mem *m, char *why, size_t cap);
/* Destroy by handle; the CPU view survives until its last mapping is released. */
int rksim_mem_destroy(rksim_mem *m, uint32_t handle, uint64_t obj_addr);
rksim_buf *rksim_mem_by_handle(rksim_mem *m, uint32_t handle);
rksim_buf *rksim_mem_by_obj(rksim_mem *m, uint64_t obj_addr);
rksim_buf *rksim_mem_by_offset(rksim_mem *m, uint64_t map_offset);
rksim_buf *rksim_mem_by_cpu(rksim_mem *m, const void *cpu);
/* Forget a destroyed buffer whose last CPU mapping went away. */
void rksim_mem_release_cpu(rksim_mem *m, rksim_buf *b);

/* MEM_SYNC on [offset, offset+size) of a buffer. */
int rksim_mem_sync(rksim_mem *m, rksim_buf *b, uint32_t dir, uint64_t offset, uint64_t size);

/* The device-view bytes of [iova, iova+len) when the range lies inside one live buffer mapped
 * in the running job's address space (m->space, 0: any), else NULL and *f describes the fault.
 * A write marks the buffer as DMA-written for this job. */
uint8_t *rksim_dma(rksim_mem *m, uint64_t iova, uint64_t len, bool write, const char *what,
                   rksim_fault *f);

/* Job boundaries for the cache model: begin clears the DMA-written marks; end writes dirty CPU
 * lines back over DMA-written cacheable buffers (hazard 1) and clears their dirty state. */
void rksim_mem_job_begin(rksim_mem *m);
/* Returns true when a stale write-back happened. */
bool rksim_mem_job_end(rksim_mem *m);

#endif
