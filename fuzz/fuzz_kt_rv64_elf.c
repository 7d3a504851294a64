/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the RV64 ELF loader on any bytes (headers, program headers, segments that
 * overlap, run past the file or the complex's memories). It must place an image or refuse it
 * with a message, never crash or read out of bounds. */
#include "npukit/kt_rv64_load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kt_rv64_image img;
    if (kt_rv64_image_parse(data, size, "fuzz.elf", NULL, &img) == NPK_OK)
        kt_rv64_image_free(&img);
    npk_clear_error();
    return 0;
}
