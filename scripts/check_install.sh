#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Install npukit into a temporary prefix (through DESTDIR, as a package build does) and build
# examples/ against the installed copy only: with find_package (shared and static targets) and
# with pkg-config (shared, and static through Libs.private); run every example, the plain
# rknpu program under the installed LD_PRELOAD shim. A broken install fails here.
#   bash scripts/check_install.sh [BUILD_DIR]   (an unsanitized build dir; default build/install-check)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/install-check}
jobs=$(nproc 2>/dev/null || echo 2)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
prefix=/opt/npukit-check
# NPUKIT_CHECK_ROOT=DIR NPUKIT_CHECK_LIBDIR=lib/TRIPLET: check a tree installed another way (the
# Debian packages unpacked by scripts/check_debs.sh) instead of building and installing one.
# NPUKIT_CHECK_SYSROOT=DIR: that tree sits at DIR/PREFIX and its .pc files name PREFIX itself
# (the packages' /usr), so pkg-config is pointed at it as a cross build points it at a sysroot.
sysroot=${NPUKIT_CHECK_SYSROOT:-}
if [ -n "${NPUKIT_CHECK_ROOT:-}" ]; then
  root=$NPUKIT_CHECK_ROOT
  lib=${NPUKIT_CHECK_LIBDIR:-lib}
else
  cmake -S . -B "$build" -DCMAKE_INSTALL_PREFIX=$prefix > /dev/null
  # What the install rules install (the man page where gzip made one: cmake/manpage.cmake).
  targets="npukit npukit_lib npukit_shared rksim_shim rkcapture rknnrt"
  help=$(cmake --build "$build" --target help)
  case "$help" in *npukit_man*) targets+=" npukit_man" ;; esac
  cmake --build "$build" -j "$jobs" --target $targets > /dev/null
  DESTDIR="$stage" cmake --install "$build" > /dev/null
  root=$stage$prefix
  lib=lib
fi
for f in $lib/libnpukit.a $lib/libnpukit.so $lib/libnpukit.so.0 include/npukit/rk.h include/npukit/version.h \
         bin/npukit $lib/npukit/librksim_shim.so $lib/npukit/librkcapture.so share/npukit/kt/default.mesh $lib/pkgconfig/npukit.pc \
         $lib/cmake/npukit/npukitConfig.cmake $lib/npukit/rknn/librknnrt.so \
         include/npukit/rknn/rknn_api.h include/npukit/rknn/rknn_matmul_api.h $lib/pkgconfig/npukit-rknn.pc; do
  [ -e "$root/$f" ] || { echo "check_install: $f was not installed" >&2; exit 1; }
done
# The library's own headers are not: only the public set (cmake/install.cmake).
for f in include/npukit/rk_layout.h include/npukit/rk_device.h include/npukit/data.h; do
  [ ! -e "$root/$f" ] || { echo "check_install: internal header $f was installed" >&2; exit 1; }
