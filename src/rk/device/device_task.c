/* SPDX-License-Identifier: MIT */
/* npk_rk_devtask: one synthesized matmul task on a device (see rk_device.h). */
#include <string.h>

#include "rk_device.h"
#include "npukit/rk_regcmd.h"
#include "device_pack.h"

/* Values every working program uses for the task record (facts A.1 "Values the working
 * userspace uses"): CNA|CORE|DPU enabled, the DPU interrupt pair. */

static npk_rk_pack_geom geom(const npk_rk_devtask *t)
{
    return (npk_rk_pack_geom){t->mm.in, t->mm.out, t->info.mode, t->mm.m,
                              t->mm.k,  t->mm.n,   t->a_stride,  t->c_stride};
}

/* The feature row stride the synthesized LINE_STRIDE describes, in elements. */
static size_t a_stride_of(const npk_rk_entry *body, npk_rk_prec in)
{
    for (unsigned i = 0; i < NPK_RK_MATMUL_BODY; i++)
        if (npk_rk_reg_lookup(npk_rk_entry_target(body[i]), npk_rk_entry_reg(body[i])) ==
            npk_rk_reg_info(NPK_REG_CNA_DMA_CON1)) {
            uint32_t ls =
                npk_rk_field_get(NPK_RKF(CNA_DMA_CON1, LINE_STRIDE), npk_rk_entry_value(body[i]));
            return (size_t)ls * 128 / npk_rk_prec_bits(in);
        }
    return 0;
}

npk_status npk_rk_devtask_create(npk_rk_device *d, const npk_rk_mm *mm, uint32_t data_flags,
                                 npk_rk_devtask *t)
{
    memset(t, 0, sizeof *t);
    t->mm = *mm;
    t->data_flags = data_flags;
    npk_rk_device_info di;
    npk_rk_device_query(d, &di);
    t->form = npk_rk_kernel_form_find(di.kernel);
    if (!t->form)
        return npk_fail(NPK_EUNSUPPORTED, "devtask: no program form for the %s kernel interface",
                        di.kernel ? di.kernel : "?");
    /* a first synthesis resolves the mode and the strides the registers will carry */
    t->mm.a = t->mm.b = t->mm.c = 0x1000;
    npk_status s = npk_rk_synth_for(t->form, &t->mm, t->body, &t->body_count, &t->info);
    if (s)
        return s;
    if (t->info.mode == NPK_MODE_LINE) {
        t->a_stride = a_stride_of(t->body, mm->in);
        t->c_stride = mm->c_pitch ? mm->c_pitch : mm->n;
    }
    npk_rk_pack_geom g = geom(t);
    size_t ab = npk_rk_devpack_a_bytes(&g), bb = npk_rk_devpack_b_bytes(&g),
           cb = npk_rk_devpack_c_bytes(&g);
    if (!ab || !bb || !cb)
        return npk_fail(NPK_EINVAL, "devtask: no layout for %s -> %s %ux%ux%u",
                        npk_rk_prec_name(mm->in), npk_rk_prec_name(mm->out), mm->m, mm->k, mm->n);
    if ((s = npk_rk_mem_create(d, ab, data_flags, &t->a)) ||
        (s = npk_rk_mem_create(d, bb, data_flags, &t->b)) ||
        (s = npk_rk_mem_create(d, cb, data_flags, &t->c)) ||
        (s = npk_rk_mem_create(d, (NPK_RK_BODY_MAX + NPK_RK_TRAILER_ENTRIES) * 8, data_flags,
                               &t->regcmd)) ||
        (s = npk_rk_mem_create(d, sizeof(struct rknpu_task), data_flags | RKNPU_MEM_KERNEL_MAPPING,
                               &t->task))) {
        npk_rk_devtask_destroy(d, t);
        return s;
    }
    t->mm.a = t->a.iova;
    t->mm.b = t->b.iova;
    t->mm.c = t->c.iova;
    if ((s = npk_rk_synth_for(t->form, &t->mm, t->body, &t->body_count, &t->info)) ||
        (s = npk_rk_devtask_write_program(d, t))) {
        npk_rk_devtask_destroy(d, t);
        return s;
    }
    return NPK_OK;
}

