#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rk matmul through the kernel backend on /dev/dri/card1, answered by the LD_PRELOAD shim:
# every dtype checked against the CPU, on 1 and 3 cores.
set -u
cli=$1 shim=$2
pass=0 fail=0
ok() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $*" >&2; fi; }
export NPUKIT_RKSIM_TIMEOUT_SCALE=0
for dtype in fp16 int8 int4; do
  for cores in 1 3; do
    out=$(LD_PRELOAD="$shim" "$cli" rk matmul --device /dev/dri/card1 --dtype "$dtype" \
          -m 33 -k 200 -n 130 --cores "$cores" --check --json 2>&1)
    ok grep -q '"device":"/dev/dri/card1"' <<<"$out"
    ok grep -q '"ok":true' <<<"$out"
    # the simulator says so through the kernel interface: its times are modelled
    ok grep -q '"npu_time":"modelled"' <<<"$out"
  done
done
# The same runtime through the rocket backend on /dev/accel/accel0 (one core: one file).
for dtype in fp16 int8 int4; do
  out=$(LD_PRELOAD="$shim" "$cli" rk matmul --device /dev/accel/accel0 --dtype "$dtype" \
        -m 33 -k 200 -n 130 --check --json 2>&1)
  ok grep -q '"device":"/dev/accel/accel0"' <<<"$out"
  ok grep -q '"ok":true' <<<"$out"
  ok grep -q '"npu_time":"modelled"' <<<"$out"
done
# rk bench and the text output label the simulator's times the same way, on both kernels.
for dev in /dev/dri/card1 /dev/accel/accel0; do
  out=$(LD_PRELOAD="$shim" "$cli" rk bench --device "$dev" --dtype int8 -m 1 -k 64 -n 64 \
        --iters 2 --warmup 1 --json 2>&1)
  ok grep -q '"npu_time":"modelled"' <<<"$out"
  out=$(LD_PRELOAD="$shim" "$cli" rk matmul --device "$dev" --dtype fp16 -m 1 -k 32 -n 16 2>&1)
  ok grep -q 'modelled' <<<"$out"
  ok bash -c "! grep -q measured <<<'$out'"
  out=$(LD_PRELOAD="$shim" "$cli" rk info --device "$dev" --json)
  ok grep -q '"simulated":true' <<<"$out"
done
# The quantised matmul (per-group int8, K-sliced and grouped passes) through both kernels.
for dev in /dev/dri/card1 /dev/accel/accel0; do
  for per in 1 0; do
    out=$(LD_PRELOAD="$shim" "$cli" rk matmul --device "$dev" --dtype int8 -m 5 -k 320 -n 70 \
          --group 64 --groups-per-pass "$per" --scale-a random --scale-b random --check --json 2>&1)
    ok grep -q '"ok":true' <<<"$out"
  done
done
out=$(LD_PRELOAD="$shim" "$cli" rk info --device /dev/accel/accel0 --json)
ok grep -q '"kernel":"rocket"' <<<"$out"
out=$(LD_PRELOAD="$shim" "$cli" rk info --device /dev/dri/card1 --json)
ok grep -q '"kernel":"rknpu"' <<<"$out"
# A simulator setting that does not parse fails the open (EINVAL), naming it on stderr.
out=$(NPUKIT_RKSIM_IDEAL=99 LD_PRELOAD="$shim" "$cli" rk matmul --device /dev/dri/card1 \
      --dtype fp16 -m 1 -k 32 -n 16 2>&1)
ok grep -q "rksim: NPUKIT_RKSIM_IDEAL='99': expected 'all' or hazard numbers 1\.\.[0-9]" <<<"$out"
ok grep -q '/dev/dri/card1: Invalid argument' <<<"$out"
# A device path is printed in JSON escaped (a quote in it broke the output).
tmp=$(mktemp -d)
ln -s /dev/null "$tmp/ca\"rd"
out=$(NPUKIT_SHIM_DEVICES="$tmp/ca\"rd" LD_PRELOAD="$shim" "$cli" rk info --device "$tmp/ca\"rd" --json)
ok grep -qF "{\"device\":\"$tmp/ca\\\"rd\",\"simulated\":true," <<<"$out"
out=$(NPUKIT_SHIM_DEVICES="$tmp/ca\"rd" LD_PRELOAD="$shim" "$cli" rk matmul --device "$tmp/ca\"rd" \
      --dtype int8 -m 1 -k 32 -n 32 --json)
ok grep -qF "\"device\":\"$tmp/ca\\\"rd\",\"soc\"" <<<"$out"
rm -rf "$tmp"
# Without the shim there is no such device here: a clear error, not a crash.
ok bash -c "! '$cli' rk matmul --device /dev/dri/card1 --dtype fp16 -m 1 -k 32 -n 16 2>/dev/null"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
