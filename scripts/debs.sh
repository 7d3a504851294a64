#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Debian packages (libnpukit0, libnpukit-dev, npukit, npukit-rknn, npukit-sim) for amd64 and,
# when the arm64 cross toolchain is installed, arm64, from a Release build with prefix /usr:
#   bash scripts/debs.sh [amd64] [arm64]      (default: both; the .debs land in build/debs)
# arm64 needs gcc-aarch64-linux-gnu and the arm64 -dev packages (see docs/packaging.md).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
out=$PWD/build/debs
mkdir -p "$out"
archs=("$@")
[ ${#archs[@]} -gt 0 ] || archs=(amd64 arm64)
for arch in "${archs[@]}"; do
  # NPUKIT_DEB_BUILD_amd64 / _arm64: reuse a Release build directory (CI's), else build/deb-ARCH
  var=NPUKIT_DEB_BUILD_$arch
  dir=${!var:-build/deb-$arch}
  # (installing must not first build every test: CMAKE_SKIP_INSTALL_ALL_DEPENDENCY)
  opts=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr -DNPUKIT_DEB=ON
        -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON)
  case $arch in
    amd64) ;;
    arm64)
      if ! command -v aarch64-linux-gnu-gcc >/dev/null; then
        echo "debs: arm64 skipped: aarch64-linux-gnu-gcc not installed" >&2
        continue
      fi
      opts+=(-DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchains/aarch64-linux-gnu.cmake") ;;
    *) echo "debs: unknown architecture '$arch' (amd64, arm64)" >&2; exit 2 ;;
  esac
  mkdir -p "$dir"
  cmake -S . -B "$dir" "${opts[@]}" > "$dir/configure.log" 2>&1 || { cat "$dir/configure.log"; exit 1; }
  cmake --build "$dir" -j "$jobs" --target npukit npukit_man npukit_lib npukit_shared rksim_shim rkcapture rknnrt \
    > "$dir/build.log" 2>&1 || { cat "$dir/build.log"; exit 1; }
  (cd "$dir" && cpack -G DEB -B "$out" > cpack.log 2>&1) || { cat "$dir/cpack.log"; exit 1; }
done
rm -rf "$out/_CPack_Packages"
ls -1 "$out"/*.deb
