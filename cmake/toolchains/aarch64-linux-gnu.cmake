# SPDX-License-Identifier: MIT
# Cross-compiling for aarch64 (RK3588 boards) on Debian with gcc-aarch64-linux-gnu and the arm64
# multiarch -dev packages (dpkg --add-architecture arm64; apt-get install libcjson-dev:arm64
# libxxhash-dev:arm64 [libopenblas-dev:arm64]):
#   cmake -S . -B build/aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
# The arm64 libraries live in the multiarch directories (/usr/lib/aarch64-linux-gnu,
# /usr/include/aarch64-linux-gnu) that the cross compiler and CMake's CMAKE_LIBRARY_ARCHITECTURE
# search already, so no sysroot is set. Tests run under qemu-user through qemu-aarch64-run.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# The C++ ABI test of the rknn headers is built only when the cross g++ is installed.
find_program(NPUKIT_AARCH64_CXX aarch64-linux-gnu-g++)
if(NPUKIT_AARCH64_CXX)
  set(CMAKE_CXX_COMPILER ${NPUKIT_AARCH64_CXX})
else()
  set(CMAKE_CXX_COMPILER NOTFOUND)
endif()
find_program(NPUKIT_QEMU_AARCH64 qemu-aarch64)
if(NPUKIT_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${CMAKE_CURRENT_LIST_DIR}/qemu-aarch64-run)
endif()
# Never pick an x86-64 copy of a library or header by accident.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
