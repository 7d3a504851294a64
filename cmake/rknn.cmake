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
set_target_properties(rknn_matmul_demo PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/rknn)

# Its tests: the demo over every type and layout, the C interface's behaviour, the C++ ABI.
npukit_run_path(NPUKIT_RKNN_DEMO_RUN rknn_matmul_demo)
add_test(NAME test_rknn_demo COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/rknn/test_rknn_demo.sh
         ${NPUKIT_RKNN_DEMO_RUN})
add_executable(test_rknn_api ${CMAKE_CURRENT_SOURCE_DIR}/tests/rknn/test_rknn_api.c)
target_include_directories(test_rknn_api PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/tests
                           ${CMAKE_CURRENT_SOURCE_DIR}/include)
target_link_libraries(test_rknn_api PRIVATE rknnrt Threads::Threads m)
add_test(NAME test_rknn_api COMMAND test_rknn_api)

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
