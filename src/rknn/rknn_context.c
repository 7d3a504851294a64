/* SPDX-License-Identifier: MIT */
/* rknn_matmul contexts: the handle table, create (plain and dynamic shapes), shape selection,
 * binding memory, core masks, quantisation parameters, destroy. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rknn_context.h"
#include "rknn_group.h"

/* Handles are (generation, slot) pairs, never pointers: a destroyed or made-up handle is found
 * missing in the table instead of being dereferenced. The slot takes the low 20 bits, the
 * generation every bit above them: 44 bits where rknn_context is 64-bit (a slot would need
 * 1.7e13 create/destroy cycles before a stale handle named a live context again), 12 on 32-bit
 * ARM where the type is 32-bit. Generation 0 is never handed out. */
enum { SLOT_BITS = 20, GEN_BITS = (int)sizeof(rknn_matmul_ctx) * 8 - SLOT_BITS };
#define GEN_MASK ((((rknn_matmul_ctx)1 << (GEN_BITS - 1)) << 1) - 1)
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static rknn_mm_ctx **slots;
static rknn_matmul_ctx *gens;
static size_t nslots;

/* The slot (1-based) and generation a handle names. */
static size_t slot_of(rknn_matmul_ctx h) { return (size_t)(h & ((1u << SLOT_BITS) - 1)); }
static rknn_matmul_ctx gen_of(rknn_matmul_ctx h) { return (h >> SLOT_BITS) & GEN_MASK; }

rknn_mm_ctx *rknn_ctx_lock(rknn_matmul_ctx h, const char *fn)
{
    size_t slot = slot_of(h);
    rknn_matmul_ctx gen = gen_of(h);
    rknn_mm_ctx *c = NULL;
    pthread_mutex_lock(&table_lock);
    if (slot >= 1 && slot <= nslots && gens[slot - 1] == gen)
        c = slots[slot - 1];
    if (c)
        pthread_mutex_lock(&c->lock); /* taken under the table lock: destroy waits for it */
    pthread_mutex_unlock(&table_lock);
    if (!c)
        rknn_error(NPK_EINVAL,
                   "%s: context 0x%llx is not a live matmul context (destroyed, "
                   "or never created)",
                   fn, (unsigned long long)h);
    return c;
}

static int add_ctx(rknn_mm_ctx *c, rknn_matmul_ctx *out)
{
    pthread_mutex_lock(&table_lock);
    size_t i = 0;
    while (i < nslots && slots[i])
        i++;
    if (i == nslots) {
        size_t cap = nslots ? nslots * 2 : 16;
        rknn_mm_ctx **ns = cap < (1u << SLOT_BITS) - 1 ? realloc(slots, cap * sizeof *ns) : NULL;
        if (ns)
            slots = ns;
        rknn_matmul_ctx *ng = ns ? realloc(gens, cap * sizeof *ng) : NULL;
        if (!ng) {
            pthread_mutex_unlock(&table_lock);
            return rknn_error(NPK_ENOMEM, "rknn_matmul_create: no room for another context");
        }
        gens = ng;
        for (size_t j = nslots; j < cap; j++) {
            slots[j] = NULL;
            gens[j] = 0;
        }
        nslots = cap;
    }
    slots[i] = c;
    gens[i] = (gens[i] + 1) & GEN_MASK;
    if (!gens[i])
        gens[i] = 1;
    *out = ((rknn_matmul_ctx)gens[i] << SLOT_BITS) | (rknn_matmul_ctx)(i + 1);
    pthread_mutex_unlock(&table_lock);
    return RKNN_SUCC;
}

