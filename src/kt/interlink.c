/* SPDX-License-Identifier: MIT */
/* Interlink driver: detect, mesh id, doorbells, counters and faults, and the ordered cross-mesh
 * write + doorbell. Writes go to AUX_CFG 0x880+, reads to AUX_STATW 0x080 + index * 8. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dispatch_rules.h"
#include "kt_interlink.h"
#include "npukit/kt_regs.h"

static npk_status statw(kt_transport *t, uint64_t base, unsigned index, uint64_t *v)
{
    return kt_read64(t, base + KT_AUX_STATW + index * 8u, v);
}

static npk_status cfg(kt_transport *t, uint64_t base, unsigned off, uint64_t v)
{
    return kt_write64(t, base + KT_AUX_CFG + off, v);
}

npk_status kt_il_detect(kt_transport *t, uint64_t base, kt_il_caps *caps)
{
    uint64_t v;
    npk_status s = statw(t, base, KT_IL_W_CAPS, &v);
    if (s)
        return s;
    caps->raw = v;
    /* Zero = no interlink, or one that is disabled: the driver cannot tell which, and needs
     * neither. Anything else must carry 'IL'. */
    caps->present = v != 0;
    caps->mesh_id = (uint8_t)(v >> 20 & 3);
    if (v && (v & 0xFFFF) != KT_IL_CAP_MAGIC)
        return npk_fail(NPK_EPROTO,
                        "AUX_STATW[0] = 0x%016" PRIx64 ": not zero and not an 'IL' capability word",
                        v);
    return NPK_OK;
}

static npk_status require(kt_transport *t, uint64_t base, kt_il_caps *caps)
{
    npk_status s = kt_il_detect(t, base, caps);
    if (s)
        return s;
    if (!caps->present)
        return npk_fail(
            NPK_ENODEV,
            "no interlink at window 0x%" PRIx64 " (capability word 0: absent or disabled)", base);
    return NPK_OK;
}

npk_status kt_il_set_mesh_id(kt_transport *t, uint64_t base, unsigned mesh)
{
    if (mesh >= KT_IL_MAX_MESHES)
        return npk_fail(NPK_ELIMIT, "mesh id %u: the register holds 2 bits (0..3)", mesh);
    kt_il_caps caps;
    npk_status s = require(t, base, &caps);
    if (s || (s = cfg(t, base, KT_IL_MESH_ID, mesh)))
        return s;
    if ((s = kt_il_detect(t, base, &caps)))
        return s;
    if (caps.mesh_id != mesh)
        return npk_fail(NPK_EPROTO,
                        "mesh id written %u, capability word reports %u (0x%016" PRIx64 ")", mesh,
                        caps.mesh_id, caps.raw);
    return NPK_OK;
}

npk_status kt_il_ring(kt_transport *t, uint64_t base, unsigned dst_mesh, uint8_t tag)
{
    if (dst_mesh >= KT_IL_MAX_MESHES)
        return npk_fail(NPK_ELIMIT, "doorbell destination mesh %u, need 0..3", dst_mesh);
    return cfg(t, base, KT_IL_RING, (uint64_t)dst_mesh | (uint64_t)tag << 8);
}

npk_status kt_il_read_doorbells(kt_transport *t, uint64_t base, kt_il_doorbells *db)
{
    for (unsigned m = 0; m < KT_IL_MAX_MESHES; m++) {
        uint64_t v;
        npk_status s = statw(t, base, KT_IL_W_DOORBELL0 + m, &v);
        if (s)
            return s;
        db->received[m] = (uint16_t)v;
        db->sent[m] = (uint16_t)(v >> 16);
    }
    return NPK_OK;
}

npk_status kt_il_read_faults(kt_transport *t, uint64_t base, uint8_t *faults)
{
    uint64_t v;
    npk_status s = statw(t, base, KT_IL_W_FAULTS, &v);
    *faults = (uint8_t)v;
    return s;
}

npk_status kt_il_read_counters(kt_transport *t, uint64_t base, kt_il_counters *c)
{
    /* One block read of the twelve words 6..15 would be one transaction; the window answers
     * bursts (every beat re-decodes), so use it. */
    uint8_t buf[10 * 8];
    npk_status s = kt_read_block(t, base + KT_AUX_STATW + KT_IL_W_LINK0_TX * 8u, buf, sizeof buf);
    if (s)
        return s;
    uint64_t w[10];
    for (unsigned i = 0; i < 10; i++)
        w[i] = kt_le64(buf + 8 * i);
    c->link_tx[0] = w[0];
    c->link_rx[0] = w[1];
    c->link_tx[1] = w[2];
    c->link_rx[1] = w[3];
    c->stalls[0] = w[4];
    c->stalls[1] = w[5];
    c->forwarded = w[6];
    c->credits[0] = (uint32_t)w[7];
    c->credits[1] = (uint32_t)(w[7] >> 32);
    c->doorbells_sent = w[8];
    c->egress_blocks = w[9];
    return NPK_OK;
}

npk_status kt_il_clear(kt_transport *t, uint64_t base, bool doorbells, bool faults)
{
    /* The control register is one word: a clear written without bit 0 would also disable. */
    uint64_t v = KT_IL_CTRL_ENABLE | (doorbells ? KT_IL_CTRL_CLEAR_DOORBELLS : 0) |
                 (faults ? KT_IL_CTRL_CLEAR_FAULTS : 0);
    return cfg(t, base, KT_IL_CONTROL, v);
}

npk_status kt_il_enable(kt_transport *t, uint64_t base, bool on)
{
    return cfg(t, base, KT_IL_CONTROL, on ? KT_IL_CTRL_ENABLE : 0);
}

