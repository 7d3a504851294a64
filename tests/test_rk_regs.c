/* SPDX-License-Identifier: MIT */
/* The register table's integrity and the regcmd codec against the spec's own formulas. */
#include "check.h"
#include "npukit/rk_decode.h"
#include "npukit/rk_regcmd.h"
#include "npukit/rk_regs.h"
#include "npukit/rk_types.h"

static void test_table_integrity(void)
{
    int bad_target = 0, dup = 0, bad_field = 0, overlap = 0;
    for (unsigned i = 0; i < NPK_REG_COUNT; i++) {
        const npk_rk_reg *r = npk_rk_reg_info((npk_rk_reg_id)i);
        /* Ordinary registers live in their block's page; the PC ops have their own targets. */
        if (r->block != NPK_BLK_PC_OP40 && r->block != NPK_BLK_PC_OPEN &&
            npk_rk_target_for_offset(r->offset) != r->target)
            bad_target++;
        if (npk_rk_reg_lookup(r->target, r->offset) != r)
            dup++;
        if (npk_rk_reg_by_name(r->name) != r)
            dup++;
        uint32_t seen = 0;
        for (unsigned f = 0; f < r->nfields; f++) {
            const npk_rk_field *fi = npk_rk_field_info((npk_rk_field_id)(r->first_field + f));
            if (fi->reg != (npk_rk_reg_id)i || fi->hi > 31 || fi->lo > fi->hi)
                bad_field++;
            uint32_t m = npk_rk_field_mask((npk_rk_field_id)(r->first_field + f));
            if (seen & m)
                overlap++;
            seen |= m;
        }
    }
    CHECK_EQ(bad_target, 0);
    CHECK_EQ(dup, 0);
    CHECK_EQ(bad_field, 0);
    CHECK_EQ(overlap, 0);
    CHECK(NPK_REG_COUNT > 140);
}

static void test_named_registers(void)
{
    /* Facts B.4 field layouts spot-checked against the table. */
    const npk_rk_reg *r = npk_rk_reg_lookup(0x0201, 0x1040);
    CHECK(r && !strcmp(r->name, "CNA_CBUF_CON0"));
    CHECK_EQ(npk_rk_field_get(NPK_RKF(CNA_CBUF_CON0, DATA_BANK), 0xB1), 1);
    CHECK_EQ(npk_rk_field_get(NPK_RKF(CNA_CBUF_CON0, WEIGHT_BANK), 0xB1), 11);
    CHECK_EQ(NPK_RKPUT(CNA_CBUF_CON0, WEIGHT_REUSE, 1), 0x2000);
    r = npk_rk_reg_by_name("DPU_DATA_FORMAT");
    CHECK(r && r->target == 0x1001 && r->offset == 0x4010);
    /* 0x38000006 = int4 x int4 -> int16: OUT 1, IN 6, PROC 6 (spec "precision enum"). */
    CHECK_EQ(npk_rk_field_get(NPK_RKF(DPU_DATA_FORMAT, OUT_PRECISION), 0x38000006), NPK_PREC_INT16);
    CHECK_EQ(npk_rk_field_get(NPK_RKF(DPU_DATA_FORMAT, IN_PRECISION), 0x38000006), NPK_PREC_INT4);
    CHECK_EQ(npk_rk_field_get(NPK_RKF(DPU_DATA_FORMAT, PROC_PRECISION), 0x38000006), NPK_PREC_INT4);
    /* 0x00000360: CNA int4 PROC 6 / IN 6. */
    CHECK_EQ(npk_rk_field_get(NPK_RKF(CNA_CONV_CON1, PROC_PRECISION), 0x360), 6);
    CHECK_EQ(npk_rk_field_get(NPK_RKF(CNA_CONV_CON1, IN_PRECISION), 0x360), 6);
    CHECK_EQ(npk_rk_field_get(NPK_RKF(DPU_OUT_CVT_SCALE, FP32TOFP16_EN), 0x10001), 1);
    CHECK_EQ(npk_rk_field_get(NPK_RKF(DPU_DATA_CUBE_CHANNEL, CHANNEL), 0xFFFFFFFF), 0x1FFF);
    CHECK(!npk_rk_field_fits(NPK_RKF(DPU_DATA_CUBE_CHANNEL, CHANNEL), 8192));
    CHECK(npk_rk_field_fits(NPK_RKF(DPU_DATA_CUBE_CHANNEL, CHANNEL), 8191));
    CHECK(npk_rk_reg_lookup(0x0201, 0x1234) == NULL);
    CHECK(npk_rk_reg_lookup(0x0801, 0x1040) == NULL); /* right offset, wrong block */
    CHECK(npk_rk_reg_lookup(0x0081, 0x0008) == npk_rk_reg_info(NPK_REG_PC_OP_ENABLE));
    CHECK(npk_rk_reg_lookup(0x0101, 0x0010) == npk_rk_reg_info(NPK_REG_PC_BASE_ADDRESS));
    CHECK(npk_rk_field_find(npk_rk_reg_by_name("CNA_DMA_CON1"), "LINE_STRIDE") >= 0);
    CHECK(npk_rk_field_find(npk_rk_reg_by_name("CNA_DMA_CON1"), "NOPE") < 0);
}

