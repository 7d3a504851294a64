/* SPDX-License-Identifier: MIT */
/* Reading an RV64 program: the PT_LOAD segments of an ELF executable, each checked against the
 * complex's memories.
 *
 * The loader accepts one layout only, ELFCLASS64 little-endian, whose file header and program
 * headers have fixed sizes and offsets (<elf.h>'s Elf64_Ehdr and Elf64_Phdr). It reads them
 * field by field from the bytes, little-endian whatever the host: a plain reader of that fixed
 * layout is shorter than its use of libelf was, and keeps libelf (LGPL) out of every program
 * that links npukit.
 *
 * The file is untrusted: every count, offset and size from it is checked before use, and
 * every refusal names the segment, the value and the limit it broke. */
#include <elf.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt/hw/kt_rv64.h"
#include "npukit/kt_rv64_load.h"

#ifndef EM_RISCV
#define EM_RISCV 243
#endif

void kt_rv64_limits_default(kt_rv64_limits *l)
{
    l->imem_bytes = KT_RV64_IMEM_WORDS * 4;
    l->spad_base = KT_RV64_SPAD_BASE;
    l->spad_bytes = KT_RV64_SPAD_WORDS * 8;
}

void kt_rv64_image_free(kt_rv64_image *img)
{
    free(img->file);
    memset(img, 0, sizeof *img);
}

/* Place one PT_LOAD segment in a region, or say why it does not fit. */
static npk_status place(const char *origin, unsigned i, const Elf64_Phdr *ph,
                        const kt_rv64_limits *lim, kt_rv64_segment *s)
{
    uint64_t v = ph->p_vaddr, n = ph->p_memsz;
    bool x = ph->p_flags & PF_X, w = ph->p_flags & PF_W;
    if (v < lim->imem_bytes) {
        if (n > lim->imem_bytes - v)
            return npk_fail(NPK_ELIMIT,
                            "%s: segment %u (0x%" PRIx64 "..0x%" PRIx64
                            ") runs past the instruction "
                            "memory, which ends at 0x%" PRIx32,
                            origin, i, v, v + n, lim->imem_bytes);
        if (w)
            return npk_fail(NPK_EINVAL,
                            "%s: segment %u at 0x%" PRIx64 " is writable but lies in the "
                            "instruction memory, which the core cannot store to",
                            origin, i, v);
        if (v & 3)
            return npk_fail(NPK_EINVAL,
                            "%s: segment %u at 0x%" PRIx64 " is not word-aligned; the "
                            "instruction memory takes whole 32-bit words",
                            origin, i, v);
        s->region = KT_RV64_IMEM;
        s->offset = (uint32_t)v;
        return NPK_OK;
    }
    if (v >= lim->spad_base && v - lim->spad_base < lim->spad_bytes) {
        uint64_t off = v - lim->spad_base;
        if (n > lim->spad_bytes - off)
            return npk_fail(NPK_ELIMIT,
                            "%s: segment %u (0x%" PRIx64 "..0x%" PRIx64
                            ") runs past the scratchpad, "
                            "which ends at 0x%" PRIx64,
                            origin, i, v, v + n, lim->spad_base + lim->spad_bytes);
        if (x)
            return npk_fail(NPK_EINVAL,
                            "%s: segment %u at 0x%" PRIx64 " is executable but lies in the "
                            "scratchpad, which the core cannot fetch from",
                            origin, i, v);
        s->region = KT_RV64_SPAD;
        s->offset = (uint32_t)off;
        return NPK_OK;
    }
    return npk_fail(
        NPK_ELIMIT,
        "%s: segment %u at 0x%" PRIx64 " (%" PRIu64 " bytes) is in neither the instruction "
        "memory (0x0..0x%" PRIx32 ") nor the scratchpad (0x%" PRIx64 "..0x%" PRIx64 ")",
        origin, i, v, n, lim->imem_bytes, lim->spad_base, lim->spad_base + lim->spad_bytes);
}

/* A little-endian field of n bytes at p. */
static uint64_t le(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    while (n--)
        v = v << 8 | p[n];
    return v;
}
#define FIELD(bytes, type, f) le((bytes) + offsetof(type, f), sizeof(((type *)0)->f))

