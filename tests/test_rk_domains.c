/* SPDX-License-Identifier: MIT */
/* Weights past one 4 GiB address space. The vendor driver (0.9.8) has 16 IOMMU domains, each a
 * 32-bit IOVA space, and runs a job in the domain its SUBMIT names; mainline rocket gives every
 * open file its own domain. Checked here on the simulator, which models the same limits:
 *   - the domains themselves: SET/GET_IOMMU_DOMAIN_ID, the same IOVA in two domains naming two
 *     buffers, a full domain refusing the next buffer, ids past 15 refused;
 *   - a matmul whose weights the runtime placed in the second domain (the first full) equals
 *     the CPU reference, and so does one in the first domain after it;
 *   - the packed weights of a 7B Q4_0 (int4) and an 8B Q8_0 (int8) LLaMA-shaped model are
 *     placed (the simulator's memory is backed lazily: no byte of them is touched), the
 *     largest of the shapes below that fits, and what does not fit is refused naming its size
 *     and the limit. */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock_t in the runtime's header */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rk_matmul_check_testlib.h"
#include "rk_operands_testlib.h"
#include "npukit/rk.h"
#include "npukit/rk_reference.h"
#include "rk/device/rk_device.h"
#include "rk/runtime/runtime_internal.h"
#include "rk/runtime/runtime_weights.h"

static void device_domains(void)
{
    npk_rk_device *d;
    CHECK_EQ(npk_rk_device_open("sim", &d), NPK_OK);
    npk_rk_device_info info;
    npk_rk_device_query(d, &info);
    CHECK_EQ(info.domains, RKNPU_MAX_IOMMU_DOMAIN_NUM);
    CHECK_EQ(info.space_bytes, 1ull << 32);
    uint32_t v = 0;
    CHECK_EQ(npk_rk_action(d, RKNPU_GET_IOMMU_DOMAIN_ID, &v), NPK_OK);
    CHECK_EQ(v, 0);
    v = 3;
    CHECK_EQ(npk_rk_action(d, RKNPU_SET_IOMMU_DOMAIN_ID, &v), NPK_OK);
    CHECK_EQ(npk_rk_action(d, RKNPU_GET_IOMMU_DOMAIN_ID, &v), NPK_OK);
    CHECK_EQ(v, 3);
    v = 16;
    CHECK_EQ(npk_rk_action(d, RKNPU_SET_IOMMU_DOMAIN_ID, &v), NPK_EINVAL);
    /* two domains, two 4 GiB spaces: the first buffer of each at the same address */
    npk_rk_mem a, b;
    CHECK_EQ(npk_rk_mem_create_in(d, 0, 4096, 0, 0, &a), NPK_OK);
    CHECK_EQ(npk_rk_mem_create_in(d, 1, 4096, 0, 0, &b), NPK_OK);
    CHECK(a.iova == b.iova && a.handle != b.handle && b.domain == 1);
    CHECK_EQ(npk_rk_action(d, RKNPU_GET_IOMMU_DOMAIN_ID, &v), NPK_OK);
    CHECK_EQ(v, 1); /* MEM_CREATE switched the driver to the domain it named */
    npk_rk_mem bad;
    CHECK_EQ(npk_rk_mem_create_in(d, 16, 4096, 0, 0, &bad), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "domain 16");
    struct rknpu_mem_create raw = {.size = 4096, .iommu_domain_id = 16};
    CHECK_EQ(npk_rk_device_ioctl(d, DRM_IOCTL_RKNPU_MEM_CREATE, &raw), -EINVAL);
    /* a domain's whole IOVA space (less its unmapped first page), never touched, then full */
    npk_rk_mem whole, more;
    CHECK_EQ(npk_rk_mem_create_in(d, 2, (1ull << 32) - 4096, 0, 0, &whole), NPK_OK);
    CHECK_EQ(npk_rk_mem_create_in(d, 2, 4096, 0, 0, &more), NPK_ENOMEM);
    CHECK_STR_HAS(npk_last_error(), "IOMMU domain 2");
    CHECK_EQ(npk_rk_mem_create_in(d, 3, 4096, 0, 0, &more), NPK_OK); /* the next has room */
    CHECK_EQ(npk_rk_mem_destroy(d, &whole), NPK_OK);
    npk_rk_device_close(d);
}

