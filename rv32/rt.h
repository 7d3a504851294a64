/* SPDX-License-Identifier: MIT */
/* The runtime of programs on the RV32 control processor: the node range (MVGO, the node word,
 * the occupants' registers), the local control words, and MVGO descriptors built in the
 * scratchpad. Header-only; the addresses and fields come from kt/hw/kt_rv32.h and the mover's
 * register offsets from npukit/kt_mover_hw.h, the same headers the driver and the simulator use.
 *
 * A descriptor is what the executor fetches (§3.1): word 0 the number of register writes, then
 * per write {offset, value[31:0], value[63:32]} — the very writes a host would make through
 * AUX_CFG, in the same order. A move costs one store (mvgo), and a store to MVGO while the
 * previous move runs waits for it: program order is the queue. */
#ifndef NPUKIT_RV32_RT_H
#define NPUKIT_RV32_RT_H

#include <stdint.h>

#include "kt/hw/kt_rv32.h"
#include "npukit/kt_mover_hw.h"

#define RV32_DESC_MAX 16 /* register writes in one descriptor */

typedef struct rv32_desc {
    uint32_t n;
    uint32_t w[3 * RV32_DESC_MAX];
} rv32_desc;

static inline uint32_t rv32_ctl(uint32_t off) { return *(volatile uint32_t *)(KT_RV32_CTL_BASE + off); }
static inline uint32_t rv32_node(void) { return *(volatile uint32_t *)KT_RV32_MVGO; }
static inline void rv32_mvgo(const rv32_desc *d)
{
    *(volatile uint32_t *)KT_RV32_MVGO = (uint32_t)(uintptr_t)d;
}
static inline uint32_t rv32_occ_read(unsigned id, unsigned reg)
{
    return *(volatile uint32_t *)KT_RV32_OCC_ADDR(id, reg);
}
static inline void rv32_occ_write(unsigned id, unsigned reg, uint32_t v)
{
    *(volatile uint32_t *)KT_RV32_OCC_ADDR(id, reg) = v;
}
/* Poll the node word until neither the executor nor the mover is busy; returns that word. */
static inline uint32_t rv32_node_wait_idle(void)
{
    uint32_t w;
    while ((w = rv32_node()) & KT_RV32_NODE_BUSY)
        ;
    return w;
}
static inline unsigned rv32_node_mover_fault(uint32_t w)
{
    return (w >> KT_RV32_NODE_MOVER_FAULT_SHIFT) & KT_RV32_NODE_FAULT_MASK;
}
static inline unsigned rv32_node_occ_fault(uint32_t w)
{
    return (w >> KT_RV32_NODE_OCC_FAULT_SHIFT) & KT_RV32_NODE_FAULT_MASK;
}

/* ---- building a descriptor (the mover's register fields, spec §3) ---- */

static inline void rv32_desc_reset(rv32_desc *d) { d->n = 0; }

/* One register write; a full descriptor keeps its first RV32_DESC_MAX writes and the caller's
 * move then has no GO, which the executor runs as writes that start nothing. */
static inline void rv32_desc_write(rv32_desc *d, unsigned offset, uint64_t value)
{
    if (d->n >= RV32_DESC_MAX)
        return;
    uint32_t *t = &d->w[3 * d->n++];
    t[0] = offset & KT_RV32_DESC_OFFSET_MASK;
    t[1] = (uint32_t)value;
    t[2] = (uint32_t)(value >> 32);
}

/* Walker `sel` (0 source, 1 destination) over `words` contiguous 32-byte words at `base`: its
 * header (base, one dimension), the dimension (count, stride 32), the axis step, and both bound
 * windows cleared (windows persist across moves). */
static inline void rv32_desc_linear(rv32_desc *d, unsigned sel, uint64_t base, unsigned words)
{
    rv32_desc_write(d, KT_MV_HDR, sel | base << 4 | (uint64_t)1 << 44);
    rv32_desc_write(d, KT_MV_DIM, sel | (uint64_t)(words & 0xffff) << 4 | (uint64_t)KT_MV_WORD << 20);
    rv32_desc_write(d, KT_MV_AXIS, 0);
    rv32_desc_write(d, KT_MV_WINDOW, sel);
    rv32_desc_write(d, KT_MV_WINDOW, sel | 2u);
}

/* CTRL with GO: mode, element width, flags. Last in every descriptor. */
static inline void rv32_desc_go(rv32_desc *d, unsigned mode, unsigned width, unsigned flags)
{
    rv32_desc_write(d, KT_MV_CTRL, mode | width << 3 | (flags & 0xffu) << 8 | 1u << 16);
}

static inline void rv32_desc_copy(rv32_desc *d, uint64_t dst, uint64_t src, unsigned words)
{
    rv32_desc_reset(d);
    rv32_desc_linear(d, 0, src, words);
    rv32_desc_linear(d, 1, dst, words);
    rv32_desc_go(d, KT_MV_COPY, KT_MV_W32, KT_MV_FLAG_WCOAL);
}

static inline void rv32_desc_fill(rv32_desc *d, uint64_t dst, unsigned words, uint32_t value)
{
    rv32_desc_reset(d);
    rv32_desc_linear(d, 1, dst, words);
    rv32_desc_write(d, KT_MV_IMM, value);
    rv32_desc_go(d, KT_MV_FILL, KT_MV_W32, KT_MV_FLAG_WCOAL);
}

#endif
