# SPDX-License-Identifier: MIT
# librkcapture.so: the LD_PRELOAD capture library (tools/capture/rkcapture.c). Built without
# the sanitizers like the simulator shim: it is preloaded into programs that do not link them.
add_library(rkcapture SHARED tools/capture/rkcapture.c)
set_target_properties(rkcapture PROPERTIES
  COMPILE_OPTIONS "${NPUKIT_WARNINGS};-fvisibility=hidden"
  LINK_OPTIONS ""
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
target_include_directories(rkcapture PRIVATE include)
target_link_libraries(rkcapture PRIVATE Threads::Threads ${CMAKE_DL_LIBS})
enable_testing()
npukit_run_path(NPUKIT_PLAIN_RUN npukit_plain)
add_test(NAME test_rk_capture
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/shim/capture_through_shim.sh
          ${NPUKIT_PLAIN_RUN} $<TARGET_FILE:rkcapture> $<TARGET_FILE:rksim_shim>)
# Installed beside the simulator shim: PREFIX/lib/npukit/librkcapture.so, for LD_PRELOAD on a board.
install(TARGETS rkcapture LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/npukit COMPONENT sim)
