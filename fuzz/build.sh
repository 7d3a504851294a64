#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the libFuzzer targets with clang (ASan + UBSan + libFuzzer) into build/fuzz and, given a
# number of seconds, runs them from their corpora in fuzz/corpus/NAME (new inputs go to a scratch
# copy; a crash writes build/fuzz/crash-* and fails) for SECONDS per target on average, shared
# out by fuzz/shares.txt, and prints what each got:   bash fuzz/build.sh [SECONDS]
set -eu
cd "$(dirname "$0")/.."
out=build/fuzz
# The time each target gets: SECONDS times the number of targets in all, shared by the weights
# of fuzz/shares.txt (at least 1 s each). `bash fuzz/build.sh --plan SECONDS` prints the split.
share_of() { awk -v t="$1" '$1 == t { print $2 }' fuzz/shares.txt; }
plan() {
  local total=0 n=0 w
  for t in fuzz/fuzz_*.c; do
    w=$(share_of "$(basename "$t" .c)")
    [ -n "$w" ] || { echo "fuzz: $(basename "$t" .c) has no row in fuzz/shares.txt" >&2; exit 1; }
    total=$((total + w)); n=$((n + 1))
  done
  for t in fuzz/fuzz_*.c; do
    name=$(basename "$t" .c)
    w=$(share_of "$name")
    s=$(( ($1 * n * w + total / 2) / total ))
    echo "$name $(( s > 0 ? s : 1 ))"
  done
}
if [ "${1:-}" = --plan ]; then
  plan "${2:-10}"
  exit 0
fi
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
# The library once, instrumented for coverage, then each target linked with libFuzzer. An object
# is rebuilt when its source is newer; all of them when a header is newer than the oldest object
# (a struct that grew would otherwise meet objects compiled with its old size).
oldest=$(ls -tr "$out"/obj/*.o 2>/dev/null | head -n 1)
if [ -n "$oldest" ] && [ -n "$(find include src -name '*.h' -newer "$oldest" | head -n 1)" ]; then
  rm -f "$out"/obj/*.o
fi
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
  plan "$secs" > "$out/plan.txt"
  : > "$out/summary.txt"
  while read -r name s; do
    work="$out/corpus_$name"
    mkdir -p "$work"
    # generated seeds (fuzz/seeds_NAME.py for fuzz_NAME), written into the scratch corpus
    seeds=fuzz/seeds_${name#fuzz_}.py
    if [ -f "$seeds" ] && command -v python3 >/dev/null; then
      python3 "$seeds" "$work" >/dev/null
    fi
    echo "== $name, $s s"
    rc=0
    "$out/$name" -max_total_time="$s" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$out/crash-$name-" "$work" "fuzz/corpus/$name" > "$out/log_$name.txt" 2>&1 || rc=$?
    tail -4 "$out/log_$name.txt"
    [ "$rc" = 0 ] || { echo "fuzz: $name failed; the input is in $out/crash-$name-*" >&2; exit 1; }
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/log_$name.txt")
    cov=$(grep -o 'cov: [0-9]*' "$out/log_$name.txt" | tail -1 | cut -d' ' -f2)
    echo "$name $s ${execs:-0} ${cov:-0}" >> "$out/summary.txt"
  done < "$out/plan.txt"
  # What each target got: its seconds, its executions (and their share), its edges.
  awk '{ n[NR] = $1; s[NR] = $2; e[NR] = $3; c[NR] = $4; all += $3 }
       END { printf "%-22s %5s %10s %6s %6s\n", "target", "s", "execs", "share", "edges"
             for (i = 1; i <= NR; i++)
               printf "%-22s %5d %10d %5.1f%% %6d\n", n[i], s[i], e[i], all ? 100 * e[i] / all : 0, c[i] }' \
      "$out/summary.txt"
fi
