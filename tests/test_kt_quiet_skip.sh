#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ktsim skips quiet cycles (nothing in the mesh or the memory ports, the orchestrator idle or held
# by zero credit, every unit idle or counting down) at once. The reference is the same preset with
# `skip_quiet 0`, which ticks every cycle: every command must print exactly the same — results,
# transactions, register words and mesh cycles.
set -u
cli=$1
src=$2
pass=0 fail=0
ok() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $*" >&2; fi; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for p in default mesh2x2 card; do
  cp "$src/data/kt/$p.mesh" "$tmp/$p.mesh"
  { cat "$src/data/kt/$p.mesh"; echo "skip_quiet 0"; } > "$tmp/$p.ticked.mesh"
done
printf 'WR 0x10000020 5\nPOLL 0x10000020 5 0xF IRQ_EN\nDONE 3\n' > "$tmp/prog.txt"
commands=(
  "kt saxpy -n 20000 --json"
  "kt saxpy -n 20000 --engine --reruns 2 --json"
  "kt saxpy -n 5000 --engine --wait-cycles 0 --json"
  "kt saxpy -n 5000 --prestrobe --json"
  "kt saxpy -n 5000 --poll-us 1 --json"
  "kt enum --json"
  "kt status --json"
  "kt move copy --json"
  "kt move gather --indices 3,1,2 --engine --json"
  "kt prog $tmp/prog.txt --engine --json"
)
for p in default mesh2x2 card; do
  for c in "${commands[@]}"; do
    # shellcheck disable=SC2086
    a=$("$cli" $c --sim "$tmp/$p.mesh" 2>&1 | sed "s|$tmp/$p.mesh|PRESET|g")
    # shellcheck disable=SC2086
    b=$("$cli" $c --sim "$tmp/$p.ticked.mesh" 2>&1 | sed "s|$tmp/$p.ticked.mesh|PRESET|g")
    [ "$a" = "$b" ] || { echo "$p: $c differs:" >&2; diff <(echo "$a") <(echo "$b") >&2; }
    ok test "$a" = "$b"
  done
done
# units whose own clocks run while they wait or idle (they sleep too, and catch those ticks up):
# the matmul clusters and vector cores of mg2_vc2, the RV32 control processor of rv32
for p in mg2_vc2 rv32; do
  cp "$src/data/kt/$p.mesh" "$tmp/$p.mesh"
  { cat "$src/data/kt/$p.mesh"; echo "skip_quiet 0"; } > "$tmp/$p.ticked.mesh"
done
# addi a0, x0, 0x105; ecall, after 998 NOPs; and addi a0, x0, 7; ebreak (a fault completion)
for i in $(seq 998); do printf '\x13\x00\x00\x00'; done > "$tmp/long.text"
printf '\x13\x05\x50\x10\x73\x00\x00\x00' >> "$tmp/long.text"
printf '\x13\x05\x70\x00\x73\x00\x10\x00' > "$tmp/brk.text"
own_clocks=(
  "mg2_vc2|kt matmul -m 32 -n 32 -k 128 --json"
  "mg2_vc2|kt matmul -m 32 -n 16 -k 64 --emit --engine --json"
  "mg2_vc2|kt vec -n 700 --json"
  "mg2_vc2|kt vec --kernel exp2 -n 300 --seed 5 --json"
  "mg2_vc2|kt status --verbose --json"
  "rv32|kt rv32 run $tmp/long --json"
  "rv32|kt rv32 run $tmp/long --engine --json"
  "rv32|kt rv32 run $tmp/brk --json"
)
for pc in "${own_clocks[@]}"; do
  p=${pc%%|*} c=${pc#*|}
  # shellcheck disable=SC2086
  a=$("$cli" $c --sim "$tmp/$p.mesh" 2>&1 | sed "s|$tmp/$p.mesh|PRESET|g")
  # shellcheck disable=SC2086
  b=$("$cli" $c --sim "$tmp/$p.ticked.mesh" 2>&1 | sed "s|$tmp/$p.ticked.mesh|PRESET|g")
  [ "$a" = "$b" ] || { echo "$p: $c differs:" >&2; diff <(echo "$a") <(echo "$b") >&2; }
  ok test "$a" = "$b"
done
# the skip does skip: the cycles moved on, and both agree on them
ok bash -c "'$cli' kt saxpy -n 20000 --json --sim '$tmp/default.mesh' | grep -q '\"cycles\":[1-9]'"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
