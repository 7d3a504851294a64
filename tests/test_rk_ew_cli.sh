#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# npukit rk ew, rk matmul --scale/--residual and rk bench --epilogue on the simulator.
set -u
cli=$1
export NPUKIT_RKSIM_TIMEOUT_SCALE=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $*" >&2; fi; }

# Every op and dtype, both operand modes, checked against the CPU.
for op in add mul max min; do
  for dt in fp16 int16; do
    ok bash -c "'$cli' rk ew --device sim --op $op --dtype $dt -m 65 -n 33 --check | grep -q 'of 2145 elements differ.*: ok$'"
    ok bash -c "'$cli' rk ew --device sim --op $op --dtype $dt -m 3 -n 17 --per-channel --check | grep -q '0 of 51 elements differ.*: ok$'"
  done
done
"$cli" rk ew --device sim --op mul --dtype int8 -m 1 -n 8192 --per-channel --check --json > "$tmp/j"
ok grep -q '"op":"mul","dtype":"int8","m":1,"n":8192,"operand":"per-channel","tasks":1' "$tmp/j"
ok grep -q '"check":{"mismatches":0,"ok":true}' "$tmp/j"
ok grep -q '"resets":0' "$tmp/j"
# Chained tasks: 700000 elements are 3 tasks, one submit with --chain 4 (after its warm-up).
"$cli" rk ew --device sim --op add -m 1000 -n 700 --chain 4 --check --json > "$tmp/j"
ok grep -q '"tasks":3,"submits":2,"warmups":1' "$tmp/j"
# Bad input: one line naming the value and the limit.
ok bash -c "! '$cli' rk ew --device sim --op pow -m 1 -n 1 2> '$tmp/e'"
ok grep -q "pow" "$tmp/e"
ok bash -c "! '$cli' rk ew --device sim --op add -m 0 -n 1 2> '$tmp/e'"
ok grep -q "1..16777216" "$tmp/e"
ok bash -c "! '$cli' rk ew --device sim --op add -n 4 2> '$tmp/e'"
ok grep -q "needs -m and -n" "$tmp/e"
# The rocket kernel runs SDP tasks too (its fixed interrupt mask is the DPU's, facts A.2).
ok bash -c "'$cli' rk ew --device sim-rocket --op add -m 65 -n 33 --check | grep -q ': ok$'"
ok bash -c "'$cli' rk ew --device sim-rocket --op max -m 3 -n 17 --per-channel --check | grep -q ': ok$'"

# The epilogue: fused with --chain 3, split without, both checked.
for sh in "-m 1 -k 64 -n 3" "-m 65 -k 100 -n 33" "-m 64 -k 64 -n 17"; do
  ok bash -c "'$cli' rk matmul --device sim --dtype fp16 $sh --scale random --residual random --chain 3 --check | grep -q 'fused: matmul and SDP tasks chained'"
  ok bash -c "'$cli' rk matmul --device sim --dtype fp16 $sh --scale random --residual random --chain 3 --check | grep -q ': ok$'"
  ok bash -c "'$cli' rk matmul --device sim --dtype fp16 $sh --scale random --check | grep -q 'split: the matmul, then separate SDP submits'"
  ok bash -c "'$cli' rk matmul --device sim --dtype fp16 $sh --residual random --chain 2 --no-fuse --check | grep -q 'split.*'"
done
# scale from a file: all 2.0 (0x4000) doubles the plain product exactly.
for i in $(seq 16); do printf '\000\100'; done > "$tmp/scale.bin"
ok bash -c "'$cli' rk matmul --device sim --dtype fp16 -m 4 -k 64 -n 16 --scale '$tmp/scale.bin' --chain 2 --check --json | grep -q '\"fused_jobs\":1.*\"epilogue_mismatches\":0,\"ok\":true'"
ok bash -c "! '$cli' rk matmul --device sim --dtype fp16 -m 4 -k 64 -n 17 --scale '$tmp/scale.bin' 2> '$tmp/e'"
ok grep -q "holds 32 bytes; the shape needs exactly 34" "$tmp/e"
ok bash -c "! '$cli' rk matmul --device sim --dtype int8 -m 4 -k 64 -n 16 --scale random 2> '$tmp/e'"
ok grep -q "dtype-path rule" "$tmp/e"
ok bash -c "! '$cli' rk matmul --device sim --dtype fp16 --out fp32 -m 4 -k 64 -n 16 --scale random 2> '$tmp/e'"
ok grep -q "output fp32" "$tmp/e"

# rk bench --epilogue: fused against split (one core: one matmul task, so one fused submit), the
# scaled path against the spec's figures.
"$cli" rk bench --device sim --dtype fp16 --out fp16 -m 64 -k 256 -n 256 --cores 1 --iters 2 --warmup 1 --epilogue > "$tmp/b"
ok grep -q "fused (1 of 1 submits chain matmul->SDP)" "$tmp/b"
ok grep -q "split (matmul, then SDP submits" "$tmp/b"
ok grep -q "N=2048 .*the SDP submit alone" "$tmp/b"
"$cli" rk bench --device sim --dtype fp16 --out fp16 -m 64 -k 256 -n 256 --cores 1 --iters 2 --warmup 1 --epilogue --json > "$tmp/b"
ok grep -q '"epilogue":{.*"fused_jobs":1' "$tmp/b"
ok grep -q '"scaled_m64_k512":\[{"n":64' "$tmp/b"
ok bash -c "! '$cli' rk bench --device sim --dtype int8 -m 4 -k 64 -n 32 --epilogue 2> '$tmp/e'"
ok grep -q "needs --dtype fp16" "$tmp/e"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