static void second_domain(void)
{
    npk_rk *rt;
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    npk_rk_info info;
    CHECK_EQ(npk_rk_query(rt, &info), NPK_OK);
    CHECK_EQ(info.weight_spaces, 16);
    CHECK_EQ(info.weight_capacity, 16 * NPK_RK_WEIGHT_SPACE);
    /* the first domain filled with weights (lazily backed: nothing touched) */
    npk_rk_mem filler;
    CHECK_EQ(npk_rk_weights_mem(rt, NPK_RK_WEIGHT_SPACE - 4096, &filler), NPK_OK);
    CHECK_EQ(filler.domain, 0);
    const uint32_t m = 40, k = 300, n = 200;
    void *b8 = rk_test_operands(NPK_PREC_INT8, (size_t)k * n),
         *b16 = rk_test_operands(NPK_PREC_FP16, (size_t)k * n);
    npk_rk_weights *w8, *w16, *w0;
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_INT8, k, n, b8, m, &w8), NPK_OK);
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_FP16, k, n, b16, m, &w16), NPK_OK);
    CHECK(w8->mem.domain == 1 && w16->mem.domain == 1);
    rk_test_check_matmul(rt, w8, NPK_PREC_INT8, NPK_PREC_INT32, m, k, n, b8);
    rk_test_check_matmul(rt, w16, NPK_PREC_FP16, NPK_PREC_FP32, m, k, n, b16);
    /* room again in the first: new weights go there, and calls alternate between domains */
    npk_rk_weights_mem_free(rt->eng, &filler);
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_INT8, k, n, b8, m, &w0), NPK_OK);
    CHECK_EQ(w0->mem.domain, 0);
    rk_test_check_matmul(rt, w0, NPK_PREC_INT8, NPK_PREC_INT32, m, k, n, b8);
    rk_test_check_matmul(rt, w8, NPK_PREC_INT8, NPK_PREC_INT32, m, k, n, b8);
    rk_test_check_matmul(rt, w0, NPK_PREC_INT8, NPK_PREC_INT32, m, k, n, b8);
    npk_rk_weights_free(rt, w0);
    npk_rk_weights_free(rt, w8);
    npk_rk_weights_free(rt, w16);
    CHECK_EQ(npk_rk_query(rt, &info), NPK_OK);
    CHECK_EQ(info.weight_used, 0);
    free(b8);
    free(b16);
    npk_rk_close(rt);
}

/* A LLaMA-shaped model's matmul weights: per layer q, k, v, o, gate, up, down, and the output
 * projection (the token embedding stays on the host). */
typedef struct model {
    const char *name;
    npk_rk_prec prec; /* the resident form of its weight type */
    uint32_t layers, hidden, kv, ffn, vocab;
} model;

typedef struct placed {
    npk_rk_weights **w;
    size_t count;
    uint64_t params, bytes, per_domain[RKNPU_MAX_IOMMU_DOMAIN_NUM];
    unsigned split, copies, whole; /* rocket: tensors split by core, copied, whole in one */
} placed;

/* Where w's bytes went: its domain, or on rocket each part's core (a copy: every core). */
static void account(npk_rk *rt, const npk_rk_weights *w, placed *p)
{
    const uint64_t bytes = npk_rk_weights_bytes(w);
    if (!rt->eng->core_spaces) {
        p->per_domain[w->mem.domain] += bytes;
        return;
    }
    for (unsigned i = 0; i < w->parts; i++)
        p->per_domain[w->part_core[i]] += npk_rk_weights_part_bytes(w, i);
    for (unsigned c = 0; !w->parts && c < rt->eng->max_cores; c++)
        p->per_domain[c] += bytes;
    p->split += w->parts > 1;
    p->whole += w->parts == 1;
    p->copies += w->parts == 0;
}