npk_status npk_rk_devtask_write_program(npk_rk_device *d, npk_rk_devtask *t)
{
    npk_rk_entry *r = t->regcmd.host;
    memcpy(r, t->body, t->body_count * sizeof *r);
    npk_status s = npk_rk_trailer(r + t->body_count, 0, 0, t->form->enable);
    if (s)
        return s;
    struct rknpu_task *task = t->task.host;
    /* rknpu-shaped, as the runtime writes it: a rocket device adds the trailer to the count */
    *task = (struct rknpu_task){.enable_mask = t->form->enable,
                                .int_mask = npk_rk_matmul_int_mask(),
                                .int_clear = RKNPU_INT_CLEAR,
                                .regcfg_amount = (uint32_t)t->body_count,
                                .regcmd_addr = t->regcmd.iova};
    if ((s = npk_rk_mem_sync(d, &t->regcmd, 0, t->regcmd.size, RKNPU_MEM_SYNC_TO_DEVICE)))
        return s;
    return npk_rk_mem_sync(d, &t->task, 0, t->task.size, RKNPU_MEM_SYNC_TO_DEVICE);
}

npk_status npk_rk_devtask_load(npk_rk_device *d, npk_rk_devtask *t, const void *a, const void *b)
{
    npk_rk_pack_geom g = geom(t);
    npk_status s;
    if ((s = npk_rk_devpack_a(&g, a, t->a.host, t->a.size)) ||
        (s = npk_rk_devpack_b(&g, b, t->b.host, t->b.size)) ||
        (s = npk_rk_mem_sync(d, &t->a, 0, t->a.size, RKNPU_MEM_SYNC_TO_DEVICE)))
        return s;
    return npk_rk_mem_sync(d, &t->b, 0, t->b.size, RKNPU_MEM_SYNC_TO_DEVICE);
}

npk_status npk_rk_devtask_clean_output(npk_rk_device *d, npk_rk_devtask *t)
{
    return npk_rk_mem_sync(d, &t->c, 0, t->c.size, RKNPU_MEM_SYNC_TO_DEVICE);
}

npk_status npk_rk_devtask_submit(npk_rk_device *d, npk_rk_devtask *t, unsigned core,
                                 uint32_t timeout_ms, struct rknpu_submit *sub)
{
    if (core > 2)
        return npk_fail(NPK_EINVAL, "devtask: core %u, RK3588 has cores 0..2", core);
    *sub = (struct rknpu_submit){.flags = RKNPU_JOB_PC | RKNPU_JOB_BLOCK | RKNPU_JOB_PINGPONG,
                                 .timeout = timeout_ms,
                                 .task_start = 0,
                                 .task_number = 1,
                                 .task_obj_addr = t->task.obj_addr,
                                 .core_mask = 1u << core,
                                 .fence_fd = -1};
    /* every entry valid, whichever the kernel reads for this mask */
    for (unsigned i = 0; i < 5; i++)
        sub->subcore_task[i] = (struct rknpu_subcore_task){0, 1};
    return npk_rk_submit(d, sub);
}

npk_status npk_rk_devtask_read(npk_rk_device *d, npk_rk_devtask *t, void *c)
{
    npk_status s = npk_rk_mem_sync(d, &t->c, 0, t->c.size, RKNPU_MEM_SYNC_FROM_DEVICE);
    if (s)
        return s;
    npk_rk_pack_geom g = geom(t);
    return npk_rk_devpack_unpack_c(&g, t->c.host, t->c.size, c);
}

void npk_rk_devtask_destroy(npk_rk_device *d, npk_rk_devtask *t)
{
    npk_rk_mem_destroy(d, &t->a);
    npk_rk_mem_destroy(d, &t->b);
    npk_rk_mem_destroy(d, &t->c);
    npk_rk_mem_destroy(d, &t->regcmd);
    npk_rk_mem_destroy(d, &t->task);
}
