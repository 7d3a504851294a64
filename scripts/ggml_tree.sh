#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The ggml tree the backend's tests build against: unpacks the pinned snapshot
# (../shared/third_party/ggml-d99724f2.tar.xz, or $NPUKIT_GGML_TARBALL) into DIR/src and builds
# only what the tests need (libggml, libggml-base, the CPU backend module, test-backend-ops)
# into DIR/build with GGML_BACKEND_DL=ON, ONCE: a stamp naming the tarball makes later runs
# reuse it. Writes DIR/cmake-flags, the options that point npukit's build at it (empty, with a
# clear message, when the tarball is absent: the ggml tests are then skipped).
#   usage: scripts/ggml_tree.sh DIR
set -euo pipefail
dir=${1:?usage: scripts/ggml_tree.sh DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
tarball=${NPUKIT_GGML_TARBALL:-$root/../shared/third_party/ggml-d99724f2.tar.xz}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
flags="$dir/cmake-flags"
if [ ! -f "$tarball" ]; then
  echo "ggml: $tarball not found: the ggml backend and its tests are SKIPPED"
  echo "-DNPUKIT_GGML_DIR= -DNPUKIT_GGML_BUILD=" > "$flags"
  exit 0
fi
stamp="$dir/stamp"
want="$(basename "$tarball") $(stat -c %s "$tarball")"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "ggml: reusing the ggml build in $dir ($want)"
else
  start=$SECONDS
  rm -rf "$dir/src" "$dir/build" "$stamp"
  mkdir -p "$dir/src"
  tar -xJf "$tarball" -C "$dir/src" --strip-components=1
  launcher=()
  if command -v ccache >/dev/null 2>&1; then
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  cmake -S "$dir/src" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release -DGGML_BACKEND_DL=ON \
    -DGGML_NATIVE=OFF -DGGML_BUILD_TESTS=ON -DGGML_BUILD_EXAMPLES=OFF "${launcher[@]}" \
    > "$dir/configure.log" 2>&1 || { cat "$dir/configure.log"; exit 1; }
  cmake --build "$dir/build" -j "${JOBS:-2}" --target ggml ggml-base ggml-cpu test-backend-ops \
    > "$dir/build.log" 2>&1 || { tail -50 "$dir/build.log"; exit 1; }
  echo "$want" > "$stamp"
  echo "ggml: built $want in $dir in $((SECONDS - start)) s"
fi
echo "-DNPUKIT_GGML_DIR=$dir/src -DNPUKIT_GGML_BUILD=$dir/build" > "$flags"
