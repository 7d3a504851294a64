# SPDX-License-Identifier: MIT
# librksim_shim.so: the LD_PRELOAD shim that runs unmodified rknpu programs on the simulator,
# and the programs that test it:
#   tests/shim/*_program.c   stand-alone, written only against rknpu_uapi.h (no npukit);
#   tests/shim/npukit_*.c    npukit's own kernel backend (ioctl + mmap on /dev/dri/card1)
#                            talking to the simulator through the shim.
#
# All of it is built WITHOUT the sanitizers even in the sanitized test build: a preloaded
# library cannot bring its own ASan runtime into a program that does not link it, and the
# programs are the "unmodified programs" the shim exists for.
set(NPUKIT_PLAIN_WARNINGS ${NPUKIT_WARNINGS})

# The library sources once more, position-independent, unsanitized, symbols hidden so the
# shim exports nothing but the functions it interposes.
add_library(npukit_plain_objs OBJECT ${NPUKIT_LIB_SOURCES})
set_target_properties(npukit_plain_objs PROPERTIES
  COMPILE_OPTIONS "${NPUKIT_PLAIN_WARNINGS};-fvisibility=hidden"
  POSITION_INDEPENDENT_CODE ON)
target_include_directories(npukit_plain_objs PRIVATE include ${NPUKIT_GENERATED_INCLUDE} src)
if(NPUKIT_HAVE_CBLAS)
  target_compile_definitions(npukit_plain_objs PRIVATE ${NPUKIT_BLAS_DEFS})
endif()

add_library(rksim_shim SHARED $<TARGET_OBJECTS:npukit_plain_objs> src/rksim/shim/shim.c
            src/rksim/shim/shim_dirs.c src/rksim/shim/shim_stat.c src/rksim/shim/shim_walk.c)
# The version script exports only the interposed entry points: NPUKIT_API marks the library's
# functions visible, and a program that links npukit beside the shim would otherwise bind to
# the shim's copy (its npk_last_error would read the shim's empty error state).
set(NPUKIT_SHIM_MAP ${CMAKE_CURRENT_SOURCE_DIR}/src/rksim/shim/shim.map)
set_target_properties(rksim_shim PROPERTIES
  COMPILE_OPTIONS "${NPUKIT_PLAIN_WARNINGS};-fvisibility=hidden"
  LINK_OPTIONS "-Wl,--version-script=${NPUKIT_SHIM_MAP}"
  LINK_DEPENDS ${NPUKIT_SHIM_MAP}
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
target_include_directories(rksim_shim PRIVATE include ${NPUKIT_GENERATED_INCLUDE} src)
target_link_libraries(rksim_shim PRIVATE ${NPUKIT_CJSON_LIB} ${NPUKIT_XXHASH_LIB} Threads::Threads m ${CMAKE_DL_LIBS})
install(TARGETS rksim_shim LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/npukit COMPONENT sim)

# this file is included before the top level enables testing; enabling twice is harmless
enable_testing()
file(GLOB NPUKIT_SHIM_TEST_SOURCES CONFIGURE_DEPENDS tests/shim/*.c)
foreach(src ${NPUKIT_SHIM_TEST_SOURCES})
  get_filename_component(name ${src} NAME_WE)
  if(name MATCHES "^npukit_")
    add_executable(${name} ${src} $<TARGET_OBJECTS:npukit_plain_objs>)
    target_link_libraries(${name} PRIVATE ${NPUKIT_CJSON_LIB} ${NPUKIT_XXHASH_LIB} Threads::Threads m ${CMAKE_DL_LIBS})
    target_include_directories(${name} PRIVATE include src tests)
    set(gens "6.1")
  else()
    # the uAPI header only: no npukit library
    add_executable(${name} ${src})
    target_include_directories(${name} PRIVATE include)
    set(gens 6.1 5.10)
  endif()
  # a rocket program has one interface generation; its wedged jobs hold their buffers for
  # the kernel's 500 ms job timeout scaled to 10 ms, so PREP_BO's deadlines are observable
  set(scale 0)
  if(name MATCHES "^rocket_")
    set(gens mainline)
    set(scale 0.02)
  endif()
  set_target_properties(${name} PROPERTIES
    COMPILE_OPTIONS "${NPUKIT_PLAIN_WARNINGS}"
    LINK_OPTIONS ""
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
  add_dependencies(${name} rksim_shim)
  foreach(gen ${gens})
    add_test(NAME test_rksim_shim_${name}_${gen} COMMAND ${name} ${gen})
    set_tests_properties(test_rksim_shim_${name}_${gen} PROPERTIES
      ENVIRONMENT "LD_PRELOAD=$<TARGET_FILE:rksim_shim>;NPUKIT_RKSIM_TIMEOUT_SCALE=${scale}")
  endforeach()
endforeach()

# Programs of the test suite that also run as clients of a kernel interface: built once more
# without sanitizers, with the library linked in, and run under the shim on the rknpu node
# (/dev/dri/card1) and the rocket node (/dev/accel/accel0), the way they would run on a board.
foreach(name test_rksim_kacc)
  add_executable(${name}_plain tests/${name}.c $<TARGET_OBJECTS:npukit_plain_objs>)
  target_include_directories(${name}_plain PRIVATE include ${NPUKIT_GENERATED_INCLUDE} src tests)
  target_link_libraries(${name}_plain PRIVATE ${NPUKIT_CJSON_LIB}
                        ${NPUKIT_XXHASH_LIB} Threads::Threads m ${CMAKE_DL_LIBS})
  set_target_properties(${name}_plain PROPERTIES COMPILE_OPTIONS "${NPUKIT_PLAIN_WARNINGS}"
                        LINK_OPTIONS "" RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
  add_dependencies(${name}_plain rksim_shim)
  foreach(node /dev/dri/card1 /dev/accel/accel0)
    get_filename_component(tag ${node} NAME)
    add_test(NAME ${name}_shim_${tag} COMMAND ${name}_plain)
    set_tests_properties(${name}_shim_${tag} PROPERTIES ENVIRONMENT
      "LD_PRELOAD=$<TARGET_FILE:rksim_shim>;NPUKIT_RK_DEVICE=${node};NPUKIT_RKSIM_TIMEOUT_SCALE=0")
  endforeach()
endforeach()
