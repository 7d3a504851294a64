/* SPDX-License-Identifier: MIT */
/* Regcmd entries, programs and the PC trailer.
 *
 * An entry is one u64: target:16 | value:32 | reg:16. In the little-endian u32 view
 * (spec "regcmd encoding"): reg = w0 & 0xffff, target = w1 >> 16,
 * value = (w1 & 0xffff) << 16 | w0 >> 16. */
#ifndef NPUKIT_RK_REGCMD_H
#define NPUKIT_RK_REGCMD_H

#include "npukit/export.h"
#include <stddef.h>
#include <stdint.h>

#include "npukit/rk_regs.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef uint64_t npk_rk_entry;

/* Entries per PC trailer (RKNPU_PC_DATA_EXTRA_AMOUNT, facts A.1/B.3). */
#define NPK_RK_TRAILER_ENTRIES 4
/* Body entries of the vendor matmul program (facts C.1). */
#define NPK_RK_MATMUL_BODY 108
/* The op-enable mask of a CNA -> CORE -> DPU matmul (facts B.2). */
#define NPK_RK_ENABLE_MATMUL 0x0Du

static inline npk_rk_entry npk_rk_entry_make(uint16_t target, uint16_t reg, uint32_t value)
{
    return ((uint64_t)target << 48) | ((uint64_t)value << 16) | reg;
}
static inline uint16_t npk_rk_entry_target(npk_rk_entry e) { return (uint16_t)(e >> 48); }
static inline uint16_t npk_rk_entry_reg(npk_rk_entry e) { return (uint16_t)(e & 0xffff); }
static inline uint32_t npk_rk_entry_value(npk_rk_entry e) { return (uint32_t)(e >> 16); }

/* The spec's (word0, word1) view. */
static inline npk_rk_entry npk_rk_entry_from_words(uint32_t w0, uint32_t w1)
{
    uint16_t reg = (uint16_t)(w0 & 0xffff);
    uint16_t target = (uint16_t)(w1 >> 16);
    uint32_t value = ((w1 & 0xffffu) << 16) | (w0 >> 16);
    return npk_rk_entry_make(target, reg, value);
}
static inline void npk_rk_entry_words(npk_rk_entry e, uint32_t *w0, uint32_t *w1)
{
    *w0 = (uint32_t)e;
    *w1 = (uint32_t)(e >> 32);
}

/* The interrupt that ends a CNA -> CORE -> DPU task: both DPU groups of PC_INTERRUPT_MASK, the
 * rknpu_task int_mask a matmul needs (facts A.1: 0x300). */
static inline uint32_t npk_rk_matmul_int_mask(void)
{
    return NPK_RKPUT(PC_INTERRUPT_MASK, DPU_GROUP0, 1) |
           NPK_RKPUT(PC_INTERRUPT_MASK, DPU_GROUP1, 1);
}

/* An entry writing register `id` (its target comes from the table). */
NPUKIT_API npk_rk_entry npk_rk_entry_reg_write(npk_rk_reg_id id, uint32_t value);

/* PC_REGISTER_AMOUNTS for a task whose body has `body_entries` entries:
 * ceil((body + 4) / 2) - 1 (facts A.1 step 4; 108 -> 55 = 0x37). */
NPUKIT_API uint32_t npk_rk_pc_amount(uint32_t body_entries);

/* Write the 4-entry trailer. next_iova == 0: the last (or only) task of a job — no-op entry,
 * amount 0. Otherwise chain to the next task's regcmd at next_iova (16-byte aligned) whose
 * body has next_body_entries entries. enable_mask is the op-enable value (0x0D). */
NPUKIT_API npk_status npk_rk_trailer(npk_rk_entry out[NPK_RK_TRAILER_ENTRIES], uint32_t next_iova,
                          uint32_t next_body_entries, uint32_t enable_mask);

/* Growable program buffer. */
typedef struct npk_rk_program {
    npk_rk_entry *entries;
    size_t count, capacity;
} npk_rk_program;

NPUKIT_API void npk_rk_program_init(npk_rk_program *p);
NPUKIT_API void npk_rk_program_free(npk_rk_program *p);
NPUKIT_API npk_status npk_rk_program_push(npk_rk_program *p, npk_rk_entry e);
NPUKIT_API npk_status npk_rk_program_append(npk_rk_program *p, const npk_rk_entry *e, size_t n);

/* Read a program: binary little-endian u64 entries, or text (RKDUMP-style 8-hex-digit u32
 * words in any surrounding text, paired as (word0, word1); or 16-hex-digit u64 words one
 * per line). The format is detected from the bytes. */
NPUKIT_API npk_status npk_rk_program_parse(const uint8_t *bytes, size_t len, npk_rk_program *out);
/* The largest program file npk_rk_program_load reads (a 4095-task chain is ~4 MB of binary). */
#define NPK_RK_PROGRAM_MAX_BYTES (16u << 20)
/* Read a whole file ("-" = standard input) and parse it. A file is text when it is UTF-8 (a
 * byte-order mark allowed) without NUL or control bytes other than blanks, else binary
 * entries, most naming a known block (zero is padding); a file that is neither, holds no
 * entries, is larger than NPK_RK_PROGRAM_MAX_BYTES or cannot be read (a directory) is an error
 * naming why. */
NPUKIT_API npk_status npk_rk_program_load(const char *path, npk_rk_program *out);

#ifdef __cplusplus
}
#endif
#endif
