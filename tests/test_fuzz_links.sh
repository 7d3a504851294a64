#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The fuzz build (fuzz/build.sh, clang + libFuzzer, outside CMake) links the library's objects by
# hand, so it must link every library CMake requires for libnpukit. A dependency added to
# CMakeLists.txt and not to fuzz/build.sh breaks only the fuzz link, which needs clang and runs
# late in CI: this check finds it in the ordinary test run. OpenBLAS is optional and the fuzz
# build uses the portable arithmetic, so it is not required there.
set -u
src=$2
required=$(sed -nE 's/^find_library\(NPUKIT_([A-Z0-9]+)_LIB ([A-Za-z0-9_+-]+)\).*/\1 \2/p' \
             "$src/CMakeLists.txt" | awk '$1 != "OPENBLAS" { print $2 }')
libs=$(sed -nE 's/^libs="(.*)"$/\1/p' "$src/fuzz/build.sh")
[ -n "$required" ] || { echo "FAILED: no find_library(NPUKIT_*_LIB ...) found in CMakeLists.txt" >&2; exit 1; }
[ -n "$libs" ] || { echo "FAILED: no libs=\"...\" line in fuzz/build.sh" >&2; exit 1; }
fail=0
for name in $required pthread m dl; do
  case " $libs " in
    *" -l$name "*) echo "ok: fuzz/build.sh links -l$name" ;;
    *) echo "FAILED: CMake links libnpukit with $name, fuzz/build.sh does not (libs=\"$libs\")" >&2
       fail=1 ;;
  esac
done
exit $fail
