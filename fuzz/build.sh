#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the libFuzzer targets with clang (ASan + UBSan + libFuzzer) into build/fuzz and, given
# a number of seconds, runs each that long:   bash fuzz/build.sh [SECONDS]
set -eu
cd "$(dirname "$0")/.."
out=build/fuzz
mkdir -p "$out"
flags="-std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Iinclude -Isrc"
srcs=$(ls src/common/*.c src/rk/hw/*.c src/rk/*.c src/rksim/*.c)
for t in fuzz/fuzz_*.c; do
  name=$(basename "$t" .c)
  clang $flags -DNPUKIT_DATA_DIR=\"$PWD/data\" "$t" $srcs -lm -lpthread -o "$out/$name"
done
secs=${1:-0}
if [ "$secs" -gt 0 ]; then
  for t in "$out"/fuzz_*; do
    mkdir -p "$out/corpus_$(basename "$t")"
    "$t" -max_total_time="$secs" -print_final_stats=1 "$out/corpus_$(basename "$t")"
  done
fi
