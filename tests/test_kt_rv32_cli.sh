#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `npukit kt rv32 run`: the move_chain example booted on the RV32 control processor (text and
# JSON, on the simulator and behind the line protocol, from the host and by the control-program
# engine), the exit status taken from the ECALL halt word (its low 8 bits), 124 for EBREAK, 125
# for npukit's own failures, and refusals of bad input naming it. Hand-written images need no
# toolchain; move_chain skips when it was not built.
set -u
cli=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $*" >&2; fi; }
has() { grep -q -- "$2" <<< "$1"; }

# addi a0, x0, 0x105; ecall — the program's status is the word's low 8 bits
printf '\x13\x05\x50\x10\x73\x00\x00\x00' > "$tmp/five.text"
out=$("$cli" kt rv32 run "$tmp/five" 2>&1); rc=$?
ok [ $rc -eq 5 ]
ok has "$out" "halted by ECALL, halt word 0x00000105 (261)"
ok has "$out" "2 instructions, 4 cycles"
# addi a0, x0, 0x100; ecall — a non-zero word whose low bits are 0 is not success
printf '\x13\x05\x00\x10\x73\x00\x00\x00' > "$tmp/hundred.text"
"$cli" kt rv32 run "$tmp/hundred" > /dev/null 2>&1
ok [ $? -eq 1 ]
# addi a0, x0, 7; ebreak — a fault completion
printf '\x13\x05\x70\x00\x73\x00\x10\x00' > "$tmp/brk.text"
out=$("$cli" kt rv32 run "$tmp/brk" --json 2>&1); rc=$?
ok [ $rc -eq 124 ]
ok has "$out" '"halt_word":7,"faulted":true'
# the kick's argument reaches CTL_ARG: lui t0, 0x20000; lw a0, 0x14(t0); ecall
printf '\xb7\x02\x00\x20\x03\xa5\x42\x01\x73\x00\x00\x00' > "$tmp/arg.text"
out=$("$cli" kt rv32 run "$tmp/arg" --arg 0x2a 2>&1); rc=$?
ok [ $rc -eq 42 ]
ok has "$out" "halt word 0x0000002a"

# the engine boots the same programs: the same halt word, exit status and processor counters; an
# image of 1000 words is 126 flits and the kick, 15 flits a program: 9 programs
out=$("$cli" kt rv32 run "$tmp/five" --engine 2>&1); rc=$?
ok [ $rc -eq 5 ]
ok has "$out" "2 instructions, 4 cycles"
ok has "$out" "by the control-program engine: 1 programs"
out=$("$cli" kt rv32 run "$tmp/arg" --arg 0x2a --engine 2>&1); rc=$?
ok [ $rc -eq 42 ]
out=$("$cli" kt rv32 run "$tmp/brk" --engine --json 2>&1); rc=$?
ok [ $rc -eq 124 ]
ok has "$out" '"halt_word":7,"faulted":true'
for i in $(seq 998); do printf '\x13\x00\x00\x00'; done > "$tmp/long.text"
cat "$tmp/five.text" >> "$tmp/long.text"
host=$("$cli" kt rv32 run "$tmp/long" --json 2>&1)
out=$("$cli" kt rv32 run "$tmp/long" --engine --json 2>&1); rc=$?
ok [ $rc -eq 5 ]
ok has "$out" '"instructions":1000,"cycles":1002,'
ok has "$out" '"engine_programs":9'
ok has "$host" '"instructions":1000,"cycles":1002,'
ok has "$host" '"engine_programs":0'
out=$("$cli" kt rv32 run "$tmp/five" --engine --sim rtl_bench 2>&1); rc=$?
ok [ $rc -eq 125 ]

# refusals, each naming what is wrong
out=$("$cli" kt rv32 run "$tmp/nosuch" 2>&1); rc=$?
ok [ $rc -eq 125 ]
ok has "$out" "cannot open $tmp/nosuch.text"
out=$("$cli" kt rv32 run "$tmp/five" --sim default 2>&1); rc=$?
ok [ $rc -eq 125 ]
ok has "$out" "no RV32 control processor (CU_TYPE 'RV')"
out=$("$cli" kt rv32 run "$tmp/five" --at 1,1 2>&1); rc=$?
ok [ $rc -eq 125 ]
ok has "$out" "--at 1,1 is a unit of type SX"
out=$("$cli" kt rv32 run "$tmp/five" --at 1 2>&1); rc=$?
ok [ $rc -eq 125 ]
ok has "$out" "--at '1' is not X,Y"
head -c 8196 /dev/zero > "$tmp/big.text"
out=$("$cli" kt rv32 run "$tmp/big" 2>&1); rc=$?
ok [ $rc -eq 125 ]
ok has "$out" "past the window's 2048 words"
out=$("$cli" kt rv32 2>&1); rc=$?
ok [ $rc -eq 2 ]

rv=$(dirname "$cli")/rv32
if [ -e "$rv/move_chain.text" ]; then
  out=$("$cli" kt rv32 run "$rv/move_chain" --arg 0x600DF00D 2>&1); rc=$?
  ok [ $rc -eq 0 ]
  ok has "$out" "RV32 processor at (0,0): halted by ECALL, halt word 0x00000000"
  out=$("$cli" kt rv32 run "$rv/move_chain" --card "pipe:'$cli' kt serve --sim rv32 --stdio" --json 2>&1); rc=$?
  ok [ $rc -eq 0 ]
  ok has "$out" '"unit":"(0,0)","halt_word":0,"faulted":false'
  host=$("$cli" kt rv32 run "$rv/move_chain" 2>&1 | sed -n 2p)
  out=$("$cli" kt rv32 run "$rv/move_chain" --engine 2>&1); rc=$?
  ok [ $rc -eq 0 ]
  ok has "$out" "$host"
  ok has "$out" "by the control-program engine: 2 programs"
  out=$("$cli" kt rv32 run "$rv/move_chain" --engine --json \
        --card "pipe:'$cli' kt serve --sim rv32 --stdio" 2>&1); rc=$?
  ok [ $rc -eq 0 ]
  ok has "$out" '"halt_word":0,"faulted":false,"instructions":1328,"cycles":1950,'
else
  echo "note: build/rv32/move_chain not built (gcc-riscv64-unknown-elf): its runs are left out"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
