#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the libFuzzer targets with clang (ASan + UBSan + libFuzzer) into build/fuzz and, given a
# number of seconds, runs each that long from its corpus in fuzz/corpus/NAME (new inputs go to a
# scratch copy; a crash writes build/fuzz/crash-* and fails):   bash fuzz/build.sh [SECONDS]
set -eu
cd "$(dirname "$0")/.."
out=build/fuzz
cc=${CLANG:-clang}
mkdir -p "$out/obj" "$out/include/npukit"
# the version header CMake generates, from the project's version
ver=$(sed -n 's/^project(npukit VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
IFS=. read -r major minor patch <<< "$ver"
sed -e "s/@PROJECT_VERSION_MAJOR@/$major/; s/@PROJECT_VERSION_MINOR@/$minor/" \
    -e "s/@PROJECT_VERSION_PATCH@/$patch/; s/@PROJECT_VERSION@/$ver/" \
    cmake/in/version.h.in > "$out/include/npukit/version.h"
sed -e 's|@NPUKIT_INSTALL_DATA_DIR@|/usr/local/share/npukit|' \
    -e 's|@NPUKIT_LIBDIR_TO_DATA@|../share/npukit|' cmake/in/install_dirs.h.in \
    > "$out/include/npukit/install_dirs.h"
common="-std=c11 -g -O1 -Wall -Wextra -Werror -fno-sanitize-recover=undefined -Iinclude -Iinclude/rknn -I$out/include -Isrc -I/usr/include/cjson"
# The library once, instrumented for coverage, then each target linked with libFuzzer.
objs=()
for s in src/common/*.c src/*/hw/*.c src/*/hw/units/*.c src/rk/[!h]*/*.c src/rksim/*.c src/kt/*.c src/ktsim/*.c src/rknn/*.c; do
  o="$out/obj/$(echo "${s%.c}" | tr / _).o"
  if [ ! -e "$o" ] || [ "$s" -nt "$o" ]; then
    $cc $common -fsanitize=fuzzer-no-link,address,undefined -c "$s" -o "$o"
  fi
  objs+=("$o")
done
rm -f "$out/libnpukit_fuzz.a"
ar rcs "$out/libnpukit_fuzz.a" "${objs[@]}"
# The libraries libnpukit links (CMakeLists.txt: cJSON, xxHash, threads, libm, libdl); a new
# dependency there belongs here too (tests/test_fuzz_links.sh compares the two lists).
libs="-lcjson -lxxhash -lpthread -lm -ldl"
for t in fuzz/fuzz_*.c; do
  name=$(basename "$t" .c)
  $cc $common -fsanitize=fuzzer,address,undefined "$t" "$out/libnpukit_fuzz.a" $libs -o "$out/$name"
done
echo "fuzz: built $(ls fuzz/fuzz_*.c | wc -l) targets in $out"
secs=${1:-0}
if [ "$secs" -gt 0 ]; then
  export NPUKIT_DATA_DIR=$PWD/data NPUKIT_RKSIM_TIMEOUT_SCALE=0
  for t in fuzz/fuzz_*.c; do
    name=$(basename "$t" .c)
    work="$out/corpus_$name"
    mkdir -p "$work"
    echo "== $name, $secs s"
    "$out/$name" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$out/crash-$name-" "$work" "fuzz/corpus/$name" 2>&1 | tail -4
    [ "${PIPESTATUS[0]}" = 0 ] || { echo "fuzz: $name failed; the input is in $out/crash-$name-*" >&2; exit 1; }
  done
fi
