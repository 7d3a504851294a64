#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# npukit rk matmul --scale-a/--scale-b/--group (the quantised matmul) on the simulator.
set -u
cli=$1
export NPUKIT_RKSIM_TIMEOUT_SCALE=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $*" >&2; fi; }

# Per group, per channel, int4, fp16 output, both run shapes: checked against the CPU.
for args in "--dtype int8 -m 4 -k 1000 -n 70 --group 128" \
            "--dtype int8 -m 1 -k 100 -n 17 --group 32 --groups-per-pass 1" \
            "--dtype int8 -m 3 -k 300 -n 33 --group channel" \
            "--dtype int8 -m 5 -k 256 -n 40 --group 64 --out fp16" \
            "--dtype int4 -m 2 -k 200 -n 66 --group 32"; do
  ok bash -c "'$cli' rk matmul --device sim $args --scale-a random --scale-b random --check | grep -q 'outside the bound.*: ok$'"
done
# Constant power-of-two scales: every element is the exact int32 sum times 1/8.
"$cli" rk matmul --device sim --dtype int8 -m 3 -k 200 -n 20 --group 64 --scale-a 0.5 --scale-b 0.25 --check --json > "$tmp/j"
ok grep -q '"groups":4,' "$tmp/j"
ok grep -q '"outside_bound":0,"ok":true' "$tmp/j"
ok grep -q '"max_abs":0,' "$tmp/j"
# K-sliced tasks named as such; the model's choice at M = 1 puts many groups in one pass.
ok bash -c "'$cli' rk matmul --device sim --dtype int8 -m 2 -k 128 -n 16 --group 32 --groups-per-pass 1 --scale-b 1 | grep -q '1 per NPU pass (K-sliced tasks), 4 passes'"
ok bash -c "'$cli' rk matmul --device sim --dtype int8 -m 1 -k 1024 -n 64 --group 32 --scale-b 1 --json | grep -q '\"groups_per_pass\":32,\"passes\":1'"
# Scales from a file: [groups][N] float32 (N = 2, 2 groups: 1.0 everywhere).
printf '\000\000\200\077%.0s' 1 2 3 4 > "$tmp/sb.bin"
ok bash -c "'$cli' rk matmul --device sim --dtype int8 -m 2 -k 64 -n 2 --group 32 --scale-b '$tmp/sb.bin' --check | grep -q ': ok$'"
# Bad input: one line naming the value and the limit.
ok bash -c "! '$cli' rk matmul --device sim --dtype int8 -m 2 -k 64 -n 3 --group 32 --scale-b '$tmp/sb.bin' 2> '$tmp/e'"
ok grep -q "16 bytes; 6 float32 values wanted" "$tmp/e"
ok bash -c "! '$cli' rk matmul --device sim --dtype int8 -m 2 -k 64 -n 2 --group 48 2> '$tmp/e'"
ok grep -q "group 48: K per group (a multiple of 32)" "$tmp/e"
ok bash -c "! '$cli' rk matmul --device sim --dtype int8 -m 2 -k 64 -n 2 --group x 2> '$tmp/e'"
ok grep -q "\-\-group x" "$tmp/e"
ok bash -c "! '$cli' rk matmul --device sim --dtype int8 -m 2 -k 64 -n 2 --scale-a nan 2> '$tmp/e'"
ok grep -q "A scale nan: a finite float32" "$tmp/e"
# a number past float32's range is named as typed, not as the infinity it would become
ok bash -c "! '$cli' rk matmul --device sim --dtype int8 -m 2 -k 64 -n 2 --scale-b 1e39 2> '$tmp/e'"
ok grep -q "B scale 1e39: a finite float32 (|s| <= 3.40282e+38) wanted" "$tmp/e"
ok bash -c "! '$cli' rk matmul --device sim --dtype fp16 -m 2 -k 64 -n 2 --group 32 2> '$tmp/e'"
ok grep -q "fp16 weights: quantised weights are int8 or int4" "$tmp/e"
ok bash -c "! '$cli' rk matmul --device sim --dtype int8 -m 2 -k 64 -n 2 --group 32 --out int32 2> '$tmp/e'"
ok grep -q "output int32: fp32 or fp16" "$tmp/e"
ok bash -c "! '$cli' rk matmul --device sim --dtype int8 -m 2 -k 64 -n 2 --group 32 --scale random 2> '$tmp/e'"
ok grep -q "do not combine" "$tmp/e"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