static bool walker_touches_mesh(const kt_mv_walker *w, unsigned mesh)
{
    /* Every element of a walker stays in one mesh when base and extremes agree. */
    uint32_t idx[KT_MV_MAX_DIMS] = {0};
    kt_mv_point first = kt_mv_walker_point(w, idx);
    for (unsigned i = 0; i < w->ndim && i < KT_MV_MAX_DIMS; i++)
        idx[i] = w->dims[i].count ? w->dims[i].count - 1u : 0u;
    kt_mv_point last = kt_mv_walker_point(w, idx);
    return kt_il_addr_mesh((uint64_t)first.addr) == mesh &&
           kt_il_addr_mesh((uint64_t)last.addr) == mesh;
}

npk_status kt_il_write_and_ring(kt_transport *t, uint64_t base, const kt_mv_move *m,
                                unsigned dst_mesh, uint8_t tag, uint32_t poll_budget)
{
    kt_il_caps caps;
    npk_status s = require(t, base, &caps);
    if (s)
        return s;
    if (dst_mesh >= KT_IL_MAX_MESHES || dst_mesh == caps.mesh_id)
        return npk_fail(NPK_EINVAL,
                        "cross-mesh write to mesh %u from mesh %u: need another mesh 0..3",
                        dst_mesh, caps.mesh_id);
    if (m->mode == KT_MV_COPY || m->mode == KT_MV_GATHER_MODE || m->mode == KT_MV_XFORM)
        if (!walker_touches_mesh(&m->src, caps.mesh_id))
            return npk_fail(NPK_EINVAL,
                            "source 0x%" PRIx64
                            " is not in this mesh (%u): reads never cross the link",
                            m->src.base, caps.mesh_id);
    if (!walker_touches_mesh(&m->dst, dst_mesh))
        return npk_fail(NPK_EINVAL, "destination 0x%" PRIx64 " does not name mesh %u in [37:36]",
                        m->dst.base, dst_mesh);
    /* Writes first, and the mover idle — its remote writes have all left over the link — and only
     * then the ring: the outbound arbiter rotates priority, so a ring issued earlier may pass the
     * data it announces. */
    if ((s = kt_mv_run(t, base, m, poll_budget, NULL)))
        return s;
    return kt_il_ring(t, base, dst_mesh, tag);
}

npk_status kt_il_mark_remote(kt_flit *f, unsigned mesh, kt_coord at, kt_coord port)
{
    if (mesh >= KT_IL_MAX_MESHES)
        return npk_fail(NPK_EINVAL, "remote flit for mesh %u: the card's meshes are 0..%u", mesh,
                        KT_IL_MAX_MESHES - 1);
    if (at.x > 15 || at.y > 15)
        return npk_fail(NPK_ELIMIT,
                        "remote flit for (%u,%u): the txn carries the final coordinate as two "
                        "4-bit fields (0..15)",
                        at.x, at.y);
    kt_header h = kt_header_get(f);
    h.dst = port;
    h.txn = (uint8_t)(at.y << 4 | at.x);
    h.rsvd = (uint8_t)(KT_RSVD_REMOTE | mesh);
    return kt_header_put(f, &h);
}

enum { IDLE_READS = 10000, MAX_REMOTE_FLITS = 512 };

npk_status kt_il_dispatch(kt_dev *from, kt_dev *to, unsigned mesh, kt_coord port,
                          const kt_unit *unit, unsigned base, const kt_flit *flits, size_t n,
                          kt_ticket *tk)
{
    unsigned depth = unit->caps.inst_depth;
    if (!n || n > depth || n > MAX_REMOTE_FLITS)
        return npk_fail(NPK_ELIMIT,
                        "remote program of %zu instructions for the unit at (%u,%u) in mesh %u: "
                        "1..%u (its inst_depth; the completions return credit to mesh %u's "
                        "orchestrator, never to the sender's)",
                        n, unit->at.x, unit->at.y, mesh, depth < MAX_REMOTE_FLITS ? depth : MAX_REMOTE_FLITS,
                        mesh);
    kt_flit marked[MAX_REMOTE_FLITS];
    npk_status s = NPK_OK;
    for (size_t i = 0; i < n && !s; i++) {
        marked[i] = flits[i];
        s = kt_il_mark_remote(&marked[i], mesh, unit->at, port);
    }
    /* The staging RAM and PROG_DST are the stream's: a kick while it runs would be ignored. */
    uint64_t v = 0;
    for (unsigned i = 0; !s && i < IDLE_READS; i++) {
        if ((s = kt_reg_read(from, KT_PROG_STAT, &v)) || !kt_prog_stat_decode(v).run)
            break;
        if (i + 1 == IDLE_READS)
            s = npk_fail(NPK_ETIMEDOUT, "dispatcher still running after %u PROG_STAT reads",
                         IDLE_READS);
    }
    if (s || (s = kt_stage(from, base, marked, n)) || (s = kt_ticket_baseline(to, unit, (unsigned)n, tk)))
        return s;
    tk->expect_cycles = 0;
    static const uint32_t order[] = {KT_PROG_BASE, KT_PROG_LEN, KT_PROG_DST, KT_PROG_CRED,
                                     KT_PROG_KICK};
    uint64_t values[] = {base, n, kt_coord_pack(port), n, 1};
    for (size_t i = 0; i < 5 && !s; i++)
        s = kt_reg_write(from, order[i], values[i]);
    kt_forget_known(from); /* its stream ran without a ticket of its own */
    return s;
}
