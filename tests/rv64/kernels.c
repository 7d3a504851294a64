/* SPDX-License-Identifier: MIT */
/* Compute kernels for checking the RV64 core against QEMU: the same source is built for the
 * simulated complex (console through the control region) and as a static Linux program run
 * under qemu-riscv64; both must print the same lines. Every instruction under test is issued
 * with inline assembly so the compiler can neither fold nor replace it, and every operand
 * comes from a table of edge values. Each line is an operation's name and a hash over its
 * results for every operand pair, or one named value. */
#include <stdint.h>

#ifdef __linux__
#include <unistd.h>
static void out(const char *s, unsigned n) { (void)!write(1, s, n); }
#else
#include "rt.h"
static void out(const char *s, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        rt_putc(s[i]);
}
#endif

static void put_line(const char *name, uint64_t v)
{
    char buf[64];
    unsigned n = 0;
    while (*name && n < 40)
        buf[n++] = *name++;
    buf[n++] = ' ';
    buf[n++] = '0';
    buf[n++] = 'x';
    for (int s = 60; s >= 0; s -= 4)
        buf[n++] = "0123456789abcdef"[(v >> s) & 15];
    buf[n++] = '\n';
    out(buf, n);
}

static const uint64_t vals[] = {
    0, 1, 2, 3, 7, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000,
    0xffffffff, 0x100000000ull, 0x123456789abcdef0ull, 0x8000000000000000ull,
    0x7fffffffffffffffull, 0xffffffffffffffffull, 0xfffffffffffffffeull, 0xffffffff80000000ull,
    0xfedcba9876543210ull, 0x00000000deadbeefull, 0xffffffff7fffffffull, 63, 64, 31, 32,
};
enum { NV = sizeof vals / sizeof vals[0] };

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v;
    h *= 0x100000001b3ull;
    return h ^ (h >> 29);
}

