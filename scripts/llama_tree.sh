#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The llama.cpp tree the backend's end-to-end tests run: unpacks the pinned snapshot
# (../shared/third_party/llama.cpp-3f545bec.tar.xz, or $NPUKIT_LLAMA_TARBALL) into DIR/src and
# builds only what the tests use — ggml-rpc-server with the CPU and RPC backends as modules
# (GGML_BACKEND_DL=ON), and libllama with llama-completion and llama-perplexity — into DIR/build,
# ONCE: a stamp naming the tarball and the targets makes later runs reuse it. Writes
# DIR/cmake-flags, the option that points npukit's build at it (empty, with a clear message,
# when the tarball is absent: the llama.cpp tests are then skipped).
#   usage: scripts/llama_tree.sh DIR
set -euo pipefail
dir=${1:?usage: scripts/llama_tree.sh DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
exec bash "$root/scripts/third_party_tree.sh" "$dir" llama.cpp LLAMA \
  "${NPUKIT_LLAMA_TARBALL:-$root/../shared/third_party/llama.cpp-3f545bec.tar.xz}" \
  "-DGGML_CPU_ALL_VARIANTS=OFF -DGGML_RPC=ON -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_CURL=OFF" \
  "ggml-cpu ggml-rpc ggml-rpc-server llama-completion llama-perplexity" "the llama.cpp tests are"
