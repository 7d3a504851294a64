// The compatible headers as a C++ program sees them: every struct's size and every field's
// offset as the documented interface lays them out (LP64), the enum values, and the two name
// helpers. A program built against the vendor's headers passes these structures to this
// library unchanged.
#include <cstddef>
#include <cstdio>
#include <cstring>

#include "rknn_matmul_api.h"

static int failed;
#define EXPECT(cond)                                                                     \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            std::printf("%s:%d: %s\n", __FILE__, __LINE__, #cond);                       \
            failed++;                                                                    \
        }                                                                                \
    } while (0)
#define FIELD(type, field, off) EXPECT(offsetof(type, field) == (off))

int main()
{
    EXPECT(sizeof(rknn_context) == 8);
    EXPECT(sizeof(rknn_matmul_ctx) == sizeof(rknn_context));

    EXPECT(sizeof(rknn_matmul_info) == 64);
    FIELD(rknn_matmul_info, M, 0);
    FIELD(rknn_matmul_info, K, 4);
    FIELD(rknn_matmul_info, N, 8);
    FIELD(rknn_matmul_info, type, 12);
    FIELD(rknn_matmul_info, B_layout, 16);
    FIELD(rknn_matmul_info, B_quant_type, 18);
    FIELD(rknn_matmul_info, AC_layout, 20);
    FIELD(rknn_matmul_info, AC_quant_type, 22);
    FIELD(rknn_matmul_info, iommu_domain_id, 24);
    FIELD(rknn_matmul_info, group_size, 28);
    FIELD(rknn_matmul_info, reserved, 30);
    EXPECT(sizeof(((rknn_matmul_info *)0)->reserved) == 34);

    EXPECT(sizeof(rknn_tensor_mem) == 40);
    FIELD(rknn_tensor_mem, virt_addr, 0);
    FIELD(rknn_tensor_mem, phys_addr, 8);
    FIELD(rknn_tensor_mem, fd, 16);
    FIELD(rknn_tensor_mem, offset, 20);
    FIELD(rknn_tensor_mem, size, 24);
    FIELD(rknn_tensor_mem, flags, 28);
    FIELD(rknn_tensor_mem, priv_data, 32);

    EXPECT(sizeof(rknn_matmul_tensor_attr) == 332);
    FIELD(rknn_matmul_tensor_attr, name, 0);
    FIELD(rknn_matmul_tensor_attr, n_dims, 256);
    FIELD(rknn_matmul_tensor_attr, dims, 260);
    FIELD(rknn_matmul_tensor_attr, size, 324);
    FIELD(rknn_matmul_tensor_attr, type, 328);

    EXPECT(sizeof(rknn_matmul_io_attr) == 3 * 332);
    FIELD(rknn_matmul_io_attr, A, 0);
    FIELD(rknn_matmul_io_attr, B, 332);
    FIELD(rknn_matmul_io_attr, C, 664);

    EXPECT(sizeof(rknn_matmul_shape) == 12);
    FIELD(rknn_matmul_shape, M, 0);
    FIELD(rknn_matmul_shape, K, 4);
    FIELD(rknn_matmul_shape, N, 8);

    EXPECT(sizeof(rknn_quant_params) == 288);
    FIELD(rknn_quant_params, name, 0);
    FIELD(rknn_quant_params, scale, 256);
    FIELD(rknn_quant_params, scale_len, 264);
    FIELD(rknn_quant_params, zp, 272);
    FIELD(rknn_quant_params, zp_len, 280);

    EXPECT(sizeof(rknn_matmul_type) == 4 && sizeof(rknn_tensor_type) == 4);
    EXPECT(RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32 == 1 && RKNN_INT8_MM_INT8_TO_INT8 == 3 &&
           RKNN_INT8_MM_INT8_TO_FLOAT32 == 9 && RKNN_INT4_MM_INT4_TO_INT16 == 10 &&
           RKNN_FLOAT16_MM_INT4_TO_BFLOAT16 == 12);
    EXPECT(RKNN_QUANT_TYPE_PER_CHANNEL_SYM == 2 && RKNN_QUANT_TYPE_PER_GROUP_ASYM == 5);
    EXPECT(RKNN_MM_LAYOUT_NORM == 0 && RKNN_MM_LAYOUT_NATIVE == 1 && RKNN_MM_LAYOUT_TP_NORM == 2);
    EXPECT(RKNN_TENSOR_FLOAT16 == 1 && RKNN_TENSOR_INT4 == 10 && RKNN_TENSOR_BFLOAT16 == 11);
    EXPECT(RKNN_NPU_CORE_0_1 == 3 && RKNN_NPU_CORE_0_1_2 == 7 && RKNN_NPU_CORE_ALL == 0xffff);
    EXPECT(RKNN_TENSOR_MEMORY_FLAGS_FROM_PHYS == 3 && RKNN_FLAG_MEMORY_TRY_ALLOC_SRAM == 4);
    EXPECT(RKNN_MEMORY_SYNC_BIDIRECTIONAL == 3);
    EXPECT(RKNN_ERR_PARAM_INVALID == -5 && RKNN_ERR_MALLOC_FAIL == -4 && RKNN_ERR_TIMEOUT == -2 &&
           RKNN_ERR_DEVICE_UNAVAILABLE == -3 && RKNN_ERR_CTX_INVALID == -7);
    EXPECT(RKNN_MAX_DIMS == 16 && RKNN_MAX_NAME_LEN == 256);
    EXPECT(!std::strcmp(get_type_string(RKNN_TENSOR_INT4), "INT4"));
    EXPECT(!std::strcmp(get_matmul_type_string(RKNN_INT8_MM_INT8_TO_INT32),
                        "RKNN_INT8_MM_INT8_TO_INT32"));

    // And the library links and answers from C++.
    rknn_matmul_info info;
    std::memset(&info, 0, sizeof info);
    info.M = 1, info.K = 32, info.N = 16, info.type = RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32;
    rknn_matmul_io_attr io;
    rknn_matmul_ctx ctx = 0;
    EXPECT(rknn_matmul_create(&ctx, &info, &io) == RKNN_SUCC);
    EXPECT(io.C.size == 16 * 4);
    EXPECT(rknn_matmul_destroy(ctx) == RKNN_SUCC);
    std::printf("%s\n", failed ? "FAILED" : "ok");
    return failed ? 1 : 0;
}
