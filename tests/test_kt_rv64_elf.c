/* SPDX-License-Identifier: MIT */
/* The RV64 program reader on hand-built and hostile ELF files: each refusal names what is
 * wrong (the segment, the value, the limit), every truncation of a real program fails cleanly,
 * and random bytes never crash it. */
#include <elf.h>
#include <stdlib.h>

#include "rv64_testlib.h"

typedef struct elf_file {
    Elf64_Ehdr eh;
    Elf64_Phdr ph[3];
    uint8_t body[256];
} elf_file;

/* A valid two-segment program: 16 bytes of code at 0, 40 data bytes (+24 bss) at 0x10000. */
static void make(elf_file *f)
{
    memset(f, 0, sizeof *f);
    memcpy(f->eh.e_ident, ELFMAG, SELFMAG);
    f->eh.e_ident[EI_CLASS] = ELFCLASS64;
    f->eh.e_ident[EI_DATA] = ELFDATA2LSB;
    f->eh.e_ident[EI_VERSION] = EV_CURRENT;
    f->eh.e_type = ET_EXEC;
    f->eh.e_machine = EM_RISCV;
    f->eh.e_version = EV_CURRENT;
    f->eh.e_phoff = offsetof(elf_file, ph);
    f->eh.e_ehsize = sizeof f->eh;
    f->eh.e_phentsize = sizeof f->ph[0];
    f->eh.e_phnum = 2;
    size_t body = offsetof(elf_file, body);
    f->ph[0] = (Elf64_Phdr){PT_LOAD, PF_R | PF_X, body, 0, 0, 16, 16, 4};
    f->ph[1] = (Elf64_Phdr){PT_LOAD, PF_R | PF_W, body + 16, 0x10000, 0x10000, 40, 64, 8};
    for (unsigned i = 0; i < 56; i++)
        f->body[i] = (uint8_t)(i + 1);
}

static npk_status parse(const elf_file *f, size_t size, kt_rv64_image *img)
{
    return kt_rv64_image_parse(f, size, "t.elf", NULL, img);
}

static void expect_refused(const elf_file *f, npk_status want, const char *needle)
{
    kt_rv64_image img;
    npk_status s = parse(f, sizeof *f, &img);
    CHECK_EQ(s, want);
    CHECK_STR_HAS(npk_last_error(), needle);
    CHECK(img.file == NULL && img.n_seg == 0);
}

static void test_valid(void)
{
    elf_file f;
    make(&f);
    kt_rv64_image img;
    CHECK_EQ(parse(&f, sizeof f, &img), NPK_OK);
    CHECK_EQ(img.n_seg, 2);
    CHECK_EQ(img.seg[0].region, KT_RV64_IMEM);
    CHECK_EQ(img.seg[0].offset, 0);
    CHECK_EQ(img.seg[0].data[0], 1);
    CHECK_EQ(img.seg[1].region, KT_RV64_SPAD);
    CHECK_EQ(img.seg[1].offset, 0);
    CHECK_EQ(img.seg[1].filesz, 40);
    CHECK_EQ(img.seg[1].memsz, 64);
    CHECK_EQ(img.seg[1].data[0], 17);
    kt_rv64_image_free(&img);
}

