# SPDX-License-Identifier: MIT
# The KohakuTPU example built in the tree too (examples/CMakeLists.txt builds it against an
# installed npukit), so that test_kt_example_cli runs it on the simulator and over a pipe.
add_executable(kt_enumerate ${CMAKE_CURRENT_SOURCE_DIR}/examples/kt_enumerate.c)
target_link_libraries(kt_enumerate PRIVATE npukit_lib)
set_target_properties(kt_enumerate PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/examples)
