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
exec bash "$root/scripts/third_party_tree.sh" "$dir" ggml GGML \
  "${NPUKIT_GGML_TARBALL:-$root/../shared/third_party/ggml-d99724f2.tar.xz}" \
  "-DGGML_BUILD_TESTS=ON -DGGML_BUILD_EXAMPLES=OFF" \
  "ggml ggml-base ggml-cpu test-backend-ops" "the ggml backend and its tests are"
