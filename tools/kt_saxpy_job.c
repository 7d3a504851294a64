/* SPDX-License-Identifier: MIT */
/* The work of `npukit kt saxpy`, shared by the host form and the engine form. */
#include "kt_saxpy_job.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/big_alloc.h"
#include "npukit/kt_saxpy.h"

enum { CHECK_POLLS = 64, MAX_ENUM = 64 };
static const uint64_t X_OFF = 0x100000, OPERAND_ALIGN = 0x100000;

npk_status kt_saxpy_job_init(kt_saxpy_job *j, kt_dev *dev, uint64_t mem, uint64_t dram_size,
                             uint64_t n, const char *preset)
{
    memset(j, 0, sizeof *j);
    j->n = n;
    j->a =
        2.0f; /* whole-valued operands: the saxpy unit computes on integers (exact only for them) */
    j->txn = 0x40;
    j->stage_flits = dev->opt.stage_flits;
    j->chunks = (n + KT_SAXPY_CHUNK - 1) / KT_SAXPY_CHUNK;
    kt_unit all[MAX_ENUM];
    size_t nall = 0;
    npk_status s = kt_enumerate(dev, all, MAX_ENUM, &nall);
    if (s)
        return s;
    for (size_t i = 0; i < nall && j->nsx < KT_SAXPY_MAX_UNITS; i++)
        if (all[i].caps.type == KT_SAXPY_TYPE)
            j->sx[j->nsx++] = all[i];
    if (!j->nsx)
        return npk_fail(NPK_ENODEV, "no saxpy unit ('SX') in preset %s", preset);
    /* Operands in whole 32-byte granules (the memory window zero-fills partial ones); y starts
     * past the end of x, so no -n lets the upload of y overwrite the tail of x. */
    j->padded = (size_t)((n + 7) / 8 * 8);
    j->x_off = X_OFF;
    j->y_off = X_OFF + (j->padded * 4 + OPERAND_ALIGN - 1) / OPERAND_ALIGN * OPERAND_ALIGN;
    if (j->y_off + j->padded * 4 > dram_size)
        return npk_fail(NPK_ELIMIT,
                        "saxpy n=%" PRIu64 ": x and y end at 0x%" PRIx64
                        ", past the preset's DRAM of 0x%" PRIx64 " bytes",
                        n, j->y_off + j->padded * 4, dram_size);
    /* filled once and read through: on huge pages where the system has them */
    j->x = npk_big_alloc(j->padded * sizeof *j->x);
    j->y = npk_big_alloc(j->padded * sizeof *j->y);
    j->want = npk_big_alloc(j->padded * sizeof *j->want);
    j->prog = calloc(j->stage_flits, sizeof *j->prog);
    if (!j->x || !j->y || !j->want || !j->prog)
        return npk_fail(NPK_ENOMEM, "saxpy n=%" PRIu64 ": out of memory for the operands", n);
    /* x = i mod 97, y = 1 + i mod 13, counted rather than divided per element */
    for (size_t i = 0, x = 0, y = 0; i < n; i++) {
        j->x[i] = (float)x;
        j->y[i] = 1.0f + (float)y;
        j->want[i] = j->a * j->x[i] + j->y[i];
        x = x == 96 ? 0 : x + 1;
        y = y == 12 ? 0 : y + 1;
    }
    if ((s = kt_write_block(dev->t, mem + j->x_off, j->x, j->padded * 4)))
        return s;
    return kt_write_block(dev->t, mem + j->y_off, j->y, j->padded * 4);
}