done
# The documentation keeps the source tree's layout, so every relative link in the installed
# README and docs resolves there (and the docs index is among them).
doc=$root/share/doc/npukit
[ -f "$doc/docs/README.md" ] || { echo "check_install: docs/README.md not installed in $doc" >&2; exit 1; }
bash scripts/check_links.sh "$doc/README.md" "$doc"/docs/*.md "$doc"/python/README.md
objdump -p "$root/$lib/libnpukit.so" | grep -q 'SONAME *libnpukit.so.0' || { echo "check_install: soname" >&2; exit 1; }
# The installed CLI finds its presets relative to itself, not through the source tree.
(cd / && "$root/bin/npukit" --version && "$root/bin/npukit" kt enum > /dev/null)

# find_package
cmake -S examples -B "$stage/ex-cmake" -DCMAKE_PREFIX_PATH="$root" > /dev/null
cmake --build "$stage/ex-cmake" -j "$jobs" > /dev/null
run() { LD_LIBRARY_PATH="$root/$lib" "$@" > "$stage/out" || { cat "$stage/out"; echo "check_install: $* failed" >&2; exit 1; }; }
for e in matmul_fp16 matmul_int8 matmul_int8_static kt_enumerate; do
  (cd / && run "$stage/ex-cmake/$e")
done
(cd / && LD_PRELOAD="$root/$lib/npukit/librksim_shim.so" run "$stage/ex-cmake/shim_rknpu")
grep -q 'NPU hardware version 0x46495245' "$stage/out"

# pkg-config: shared, and static with Libs.private
export PKG_CONFIG_PATH="$root/$lib/pkgconfig"
[ -z "$sysroot" ] || export PKG_CONFIG_SYSROOT_DIR="$sysroot"
mkdir -p "$stage/ex-pc"
for e in matmul_fp16 matmul_int8 kt_enumerate; do
  cc -std=c11 -Wall -Wextra -Werror examples/$e.c $(pkg-config --cflags --libs npukit) -o "$stage/ex-pc/$e"
  (cd / && run "$stage/ex-pc/$e")
done
# From this non-system prefix the loader finds the library by an rpath as well (docs/packaging.md).
cc -std=c11 -Wall -Wextra -Werror examples/matmul_fp16.c $(pkg-config --cflags --libs npukit) \
  -Wl,-rpath,"$(pkg-config --variable=libdir npukit)" -o "$stage/ex-pc/rpath"
(cd / && "$stage/ex-pc/rpath" > "$stage/out") || { cat "$stage/out"; echo "check_install: rpath run failed" >&2; exit 1; }
# npukit-static.pc links libnpukit.a itself: the program needs no libnpukit.so to run
cc -std=c11 -Wall -Wextra -Werror -static-libgcc examples/matmul_int8.c \
  $(pkg-config --cflags --libs npukit-static) -o "$stage/ex-pc/static"
! readelf -d "$stage/ex-pc/static" | grep -q 'NEEDED.*libnpukit' ||
  { echo "check_install: npukit-static.pc linked libnpukit.so" >&2; exit 1; }
(cd / && run "$stage/ex-pc/static")
cc -std=c11 -Wall -Wextra -Werror examples/shim_rknpu.c $(pkg-config --cflags npukit) -o "$stage/ex-pc/shim_rknpu"
(cd / && LD_PRELOAD="$root/$lib/npukit/librksim_shim.so" run "$stage/ex-pc/shim_rknpu")
# The rknn_matmul_* compatible layer: a program written against the vendor API's documented
# interface builds against the installed headers and library (pkg-config npukit-rknn) and runs.
cc -std=c11 -Wall -Wextra -Werror examples/rknn/rknn_matmul_demo.c $(pkg-config --cflags --libs npukit-rknn) \
  -o "$stage/ex-pc/rknn_matmul_demo"
# Its rpath is where the library is when the program runs: for the packages the installed path
# (/usr/lib/TRIPLET/npukit/rknn), never the sysroot it was built against, which the loader is
# then told about as a board is not (LD_LIBRARY_PATH); for a plain install the tree as found.
runpath=$(readelf -d "$stage/ex-pc/rknn_matmul_demo" | awk -F '[][]' '/\((RUNPATH|RPATH)\)/ {print $2}')
if [ -n "$sysroot" ]; then
  want=${root#"$sysroot"}/$lib/npukit/rknn
else
  want=$(pkg-config --variable=libdir npukit-rknn)
fi
[ "$runpath" = "$want" ] && [ "$(cd "${sysroot:-/}/$runpath" && pwd -P)" = "$(cd "$root/$lib/npukit/rknn" && pwd -P)" ] ||
  { echo "check_install: rknn_matmul_demo's rpath is '$runpath', not $want" >&2; exit 1; }
case $runpath in *//*) echo "check_install: rknn rpath '$runpath' is not a clean path" >&2; exit 1 ;; esac
rknn_dir=
[ -z "$sysroot" ] || rknn_dir=$root/$lib/npukit/rknn:
(cd / && LD_LIBRARY_PATH=$rknn_dir$root/$lib NPUKIT_RK_DEVICE=sim "$stage/ex-pc/rknn_matmul_demo" 2 4,64,32 \
   > "$stage/out") || { cat "$stage/out"; echo "check_install: rknn_matmul_demo failed" >&2; exit 1; }
grep -q 'result is correct' "$stage/out"
# Another install prefix recompiles the one file that reads it, not the library.
[ -n "${NPUKIT_CHECK_ROOT:-}" ] || {
cmake -S . -B "$build" -DCMAKE_INSTALL_PREFIX=$prefix-moved > /dev/null
rebuilt=$(cmake --build "$build" --target npukit_objs 2>&1 | grep -c 'Building C object' || true)
cmake -S . -B "$build" -DCMAKE_INSTALL_PREFIX=$prefix > /dev/null
[ "$rebuilt" = 1 ] || { echo "check_install: a new prefix recompiled $rebuilt library files, not 1" >&2; exit 1; }
}
echo "check_install: installed copy complete; examples build and run with find_package and pkg-config"
