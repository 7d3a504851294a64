# SPDX-License-Identifier: MIT
# The runtime through the kernel backend and the LD_PRELOAD shim: a copy of the CLI built
# without sanitizers (a preloaded shim cannot bring its own ASan runtime), run as
# `rk matmul --device /dev/dri/card1`, so every request goes open -> ioctl -> mmap -> shim.
add_executable(npukit_plain ${NPUKIT_TOOL_SOURCES} ${NPUKIT_LIB_SOURCES})
set_target_properties(npukit_plain PROPERTIES
  COMPILE_OPTIONS "${NPUKIT_WARNINGS}"
  LINK_OPTIONS ""
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
target_include_directories(npukit_plain PRIVATE include ${NPUKIT_GENERATED_INCLUDE} src tools)
target_link_libraries(npukit_plain PRIVATE ${NPUKIT_CJSON_LIB} ${NPUKIT_XXHASH_LIB} Threads::Threads m ${CMAKE_DL_LIBS})
if(NPUKIT_HAVE_CBLAS)
  target_compile_definitions(npukit_plain PRIVATE ${NPUKIT_BLAS_DEFS})
endif()
add_dependencies(npukit_plain rksim_shim)

enable_testing()
npukit_run_path(NPUKIT_PLAIN_RUN npukit_plain)
add_test(NAME test_rk_runtime_shim
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/shim/runtime_through_shim.sh
          ${NPUKIT_PLAIN_RUN} $<TARGET_FILE:rksim_shim>)
