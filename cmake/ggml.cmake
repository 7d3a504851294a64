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
  COMPILE_OPTIONS "${NPUKIT_PLAIN_WARNINGS};-Wno-switch-enum;-fvisibility=hidden"
  LINK_OPTIONS "-Wl,--version-script=${CMAKE_CURRENT_SOURCE_DIR}/cmake/ggml-npukit.map"
  LINK_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/cmake/ggml-npukit.map
  PREFIX "lib"
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
# Only the entry point is exported (the runtime's NPUKIT_API symbols stay inside).
add_test(NAME ggml_exports COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/exports/check_ggml_exports.sh
         ${CMAKE_NM} $<TARGET_FILE:ggml-npukit>)
# ggml's symbols resolve in the program that loads the backend (it has libggml-base).
target_compile_definitions(ggml-npukit PRIVATE GGML_BACKEND_DL GGML_BACKEND_SHARED
                           GGML_BACKEND_BUILD)
# src: the library's batch fp16 conversions (common/dense.h), linked in with its objects.
target_include_directories(ggml-npukit PRIVATE ggml include src ${NPUKIT_GENERATED_INCLUDE}
                           ${NPUKIT_GGML_DIR}/include ${NPUKIT_GGML_DIR}/src)
target_link_libraries(ggml-npukit PRIVATE ${NPUKIT_ELF_LIB} ${NPUKIT_CJSON_LIB} ${NPUKIT_XXHASH_LIB}
                      Threads::Threads m ${CMAKE_DL_LIBS})
# In a directory of its own, off the loader's path: a module ggml loads by name
# (GGML_BACKEND_PATH), not a library a program links (no soname).
install(TARGETS ggml-npukit LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/npukit/ggml COMPONENT ggml)

# llama.cpp's tools with the backend (scripts/llama_tree.sh builds the pinned snapshot once):
#   -DNPUKIT_LLAMA_DIR=<llama.cpp checkout> -DNPUKIT_LLAMA_BUILD=<its build, GGML_BACKEND_DL=ON,
#   GGML_RPC=ON, holding bin/ggml-rpc-server and the CPU and RPC backend modules>.
# ggml's RPC server hosts the device; the client is the end-to-end model test built against
# that tree's ggml (the program and the modules it loads are then one ggml). The tree's
# llama-completion and llama-perplexity run a generated model (scripts/llama_tools_test.sh).
set(NPUKIT_LLAMA_DIR "" CACHE PATH "a llama.cpp source tree: the RPC and tool tests")
set(NPUKIT_LLAMA_BUILD "" CACHE PATH "that llama.cpp tree's build directory")
if(NPUKIT_LLAMA_DIR AND NPUKIT_LLAMA_BUILD)
  set(NPUKIT_LLAMA_BIN ${NPUKIT_LLAMA_BUILD}/bin)
  add_executable(test_ggml_rpc ggml/test_ggml_model.c)
  target_include_directories(test_ggml_rpc PRIVATE ggml ${NPUKIT_LLAMA_DIR}/ggml/include)
  target_link_libraries(test_ggml_rpc PRIVATE ${NPUKIT_LLAMA_BIN}/libggml.so
                        ${NPUKIT_LLAMA_BIN}/libggml-base.so m)
  # a ggml program (no npukit code in it), unsanitized like the ggml it loads: the RPC backend
  # keeps its registries for the process's life
  set_target_properties(test_ggml_rpc PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}
                        BUILD_RPATH "${NPUKIT_LLAMA_BIN}" COMPILE_OPTIONS "-Wall;-Wextra;-Werror"
                        LINK_OPTIONS "")
  foreach(front sim sim-rocket)
    string(REPLACE "-" "_" tag ${front})
    add_test(NAME ggml_rpc_${tag}
             COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/ggml_rpc_test.sh ${NPUKIT_LLAMA_BIN}
                     $<TARGET_FILE:test_ggml_rpc> $<TARGET_FILE:ggml-npukit> ${front})
    set_tests_properties(ggml_rpc_${tag} PROPERTIES SKIP_RETURN_CODE 77)
    # llama.cpp's llama-completion and llama-perplexity on a generated model, CPU vs NPUKIT0
    foreach(type f16 q8_0 q4_0)
      add_test(NAME llama_tools_${tag}_${type}
               COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/llama_tools_test.sh ${NPUKIT_LLAMA_BIN}
                       ${NPUKIT_LLAMA_DIR} $<TARGET_FILE:ggml-npukit> ${front} ${type})
      set_tests_properties(llama_tools_${tag}_${type} PROPERTIES SKIP_RETURN_CODE 77)
    endforeach()
  endforeach()
