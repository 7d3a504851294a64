#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The RV64 example programs under `npukit kt rv64 run`, each exiting with status 0 when it
# succeeds and reporting its counts on the console: the doorbell handler (rings and clears
# the program asked for), the mover copy through the control region (source and destination
# saved with --dram-out and compared), and the saxpy dispatcher on inputs given with --dram-in,
# its result saved with --dram-out and checked against y = 2x + y computed here. Bad --dram-in /
# --dram-out values are refused with a clear message. Skips when the programs are not built.
set -u
cli=$1
rv=$(dirname "$cli")/rv64
for p in doorbell mover_copy saxpy_dispatch; do
  if [ ! -e "$rv/$p.elf" ]; then
    echo "SKIP: build/rv64/$p.elf not built (needs gcc-riscv64-unknown-elf and picolibc-riscv64-unknown-elf)"
    exit 77
  fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $*" >&2; fi; }
has() { grep -q -- "$2" <<< "$1"; }

# A successful example exits with the word 0, so the command's status is 0; the counts it
# checked are on the console and, for the doorbell, in the host's rings and clears.
out=$("$cli" kt rv64 run "$rv/doorbell.elf" 2>&1); rc=$?
ok [ $rc -eq 0 ]
ok has "$out" "round 3: doorbell taken, acknowledged, R_DBELL reads 0"
ok has "$out" "3 doorbells handled"
ok has "$out" "host: rang the doorbell 3 times, cleared it 3 times"
ok has "$out" "exit 0x0 (0)"
out=$("$cli" kt rv64 run "$rv/doorbell.elf" --json); rc=$?
ok [ $rc -eq 0 ]
ok has "$out" '"exited":true,"exit":0,"halted":false'
ok has "$out" '"rings":3,"clears":3'
ok has "$out" '3 doorbells handled'

out=$("$cli" kt rv64 run "$rv/mover_copy.elf" --dram-out 0x40000:2048:"$tmp/src.bin" \
      --dram-out 0x80000:2048:"$tmp/dst.bin" 2>&1); rc=$?
ok [ $rc -eq 0 ]
ok has "$out" "2 moves done, then rang mesh 1"
ok has "$out" "exit 0x0 (0)"
ok cmp -s "$tmp/src.bin" "$tmp/dst.bin"
ok [ "$(od -An -tx1 -v "$tmp/src.bin" | tr -d ' \n' | tr -d 0)" != "" ] # not all zero

# saxpy: x[i] = i - 500, y[i] = i % 7 - 3 as float32 (whole values: the unit computes on them as
# integers, as the RTL does); the program computes y = 2x + y on the units.
python3 - "$tmp" <<'PY'
import struct, sys
d = sys.argv[1]
open(d + "/x.bin", "wb").write(struct.pack("<1024f", *[i - 500 for i in range(1024)]))
open(d + "/y.bin", "wb").write(struct.pack("<1024f", *[i % 7 - 3 for i in range(1024)]))
PY
out=$("$cli" kt rv64 run "$rv/saxpy_dispatch.elf" --dram-in 0x100000:"$tmp/x.bin" \
      --dram-in 0x200000:"$tmp/y.bin" --dram-out 0x200000:4096:"$tmp/out.bin" 2>&1); rc=$?
ok [ $rc -eq 0 ]
ok has "$out" "saxpy: 16 instructions dispatched, 16 completed, 0 faults"
ok has "$out" "exit 0x0 (0)"
python3 - "$tmp" <<'PY'
import struct, sys
d = sys.argv[1]
y = struct.unpack("<1024f", open(d + "/out.bin", "rb").read())
want = [2 * (i - 500) + (i % 7 - 3) for i in range(1024)]
bad = [i for i in range(1024) if y[i] != want[i]]
sys.exit(1 if bad else 0)
PY
ok [ $? -eq 0 ]

# Bad values.
out=$("$cli" kt rv64 run "$rv/hello.elf" --dram-in 0x100000 2>&1); rc=$?
ok [ $rc -eq 125 ]
ok has "$out" "--dram-in '0x100000' must be ADDR:FILE"
out=$("$cli" kt rv64 run "$rv/hello.elf" --dram-in 0x100000:"$tmp/none.bin" 2>&1); rc=$?
ok [ $rc -eq 125 ]
ok has "$out" "none.bin: cannot open"
out=$("$cli" kt rv64 run "$rv/hello.elf" --dram-in 0xFFFFFF0:"$tmp/x.bin" 2>&1); rc=$?
ok [ $rc -eq 125 ]
ok has "$out" "lies outside card memory (0x10000000 bytes)"
out=$("$cli" kt rv64 run "$rv/hello.elf" --dram-out 0x0:0:"$tmp/o.bin" 2>&1); rc=$?
ok [ $rc -eq 125 ]
out=$("$cli" kt rv64 run "$rv/hello.elf" --dram-out 0x0:16 2>&1); rc=$?
ok [ $rc -eq 125 ]
ok has "$out" "must be ADDR:BYTES:FILE"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
