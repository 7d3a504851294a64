#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One pinned third-party snapshot unpacked into DIR/src and built into DIR/build ONCE: a stamp
# naming the tarball (name and size) makes later runs reuse it. Writes DIR/cmake-flags, the
# options that point npukit's build at it (empty, with a clear SKIPPED line, when the tarball is
# absent: the tests that need it are then skipped). The stamp names the targets too, so a
# tree built for fewer targets is rebuilt. Shared by ggml_tree.sh and llama_tree.sh,
# which say what each snapshot is and which of its targets the tests use.
#   usage: scripts/third_party_tree.sh DIR NAME PREFIX TARBALL "CMAKE OPTIONS" "TARGETS" WHAT
#     NAME: the name in messages ("ggml"); PREFIX: the npukit options' prefix (GGML:
#     -DNPUKIT_GGML_DIR, -DNPUKIT_GGML_BUILD); WHAT: what is skipped without the tarball.
set -euo pipefail
dir=$1 name=$2 prefix=$3 tarball=$4 options=$5 targets=$6 what=$7
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
flags="$dir/cmake-flags"
if [ ! -f "$tarball" ]; then
  echo "$name: $tarball not found: $what SKIPPED"
  echo "-DNPUKIT_${prefix}_DIR= -DNPUKIT_${prefix}_BUILD=" > "$flags"
  exit 0
fi
stamp="$dir/stamp"
want="$(basename "$tarball") $(stat -c %s "$tarball") [$targets]"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "$name: reusing the build in $dir ($want)"
else
  start=$SECONDS
  rm -rf "$dir/src" "$dir/build" "$stamp"
  mkdir -p "$dir/src"
  tar -xJf "$tarball" -C "$dir/src" --strip-components=1
  launcher=()
  if command -v ccache >/dev/null 2>&1; then
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  # shellcheck disable=SC2086 # the options and targets are word lists
  cmake -S "$dir/src" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release -DGGML_BACKEND_DL=ON \
    -DGGML_NATIVE=OFF $options "${launcher[@]}" \
    > "$dir/configure.log" 2>&1 || { cat "$dir/configure.log"; exit 1; }
  # shellcheck disable=SC2086
  cmake --build "$dir/build" -j "${JOBS:-2}" --target $targets \
    > "$dir/build.log" 2>&1 || { tail -50 "$dir/build.log"; exit 1; }
  echo "$want" > "$stamp"
  echo "$name: built $want in $dir in $((SECONDS - start)) s"
fi
echo "-DNPUKIT_${prefix}_DIR=$dir/src -DNPUKIT_${prefix}_BUILD=$dir/build" > "$flags"
