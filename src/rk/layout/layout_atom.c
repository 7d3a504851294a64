/* SPDX-License-Identifier: MIT */
/* The SDP's atom layout: [ceil(N/C2)][M][C2] atoms of 16 bytes (see rk_sdp.h). Each atom is one
 * 16-byte copy from (or to) a row of the row-major matrix; only the last surface of a width
 * that is not a multiple of C2 copies a partial atom (zero-filled on packing). */
#include <stdbool.h>
#include <string.h>

#include "rk_layout.h"
#include "rk/program/rk_sdp.h"

/* Rows copied per band (see npk_rk_atom_pack). */
enum { BAND = 16 };

uint64_t npk_rk_atom_bytes(npk_rk_prec p, size_t m, size_t n)
{
    unsigned c2 = npk_rk_sdp_atom_channels(p);
    if (!c2)
        return 0;
    return (uint64_t)((n + c2 - 1) / c2) * m * 16u;
}

static npk_status check(const char *what, npk_rk_prec p, size_t m, size_t n, const void *x,
                        const void *y, size_t pitch, size_t room)
{
    unsigned c2 = npk_rk_sdp_atom_channels(p);
    if (!c2)
        return npk_fail(NPK_EINVAL, "%s: %s is not an SDP precision (fp16, int16, int8)", what,
                        npk_rk_prec_name(p) ? npk_rk_prec_name(p) : "?");
    if (!x || !y)
        return npk_fail(NPK_EINVAL, "%s: NULL buffer", what);
    if (!m || !n || m > NPK_RK_LAYOUT_MAX_DIM || n > NPK_RK_LAYOUT_MAX_DIM)
        return npk_fail(NPK_EINVAL, "%s: M=%zu N=%zu must be 1..%zu", what, m, n,
                        (size_t)NPK_RK_LAYOUT_MAX_DIM);
    if (pitch < n || pitch > NPK_RK_LAYOUT_MAX_DIM)
        return npk_fail(NPK_EINVAL, "%s: row pitch %zu is below N=%zu or above %zu", what, pitch, n,
                        (size_t)NPK_RK_LAYOUT_MAX_DIM);
    uint64_t need = npk_rk_atom_bytes(p, m, n);
    if (room < need)
        return npk_fail(NPK_EINVAL,
                        "%s: the atom buffer has %zu bytes, the %zux%zu block needs "
                        "%llu",
                        what, room, m, n, (unsigned long long)need);
    return NPK_OK;
}

/* Copy between the row-major matrix (pitch elements per row) and the atoms, in the direction
 * `pack`. Rows go in bands of BAND: the band's rows stay in cache while the surfaces are
 * walked, and each surface takes BAND consecutive atoms. */
static void copy_atoms(npk_rk_prec p, size_t m, size_t n, uint8_t *rows, size_t pitch,
                       uint8_t *atoms, bool pack)
{
    const size_t eb = 16u / npk_rk_sdp_atom_channels(p), c2 = 16u / eb;
    const size_t surfaces = (n + c2 - 1) / c2;
    for (size_t r0 = 0; r0 < m; r0 += BAND) {
        size_t r1 = r0 + BAND < m ? r0 + BAND : m;
        for (size_t sf = 0; sf < surfaces; sf++) {
            size_t bytes = (n - sf * c2 < c2 ? n - sf * c2 : c2) * eb;
            for (size_t r = r0; r < r1; r++) {
                uint8_t *row = rows + (r * pitch + sf * c2) * eb, *atom = atoms + (sf * m + r) * 16;
                if (bytes == 16) /* a constant size: one 16-byte move */
                    memcpy(pack ? atom : row, pack ? row : atom, 16);
                else if (!pack)
                    memcpy(row, atom, bytes);
                else { /* the last atom: the channels past N are zero */
                    memcpy(atom, row, bytes);
                    memset(atom + bytes, 0, 16 - bytes);
                }
            }
        }
    }
}

npk_status npk_rk_atom_pack(npk_rk_prec p, size_t m, size_t n, const void *src, size_t pitch,
                            void *dst, size_t dst_size)
{
    npk_status s = check("atom pack", p, m, n, src, dst, pitch, dst_size);
    if (s == NPK_OK) /* src is only read: the pack direction never writes rows */
        copy_atoms(p, m, n, (uint8_t *)(uintptr_t)src, pitch, dst, true);
    return s;
}

npk_status npk_rk_atom_unpack(npk_rk_prec p, size_t m, size_t n, const void *src, size_t src_size,
                              void *dst, size_t pitch)
{
    npk_status s = check("atom unpack", p, m, n, src, dst, pitch, src_size);
    if (s == NPK_OK) /* src is only read: the unpack direction never writes atoms */
        copy_atoms(p, m, n, dst, pitch, (uint8_t *)(uintptr_t)src, false);
    return s;
}
