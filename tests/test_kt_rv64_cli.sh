#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `npukit kt rv64 run`: a program's console, exit word and counters in text and JSON; the exit
# status taken from the exit word (low 8 bits, 1 for a non-zero word with those bits 0), 124 for
# a program that never exits, 125 for npukit's own failures; refusals of bad input with a clear
# message; the timeout of a runaway program. Skips when the RV64
# programs are not built (the RISC-V compiler or picolibc is missing).
set -u
cli=$1
rv=$(dirname "$cli")/rv64
if [ ! -e "$rv/hello.elf" ]; then
  echo "SKIP: build/rv64/hello.elf not built (needs gcc-riscv64-unknown-elf and picolibc-riscv64-unknown-elf)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $*" >&2; fi; }
has() { grep -q -- "$2" <<< "$1"; }
lacks() { ! grep -q -- "$2" <<< "$1"; }

out=$("$cli" kt rv64 run "$rv/hello.elf" --stdin "hi there" 2>&1); rc=$?
ok [ $rc -eq 0 ] # exit word 0: success; what it read is on the console
ok has "$out" "hello from the RV64 complex"
ok has "$out" "stdin: 8 bytes: hi there"
ok has "$out" "exit 0x0 (0)"
ok has "$out" "instructions retired"

out=$("$cli" kt rv64 run "$rv/hello.elf" --json); rc=$?
ok [ $rc -eq 0 ]
ok has "$out" '"console":"hello from the RV64 complex\\nstdin: 0 bytes: \\n"'
ok has "$out" '"exited":true,"exit":0,"halted":false'
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["retired"] > 0 and d["timed_out"] is False' "$out"
ok [ $? -eq 0 ]

# The same run on a machine behind the line protocol (kt serve over a pipe).
out=$("$cli" kt rv64 run "$rv/hello.elf" --stdin hi --card "pipe:'$cli' kt serve --sim rv64 --stdio" 2>&1); rc=$?
ok [ $rc -eq 0 ]
ok has "$out" "stdin: 2 bytes: hi"
ok has "$out" "exit 0x0 (0)"

# Bad input: not an ELF, a truncated one, a missing file, a preset without the complex.
echo "not a program" > "$tmp/text.elf"
out=$("$cli" kt rv64 run "$tmp/text.elf" 2>&1); rc=$?
ok [ $rc -eq 125 ]
ok has "$out" "text.elf: not an ELF file"
head -c 200 "$rv/hello.elf" > "$tmp/cut.elf"
out=$("$cli" kt rv64 run "$tmp/cut.elf" 2>&1); rc=$?
ok [ $rc -eq 125 ]
ok has "$out" "cut.elf"
out=$("$cli" kt rv64 run "$tmp/none.elf" 2>&1); rc=$?
ok [ $rc -eq 125 ]
ok has "$out" "none.elf: cannot open"
out=$("$cli" kt rv64 run "$rv/hello.elf" --sim default 2>&1); rc=$?
ok [ $rc -eq 125 ]
ok has "$out" "has no RV64 complex"
out=$("$cli" kt rv64 run "$rv/hello.elf" --timeout zero 2>&1); rc=$?
ok [ $rc -eq 125 ]

# A card that stops answering while the program loads (kt serve behind a pipe that forwards its
# first 40 requests, then holds the line open): the carrier's timeout is npukit's failure, 125,
# not the program's 124, and no run result is printed.
cat > "$tmp/stall.sh" <<EOF
#!/bin/sh
sed -u 40q | '$cli' kt serve --sim rv64 --stdio
sleep 8
EOF
chmod +x "$tmp/stall.sh"
out=$("$cli" kt rv64 run "$rv/hello.elf" --timeout-ms 2000 --card "pipe:$tmp/stall.sh" 2>&1); rc=$?
ok [ $rc -eq 125 ]
ok has "$out" "kt rv64 run: pipe .*no progress within 2000 ms"
ok lacks "$out" "instructions retired" # no result of a run that did not happen

# A runaway program stops at the timeout with a clear message.
out=$("$cli" kt rv64 run "$rv/runaway.elf" --timeout 0.3 2>&1); rc=$?
ok [ $rc -eq 124 ]
ok has "$out" "spinning"
ok has "$out" "neither exited nor halted within 300 ms"

# Exit words chosen through stdin (exit_word.elf exits with the hex word it reads): the status
# is the low 8 bits, a non-zero word never reads as success, --json keeps the whole word.
if [ -e "$rv/exit_word.elf" ]; then
  for pair in 0:0 1:1 2a:42 ff:255 100:1 17f:127 ffffffffffffff00:1 8000000000000003:3; do
    word=${pair%%:*} want=${pair##*:}
    out=$("$cli" kt rv64 run "$rv/exit_word.elf" --stdin "$word" 2>&1); rc=$?
    ok [ $rc -eq "$want" ]
    ok has "$out" "exit 0x$word ("
  done
  out=$("$cli" kt rv64 run "$rv/exit_word.elf" --stdin ffffffffffffff00 --json); rc=$?
  ok [ $rc -eq 1 ]
  ok has "$out" '"exited":true,"exit":18446744073709551360,'
else
  echo "FAILED: $rv/exit_word.elf not built beside hello.elf" >&2
  fail=$((fail+1))
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
