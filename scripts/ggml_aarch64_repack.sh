#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The backend's reading of the CPU's repacked weights (CPU_REPACK) on aarch64, where ggml's
# CPU backend interleaves its own forms (4 x 4 with dotprod, 4 x 8 and 8 x 8 with i8mm, 8 x 8
# Q4_0 with 256-bit SVE): the pinned ggml cross-built for aarch64 with its CPU variants
# (GGML_CPU_ALL_VARIANTS; only the dotprod one, armv8.2_1, and the SVE + i8mm one, armv8.6_1,
# are built), npukit's backend and test_ggml_repack cross-built against it, and the test run
# under qemu-user once per CPU model below: ggml loads the best variant that model runs, so
# each model gives other forms. NPUKIT_GGML_VERBOSE=1 prints the layout matched to each form.
#   usage: scripts/ggml_aarch64_repack.sh DIR   (DIR/src, DIR/build: the ggml tree, built
#          once; DIR/npukit: the backend and the test)
# Without the cross compilers, qemu-aarch64 or the pinned tarball: a SKIPPED line, exit 0.
set -euo pipefail
dir=${1:?usage: scripts/ggml_aarch64_repack.sh DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
tarball=${NPUKIT_GGML_TARBALL:-$root/../shared/third_party/ggml-d99724f2.tar.xz}
for tool in aarch64-linux-gnu-gcc aarch64-linux-gnu-g++ qemu-aarch64; do
  command -v "$tool" >/dev/null 2>&1 ||
    { echo "ggml on aarch64: no $tool (gcc-/g++-aarch64-linux-gnu, qemu-user): SKIPPED"; exit 0; }
done
[ -f "$tarball" ] || { echo "ggml on aarch64: $tarball not found: SKIPPED"; exit 0; }
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
toolchain=$root/cmake/toolchains/aarch64-linux-gnu.cmake
jobs=${JOBS:-2}
launcher=()
command -v ccache >/dev/null 2>&1 &&
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
variants="ggml-cpu-armv8.2_1 ggml-cpu-armv8.6_1"

# ggml: built once (a stamp names the tarball and the variants)
g=$dir
want="$(basename "$tarball") $(stat -c %s "$tarball") [$variants]"
if [ -f "$g/stamp" ] && [ "$(cat "$g/stamp")" = "$want" ]; then
  echo "ggml on aarch64: reusing $g ($want)"
else
  start=$SECONDS
  rm -rf "$g/src" "$g/build" && mkdir -p "$g/src"
  tar -xJf "$tarball" -C "$g/src" --strip-components=1
  cmake -S "$g/src" -B "$g/build" -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DCMAKE_BUILD_TYPE=Release \
    -DGGML_BACKEND_DL=ON -DGGML_NATIVE=OFF -DGGML_CPU_ALL_VARIANTS=ON -DGGML_OPENMP=OFF \
    -DGGML_BUILD_TESTS=ON -DGGML_BUILD_EXAMPLES=OFF "${launcher[@]}" \
    > "$g/configure.log" 2>&1 || { cat "$g/configure.log"; exit 1; }
  # libggml depends on every variant: its own objects and test-backend-ops (which npukit's
  # configure asks for) are built with make's /fast rules, after the base and two variants
  # shellcheck disable=SC2086 # a word list
  { make -C "$g/build" -j "$jobs" ggml-base $variants &&
    make -C "$g/build" -j "$jobs" ggml/fast test-backend-ops/fast; } > "$g/build.log" 2>&1 ||
    { tail -50 "$g/build.log"; exit 1; }
  echo "$want" > "$g/stamp"
  echo "ggml on aarch64: built in $((SECONDS - start)) s"
fi

# npukit's backend and the test, against that tree
n=$dir/npukit
start=$SECONDS
cmake -S "$root" -B "$n" -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DCMAKE_BUILD_TYPE=Release \
  -DNPUKIT_WERROR=ON -DNPUKIT_GGML_DIR="$g/src" -DNPUKIT_GGML_BUILD="$g/build" \
  "${launcher[@]}" > "$n.configure.log" 2>&1 || { cat "$n.configure.log"; exit 1; }
cmake --build "$n" -j "$jobs" --target ggml-npukit test_ggml_repack > "$n.build.log" 2>&1 ||
  { tail -50 "$n.build.log"; exit 1; }
echo "ggml on aarch64: backend and test built in $((SECONDS - start)) s"

# ggml's C++ runtime for the guest: the multiarch libstdc++6:arm64 when installed, else the
# cross compiler's copy alone (its directory also holds a C library, not to be mixed in)
guest_env=()
if [ ! -e /usr/lib/aarch64-linux-gnu/libstdc++.so.6 ]; then
  mkdir -p "$n/guest-lib"
  ln -sf "$(aarch64-linux-gnu-g++ -print-file-name=libstdc++.so.6)" "$n/guest-lib/libstdc++.so.6"
  guest_env=(-E "LD_LIBRARY_PATH=$n/guest-lib")
fi

# One run per CPU model: max (SVE 512-bit, i8mm: the armv8.6_1 variant), max with 256-bit SVE
# (Q4_0 then takes its SVE form), cortex-a76 (RK3588's big core: dotprod, no i8mm, no SVE:
# the armv8.2_1 variant).
fails=0
for cpu in max max,sve-default-vector-length=32 cortex-a76; do
  start=$SECONDS
  echo "== qemu-aarch64 -cpu $cpu"
  status=0
  GGML_BACKEND_PATH=$n/libggml-npukit.so NPUKIT_GGML_DEVICE=sim NPUKIT_GGML_VERBOSE=1 \
    qemu-aarch64 -L / "${guest_env[@]}" -cpu "$cpu" "$n/test_ggml_repack" "$g/build/bin" > "$n.$cpu.log" 2>&1 ||
    status=$?
  grep -E "CPU variant|ggml-cpu-arm|form of|^[A-Za-z0-9_]+ +(read|left|the CPU)|^experts|^FAIL|^PASS|^SKIP" \
    "$n.$cpu.log" || true
  echo "== exit $status in $((SECONDS - start)) s"
  [ "$status" = 0 ] || fails=$((fails + 1))
done
[ "$fails" = 0 ]
