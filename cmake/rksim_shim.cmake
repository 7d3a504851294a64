# librksim_shim.so: the LD_PRELOAD shim that runs unmodified rknpu programs on the simulator,
# and its stand-alone test program (written only against rknpu_uapi.h).
#
# Both are built WITHOUT the sanitizers even in the sanitized test build: a preloaded shim
# cannot carry its own ASan runtime into a program that does not link it, and the test program
# is the "unmodified program" the shim exists for.
set(NPUKIT_PLAIN_WARNINGS -Wall -Wextra -Werror)

add_library(rksim_shim SHARED ${NPUKIT_LIB_SOURCES} src/rksim/shim/shim.c)
set_target_properties(rksim_shim PROPERTIES
  COMPILE_OPTIONS "${NPUKIT_PLAIN_WARNINGS};-fvisibility=hidden"
  LINK_OPTIONS ""
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
target_include_directories(rksim_shim PRIVATE include src)
target_compile_definitions(rksim_shim PRIVATE
  NPUKIT_DATA_DIR="${CMAKE_CURRENT_SOURCE_DIR}/data")
target_link_libraries(rksim_shim PRIVATE ${NPUKIT_BLAS_LIBS} Threads::Threads m ${CMAKE_DL_LIBS})
if(NPUKIT_HAVE_CBLAS)
  target_include_directories(rksim_shim PRIVATE ${NPUKIT_CBLAS_INCLUDE})
  target_compile_definitions(rksim_shim PRIVATE NPUKIT_HAVE_CBLAS=1)
endif()

# this file is included before the top level enables testing; enabling twice is harmless
enable_testing()
file(GLOB NPUKIT_SHIM_TEST_SOURCES CONFIGURE_DEPENDS tests/shim/*.c)
foreach(src ${NPUKIT_SHIM_TEST_SOURCES})
  get_filename_component(name ${src} NAME_WE)
  add_executable(${name} ${src})
  set_target_properties(${name} PROPERTIES
    COMPILE_OPTIONS "${NPUKIT_PLAIN_WARNINGS}"
    LINK_OPTIONS ""
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
  # the uAPI header only: no npukit library
  target_include_directories(${name} PRIVATE include)
  add_dependencies(${name} rksim_shim)
  foreach(gen 6.1 5.10)
    add_test(NAME test_rksim_shim_${name}_${gen} COMMAND ${name} ${gen})
    set_tests_properties(test_rksim_shim_${name}_${gen} PROPERTIES
      ENVIRONMENT "LD_PRELOAD=$<TARGET_FILE:rksim_shim>;NPUKIT_RKSIM_TIMEOUT_SCALE=0")
  endforeach()
endforeach()