/* Place every tensor of md as the runtime places packed weights (nothing packed: the
 * simulator's memory stays untouched); NPK_OK, or the first refusal (its message kept). */
static npk_status place_model(npk_rk *rt, const model *md, uint32_t m_hint, placed *p)
{
    const uint32_t shape[7][2] = {{md->hidden, md->hidden}, {md->hidden, md->kv},
                                  {md->hidden, md->kv},     {md->hidden, md->hidden},
                                  {md->hidden, md->ffn},    {md->hidden, md->ffn},
                                  {md->ffn, md->hidden}};
    memset(p, 0, sizeof *p);
    p->w = calloc((size_t)md->layers * 7 + 1, sizeof *p->w);
    npk_status s = p->w ? NPK_OK : NPK_ENOMEM;
    for (uint32_t t = 0; s == NPK_OK && t <= md->layers * 7; t++) {
        uint32_t k = t < md->layers * 7 ? shape[t % 7][0] : md->hidden,
                 n = t < md->layers * 7 ? shape[t % 7][1] : md->vocab;
        npk_rk_weights *w;
        if ((s = npk_rk_weights_new(rt, md->prec, k, n, m_hint, 0, &w)))
            break;
        if ((s = npk_rk_weights_place(rt, w))) {
            free(w);
            break;
        }
        account(rt, w, p);
        p->w[p->count++] = w;
        p->params += (uint64_t)k * n;
        p->bytes += npk_rk_weights_bytes(w);
    }
    return s;
}

static void unplace(npk_rk *rt, placed *p)
{
    for (size_t i = 0; i < p->count; i++)
        npk_rk_weights_free(rt, p->w[i]);
    free(p->w);
}

static void report(const char *device, const model *md, const placed *p)
{
    printf("%s, %s: %zu tensors, %.2f G parameters, %.3f GB packed (%.3f bytes/parameter); "
           "per address space:",
           device, md->name, p->count, p->params / 1e9, p->bytes / 1e9,
           (double)p->bytes / (double)p->params);
    for (unsigned d = 0; d < RKNPU_MAX_IOMMU_DOMAIN_NUM; d++)
        if (p->per_domain[d])
            printf(" [%u] %.3f GB", d, p->per_domain[d] / 1e9);
    if (p->split + p->copies + p->whole)
        printf("; split by core %u, copies %u, whole in one core %u", p->split, p->copies,
               p->whole);
    printf("\n");
}

static const model llama2_7b_q4_0 = {"7B Q4_0 (int4)", NPK_PREC_INT4, 32, 4096, 4096, 11008,
                                     32000};
static const model llama3_8b_q8_0 = {"8B Q8_0 (int8)", NPK_PREC_INT8, 32, 4096, 1024, 14336,
                                     128256};
static const model llama2_70b_q4_0 = {"70B Q4_0 (int4)", NPK_PREC_INT4, 80, 8192, 1024, 28672,
                                      32000};
static const model llama2_7b_f16 = {"7B F16 (fp16)", NPK_PREC_FP16, 32, 4096, 4096, 11008, 32000};

