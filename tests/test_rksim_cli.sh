#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `npukit rk exec`: status words, exit codes, defences and the raw hazards 1-3.
set -u
cli=$1
pass=0 fail=0
ok() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $*" >&2; fi; }
has() { # has "<args>" <expected exit> <pattern>...
  local args=$1 want=$2; shift 2
  local out rc
  out=$("$cli" rk exec $args 2>&1); rc=$?
  if [ "$rc" != "$want" ]; then echo "exit $rc (want $want) for: $args"$'\n'"$out" >&2; return 1; fi
  for p in "$@"; do
    if ! grep -qE -- "$p" <<<"$out"; then echo "no '$p' for: $args"$'\n'"$out" >&2; return 1; fi
  done
}
export NPUKIT_RKSIM_TIMEOUT_SCALE=0
ok has "--dtype fp16 -m 4 -k 64 -n 32" 0 '^status: ok$' 'modelled time: [0-9.]+ us' 'not a measurement'
ok has "--dtype fp16 --out fp16 -m 8 -k 128 -n 32 --seed 7" 0 '^status: ok$'
ok has "--dtype int8 -m 8 -k 256 -n 64 --core 1" 0 '^status: ok$' 'max_abs 0,'
ok has "--dtype int4 -m 4 -k 128 -n 64" 0 '^status: ok$' 'cube mode'
ok has "--dtype fp16 -m 8 -k 64 -n 32 --mode cube --core 2" 0 '^status: ok$'
# through the rocket front end: the program in rocket's form (enable 0x1D, the DPU_RDMA block)
ok has "--dtype fp16 -m 4 -k 64 -n 32" 0 'rknpu kernel \(enable 0xD, 108 entries\)'
ok has "--dtype fp16 -m 4 -k 64 -n 32 --kernel rocket" 0 '^status: ok$' 'rocket kernel \(enable 0x1D, 126 entries\)'
ok has "--dtype int8 -m 8 -k 256 -n 64 --kernel rocket --core 1" 0 '^status: ok$' 'max_abs 0,'
ok has "--dtype int4 -m 4 -k 128 -n 64 --kernel rocket" 0 '^status: ok$' 'cube mode'
# the vendor driver's state hazards (1-3) do not reach rocket: a naive driver's rotating feature
# buffer and its int8 entry without a reset are fine there
ok has "--dtype fp16 -m 4 -k 64 -n 32 --kernel rocket --no-defences" 0 '^status: ok$' '^hazards: none$'
ok has "--dtype int8 -m 4 -k 64 -n 32 --kernel rocket --no-defences" 0 '^status: ok$' '^hazards: none$'
ok has "--list-hazards" 0 '^3	int8-entry-wedge	rknpu	spec State gotchas' '^7	n-ceiling	rknpu, rocket	'
ok has "--dtype fp16 -m 4 -k 64 -n 32 --kernel vendor" 2 "--kernel 'vendor' is not one of rknpu, rocket"
# the raw hazards without the driver's defences
ok has "--dtype fp16 -m 4 -k 64 -n 32 --no-defences" 1 '^status: mismatch$' 'stale-fresh-output' \
   'feature-address-cache' '^call 2 \(next feature buffer\): errors: .* [1-9][0-9]* of 128 outside'
ok has "--dtype fp16 -m 4 -k 64 -n 32" 0 '^status: ok$' '^errors: .* 0 of 128 outside'
ok has "--dtype int8 -m 4 -k 64 -n 32 --no-defences" 1 '^status: wedge$' 'int8-entry-wedge' 'task_counter 0'
ok has "--dtype fp16 -m 4 -k 64 -n 32 --no-defences --ideal" 0 '^status: ok$'
# limits broken on purpose
ok has "--dtype int8 -m 1 -k 10784 -n 32 --unchecked" 1 '^status: wedge$' 'k-ceiling'
ok has "--dtype fp16 -m 64 -k 512 -n 16 --sched 0 --unchecked" 1 '^status: mismatch$' 'b1-large-m'
ok has "--dtype fp16 -m 64 -k 512 -n 16 --sched 0 --unchecked --ideal" 0 '^status: ok$'
ok has "--dtype int8 --out int16 -m 4 -k 64 -n 32 --unchecked" 1 '^status: wedge$' 'narrow-int-out'
ok has "--dtype int8 --out int16 -m 4 -k 64 -n 32 --unchecked --ideal" 1 '^status: unsupported$' 'unsupported by the model'
ok has "--dtype fp16 -m 64 -k 512 -n 64 --sched auto" 0 '^status: ok$' 'sched 1 \(CBUF_CON0 0xA2\)'
# an --unchecked shape whose operand cannot be one NPU buffer: refused before allocating it
ok has "--dtype fp16 -m 100000 -k 100000 -n 16 --unchecked" 1 'A of M=100000 K=100000 N=16 needs 20000000000 bytes; one buffer must fit the 32-bit IOVA space'
# usage errors
ok has "--dtype fp16 -m 4 -k 64" 2 'needs --dtype, -m, -k and -n'
ok has "--dtype fp16 -m 4 -k 20000 -n 32" 1 'synthesis'
ok has "--dtype fp99 -m 4 -k 64 -n 32" 2 "--dtype 'fp99' is not a precision"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