static void test_precision_enum(void)
{
    /* spec / facts B.5: int8 0, int16 1, fp16 2, bf16 3, int32 4, fp32 5, int4 6, tf32 7 */
    static const char *names[8] = {"int8", "int16", "fp16", "bf16", "int32", "fp32", "int4", "tf32"};
    for (int i = 0; i < 8; i++) {
        npk_rk_prec p;
        CHECK(npk_rk_prec_parse(names[i], &p) && (int)p == i);
        CHECK(!strcmp(npk_rk_prec_name((npk_rk_prec)i), names[i]));
    }
    npk_rk_prec p;
    CHECK(!npk_rk_prec_parse("fp8", &p));
    CHECK(npk_rk_prec_name((npk_rk_prec)9) == NULL);
    CHECK_EQ(npk_rk_prec_bits(NPK_PREC_INT4), 4);
}

static void test_codec(void)
{
    /* Spec: reg = w0 & 0xffff, target = w1 >> 16, value = (w1 & 0xffff) << 16 | w0 >> 16. */
    uint32_t w0 = 0x00B11040, w1 = 0x02010000;
    npk_rk_entry e = npk_rk_entry_from_words(w0, w1);
    CHECK_EQ(npk_rk_entry_reg(e), 0x1040);
    CHECK_EQ(npk_rk_entry_target(e), 0x0201);
    CHECK_EQ(npk_rk_entry_value(e), 0xB1);
    uint32_t x0, x1;
    npk_rk_entry_words(npk_rk_entry_make(0x1001, 0x4020, 0xFFFF3000), &x0, &x1);
    CHECK_EQ(x0 & 0xffff, 0x4020);
    CHECK_EQ(x1 >> 16, 0x1001);
    CHECK_EQ(((x1 & 0xffff) << 16) | (x0 >> 16), 0xFFFF3000);
    CHECK_EQ(npk_rk_entry_reg_write(NPK_REG_CNA_CBUF_CON0, 0xB1), 0x0201000000B11040ull);
}