else()
  add_test(NAME llama_skipped COMMAND sh -c
    "echo 'llama.cpp tests SKIPPED: no -DNPUKIT_LLAMA_DIR/-DNPUKIT_LLAMA_BUILD (scripts/llama_tree.sh builds the pinned snapshot)'; exit 77")
  set_tests_properties(llama_skipped PROPERTIES SKIP_RETURN_CODE 77)
endif()

# The tests and the bench need a ggml build (NPUKIT_GGML_BUILD).
if(NOT NPUKIT_GGML_BUILD)
  add_test(NAME ggml_skipped COMMAND sh -c
    "echo 'ggml tests SKIPPED: no -DNPUKIT_GGML_BUILD (a GGML_BACKEND_DL=ON build of the ggml tree)'; exit 77")
  set_tests_properties(ggml_skipped PROPERTIES SKIP_RETURN_CODE 77)
  return()
endif()
set(NPUKIT_GGML_BIN ${NPUKIT_GGML_BUILD}/bin)
find_library(NPUKIT_GGML_LIB ggml PATHS ${NPUKIT_GGML_BUILD}/src ${NPUKIT_GGML_BIN} NO_DEFAULT_PATH)
find_library(NPUKIT_GGML_BASE_LIB ggml-base PATHS ${NPUKIT_GGML_BUILD}/src ${NPUKIT_GGML_BIN}
             NO_DEFAULT_PATH)
if(NOT NPUKIT_GGML_LIB OR NOT NPUKIT_GGML_BASE_LIB OR NOT EXISTS ${NPUKIT_GGML_BIN}/test-backend-ops)
  message(FATAL_ERROR "npukit: NPUKIT_GGML_BUILD=${NPUKIT_GGML_BUILD} lacks libggml, libggml-base "
    "or bin/test-backend-ops (build targets ggml ggml-base ggml-cpu test-backend-ops)")
endif()

# Programs against ggml's API: the end-to-end model test, the batching test, the SOFT_MAX and
# POOL_2D test and the bench.
foreach(name test_ggml_model test_ggml_batch test_ggml_ops test_ggml_repack bench_ggml)
  add_executable(${name} ggml/${name}.c)
  target_include_directories(${name} PRIVATE ggml include ${NPUKIT_GENERATED_INCLUDE}
                             ${NPUKIT_GGML_DIR}/include)
  target_link_libraries(${name} PRIVATE ${NPUKIT_GGML_LIB} ${NPUKIT_GGML_BASE_LIB} m)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}
                        BUILD_RPATH "${NPUKIT_GGML_BUILD}/src;${NPUKIT_GGML_BIN}")
endforeach()
target_link_libraries(bench_ggml PRIVATE npukit_lib)
# the int4 form's arithmetic, measured in part 2
target_sources(bench_ggml PRIVATE ggml/npg_int4.c)
# `make bench` runs it without arguments: the backend and ggml's CPU backend of this build.
target_compile_definitions(bench_ggml PRIVATE NPUKIT_GGML_DEFAULT_BIN="${NPUKIT_GGML_BIN}"
                           NPUKIT_GGML_DEFAULT_PLUGIN="$<TARGET_FILE:ggml-npukit>")
add_dependencies(bench_ggml ggml-npukit)
target_include_directories(bench_ggml PRIVATE src)

