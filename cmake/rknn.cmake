# SPDX-License-Identifier: MIT
# The rknn_matmul_* compatible layer: librknnrt.so in its own directory (build/rknn), so it is
# only found where a program is pointed at it, never instead of a vendor library by accident.
file(GLOB NPUKIT_RKNN_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/rknn/*.c)
add_library(rknnrt SHARED ${NPUKIT_RKNN_SOURCES})
target_include_directories(rknnrt PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include/rknn
                           PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
target_link_libraries(rknnrt PRIVATE npukit_lib m)
set_target_properties(rknnrt PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/rknn
                      LINK_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/cmake/rknnrt.map)
target_link_options(rknnrt PRIVATE
                    -Wl,--version-script=${CMAKE_CURRENT_SOURCE_DIR}/cmake/rknnrt.map)

# Installed apart from libnpukit too: PREFIX/lib/npukit/rknn/librknnrt.so and the headers under
# PREFIX/include/npukit/rknn, so neither is found by a default search path in place of a vendor
# copy; npukit-rknn.pc gives a program the include path, the library path and an rpath.
install(TARGETS rknnrt LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/npukit/rknn COMPONENT rknn)
install(FILES ${CMAKE_CURRENT_SOURCE_DIR}/include/rknn/rknn_api.h
              ${CMAKE_CURRENT_SOURCE_DIR}/include/rknn/rknn_matmul_api.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/npukit/rknn COMPONENT rknn)
if(DEFINED NPUKIT_PC_PREFIX)
  configure_file(${CMAKE_CURRENT_SOURCE_DIR}/cmake/in/npukit-rknn.pc.in
                 ${CMAKE_BINARY_DIR}/npukit-rknn.pc @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/npukit-rknn.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
          COMPONENT rknn)
endif()

# A program written against the compatible headers only, in the vendor demo's argument shape.
add_executable(rknn_matmul_demo ${CMAKE_CURRENT_SOURCE_DIR}/examples/rknn/rknn_matmul_demo.c)
target_link_libraries(rknn_matmul_demo PRIVATE rknnrt m)
# A user's program over the vendor API's enums: a default is how such programs are written.
target_compile_options(rknn_matmul_demo PRIVATE -Wno-switch-enum)
set_target_properties(rknn_matmul_demo PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/rknn)

# Its tests: the demo over every type and layout, the C interface's behaviour, the C++ ABI.
npukit_run_path(NPUKIT_RKNN_DEMO_RUN rknn_matmul_demo)
add_test(NAME test_rknn_demo COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/rknn/test_rknn_demo.sh
         ${NPUKIT_RKNN_DEMO_RUN})
add_executable(test_rknn_api ${CMAKE_CURRENT_SOURCE_DIR}/tests/rknn/test_rknn_api.c)
target_include_directories(test_rknn_api PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/tests
                           ${CMAKE_CURRENT_SOURCE_DIR}/include)
target_link_libraries(test_rknn_api PRIVATE rknnrt Threads::Threads m ${CMAKE_DL_LIBS})
add_test(NAME test_rknn_api COMMAND test_rknn_api)

# Client-shaped programs of the layer, run on each kernel: in process on the simulator's rknpu
# and rocket front ends (sanitized, through librknnrt.so), and built once more without
# sanitizers (the layer and the library linked in) to run under the LD_PRELOAD shim on
# /dev/dri/card1 and /dev/accel/accel0, the way a program built for a board runs on x86.
function(npukit_rknn_client_test name)
  add_executable(${name} ${CMAKE_CURRENT_SOURCE_DIR}/tests/rknn/${name}.c)
  target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/tests
                             ${CMAKE_CURRENT_SOURCE_DIR}/include)
  target_link_libraries(${name} PRIVATE rknnrt Threads::Threads m ${CMAKE_DL_LIBS})
  foreach(dev sim sim-rocket)
    add_test(NAME ${name}_${dev} COMMAND ${name})
    set_tests_properties(${name}_${dev} PROPERTIES ENVIRONMENT "NPUKIT_RK_DEVICE=${dev}")
  endforeach()
  add_executable(${name}_plain ${CMAKE_CURRENT_SOURCE_DIR}/tests/rknn/${name}.c
                 ${NPUKIT_RKNN_SOURCES} $<TARGET_OBJECTS:npukit_plain_objs>)
  target_include_directories(${name}_plain PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/tests
                             ${CMAKE_CURRENT_SOURCE_DIR}/include
                             ${CMAKE_CURRENT_SOURCE_DIR}/include/rknn
                             ${CMAKE_CURRENT_SOURCE_DIR}/src)
  target_link_libraries(${name}_plain PRIVATE ${NPUKIT_ELF_LIB}
                        ${NPUKIT_CJSON_LIB} ${NPUKIT_XXHASH_LIB} Threads::Threads m ${CMAKE_DL_LIBS})
  set_target_properties(${name}_plain PROPERTIES COMPILE_OPTIONS "-Wall;-Wextra;-Werror"
                        LINK_OPTIONS "")
  add_dependencies(${name}_plain rksim_shim)
  foreach(dev card1 accel0)
    set(path /dev/dri/card1)
    if(dev STREQUAL accel0)
      set(path /dev/accel/accel0)
    endif()
    add_test(NAME ${name}_shim_${dev} COMMAND ${name}_plain)
    set_tests_properties(${name}_shim_${dev} PROPERTIES ENVIRONMENT
      "LD_PRELOAD=$<TARGET_FILE:rksim_shim>;NPUKIT_RK_DEVICE=${path};NPUKIT_RKSIM_TIMEOUT_SCALE=0")
  endforeach()
endfunction()
# White-box: the layer's sources built in, so the test reaches the simulator behind its engine
# (the cacheability rknn_create_mem2 asks for, as the simulated kernel records it).
add_executable(test_rknn_mem_flags ${CMAKE_CURRENT_SOURCE_DIR}/tests/rknn/test_rknn_mem_flags.c
               ${NPUKIT_RKNN_SOURCES})
target_include_directories(test_rknn_mem_flags PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/tests
                           ${CMAKE_CURRENT_SOURCE_DIR}/include ${CMAKE_CURRENT_SOURCE_DIR}/include/rknn
                           ${CMAKE_CURRENT_SOURCE_DIR}/src)
target_link_libraries(test_rknn_mem_flags PRIVATE npukit_lib Threads::Threads m ${CMAKE_DL_LIBS})
foreach(dev sim sim-rocket)
  add_test(NAME test_rknn_mem_flags_${dev} COMMAND test_rknn_mem_flags)
  set_tests_properties(test_rknn_mem_flags_${dev} PROPERTIES ENVIRONMENT "NPUKIT_RK_DEVICE=${dev}")
endforeach()
npukit_rknn_client_test(test_rknn_sync)
npukit_rknn_client_test(test_rknn_lifetime)
npukit_rknn_client_test(test_rknn_dmabuf)
npukit_rknn_client_test(test_rknn_group)

# The ABI as C++ sees it (g++ when present: the headers must be C++-compatible).
include(CheckLanguage)
check_language(CXX)
if(CMAKE_CXX_COMPILER)
  enable_language(CXX)
  add_executable(test_rknn_abi ${CMAKE_CURRENT_SOURCE_DIR}/tests/rknn/test_rknn_abi.cpp)
  target_link_libraries(test_rknn_abi PRIVATE rknnrt)
  add_test(NAME test_rknn_abi COMMAND test_rknn_abi)
else()
  message(STATUS "npukit: no C++ compiler: the rknn C++ ABI test is not built")
endif()

# `npukit rk bench` compares the layer with npk_rk_matmul: the CLI carries its sources.
foreach(cli npukit npukit_plain)
  if(TARGET ${cli})
    target_sources(${cli} PRIVATE ${NPUKIT_RKNN_SOURCES})
    target_include_directories(${cli} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/include/rknn)
  endif()
endforeach()