static void test_parse(void)
{
    npk_rk_program p;
    /* RKDUMP-style text: words in any surrounding text; indices and labels are ignored. */
    const char *txt = "regcmd[0] = 00b11040 02010000  # cbuf\nentry 1: 0x00000000 0x00000000\n";
    CHECK_EQ(npk_rk_program_parse((const uint8_t *)txt, strlen(txt), &p), NPK_OK);
    CHECK_EQ(p.count, 2);
    CHECK_EQ(p.entries[0], 0x0201000000B11040ull);
    npk_rk_program_free(&p);
    const char *u64 = "0x0201000000b11040\n0x0081000000000d0008\n";
    CHECK_EQ(npk_rk_program_parse((const uint8_t *)u64, strlen(u64), &p), NPK_OK);
    CHECK_EQ(p.count, 1); /* the second token has 18 digits: text, not an entry */
    npk_rk_program_free(&p);
    const uint8_t bin[8] = {0x40, 0x10, 0xb1, 0x00, 0x00, 0x00, 0x01, 0x02};
    CHECK_EQ(npk_rk_program_parse(bin, 8, &p), NPK_OK);
    CHECK_EQ(p.entries[0], 0x0201000000B11040ull);
    npk_rk_program_free(&p);
    CHECK_EQ(npk_rk_program_parse(bin, 7, &p), NPK_EPARSE);
    CHECK_STR_HAS(npk_last_error(), "7 bytes");
    const char *odd = "00b11040\n";
    CHECK_EQ(npk_rk_program_parse((const uint8_t *)odd, strlen(odd), &p), NPK_EPARSE);
    CHECK_STR_HAS(npk_last_error(), "odd number");
    /* Words pair within a line: a header with a lone 8-digit address used to shift every
     * later pair by one word (all entries wrong, or silently so with two such headers). */
    const char *hdr = "task 0 regcmd @ 0xffff3000 (2 entries)\n[0] 00b11040 02010000\n"
                      "[1] 00001104 02010000\n";
    CHECK_EQ(npk_rk_program_parse((const uint8_t *)hdr, strlen(hdr), &p), NPK_EPARSE);
    CHECK_STR_HAS(npk_last_error(), "line 1: odd number of 32-bit words (1; each entry is a "
                                    "word0, word1 pair on one line");
    /* ... unless the address is a label (followed by ':'), as hexdump offsets are. */
    const char *lbl = "0xffff3000: 00b11040 02010000\n00000008: 00001104 02010000\n";
    CHECK_EQ(npk_rk_program_parse((const uint8_t *)lbl, strlen(lbl), &p), NPK_OK);
    CHECK_EQ(p.count, 2);
    CHECK_EQ(p.entries[0], 0x0201000000B11040ull);
    CHECK_EQ(p.entries[1], 0x0201000000001104ull);
    npk_rk_program_free(&p);
    /* "w0:w1" is a pair, not a label and a word. */
    const char *colon = "00b11040:02010000\n";
    CHECK_EQ(npk_rk_program_parse((const uint8_t *)colon, strlen(colon), &p), NPK_OK);
    CHECK_EQ(p.count, 1);
    CHECK_EQ(p.entries[0], 0x0201000000B11040ull);
    npk_rk_program_free(&p);
    /* A u32-per-line dump still pairs consecutive lines. */
    const char *col = "00b11040\n02010000\n00001104\n02010000\n";
    CHECK_EQ(npk_rk_program_parse((const uint8_t *)col, strlen(col), &p), NPK_OK);
    CHECK_EQ(p.count, 2);
    CHECK_EQ(p.entries[1], 0x0201000000001104ull);
    npk_rk_program_free(&p);
    /* Two entries on one line. */
    const char *two = "00b11040 02010000 00001104 02010000\n";
    CHECK_EQ(npk_rk_program_parse((const uint8_t *)two, strlen(two), &p), NPK_OK);
    CHECK_EQ(p.count, 2);
    npk_rk_program_free(&p);
    CHECK_EQ(npk_rk_program_parse((const uint8_t *)"hello", 5, &p), NPK_EPARSE);
    CHECK_EQ(npk_rk_program_load("/nonexistent/prog.bin", &p), NPK_EIO);
    CHECK_STR_HAS(npk_last_error(), "/nonexistent/prog.bin");
}

/* Named field values: the packed values the facts list (C.1 #17 CVT_CON0 0xB, #27 DMA_CON0
 * 0xF000F, #58 FEATURE_MODE_CFG 0x1E4) and their names in the register decoder. */
static void test_value_names(void)
{
    CHECK_EQ(NPK_RKPUT(CNA_CVT_CON0, DATA_SIGN, NPK_DATA_SIGN_SIGNED) |
                 NPK_RKPUT(CNA_CVT_CON0, CVT_TYPE, NPK_CVT_TYPE_DESCRIBED) |
                 NPK_RKPUT(CNA_CVT_CON0, CVT_BYPASS, 1),
             0xB);
    CHECK_EQ(NPK_RKPUT(CNA_DMA_CON0, WEIGHT_BURST_LEN, NPK_BURST_LEN_LONGEST) |
                 NPK_RKPUT(CNA_DMA_CON0, DATA_BURST_LEN, NPK_BURST_LEN_LONGEST),
             0xF000F);
    CHECK_EQ(NPK_RKPUT(DPU_FEATURE_MODE_CFG, BURST_LEN, NPK_BURST_LEN_LONGEST) |
                 NPK_RKPUT(DPU_FEATURE_MODE_CFG, OUTPUT_MODE, NPK_DPU_OUTPUT_MODE_MEMORY),
             0x1E4);
    CHECK_STR_HAS(npk_rk_field_value_name(NPK_RKF(CNA_CVT_CON0, DATA_SIGN), 1), "signed");
    CHECK(npk_rk_field_value_name(NPK_RKF(DPU_FEATURE_MODE_CFG, OUTPUT_MODE), 3) == NULL);
    CHECK(npk_rk_field_value_name(NPK_RKF(CNA_CBUF_CON0, DATA_BANK), 1) == NULL);
    char line[256];
    npk_rk_entry_describe(npk_rk_entry_reg_write(NPK_REG_DPU_FEATURE_MODE_CFG, 0x1E4), line,
                          sizeof line);
    CHECK_STR_HAS(line, "BURST_LEN=15(longest)");
    CHECK_STR_HAS(line, "OUTPUT_MODE=2(memory) FLYING_MODE=0");
}

int main(void)
{
    test_value_names();
    test_table_integrity();
    test_named_registers();
    test_precision_enum();
    test_codec();
    test_parse();
    return check_done();
}