# Every test on both kernel front ends of the simulator: rknpu ("sim") and rocket ("sim-rocket").
foreach(front sim sim-rocket)
  string(REPLACE "-" "_" tag ${front})
  # ggml's own conformance suite, unmodified: every MUL_MAT case the backend claims must pass
  # (OFFLOAD=always: the backend claims every case it can compute, not only those the cost
  # model would send it).
  add_test(NAME ggml_backend_ops_${tag}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/ggml_backend_ops.sh
                   ${NPUKIT_GGML_BIN}/test-backend-ops NPUKIT0 MUL_MAT)
  add_test(NAME ggml_model_${tag} COMMAND test_ggml_model ${NPUKIT_GGML_BIN})
  # batched calls against one call per matrix, and the weight forms, against the CPU backend
  add_test(NAME ggml_batch_${tag} COMMAND test_ggml_batch ${NPUKIT_GGML_BIN})
  # weights the CPU keeps repacked (CPU_REPACK): read by the device exactly, left there by
  # placement, decode on the CPU and prefill on the device under auto
  add_test(NAME ggml_repack_${tag} COMMAND test_ggml_repack ${NPUKIT_GGML_BIN})
  set_tests_properties(ggml_backend_ops_${tag} ggml_model_${tag} ggml_batch_${tag}
    ggml_repack_${tag} PROPERTIES
    SKIP_RETURN_CODE 77
    ENVIRONMENT "GGML_BACKEND_PATH=$<TARGET_FILE:ggml-npukit>;NPUKIT_GGML_DEVICE=${front};NPUKIT_GGML_OFFLOAD=always")
endforeach()

# The SDP's element-wise ops: UNARY's activations and SOFT_MAX, on both front ends (rocket's
# fixed interrupt mask is the DPU's, which an SDP task ends on).
foreach(front sim sim-rocket)
  string(REPLACE "-" "_" tag ${front})
  foreach(op RELU SIGMOID TANH GELU SILU HARDSWISH HARDSIGMOID SOFT_MAX)
    add_test(NAME ggml_backend_ops_${op}_${tag}
             COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/ggml_backend_ops.sh
                     ${NPUKIT_GGML_BIN}/test-backend-ops NPUKIT0 ${op})
    set_tests_properties(ggml_backend_ops_${op}_${tag} PROPERTIES SKIP_RETURN_CODE 77
      ENVIRONMENT "GGML_BACKEND_PATH=$<TARGET_FILE:ggml-npukit>;NPUKIT_GGML_DEVICE=${front};NPUKIT_GGML_OFFLOAD=always")
  endforeach()
endforeach()

# POOL_2D on both front ends: max on the PDP (rknpu only: the rocket kernel never waits for its
# interrupt), an average of a power-of-two window on the PDP or, on rocket, as a depthwise conv,
# any other average as window sums on the conv path (both kernels).
foreach(front sim sim-rocket)
  string(REPLACE "-" "_" tag ${front})
  add_test(NAME ggml_backend_ops_POOL_2D_${tag}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/ggml_backend_ops.sh
                   ${NPUKIT_GGML_BIN}/test-backend-ops NPUKIT0 POOL_2D)
  set_tests_properties(ggml_backend_ops_POOL_2D_${tag} PROPERTIES SKIP_RETURN_CODE 77
    ENVIRONMENT "GGML_BACKEND_PATH=$<TARGET_FILE:ggml-npukit>;NPUKIT_GGML_DEVICE=${front};NPUKIT_GGML_OFFLOAD=always")
endforeach()

# CONV_2D on both front ends: the suite's planes of one row or one column, and its CWHN form (a
# CONT the CPU backend makes inside graph_compute, the conv on the NPU) on the 1 x 133 column;
# the whole op, with its 141 x 133 and 256 x 256 x 192 planes, takes minutes on the simulator
# (docs/ggml.md has its run).
foreach(front sim sim-rocket)
  string(REPLACE "-" "_" tag ${front})
  add_test(NAME ggml_backend_ops_CONV_2D_${tag}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/ggml_backend_ops.sh
                   ${NPUKIT_GGML_BIN}/test-backend-ops NPUKIT0 CONV_2D
                   "ne_input=\\[(1,1|1,133|141,1),.*cwhn=0|ne_input=\\[1,133,.*cwhn=1")
  set_tests_properties(ggml_backend_ops_CONV_2D_${tag} PROPERTIES SKIP_RETURN_CODE 77
    ENVIRONMENT "GGML_BACKEND_PATH=$<TARGET_FILE:ggml-npukit>;NPUKIT_GGML_DEVICE=${front};NPUKIT_GGML_OFFLOAD=always")
endforeach()

# CONT, the layout copy the device claims for ggml's CPU backend to make inside graph_compute
# (host work on either front end: the rknpu one runs it), on all but the suite's large
# performance shapes (1000 to 2304 by 64 by 64: seconds of CPU copying, nothing more to learn)
add_test(NAME ggml_backend_ops_CONT_sim
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/ggml_backend_ops.sh
                 ${NPUKIT_GGML_BIN}/test-backend-ops NPUKIT0 CONT "ne=\\[(1|2|10|33|64),")