static void free_ctx(rknn_mm_ctx *c)
{
    if (c->w)
        npk_rk_weights_free(c->rt, c->w);
    rknn_group_free(c);
    npk_rk_close(c->rt);
    free(c->shapes);
    free(c->attrs);
    free(c->b_scale);
    free(c->b_zp);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

static int check_info(const rknn_matmul_info *info)
{
    /* The matmul types of the interface the RK3588 does not run (the mixed ones). */
    if (info->type >= RKNN_FLOAT16_MM_INT8_TO_FLOAT32 &&
        info->type <= RKNN_FLOAT16_MM_INT4_TO_BFLOAT16 && !rknn_type_find(info->type))
        return rknn_error(NPK_EUNSUPPORTED,
                          "unsupported matmul dtype %s (%d) in this platform "
                          "(rk3588 runs types 1, 2, 3, 4, 9 and 10)",
                          get_matmul_type_string(info->type), (int)info->type);
    if (!rknn_type_find(info->type))
        return rknn_error(NPK_EINVAL, "matmul type %d is not a matmul type (1..12)",
                          (int)info->type);
    if (info->B_layout < RKNN_MM_LAYOUT_NORM || info->B_layout > RKNN_MM_LAYOUT_TP_NORM)
        return rknn_error(NPK_EINVAL, "B_layout %d: 0 (NORM), 1 (NATIVE) or 2 (TP_NORM)",
                          info->B_layout);
    if (info->AC_layout != RKNN_MM_LAYOUT_NORM && info->AC_layout != RKNN_MM_LAYOUT_NATIVE)
        return rknn_error(NPK_EINVAL, "AC_layout %d: 0 (NORM) or 1 (NATIVE)", info->AC_layout);
    if (info->AC_quant_type != 0)
        return rknn_error(NPK_EINVAL, "AC_quant_type %d: only 0 (per layer, symmetric)",
                          info->AC_quant_type);
    if (info->B_quant_type < RKNN_QUANT_TYPE_PER_LAYER_SYM ||
        info->B_quant_type > RKNN_QUANT_TYPE_PER_GROUP_ASYM)
        return rknn_error(NPK_EINVAL, "B_quant_type %d: 0..5", info->B_quant_type);
    if (info->iommu_domain_id < 0)
        return rknn_error(NPK_EINVAL, "iommu_domain_id %d must not be negative",
                          info->iommu_domain_id);
    return RKNN_SUCC;
}

int rknn_matmul_create_dynamic_shape(rknn_matmul_ctx *ctx, rknn_matmul_info *info, int shape_num,
                                     rknn_matmul_shape shapes[], rknn_matmul_io_attr io_attrs[])
{
    if (!ctx || !info || !shapes || !io_attrs)
        return rknn_error(NPK_EINVAL, "rknn_matmul_create: NULL %s",
                          !ctx      ? "ctx"
                          : !info   ? "info"
                          : !shapes ? "shapes"
                                    : "io_attr");
    *ctx = 0;
    if (shape_num < 1)
        return rknn_error(NPK_EINVAL, "rknn_matmul_create: shape_num %d: at least 1", shape_num);
    int rc = check_info(info);
    if (rc == RKNN_SUCC)
        rc = rknn_group_check(info, shapes[0].K);
    for (int i = 0; rc == RKNN_SUCC && i < shape_num; i++) {
        if (shapes[i].K != shapes[0].K || shapes[i].N != shapes[0].N)
            rc = rknn_error(NPK_EINVAL,
                            "dynamic shape %d (%d, %d, %d): only M may differ from "
                            "shape 0 (%d, %d, %d)",
                            i, shapes[i].M, shapes[i].K, shapes[i].N, shapes[0].M, shapes[0].K,
                            shapes[0].N);
        else
            rc = rknn_shape_attrs(info, &shapes[i], &io_attrs[i]);
    }
    if (rc)
        return rc;
    rknn_mm_ctx *c = calloc(1, sizeof *c);
    if (c) {
        c->shapes = malloc((size_t)shape_num * sizeof *c->shapes);
        c->attrs = malloc((size_t)shape_num * sizeof *c->attrs);
    }
    if (!c || !c->shapes || !c->attrs) {
        if (c) {
            free(c->shapes);
            free(c->attrs);
        }
        free(c);
        return rknn_error(NPK_ENOMEM, "rknn_matmul_create: out of memory");
    }
    pthread_mutex_init(&c->lock, NULL);
    c->info = *info;
    c->row = rknn_type_find(info->type);
    c->nshapes = shape_num;
    memcpy(c->shapes, shapes, (size_t)shape_num * sizeof *shapes);
    memcpy(c->attrs, io_attrs, (size_t)shape_num * sizeof *io_attrs);
    c->a_scale = c->c_scale = c->b_one = 1.0f;
    npk_status s = rknn_runtime_open(&c->rt);
    if (s) {
        c->rt = NULL;
        free_ctx(c);
        return rknn_fail(s);
    }
    if ((rc = add_ctx(c, ctx))) {
        free_ctx(c);
        return rc;
    }
    return RKNN_SUCC;
}

int rknn_matmul_create(rknn_matmul_ctx *ctx, rknn_matmul_info *info, rknn_matmul_io_attr *io_attr)
{
    if (!info)
        return rknn_error(NPK_EINVAL, "rknn_matmul_create: NULL info");
    rknn_matmul_shape shape = {info->M, info->K, info->N};
    return rknn_matmul_create_dynamic_shape(ctx, info, 1, &shape, io_attr);
}

int rknn_matmul_set_dynamic_shape(rknn_matmul_ctx ctx, rknn_matmul_shape *shape)
{
    rknn_mm_ctx *c = rknn_ctx_lock(ctx, "rknn_matmul_set_dynamic_shape");
    if (!c)
        return RKNN_ERR_CTX_INVALID;
    int rc = RKNN_SUCC;
    int i = 0;
    if (!shape)
        rc = rknn_error(NPK_EINVAL, "rknn_matmul_set_dynamic_shape: NULL shape");
    else {
        while (i < c->nshapes && memcmp(&c->shapes[i], shape, sizeof *shape))
            i++;
        if (i == c->nshapes)
            rc = rknn_error(NPK_EINVAL,
                            "rknn_matmul_set_dynamic_shape: (%d, %d, %d) is not "
                            "one of the context's %d shapes",
                            shape->M, shape->K, shape->N, c->nshapes);
        else
            c->cur = i;
    }
    pthread_mutex_unlock(&c->lock);
    return rc;
}

int rknn_matmul_destroy(rknn_matmul_ctx ctx)
{
    pthread_mutex_lock(&table_lock);
    size_t slot = slot_of(ctx);
    rknn_mm_ctx *c = NULL;
    if (slot >= 1 && slot <= nslots && gens[slot - 1] == gen_of(ctx)) {
        c = slots[slot - 1];
        slots[slot - 1] = NULL;
    }
    if (c) { /* wait for a run in progress: it holds the context's lock */
        pthread_mutex_lock(&c->lock);
        pthread_mutex_unlock(&c->lock);
    }
    pthread_mutex_unlock(&table_lock);
    if (!c) {
        rknn_error(NPK_EINVAL,
                   "rknn_matmul_destroy: context 0x%llx is not a live matmul "
                   "context (destroyed, or never created)",
                   (unsigned long long)ctx);
        return RKNN_ERR_CTX_INVALID;
    }
    free_ctx(c);
    return RKNN_SUCC;
}

int rknn_matmul_set_io_mem(rknn_matmul_ctx ctx, rknn_tensor_mem *mem, rknn_matmul_tensor_attr *attr)
{
    rknn_mm_ctx *c = rknn_ctx_lock(ctx, "rknn_matmul_set_io_mem");
    if (!c)
        return RKNN_ERR_CTX_INVALID;
    int rc = RKNN_SUCC;
    rknn_mem_obj *o = rknn_mem_pin(mem, 0); /* its buffer's size is read below */
    const rknn_matmul_io_attr *cur = &c->attrs[c->cur];
    rknn_binding *b = NULL;
    const rknn_matmul_tensor_attr *mine = NULL;
    if (!attr)
        rc = rknn_error(NPK_EINVAL, "rknn_matmul_set_io_mem: NULL attr");
    else if (!o)
        rc = rknn_error(NPK_EINVAL,
                        "rknn_matmul_set_io_mem: mem %p is not a live "
                        "rknn_tensor_mem (NULL, destroyed, or not made by "
                        "rknn_create_mem)",
                        (void *)mem);
    else if (!strcmp(attr->name, "A"))
        b = &c->a, mine = &cur->A;
    else if (!strcmp(attr->name, "B"))
        b = &c->b, mine = &cur->B;
    else if (!strcmp(attr->name, "C"))
        b = &c->c, mine = &cur->C;
    else
        rc = rknn_error(NPK_EINVAL,
                        "rknn_matmul_set_io_mem: attr name \"%.16s\" is not A, B "
                        "or C",
                        attr->name);
    if (b) {
        /* The mem must hold the operand of the largest shape it may run with: checked here for
         * the current shape, and again at every run. */
        uint64_t room = (uint64_t)npk_rk_buffer_size(o->buf);
        uint64_t off = mem->offset < 0 ? UINT64_MAX : (uint64_t)mem->offset;
        if (off > room || mine->size > room - off || mine->size > mem->size)
            rc = rknn_error(NPK_EINVAL,
                            "rknn_matmul_set_io_mem: %s needs %u bytes; mem %p has "
                            "%u (offset %d)",
                            mine->name, mine->size, (void *)mem, mem->size, mem->offset);
        else
            *b = (rknn_binding){o, o->id, off};
    }
    rknn_mem_unpin(o);
    pthread_mutex_unlock(&c->lock);
    return rc;
}

int rknn_matmul_set_core_mask(rknn_matmul_ctx ctx, rknn_core_mask core_mask)
{
    rknn_mm_ctx *c = rknn_ctx_lock(ctx, "rknn_matmul_set_core_mask");
    if (!c)
        return RKNN_ERR_CTX_INVALID;
    unsigned mask = core_mask == RKNN_NPU_CORE_ALL ? 0 : (unsigned)core_mask;
    int rc = RKNN_SUCC;
    npk_status s = (unsigned)core_mask > 7 && core_mask != RKNN_NPU_CORE_ALL
                       ? npk_fail(NPK_EINVAL,
                                  "core mask 0x%x: RKNN_NPU_CORE_* (bits 0..2, or "
                                  "0xffff for all)",
                                  (unsigned)core_mask)
                       : npk_rk_set_core_mask(c->rt, mask);
    if (s)
        rc = rknn_fail(s);
    pthread_mutex_unlock(&c->lock);
    return rc;
}

static int set_quant(rknn_mm_ctx *c, const rknn_quant_params *p)
{
    if (!c->row->quant)
        return rknn_error(NPK_EINVAL,
                          "quantisation parameters: %s takes none (types 2, 3 and "
                          "9 do)",
                          get_matmul_type_string(c->info.type));
    if (!p->scale || p->scale_len < 1 || (p->zp_len > 0 && !p->zp) || p->zp_len < 0)
        return rknn_error(NPK_EINVAL,
                          "quantisation parameters of %.16s: scale %p (%d), zp %p "
                          "(%d)",
                          p->name, (void *)p->scale, p->scale_len, (void *)p->zp, p->zp_len);
    for (int i = 0; i < p->scale_len; i++)
        if (!isfinite(p->scale[i]) || p->scale[i] == 0.0f)
            return rknn_error(NPK_EINVAL, "%.16s scale[%d] = %g: finite and non-zero", p->name, i,
                              p->scale[i]);
    const int32_t n = c->shapes[0].N;
    bool per_channel = c->info.B_quant_type == RKNN_QUANT_TYPE_PER_CHANNEL_SYM ||
                       c->info.B_quant_type == RKNN_QUANT_TYPE_PER_CHANNEL_ASYM;
    if (!strcmp(p->name, "A") || !strcmp(p->name, "C")) {
        if (p->scale_len != 1 || p->zp_len > 1)
            return rknn_error(NPK_EINVAL,
                              "%s is quantised per layer: one scale and at most one "
                              "zero point, not %d and %d",
                              p->name, p->scale_len, p->zp_len);
        int32_t zp = p->zp_len ? p->zp[0] : 0;
        if (!strcmp(p->name, "A")) {
            if (zp)
                return rknn_error(NPK_EINVAL,
                                  "A's zero point %d: A is symmetric "
                                  "(AC_quant_type 0), its zero point is 0",
                                  zp);
            c->a_scale = p->scale[0];
        } else {
            if (zp < -128 || zp > 127)
                return rknn_error(NPK_EINVAL, "C's zero point %d is outside int8", zp);
            c->c_scale = p->scale[0];
            c->c_zp = zp;
        }
        return RKNN_SUCC;
    }
    if (strcmp(p->name, "B"))
        return rknn_error(NPK_EINVAL, "quantisation parameters for \"%.16s\": A, B or C", p->name);
    const bool per_group = rknn_group_wanted(c);
    int32_t want = per_group ? rknn_group_scale_len(c) : per_channel ? n : 1;
    if (p->scale_len != want || (p->zp_len && p->zp_len != want))
        return rknn_error(NPK_EINVAL,
                          "B is quantised %s: %d scales (and zero points), not %d "
                          "and %d",
                          per_group     ? "per group (N x K / group_size)"
                          : per_channel ? "per channel"
                                        : "per layer",
                          want, p->scale_len, p->zp_len);
    float *sc = malloc((size_t)want * sizeof *sc);
    int32_t *zp = calloc((size_t)want, sizeof *zp);
    if (!sc || !zp) {
        free(sc);
        free(zp);
        return rknn_error(NPK_ENOMEM, "quantisation parameters: out of memory");
    }
    memcpy(sc, p->scale, (size_t)want * sizeof *sc);
    if (p->zp_len)
        memcpy(zp, p->zp, (size_t)want * sizeof *zp);
    free(c->b_scale);
    free(c->b_zp);
    c->b_scale = sc;
    c->b_zp = zp;
    c->b_len = want;
    return RKNN_SUCC;
}

int rknn_matmul_set_quant_params(rknn_matmul_ctx ctx, rknn_quant_params *params)
{
    rknn_mm_ctx *c = rknn_ctx_lock(ctx, "rknn_matmul_set_quant_params");
    if (!c)
        return RKNN_ERR_CTX_INVALID;
    int rc = params ? set_quant(c, params)
                    : rknn_error(NPK_EINVAL, "rknn_matmul_set_quant_params: NULL params");
    pthread_mutex_unlock(&c->lock);
    return rc;
}

/* The parameters set for params->name (pointers into the context, valid until the next set or
 * destroy); *scale: the factor that takes C's int32 to real values per layer, A's scale times
 * B's first scale. */
int rknn_matmul_get_quant_params(rknn_matmul_ctx ctx, rknn_quant_params *params, float *scale)
{
    rknn_mm_ctx *c = rknn_ctx_lock(ctx, "rknn_matmul_get_quant_params");
    if (!c)
        return RKNN_ERR_CTX_INVALID;
    int rc = RKNN_SUCC;
    if (!params || !scale) {
        rc = rknn_error(NPK_EINVAL, "rknn_matmul_get_quant_params: NULL %s",
                        params ? "scale" : "params");
    } else if (!strcmp(params->name, "A") || !strcmp(params->name, "C")) {
        bool a = params->name[0] == 'A';
        params->scale = a ? &c->a_scale : &c->c_scale;
        params->scale_len = 1;
        params->zp = a ? &c->a_zp : &c->c_zp;
        params->zp_len = 1;
    } else if (!strcmp(params->name, "B")) {
        params->scale = c->b_scale ? c->b_scale : &c->b_one;
        params->scale_len = c->b_scale ? c->b_len : 1;
        params->zp = c->b_zp ? c->b_zp : &c->a_zp;
        params->zp_len = params->scale_len;
    } else {
        rc = rknn_error(NPK_EINVAL, "rknn_matmul_get_quant_params: \"%.16s\" is not A, B or C",
                        params->name);
    }
    if (rc == RKNN_SUCC)
        *scale = c->a_scale * (c->b_scale ? c->b_scale[0] : 1.0f);
    pthread_mutex_unlock(&c->lock);
    return rc;
}