static npk_status check_header(const uint8_t *b, size_t size, const char *origin, Elf64_Ehdr *eh)
{
    if (size < EI_NIDENT || memcmp(b, ELFMAG, SELFMAG) != 0)
        return npk_fail(NPK_EPARSE, "%s: not an ELF file", origin);
    if (b[EI_CLASS] != ELFCLASS64)
        return npk_fail(NPK_EPARSE, "%s: ELF class %d, the core runs 64-bit (ELFCLASS64) programs",
                        origin, b[EI_CLASS]);
    if (size < sizeof(Elf64_Ehdr))
        return npk_fail(NPK_EPARSE, "%s: %zu bytes, shorter than the %zu-byte ELF header", origin,
                        size, sizeof(Elf64_Ehdr));
    if (b[EI_DATA] != ELFDATA2LSB)
        return npk_fail(NPK_EPARSE, "%s: big-endian ELF; the core is little-endian", origin);
    memcpy(eh->e_ident, b, EI_NIDENT);
    eh->e_type = (Elf64_Half)FIELD(b, Elf64_Ehdr, e_type);
    eh->e_machine = (Elf64_Half)FIELD(b, Elf64_Ehdr, e_machine);
    eh->e_entry = FIELD(b, Elf64_Ehdr, e_entry);
    eh->e_phoff = FIELD(b, Elf64_Ehdr, e_phoff);
    eh->e_phentsize = (Elf64_Half)FIELD(b, Elf64_Ehdr, e_phentsize);
    eh->e_phnum = (Elf64_Half)FIELD(b, Elf64_Ehdr, e_phnum);
    if (eh->e_machine != EM_RISCV)
        return npk_fail(NPK_EPARSE, "%s: ELF machine %u, expected RISC-V (%u)", origin,
                        (unsigned)eh->e_machine, (unsigned)EM_RISCV);
    if (eh->e_type != ET_EXEC)
        return npk_fail(NPK_EPARSE, "%s: ELF type %u, expected an executable (ET_EXEC = %u)",
                        origin, (unsigned)eh->e_type, (unsigned)ET_EXEC);
    if (eh->e_entry != 0)
        return npk_fail(NPK_EINVAL,
                        "%s: entry point 0x%" PRIx64 ", but the core always starts at 0 "
                        "(HR_PC is not used)",
                        origin, (uint64_t)eh->e_entry);
    if (eh->e_phnum && eh->e_phentsize != sizeof(Elf64_Phdr))
        return npk_fail(NPK_EPARSE, "%s: program headers of %u bytes, ELF64 has %zu", origin,
                        (unsigned)eh->e_phentsize, sizeof(Elf64_Phdr));
    /* PN_XNUM: the real count lives in a section header; no program of the complex has that
     * many segments. */
    if (eh->e_phnum == PN_XNUM)
        return npk_fail(NPK_ELIMIT, "%s: %u or more program headers", origin, (unsigned)PN_XNUM);
    if (eh->e_phoff > size || (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > size - eh->e_phoff)
        return npk_fail(NPK_EPARSE,
                        "%s: the program header table (offset %" PRIu64 ", %u entries) lies "
                        "past the end of the %zu-byte file (truncated?)",
                        origin, (uint64_t)eh->e_phoff, (unsigned)eh->e_phnum, size);
    return NPK_OK;
}

/* Program header i, whose bytes check_header found inside the file. */
static void read_phdr(const uint8_t *b, const Elf64_Ehdr *eh, size_t i, Elf64_Phdr *ph)
{
    const uint8_t *p = b + eh->e_phoff + i * sizeof(Elf64_Phdr);
    ph->p_type = (Elf64_Word)FIELD(p, Elf64_Phdr, p_type);
    ph->p_flags = (Elf64_Word)FIELD(p, Elf64_Phdr, p_flags);
    ph->p_offset = FIELD(p, Elf64_Phdr, p_offset);
    ph->p_vaddr = FIELD(p, Elf64_Phdr, p_vaddr);
    ph->p_filesz = FIELD(p, Elf64_Phdr, p_filesz);
    ph->p_memsz = FIELD(p, Elf64_Phdr, p_memsz);
}

static npk_status parse(const char *origin, const kt_rv64_limits *lim, kt_rv64_image *img)
{
    Elf64_Ehdr eh;
    npk_status s = check_header(img->file, img->size, origin, &eh);
    if (s)
        return s;
    size_t nph = eh.e_phnum;
    img->entry = eh.e_entry;
    uint64_t loadable = 0;
    for (size_t i = 0; i < nph; i++) {
        Elf64_Phdr ph;
        read_phdr(img->file, &eh, i, &ph);
        if (ph.p_type != PT_LOAD || ph.p_memsz == 0)
            continue;
        if (img->n_seg == KT_RV64_MAX_SEGMENTS)
            return npk_fail(NPK_ELIMIT, "%s: more than %d loadable segments", origin,
                            KT_RV64_MAX_SEGMENTS);
        if (ph.p_filesz > ph.p_memsz)
            return npk_fail(NPK_EPARSE,
                            "%s: segment %zu has %" PRIu64 " file bytes but only %" PRIu64
                            " in memory",
                            origin, i, (uint64_t)ph.p_filesz, (uint64_t)ph.p_memsz);
        if (ph.p_offset > img->size || ph.p_filesz > img->size - ph.p_offset)
            return npk_fail(NPK_EPARSE,
                            "%s: segment %zu's bytes (offset %" PRIu64 ", %" PRIu64
                            " bytes) lie past the end of the %zu-byte file (truncated?)",
                            origin, i, (uint64_t)ph.p_offset, (uint64_t)ph.p_filesz, img->size);
        kt_rv64_segment *sg = &img->seg[img->n_seg];
        if ((s = place(origin, (unsigned)i, &ph, lim, sg)))
            return s;
        /* Two segments over the same bytes would silently overwrite each other. */
        for (unsigned k = 0; k < img->n_seg; k++) {
            const kt_rv64_segment *o = &img->seg[k];
            if (o->region == sg->region && sg->offset < o->offset + o->memsz &&
                o->offset < sg->offset + ph.p_memsz)
                return npk_fail(NPK_EINVAL, "%s: segments %u and %zu overlap at 0x%" PRIx64, origin,
                                o->phdr, i, (uint64_t)ph.p_vaddr);
        }
        sg->phdr = (unsigned)i;
        sg->vaddr = ph.p_vaddr;
        sg->filesz = ph.p_filesz;
        sg->memsz = ph.p_memsz;
        sg->data = img->file + ph.p_offset;
        img->n_seg++;
        loadable += ph.p_memsz;
    }
    if (!loadable)
        return npk_fail(NPK_EPARSE, "%s: no loadable (PT_LOAD) bytes", origin);
    return NPK_OK;
}

npk_status kt_rv64_image_parse(const void *data, size_t size, const char *origin,
                               const kt_rv64_limits *lim, kt_rv64_image *img)
{
    kt_rv64_limits def;
    memset(img, 0, sizeof *img);
    if (!lim) {
        kt_rv64_limits_default(&def);
        lim = &def;
    }
    if (!data || size == 0)
        return npk_fail(NPK_EPARSE, "%s: empty file", origin);
    img->file = malloc(size);
    if (!img->file)
        return npk_fail(NPK_ENOMEM, "%s: no memory for %zu bytes", origin, size);
    memcpy(img->file, data, size);
    img->size = size;
    npk_status s = parse(origin, lim, img);
    if (s)
        kt_rv64_image_free(img);
    return s;
}

npk_status kt_rv64_image_read(const char *path, const kt_rv64_limits *lim, kt_rv64_image *img)
{
    memset(img, 0, sizeof *img);
    FILE *f = fopen(path, "rb");
    if (!f)
        return npk_fail(NPK_EIO, "%s: cannot open", path);
    /* Programs fit in 64 KiB of memories; anything far larger is not one of them. */
    enum { MAX_FILE = 16 << 20 };
    uint8_t *buf = malloc(MAX_FILE);
    size_t n = buf ? fread(buf, 1, MAX_FILE, f) : 0;
    bool more = buf && n == MAX_FILE && fgetc(f) != EOF;
    bool err = ferror(f);
    fclose(f);
    npk_status s;
    if (!buf)
        s = npk_fail(NPK_ENOMEM, "%s: no memory to read it", path);
    else if (err)
        s = npk_fail(NPK_EIO, "%s: read error", path);
    else if (more)
        s = npk_fail(NPK_ELIMIT, "%s: larger than %d bytes, not a program for the complex", path,
                     MAX_FILE);
    else
        s = kt_rv64_image_parse(buf, n, path, lim, img);
    free(buf);
    return s;
}
