# SPDX-License-Identifier: MIT
# libggml-npukit.so: the ggml backend (ggml/), built only when a ggml source tree is given:
#   -DNPUKIT_GGML_DIR=<ggml checkout>           the headers the backend compiles against;
#   -DNPUKIT_GGML_BUILD=<that tree's build dir> (optional) a build of it with
#       GGML_BACKEND_DL=ON holding libggml, libggml-base, the CPU backend module and
#       test-backend-ops: with it the conformance suite, the end-to-end model test and the
#       bench are built and registered (scripts/ggml_tree.sh makes both from the pinned
#       tarball, once). Without NPUKIT_GGML_BUILD a test says the ggml tests were skipped.
# The backend is built from the library's unsanitized objects (npukit_plain_objs) even in the
# sanitized build: it is loaded into ggml's programs, which do not carry an ASan runtime.
set(NPUKIT_GGML_DIR "" CACHE PATH "a ggml source tree: builds libggml-npukit.so")
set(NPUKIT_GGML_BUILD "" CACHE PATH "that ggml tree's build directory (GGML_BACKEND_DL=ON)")

enable_testing()
if(NOT NPUKIT_GGML_DIR)
  message(STATUS "npukit: ggml backend: not built (no -DNPUKIT_GGML_DIR)")
  add_test(NAME ggml_skipped COMMAND sh -c
    "echo 'ggml tests SKIPPED: no ggml tree (make test unpacks ../shared/third_party/ggml-d99724f2.tar.xz when present)'; exit 77")
  set_tests_properties(ggml_skipped PROPERTIES SKIP_RETURN_CODE 77)
  return()
endif()
if(NOT EXISTS ${NPUKIT_GGML_DIR}/src/ggml-backend-impl.h)
  message(FATAL_ERROR "npukit: NPUKIT_GGML_DIR=${NPUKIT_GGML_DIR} holds no src/ggml-backend-impl.h")
endif()
message(STATUS "npukit: ggml backend: libggml-npukit.so against ${NPUKIT_GGML_DIR}")

file(GLOB NPUKIT_GGML_SOURCES CONFIGURE_DEPENDS ggml/npg_*.c)
add_library(ggml-npukit SHARED ${NPUKIT_GGML_SOURCES} $<TARGET_OBJECTS:npukit_plain_objs>)
set_target_properties(ggml-npukit PROPERTIES
  COMPILE_OPTIONS "${NPUKIT_PLAIN_WARNINGS};-fvisibility=hidden"
  LINK_OPTIONS ""
  PREFIX "lib"
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
# ggml's symbols resolve in the program that loads the backend (it has libggml-base).
target_compile_definitions(ggml-npukit PRIVATE GGML_BACKEND_DL GGML_BACKEND_SHARED
                           GGML_BACKEND_BUILD)
target_include_directories(ggml-npukit PRIVATE ggml include ${NPUKIT_GENERATED_INCLUDE}
                           ${NPUKIT_GGML_DIR}/include ${NPUKIT_GGML_DIR}/src)
target_link_libraries(ggml-npukit PRIVATE ${NPUKIT_BLAS_LIBS} ${NPUKIT_ELF_LIB} ${NPUKIT_CJSON_LIB}
                      Threads::Threads m ${CMAKE_DL_LIBS})
install(TARGETS ggml-npukit LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