bool kt_saxpy_job_next_round(kt_saxpy_job *j, kt_saxpy_round *r, npk_status *s)
{
    *s = NPK_OK;
    if (j->next >= j->chunks)
        return false;
    /* Each unit gets a contiguous run of chunks; all of them fit one staging page. A page
     * smaller than one flit per unit leaves the last units idle this round. */
    unsigned per = (unsigned)((j->chunks - j->next + j->nsx - 1) / j->nsx);
    if (per * j->nsx > j->stage_flits)
        per = j->stage_flits / (unsigned)j->nsx ? j->stage_flits / (unsigned)j->nsx : 1;
    r->flits = 0;
    for (size_t u = 0; u < j->nsx; u++) {
        r->base[u] = r->flits;
        r->count[u] = 0;
        for (unsigned k = 0; k < per && j->next < j->chunks && r->flits < j->stage_flits;
             k++, j->next++) {
            uint64_t first = j->next * KT_SAXPY_CHUNK;
            uint32_t len =
                (uint32_t)(j->n - first < KT_SAXPY_CHUNK ? j->n - first : KT_SAXPY_CHUNK);
            r->count[u]++;
            *s = kt_saxpy_inst(&j->prog[r->flits++], len, j->a, j->x_off + first * 4,
                               j->y_off + first * 4, j->txn, false);
            if (*s)
                return false;
        }
        if (r->count[u])
            kt_flit_set_bits(&j->prog[r->flits - 1], 259, 1,
                             1); /* `last` on each program's final flit */
    }
    j->txn++;
    return true;
}

npk_status kt_saxpy_job_check(kt_saxpy_job *j, kt_transport *t, uint64_t mem, size_t *bad)
{
    float *got = npk_big_alloc(j->padded * sizeof *got);
    if (!got)
        return npk_fail(NPK_ENOMEM, "saxpy n=%" PRIu64 ": out of memory for the result", j->n);
    npk_status s = NPK_OK;
    for (int poll = 0; poll < CHECK_POLLS; poll++) {
        if ((s = kt_read_block(t, mem + j->y_off, got, j->padded * 4)))
            break;
        *bad = 0;
        if (!memcmp(got, j->want, j->padded * 4)) /* the common case: one compare of the whole */
            break;
        for (size_t i = 0; i < j->padded; i++)
            *bad += memcmp(&got[i], &j->want[i], 4) != 0;
        if (!*bad)
            break;
    }
    npk_big_free(got, j->padded * sizeof *got);
    return s;
}

void kt_saxpy_job_free(kt_saxpy_job *j)
{
    npk_big_free(j->x, j->padded * sizeof *j->x);
    npk_big_free(j->y, j->padded * sizeof *j->y);
    npk_big_free(j->want, j->padded * sizeof *j->want);
    free(j->prog);
    j->x = j->y = j->want = NULL;
    j->prog = NULL;
}

uint64_t kt_saxpy_expect_cycles(const ktsim_config *cfg, unsigned insts)
{
    uint32_t setup, read_wait, element, retire; /* the saxpy unit's timing keys */
    if (!ktsim_timing_get(cfg, "saxpy", "setup", &setup) ||
        !ktsim_timing_get(cfg, "saxpy", "read_wait", &read_wait) ||
        !ktsim_timing_get(cfg, "saxpy", "element", &element) ||
        !ktsim_timing_get(cfg, "saxpy", "retire", &retire))
        return 0;
    const uint64_t beats = KT_SAXPY_CHUNK * 4 / 32; /* per read and for the write burst */
    uint64_t per =
        setup + 2 * (read_wait + beats) + (uint64_t)KT_SAXPY_CHUNK * element + beats + retire;
    return per * insts;
}

void kt_saxpy_job_again(kt_saxpy_job *j, uint64_t first, uint64_t end, uint32_t times)
{
    uint64_t lo = first * KT_SAXPY_CHUNK;
    uint64_t hi = end * KT_SAXPY_CHUNK < j->n ? end * KT_SAXPY_CHUNK : j->n;
    /* Whole-valued operands far inside float's exact integers: the unit's integer arithmetic
     * and the host's float arithmetic agree. */
    for (uint32_t k = 0; k < times; k++)
        for (uint64_t i = lo; i < hi; i++)
            j->want[i] = j->a * j->x[i] + j->want[i];
}
