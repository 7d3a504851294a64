/* SPDX-License-Identifier: MIT */
/* rknn_create_mem2's cacheability reaches the kernel, as the simulator records it: on rknpu a
 * NON_CACHEABLE mem is a buffer created without RKNPU_MEM_CACHEABLE (the simulator's object
 * keeps the flags, and answers MEM_SYNC on it with the driver's EINVAL), while
 * rknn_mem_sync on it succeeds with nothing to do and the memory computes right; the default,
 * CACHEABLE and rknn_create_mem are cacheable objects that MEM_SYNC accepts. Rocket has no
 * cacheability flag: there every mem is cacheable. rknn_tensor_mem.flags says how the memory
 * was made (ALLOC_INSIDE) either way; contradictory or unknown flags are refused.
 *
 * White-box: built with the layer's sources, it reaches the simulator behind the layer's
 * engine (NPUKIT_RK_DEVICE=sim or sim-rocket). */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock_t in the runtime header */
#include <errno.h>
#include <stdlib.h>

#include "check.h"
#include "rk/device/rk_device_sim.h"
#include "npukit/rknpu_uapi.h"
#include "rk/runtime/runtime_internal.h"
#include "rknn/rknn_internal.h"
#include "rksim/sim.h"

/* The simulator's object behind a mem (NULL if none). */
static rksim_buf *sim_object(rknn_tensor_mem *mem, rksim **sim)
{
    rknn_mem_obj *o = rknn_mem_pin(mem, 0);
    if (!o)
        return NULL;
    *sim = npk_rk_device_sim(o->buf->eng->dev);
    rksim_buf *b = *sim ? rksim_mem_by_handle(&(*sim)->mem, o->buf->mem.handle) : NULL;
    rknn_mem_unpin(o);
    return b;
}

/* MEM_SYNC TO_DEVICE of the whole object through the kernel interface: 0 or -errno. */
static int kernel_sync(rksim *sim, const rksim_buf *b)
{
    struct rknpu_mem_sync y = {
        .flags = RKNPU_MEM_SYNC_TO_DEVICE, .obj_addr = b->obj_addr, .offset = 0, .size = b->size};
    return rksim_ioctl(sim, DRM_IOCTL_RKNPU_MEM_SYNC, &y);
}

/* One fp16 1x32x16 matmul with every operand in `mem`-kind memory: C[0] = 32. */
static void matmul_in(uint64_t flags)
{
    rknn_matmul_info info;
    memset(&info, 0, sizeof info);
    info.M = 1, info.K = 32, info.N = 16, info.type = RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32;
    rknn_matmul_io_attr io;
    rknn_matmul_ctx ctx;
    CHECK_EQ(rknn_matmul_create(&ctx, &info, &io), RKNN_SUCC);
    rknn_tensor_mem *a = rknn_create_mem2(ctx, io.A.size, flags),
                    *b = rknn_create_mem2(ctx, io.B.size, flags),
                    *c = rknn_create_mem2(ctx, io.C.size, flags);
    CHECK(a && b && c);
    if (a && b && c) {
        for (uint32_t i = 0; i < io.A.size / 2; i++)
            ((uint16_t *)a->virt_addr)[i] = 0x3c00; /* 1.0 */
        for (uint32_t i = 0; i < io.B.size / 2; i++)
            ((uint16_t *)b->virt_addr)[i] = 0x3c00;
        CHECK_EQ(rknn_mem_sync(ctx, a, RKNN_MEMORY_SYNC_TO_DEVICE), RKNN_SUCC);
        CHECK_EQ(rknn_mem_sync(ctx, b, RKNN_MEMORY_SYNC_BIDIRECTIONAL), RKNN_SUCC);
        CHECK_EQ(rknn_matmul_set_io_mem(ctx, a, &io.A), RKNN_SUCC);
        CHECK_EQ(rknn_matmul_set_io_mem(ctx, b, &io.B), RKNN_SUCC);
        CHECK_EQ(rknn_matmul_set_io_mem(ctx, c, &io.C), RKNN_SUCC);
        CHECK_EQ(rknn_matmul_run(ctx), RKNN_SUCC);
        CHECK_EQ(rknn_mem_sync(ctx, c, RKNN_MEMORY_SYNC_FROM_DEVICE), RKNN_SUCC);
        CHECK(((float *)c->virt_addr)[0] == 32.0f && ((float *)c->virt_addr)[15] == 32.0f);
    }
    rknn_destroy_mem(ctx, a);
    rknn_destroy_mem(ctx, b);
    rknn_destroy_mem(ctx, c);
    rknn_matmul_destroy(ctx);
}

int main(void)
{
    const char *dev = getenv("NPUKIT_RK_DEVICE");
    const bool rocket = dev && !strcmp(dev, "sim-rocket");
    static const struct {
        const char *name;
        int create2;
        uint64_t flags;
        bool cacheable; /* on rknpu */
    } kinds[] = {
        {"rknn_create_mem", 0, 0, true},
        {"rknn_create_mem2 0", 1, 0, true},
        {"rknn_create_mem2 CACHEABLE", 1, RKNN_FLAG_MEMORY_CACHEABLE, true},
        {"rknn_create_mem2 NON_CACHEABLE", 1, RKNN_FLAG_MEMORY_NON_CACHEABLE, false},
        {"rknn_create_mem2 NON_CACHEABLE | TRY_ALLOC_SRAM", 1,
         RKNN_FLAG_MEMORY_NON_CACHEABLE | RKNN_FLAG_MEMORY_TRY_ALLOC_SRAM, false},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        rknn_tensor_mem *m =
            kinds[i].create2 ? rknn_create_mem2(0, 4096, kinds[i].flags) : rknn_create_mem(0, 4096);
        CHECK(m != NULL);
        if (!m)
            continue;
        CHECK_EQ(m->flags, RKNN_TENSOR_MEMORY_FLAGS_ALLOC_INSIDE);
        rksim *sim = NULL;
        rksim_buf *b = sim_object(m, &sim);
        CHECK(b != NULL);
        const bool cacheable = rocket || kinds[i].cacheable;
        if (b) {
            /* rocket's front end creates every object without rknpu flags: one coherent view
             * bracketed by PREP_BO/FINI_BO; its device layer records it cacheable */
            if (!rocket) {
                CHECK_EQ(!!(b->flags & RKNPU_MEM_CACHEABLE), cacheable);
                CHECK_EQ(kernel_sync(sim, b), cacheable ? 0 : -EINVAL);
            }
            rknn_mem_obj *o = rknn_mem_pin(m, 0);
            CHECK_EQ(npk_rk_buffer_cacheable(o->buf), cacheable);
            rknn_mem_unpin(o);
        }
        for (int mode = RKNN_MEMORY_SYNC_TO_DEVICE; mode <= RKNN_MEMORY_SYNC_BIDIRECTIONAL; mode++)
            CHECK_EQ(rknn_mem_sync(0, m, (rknn_mem_sync_mode)mode), RKNN_SUCC);
        if (kinds[i].create2)
            matmul_in(kinds[i].flags);
        CHECK_EQ(rknn_destroy_mem(0, m), RKNN_SUCC);
    }
    CHECK(rknn_create_mem2(0, 4096, RKNN_FLAG_MEMORY_CACHEABLE | RKNN_FLAG_MEMORY_NON_CACHEABLE) ==
          NULL);
    CHECK_STR_HAS(npk_last_error(), "CACHEABLE and NON_CACHEABLE");
    CHECK(rknn_create_mem2(0, 4096, 0x100) == NULL);
    CHECK_STR_HAS(npk_last_error(), "unknown flags 0x100");
    return check_done();
}