static void model_shapes(void)
{
    npk_rk *rt;
    placed p;
    /* rknpu: over the 16 IOMMU domains */
    CHECK_EQ(npk_rk_open("sim", &rt), NPK_OK);
    const model *fit[] = {&llama2_7b_q4_0, &llama3_8b_q8_0, &llama2_7b_f16, &llama2_70b_q4_0};
    for (size_t i = 0; i < sizeof fit / sizeof fit[0]; i++) {
        CHECK_EQ(place_model(rt, fit[i], 1, &p), NPK_OK);
        report("rknpu", fit[i], &p);
        unsigned used = 0;
        for (unsigned d = 0; d < RKNPU_MAX_IOMMU_DOMAIN_NUM; d++)
            used += p.per_domain[d] != 0;
        CHECK(used >= (unsigned)(p.bytes / NPK_RK_WEIGHT_SPACE) + 1);
        unplace(rt, &p);
    }
    /* more than one domain holds: refused, naming the size and the limit */
    npk_rk_mem big;
    CHECK_EQ(npk_rk_weights_mem(rt, NPK_RK_WEIGHT_SPACE + 1, &big), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "4026531841");
    CHECK_STR_HAS(npk_last_error(), "4026531840");
    /* every domain full: the next is refused naming the device's capacity */
    npk_rk_mem full[RKNPU_MAX_IOMMU_DOMAIN_NUM];
    for (unsigned d = 0; d < RKNPU_MAX_IOMMU_DOMAIN_NUM; d++)
        CHECK_EQ(npk_rk_weights_mem(rt, NPK_RK_WEIGHT_SPACE, &full[d]), NPK_OK);
    CHECK_EQ(npk_rk_weights_mem(rt, 4096, &big), NPK_ENOMEM);
    CHECK_STR_HAS(npk_last_error(), "64424509440");
    for (unsigned d = 0; d < RKNPU_MAX_IOMMU_DOMAIN_NUM; d++)
        npk_rk_weights_mem_free(rt->eng, &full[d]);
    npk_rk_close(rt);

    /* rocket: one address space per core's file, weights split by core (each file holds the
     * columns its core computes): three spaces' worth. The 7B int4 and the 8B int8 fit; the 7B
     * fp16 does not, and its refusal names the size and the limits. */
    CHECK_EQ(npk_rk_open("sim-rocket", &rt), NPK_OK);
    npk_rk_info info;
    CHECK_EQ(npk_rk_query(rt, &info), NPK_OK);
    CHECK_EQ(info.weight_spaces, 3);
    CHECK_EQ(info.weight_capacity, 3 * NPK_RK_WEIGHT_SPACE);
    const model *rocket_fit[] = {&llama2_7b_q4_0, &llama3_8b_q8_0};
    for (size_t i = 0; i < 2; i++) {
        CHECK_EQ(place_model(rt, rocket_fit[i], 1, &p), NPK_OK);
        report("rocket", rocket_fit[i], &p);
        /* the large tensors are split: every file holds about a third */
        CHECK(p.split > 0);
        for (unsigned c = 0; c < 3; c++)
            CHECK(p.per_domain[c] > p.bytes / 4 && p.per_domain[c] < p.bytes / 2);
        CHECK_EQ(npk_rk_query(rt, &info), NPK_OK);
        CHECK(info.weight_used >= p.bytes && info.weight_used <= info.weight_capacity);
        unplace(rt, &p);
    }
    /* packed for prefill (M = 512), where the model prefers splitting M for int4's K x 4096
     * projections: those are copies while every file is at most half full, the rest split */
    CHECK_EQ(place_model(rt, &llama2_7b_q4_0, 512, &p), NPK_OK);
    report("rocket (M hint 512)", &llama2_7b_q4_0, &p);
    CHECK(p.copies > 0 && p.split > 0);
    for (unsigned c = 0; c < 3; c++)
        CHECK(p.per_domain[c] < NPK_RK_WEIGHT_SPACE);
    unplace(rt, &p);
    CHECK_EQ(npk_rk_query(rt, &info), NPK_OK);
    CHECK_EQ(info.weight_used, 0);
    CHECK_EQ(place_model(rt, &llama2_7b_f16, 1, &p), NPK_ENOMEM);
    CHECK_STR_HAS(npk_last_error(), "do not fit");
    CHECK_STR_HAS(npk_last_error(), "4026531840");
    CHECK_STR_HAS(npk_last_error(), "12079595520");
    printf("rocket, %s: refused after %.3f GB (%s)\n", llama2_7b_f16.name, p.bytes / 1e9,
           npk_last_error());
    unplace(rt, &p);
    npk_rk_close(rt);
}

int main(void)
{
    device_domains();
    second_domain();
    model_shapes();
    return check_done();
}