set_tests_properties(ggml_backend_ops_CONT_sim PROPERTIES SKIP_RETURN_CODE 77
  ENVIRONMENT "GGML_BACKEND_PATH=$<TARGET_FILE:ggml-npukit>;NPUKIT_GGML_DEVICE=sim;NPUKIT_GGML_OFFLOAD=always")

# SOFT_MAX of rows far from 0 and POOL_2D's host path and wider planes, against the CPU
# backend (the SDP's softmax: the rknpu front end).
add_test(NAME ggml_ops_sim COMMAND test_ggml_ops ${NPUKIT_GGML_BIN})
set_tests_properties(ggml_ops_sim PROPERTIES SKIP_RETURN_CODE 77
  ENVIRONMENT "GGML_BACKEND_PATH=$<TARGET_FILE:ggml-npukit>;NPUKIT_GGML_DEVICE=sim;NPUKIT_GGML_OFFLOAD=always")

# MUL_MAT_ID (mixture of experts) on both front ends too: its cases run a call per expert, so
# each run takes a minute or more (several on a loaded machine).
foreach(front sim sim-rocket)
  string(REPLACE "-" "_" tag ${front})
  add_test(NAME ggml_backend_ops_id_${tag}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/ggml_backend_ops.sh
                   ${NPUKIT_GGML_BIN}/test-backend-ops NPUKIT0 MUL_MAT_ID)
  set_tests_properties(ggml_backend_ops_id_${tag} PROPERTIES SKIP_RETURN_CODE 77
    ENVIRONMENT "GGML_BACKEND_PATH=$<TARGET_FILE:ggml-npukit>;NPUKIT_GGML_DEVICE=${front};NPUKIT_GGML_OFFLOAD=always")
endforeach()

# Bad settings: a device that does not open is reported and left out (the model test then has
# no npukit device and skips); a bad value — an unknown word, a rate below 0, a flag that is
# neither 0 nor 1, more devices than the registry holds — is reported, naming the value and
# what is expected, and its default kept.
function(npukit_ggml_setting_test name env expect)
  add_test(NAME ${name} COMMAND test_ggml_model ${NPUKIT_GGML_BIN})
  set_tests_properties(${name} PROPERTIES PASS_REGULAR_EXPRESSION "${expect}"
    ENVIRONMENT "GGML_BACKEND_PATH=$<TARGET_FILE:ggml-npukit>;${env}")
endfunction()
npukit_ggml_setting_test(ggml_bad_device "NPUKIT_GGML_DEVICE=/nonexistent/npu"
  "device \"/nonexistent/npu\" not opened: ENODEV")
npukit_ggml_setting_test(ggml_bad_setting
  "NPUKIT_GGML_DEVICE=sim;NPUKIT_GGML_OFFLOAD=sometimes;NPUKIT_GGML_CPU_GFLOPS=-3"
  "NPUKIT_GGML_OFFLOAD=\"sometimes\" ignored: expected auto, always or never")
npukit_ggml_setting_test(ggml_bad_flag "NPUKIT_GGML_DEVICE=sim;NPUKIT_GGML_VERBOSE=2"
  "NPUKIT_GGML_VERBOSE=\"2\" ignored: expected 0 or 1")
npukit_ggml_setting_test(ggml_too_many_devices "NPUKIT_GGML_DEVICE=sim,sim,sim,sim,sim-rocket"
  "NPUKIT_GGML_DEVICE=\"sim,sim,sim,sim,sim-rocket\" ignored: expected at most 4 ")
npukit_ggml_setting_test(ggml_empty_device_name "NPUKIT_GGML_DEVICE=,"
  "NPUKIT_GGML_DEVICE=\",\" ignored: expected at most 4 npk_rk_open names, none empty")
npukit_ggml_setting_test(ggml_bad_chain "NPUKIT_GGML_DEVICE=sim;NPUKIT_GGML_CHAIN=65"
  "NPUKIT_GGML_CHAIN=\"65\" ignored: expected tasks per SUBMIT, 1..64")
npukit_ggml_setting_test(ggml_bad_weights "NPUKIT_GGML_DEVICE=sim;NPUKIT_GGML_WEIGHTS=int4"
  "NPUKIT_GGML_WEIGHTS=\"int4\" ignored: expected auto or fp16")