static void test_refusals(void)
{
    elf_file f;
    make(&f); f.eh.e_ident[EI_CLASS] = ELFCLASS32;
    expect_refused(&f, NPK_EPARSE, "ELFCLASS64");
    make(&f); f.eh.e_machine = EM_X86_64;
    expect_refused(&f, NPK_EPARSE, "expected RISC-V");
    make(&f); f.eh.e_type = ET_DYN;
    expect_refused(&f, NPK_EPARSE, "expected an executable");
    make(&f); f.eh.e_entry = 0x40;
    expect_refused(&f, NPK_EINVAL, "entry point 0x40");
    /* 32 KiB + 4 of code: names the segment and where the memory ends. */
    make(&f); f.ph[0].p_memsz = 0x8004;
    expect_refused(&f, NPK_ELIMIT, "segment 0 (0x0..0x8004) runs past the instruction memory, which ends at 0x8000");
    make(&f); f.ph[1].p_vaddr = 0x17ff0;
    expect_refused(&f, NPK_ELIMIT, "segment 1 (0x17ff0..0x18030) runs past the scratchpad, which ends at 0x18000");
    make(&f); f.ph[1].p_vaddr = 0x9000;
    expect_refused(&f, NPK_ELIMIT, "segment 1 at 0x9000 (64 bytes) is in neither");
    make(&f); f.ph[0].p_flags |= PF_W;
    expect_refused(&f, NPK_EINVAL, "segment 0 at 0x0 is writable but lies in the instruction memory");
    make(&f); f.ph[1].p_flags |= PF_X;
    expect_refused(&f, NPK_EINVAL, "executable but lies in the scratchpad");
    make(&f); f.ph[0].p_vaddr = 2;
    expect_refused(&f, NPK_EINVAL, "not word-aligned");
    make(&f); f.ph[1].p_filesz = 100;
    expect_refused(&f, NPK_EPARSE, "segment 1 has 100 file bytes but only 64 in memory");
    make(&f); f.ph[1].p_offset = 1u << 20;
    expect_refused(&f, NPK_EPARSE, "lie past the end");
    make(&f); f.ph[1].p_offset = UINT64_MAX - 4;
    expect_refused(&f, NPK_EPARSE, "lie past the end");
    make(&f); f.ph[1].p_vaddr = 0x10000; f.ph[2] = f.ph[1]; f.ph[2].p_vaddr = 0x10020; f.eh.e_phnum = 3;
    expect_refused(&f, NPK_EINVAL, "segments 1 and 2 overlap");
    make(&f); f.ph[0].p_type = PT_NOTE; f.ph[1].p_type = PT_TLS;
    expect_refused(&f, NPK_EPARSE, "no loadable");
    make(&f); f.eh.e_phnum = 60000;
    kt_rv64_image img;
    CHECK(parse(&f, sizeof f, &img) != NPK_OK);
    CHECK(strlen(npk_last_error()) > 0);
    CHECK_EQ(kt_rv64_image_parse("", 0, "empty", NULL, &img), NPK_EPARSE);
    CHECK_STR_HAS(npk_last_error(), "empty");
    CHECK_EQ(kt_rv64_image_parse("#!/bin/sh\necho hi\n", 18, "script", NULL, &img), NPK_EPARSE);
    CHECK_STR_HAS(npk_last_error(), "script: not an ELF file");
    CHECK_EQ(kt_rv64_image_read("/nonexistent/x.elf", NULL, &img), NPK_EIO);
    CHECK_STR_HAS(npk_last_error(), "/nonexistent/x.elf");
}

static void test_truncations_and_noise(void)
{
    /* Every prefix of a valid file fails with a message, or (past the last segment byte)
     * succeeds; nothing crashes. */
    elf_file f;
    make(&f);
    size_t full = offsetof(elf_file, body) + 56;
    unsigned failed = 0;
    for (size_t n = 1; n < full; n++) {
        kt_rv64_image img;
        npk_status s = parse(&f, n, &img);
        if (s != NPK_OK) {
            failed++;
            CHECK(strlen(npk_last_error()) > 0);
        }
        kt_rv64_image_free(&img);
    }
    CHECK_EQ(failed, full - 1);
    /* A real program, cut at every 97th byte. */
    char path[4096];
    if (rv64_test_program("kernels.elf", path, sizeof path)) {
        FILE *fp = fopen(path, "rb");
        static uint8_t buf[1 << 17];
        size_t n = fp ? fread(buf, 1, sizeof buf, fp) : 0;
        if (fp)
            fclose(fp);
        CHECK(n > 0);
        kt_rv64_image img;
        CHECK_EQ(kt_rv64_image_parse(buf, n, path, NULL, &img), NPK_OK);
        kt_rv64_image_free(&img);
        for (size_t cut = 1; cut < n; cut += 97) {
            npk_status s = kt_rv64_image_parse(buf, cut, path, NULL, &img);
            CHECK(s == NPK_OK || strlen(npk_last_error()) > 0);
            kt_rv64_image_free(&img);
        }
    }
    /* Random bytes behind a valid ELF identification. */
    srand(7);
    for (unsigned t = 0; t < 2000; t++) {
        make(&f);
        uint8_t *b = (uint8_t *)&f;
        for (unsigned k = 0; k < 8; k++)
            b[16 + rand() % (sizeof f - 16)] = (uint8_t)rand();
        kt_rv64_image img;
        npk_status s = parse(&f, sizeof f, &img);
        CHECK(s == NPK_OK || strlen(npk_last_error()) > 0);
        kt_rv64_image_free(&img);
    }
}

int main(void)
{
    test_valid();
    test_refusals();
    test_truncations_and_noise();
    return check_done();
}
