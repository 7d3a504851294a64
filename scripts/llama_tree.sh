#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The llama.cpp tree the backend's end-to-end tests run: unpacks the pinned snapshot
# (../shared/third_party/llama.cpp-3f545bec.tar.xz, or $NPUKIT_LLAMA_TARBALL) into DIR/src and
# builds only what the tests use — ggml-rpc-server with the CPU and RPC backends as modules
# (GGML_BACKEND_DL=ON), a few minutes; libllama and its tools (llama-completion,
# llama-perplexity) take far longer on 2 cores and no test uses them yet — into DIR/build,
# ONCE: a stamp naming the tarball makes later runs reuse it. Writes DIR/cmake-flags, the option that points
# npukit's build at it (empty, with a clear message, when the tarball is absent: the llama.cpp
# tests are then skipped).
#   usage: scripts/llama_tree.sh DIR
set -euo pipefail
dir=${1:?usage: scripts/llama_tree.sh DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
tarball=${NPUKIT_LLAMA_TARBALL:-$root/../shared/third_party/llama.cpp-3f545bec.tar.xz}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
flags="$dir/cmake-flags"
if [ ! -f "$tarball" ]; then
  echo "llama.cpp: $tarball not found: the llama.cpp tests are SKIPPED"
  echo "-DNPUKIT_LLAMA_DIR= -DNPUKIT_LLAMA_BUILD=" > "$flags"
  exit 0
fi
stamp="$dir/stamp"
want="$(basename "$tarball") $(stat -c %s "$tarball")"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "llama.cpp: reusing the build in $dir ($want)"
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
    -DGGML_NATIVE=OFF -DGGML_CPU_ALL_VARIANTS=OFF -DGGML_RPC=ON -DLLAMA_BUILD_SERVER=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_CURL=OFF "${launcher[@]}" \
    > "$dir/configure.log" 2>&1 || { cat "$dir/configure.log"; exit 1; }
  cmake --build "$dir/build" -j "${JOBS:-2}" --target ggml-cpu ggml-rpc ggml-rpc-server \
    > "$dir/build.log" 2>&1 || { tail -50 "$dir/build.log"; exit 1; }
  echo "$want" > "$stamp"
  echo "llama.cpp: built $want in $dir in $((SECONDS - start)) s"
fi
echo "-DNPUKIT_LLAMA_DIR=$dir/src -DNPUKIT_LLAMA_BUILD=$dir/build" > "$flags"