#define RR(name, insn)                                                                        \
    static uint64_t name(uint64_t a, uint64_t b)                                               \
    {                                                                                          \
        uint64_t r;                                                                            \
        __asm__ volatile(insn " %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));                      \
        return r;                                                                              \
    }
RR(op_add, "add") RR(op_sub, "sub") RR(op_and, "and") RR(op_or, "or") RR(op_xor, "xor")
RR(op_slt, "slt") RR(op_sltu, "sltu") RR(op_sll, "sll") RR(op_srl, "srl") RR(op_sra, "sra")
RR(op_addw, "addw") RR(op_subw, "subw") RR(op_sllw, "sllw") RR(op_srlw, "srlw") RR(op_sraw, "sraw")
RR(op_mul, "mul") RR(op_mulh, "mulh") RR(op_mulhsu, "mulhsu") RR(op_mulhu, "mulhu")
RR(op_div, "div") RR(op_divu, "divu") RR(op_rem, "rem") RR(op_remu, "remu")
RR(op_mulw, "mulw") RR(op_divw, "divw") RR(op_divuw, "divuw") RR(op_remw, "remw") RR(op_remuw, "remuw")

static const struct { const char *name; uint64_t (*fn)(uint64_t, uint64_t); } rr_ops[] = {
    {"add", op_add}, {"sub", op_sub}, {"and", op_and}, {"or", op_or}, {"xor", op_xor},
    {"slt", op_slt}, {"sltu", op_sltu}, {"sll", op_sll}, {"srl", op_srl}, {"sra", op_sra},
    {"addw", op_addw}, {"subw", op_subw}, {"sllw", op_sllw}, {"srlw", op_srlw}, {"sraw", op_sraw},
    {"mul", op_mul}, {"mulh", op_mulh}, {"mulhsu", op_mulhsu}, {"mulhu", op_mulhu},
    {"div", op_div}, {"divu", op_divu}, {"rem", op_rem}, {"remu", op_remu},
    {"mulw", op_mulw}, {"divw", op_divw}, {"divuw", op_divuw}, {"remw", op_remw}, {"remuw", op_remuw},
};

static void kernel_register_ops(void)
{
    for (unsigned o = 0; o < sizeof rr_ops / sizeof rr_ops[0]; o++) {
        uint64_t h = 0xcbf29ce484222325ull;
        for (unsigned i = 0; i < NV; i++)
            for (unsigned j = 0; j < NV; j++)
                h = mix(h, rr_ops[o].fn(vals[i], vals[j]));
        put_line(rr_ops[o].name, h);
    }
    /* The division corners by name. */
    put_line("div_by_zero", op_div(12345, 0));
    put_line("divu_by_zero", op_divu(12345, 0));
    put_line("rem_by_zero", op_rem((uint64_t)-7, 0));
    put_line("remu_by_zero", op_remu(7, 0));
    put_line("div_overflow", op_div(0x8000000000000000ull, (uint64_t)-1));
    put_line("rem_overflow", op_rem(0x8000000000000000ull, (uint64_t)-1));
    put_line("divw_overflow", op_divw(0x80000000ull, (uint64_t)-1));
    put_line("remw_overflow", op_remw(0x80000000ull, (uint64_t)-1));
    put_line("divuw_by_zero", op_divuw(5, 0));
    put_line("remuw_by_zero", op_remuw(0xfffffff5ull, 0));
    put_line("mulhsu_neg", op_mulhsu((uint64_t)-3, 0xffffffffffffffffull));
}

/* Immediate forms: one function per (instruction, immediate). */
#define RI(name, insn, imm)                                                                   \
    static uint64_t name(uint64_t a)                                                           \
    {                                                                                          \
        uint64_t r;                                                                            \
        __asm__ volatile(insn " %0, %1, " #imm : "=r"(r) : "r"(a));                           \
        return r;                                                                              \
    }
RI(i_addi_m1, "addi", -1) RI(i_addi_max, "addi", 2047) RI(i_addi_min, "addi", -2048)
RI(i_slti, "slti", -5) RI(i_sltiu, "sltiu", -5) RI(i_xori, "xori", -1) RI(i_ori, "ori", 0x555)
RI(i_andi, "andi", -16) RI(i_slli0, "slli", 0) RI(i_slli63, "slli", 63) RI(i_slli17, "slli", 17)
RI(i_srli1, "srli", 1) RI(i_srli63, "srli", 63) RI(i_srai1, "srai", 1) RI(i_srai63, "srai", 63)
RI(i_addiw, "addiw", -1) RI(i_addiw2, "addiw", 2047) RI(i_slliw, "slliw", 31) RI(i_srliw, "srliw", 31)
RI(i_sraiw, "sraiw", 31) RI(i_srliw0, "srliw", 0) RI(i_sraiw5, "sraiw", 5)

static const struct { const char *name; uint64_t (*fn)(uint64_t); } ri_ops[] = {
    {"addi-1", i_addi_m1}, {"addi2047", i_addi_max}, {"addi-2048", i_addi_min}, {"slti", i_slti},
    {"sltiu", i_sltiu}, {"xori", i_xori}, {"ori", i_ori}, {"andi", i_andi}, {"slli0", i_slli0},
    {"slli63", i_slli63}, {"slli17", i_slli17}, {"srli1", i_srli1}, {"srli63", i_srli63},
    {"srai1", i_srai1}, {"srai63", i_srai63}, {"addiw", i_addiw}, {"addiw2047", i_addiw2},
    {"slliw31", i_slliw}, {"srliw31", i_srliw}, {"sraiw31", i_sraiw}, {"srliw0", i_srliw0},
    {"sraiw5", i_sraiw5},
};

static void kernel_immediates(void)
{
    for (unsigned o = 0; o < sizeof ri_ops / sizeof ri_ops[0]; o++) {
        uint64_t h = 0xcbf29ce484222325ull;
        for (unsigned i = 0; i < NV; i++)
            h = mix(h, ri_ops[o].fn(vals[i]));
        put_line(ri_ops[o].name, h);
    }
    uint64_t r;
    __asm__ volatile("lui %0, 0xfffff" : "=r"(r));
    put_line("lui_neg", r);
    __asm__ volatile("lui %0, 0x7ffff" : "=r"(r));
    put_line("lui_pos", r);
}

/* Loads of every width and sign at every aligned offset of a patterned buffer. */
static uint64_t buf[8];

#define LD(name, insn)                                                                        \
    static uint64_t name(const void *p)                                                        \
    {                                                                                          \
        uint64_t r;                                                                            \
        __asm__ volatile(insn " %0, 0(%1)" : "=r"(r) : "r"(p) : "memory");                    \
        return r;                                                                              \
    }
LD(l_lb, "lb") LD(l_lbu, "lbu") LD(l_lh, "lh") LD(l_lhu, "lhu") LD(l_lw, "lw") LD(l_lwu, "lwu") LD(l_ld, "ld")
#define ST(name, insn)                                                                        \
    static void name(void *p, uint64_t v)                                                      \
    {                                                                                          \
        __asm__ volatile(insn " %1, 0(%0)" ::"r"(p), "r"(v) : "memory");                      \
    }
ST(s_sb, "sb") ST(s_sh, "sh") ST(s_sw, "sw") ST(s_sd, "sd")

static void fill(void)
{
    uint8_t *b = (uint8_t *)buf;
    for (unsigned i = 0; i < sizeof buf; i++)
        b[i] = (uint8_t)(i * 37 + 0x71); /* crosses 0x80 often: sign extension matters */
}

static void kernel_memory(void)
{
    static const struct { const char *name; uint64_t (*fn)(const void *); unsigned w; } loads[] = {
        {"lb", l_lb, 1}, {"lbu", l_lbu, 1}, {"lh", l_lh, 2}, {"lhu", l_lhu, 2},
        {"lw", l_lw, 4}, {"lwu", l_lwu, 4}, {"ld", l_ld, 8},
    };
    fill();
    const uint8_t *b = (const uint8_t *)buf;
    for (unsigned k = 0; k < sizeof loads / sizeof loads[0]; k++) {
        uint64_t h = 0xcbf29ce484222325ull;
        for (unsigned off = 0; off + loads[k].w <= sizeof buf; off += loads[k].w)
            h = mix(h, loads[k].fn(b + off));
        put_line(loads[k].name, h);
    }
    static const struct { const char *name; void (*fn)(void *, uint64_t); unsigned w; } stores[] = {
        {"sb", s_sb, 1}, {"sh", s_sh, 2}, {"sw", s_sw, 4}, {"sd", s_sd, 8},
    };
    for (unsigned k = 0; k < sizeof stores / sizeof stores[0]; k++) {
        fill();
        unsigned n = 0;
        for (unsigned off = 0; off + stores[k].w <= sizeof buf; off += stores[k].w * 3, n++)
            stores[k].fn((uint8_t *)buf + off, vals[n % NV] ^ 0xa5a5a5a5a5a5a5a5ull);
        uint64_t h = 0xcbf29ce484222325ull;
        for (unsigned i = 0; i < 8; i++)
            h = mix(h, buf[i]);
        put_line(stores[k].name, h);
    }
}

/* Branches: each condition on every pair, as 0/1 from a taken/not-taken pair of paths. */
#define BR(name, insn)                                                                        \
    static uint64_t name(uint64_t a, uint64_t b)                                               \
    {                                                                                          \
        uint64_t r = 1;                                                                        \
        __asm__ volatile(insn " %1, %2, 1f\n\tli %0, 0\n1:" : "+r"(r) : "r"(a), "r"(b));      \
        return r;                                                                              \
    }
BR(b_beq, "beq") BR(b_bne, "bne") BR(b_blt, "blt") BR(b_bge, "bge") BR(b_bltu, "bltu") BR(b_bgeu, "bgeu")

static void kernel_branches(void)
{
    static const struct { const char *name; uint64_t (*fn)(uint64_t, uint64_t); } ops[] = {
        {"beq", b_beq}, {"bne", b_bne}, {"blt", b_blt}, {"bge", b_bge}, {"bltu", b_bltu}, {"bgeu", b_bgeu},
    };
    for (unsigned o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        uint64_t bits = 0, h = 0xcbf29ce484222325ull;
        for (unsigned i = 0; i < NV; i++) {
            for (unsigned j = 0; j < NV; j++)
                bits = (bits << 1) | ops[o].fn(vals[i], vals[j]);
            h = mix(h, bits);
        }
        put_line(ops[o].name, h);
    }
}

/* Counter CSRs: the values differ between machines; that they advance does not. */
static void kernel_csr(void)
{
    uint64_t c0, c1, i0, i1;
    __asm__ volatile("rdcycle %0" : "=r"(c0));
    __asm__ volatile("rdinstret %0" : "=r"(i0));
    volatile uint64_t s = 0;
    for (unsigned k = 0; k < 1000; k++)
        s += k;
    __asm__ volatile("rdinstret %0" : "=r"(i1));
    __asm__ volatile("rdcycle %0" : "=r"(c1));
    put_line("cycle_advances", c1 > c0);
    put_line("instret_advances", i1 > i0);
    put_line("instret_at_least_loop", i1 - i0 >= 1000);
    put_line("loop_sum", s);
}

/* Calls, recursion and a table-driven loop: what compiled code leans on. */
static uint64_t fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static void kernel_compiled(void)
{
    put_line("fib20", fib(20));
    uint32_t crc = 0xffffffffu;
    for (unsigned i = 0; i < 4096; i++) {
        crc ^= (uint8_t)(i * 7);
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
    }
    put_line("crc32", ~crc);
    uint64_t a[64];
    for (unsigned i = 0; i < 64; i++)
        a[i] = (i * 0x9E3779B97F4A7C15ull) >> 7;
    for (unsigned i = 1; i < 64; i++) /* insertion sort */
        for (unsigned j = i; j > 0 && (int64_t)a[j - 1] > (int64_t)a[j]; j--) {
            uint64_t t = a[j];
            a[j] = a[j - 1];
            a[j - 1] = t;
        }
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned i = 0; i < 64; i++)
        h = mix(h, a[i]);
    put_line("sorted", h);
}

int main(void)
{
    kernel_register_ops();
    kernel_immediates();
    kernel_memory();
    kernel_branches();
    kernel_csr();
    kernel_compiled();
    put_line("end", 0);
    return 0;
}
