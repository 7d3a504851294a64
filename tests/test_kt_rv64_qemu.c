/* SPDX-License-Identifier: MIT */
/* The RV64 core against an independent implementation: the compute kernels of
 * tests/rv64/kernels.c run on the simulated core and, built as a static Linux program, under
 * qemu-riscv64. Every line must match. Skips (and says why) when the RISC-V toolchains or QEMU
 * are not installed. */
#include "rv64_testlib.h"

static char *run_qemu(const char *prog)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "qemu-riscv64 '%s' 2>&1", prog);
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *out = malloc(cap);
    size_t n;
    while (out && (n = fread(out + len, 1, cap - len - 1, p)) > 0) {
        len += n;
        if (len + 1 == cap)
            out = realloc(out, cap *= 2);
    }
    int rc = pclose(p);
    if (!out)
        return NULL;
    out[len] = '\0';
    if (rc != 0) {
        fprintf(stderr, "qemu-riscv64 exited with status %d:\n%s\n", rc, out);
        free(out);
        return NULL;
    }
    return out;
}

/* The first line where the two outputs differ, printed; true when they are identical. */
static bool same_lines(const char *sim, const char *ref)
{
    unsigned line = 1;
    while (*sim || *ref) {
        const char *se = strchr(sim, '\n'), *re = strchr(ref, '\n');
        size_t sl = se ? (size_t)(se - sim) : strlen(sim), rl = re ? (size_t)(re - ref) : strlen(ref);
        if (sl != rl || memcmp(sim, ref, sl) != 0) {
            fprintf(stderr, "line %u differs:\n  simulated core: %.*s\n  qemu-riscv64:   %.*s\n", line,
                    (int)sl, sim, (int)rl, ref);
            return false;
        }
        sim += sl + (se != NULL);
        ref += rl + (re != NULL);
        line++;
    }
    return true;
}

int main(void)
{
    char elf_path[4096], linux_path[4096];
    if (!rv64_test_program("kernels.elf", elf_path, sizeof elf_path))
        return rv64_test_skip("build/rv64/kernels.elf");
    if (!rv64_test_program("kernels.linux", linux_path, sizeof linux_path))
        return rv64_test_skip("build/rv64/kernels.linux");
    if (system("command -v qemu-riscv64 >/dev/null 2>&1") != 0)
        return rv64_test_skip("qemu-riscv64 (Debian qemu-user)");

    kt_rv64_image img;
    CHECK_EQ(kt_rv64_image_read(elf_path, NULL, &img), NPK_OK);
    rv64_bare b;
    CHECK(rv64_bare_init(&b, &img));
    ksim_rv64_stop st = ksim_rv64_run(&b.core, 200u * 1000 * 1000, UINT64_MAX);
    CHECK_EQ(st, KSIM_RV64_BUS_STOP);
    CHECK(b.exited);
    CHECK_EQ(b.exit_word, 0);
    if (st == KSIM_RV64_HALTED)
        fprintf(stderr, "halted: cause %u at pc 0x%llx, mcause %llu, mtval 0x%llx\n", b.core.halt_cause,
                (unsigned long long)b.core.halt_pc, (unsigned long long)b.core.csr.mcause,
                (unsigned long long)b.core.csr.mtval);

    char *ref = run_qemu(linux_path);
    CHECK(ref != NULL);
    CHECK(b.console != NULL);
    if (ref && b.console) {
        CHECK(same_lines(b.console, ref));
        /* The comparison covers every kernel: the last line is the end marker. */
        CHECK_STR_HAS(b.console, "\nend 0x0000000000000000\n");
        unsigned lines = 0;
        for (const char *p = b.console; *p; p++)
            lines += *p == '\n';
        printf("%u lines compared with qemu-riscv64, %llu instructions retired\n", lines,
               (unsigned long long)b.core.retired);
    }
    free(ref);
    rv64_bare_free(&b);
    kt_rv64_image_free(&img);
    return check_done();
}
