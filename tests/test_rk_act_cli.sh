#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# npukit rk act and rk softmax on the simulator: every activation checked against double
# precision within the runtime's bound, JSON, chained tasks, a trace, and bad input.
set -u
cli=$1
export NPUKIT_RKSIM_TIMEOUT_SCALE=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $*" >&2; fi; }

for fn in sigmoid tanh gelu silu hardswish hardsigmoid relu relu6; do
  ok bash -c "'$cli' rk act --device sim --fn $fn -m 5 -n 33 --range 12 --check | grep -q '0 of 165 outside.*: ok$'"
done
ok bash -c "'$cli' rk act --device sim --fn hardsigmoid --alpha 0.2 --beta 0.5 -m 1 -n 9 --check | grep -q ': ok$'"
for dt in int16 int8; do
  for fn in relu relu6; do
    ok bash -c "'$cli' rk act --device sim --fn $fn --dtype $dt -m 3 -n 17 --check | grep -q '0 of 51 outside exact.*: ok$'"
  done
done
"$cli" rk act --device sim --fn silu -m 1000 -n 700 --chain 4 --check --json > "$tmp/j"
ok grep -q '"op":"silu","dtype":"fp16","m":1000,"n":700,"tasks":3,"submits":2' "$tmp/j"
ok grep -q '"ok":true' "$tmp/j"
"$cli" rk softmax --device sim -m 6 -n 129 --chain 6 --check --json --trace "$tmp/t.json" > "$tmp/j"
ok grep -q '"op":"softmax".*"tasks":12,.*"host_steps":12' "$tmp/j"
ok grep -q '"ok":true' "$tmp/j"
ok test -s "$tmp/t.json"
ok bash -c "'$cli' rk softmax --device sim -m 1 -n 1 --check | grep -q '0 of 1 outside.*: ok$'"

# A LUT task's program, synthesized and decoded: every LUT register named with its fields.
"$cli" rk synth --act silu --dtype fp16 -m 4 -n 16 --format bin > "$tmp/p.bin"
"$cli" rk decode "$tmp/p.bin" > "$tmp/d"
ok grep -q "DPU_LUT_CFG .*LUT_LO_LE_MUX=2" "$tmp/d"
ok grep -q "DPU_LUT_LO_SLOPE_SHIFT .*LUT_LO_SLOPE_OFLOW_SHIFT=" "$tmp/d"
ok test "$(grep -c 'DPU_LUT_ACCESS_DATA' "$tmp/d")" -eq 1026
ok bash -c "! '$cli' rk synth --act relu --dtype fp16 -m 1 -n 1 2> '$tmp/e'"
ok grep -q "not a LUT activation" "$tmp/e"

# Bad input: one line naming the value and the limit.
ok bash -c "! '$cli' rk act --device sim --fn swish -m 1 -n 1 2> '$tmp/e'"
ok grep -q "swish" "$tmp/e"
ok bash -c "! '$cli' rk act --device sim --fn gelu --dtype int8 -m 1 -n 1 2> '$tmp/e'"
ok grep -q "fp16 only" "$tmp/e"
ok bash -c "! '$cli' rk act --device sim --fn gelu -m 0 -n 1 2> '$tmp/e'"
ok grep -q "1..16777216" "$tmp/e"
ok bash -c "! '$cli' rk act --device sim --fn gelu --range nan -m 1 -n 1 2> '$tmp/e'"
ok grep -q "not a finite number" "$tmp/e"
ok bash -c "! '$cli' rk act --device sim -m 1 -n 1 2> '$tmp/e'"
ok grep -q "needs --fn" "$tmp/e"
# The rocket kernel runs SDP tasks too (its fixed interrupt mask is the DPU's, facts A.2).
ok bash -c "'$cli' rk act --device sim-rocket --fn tanh -m 2 -n 8 --check | grep -q ': ok$'"
ok bash -c "'$cli' rk softmax --device sim-rocket -m 3 -n 100 --check | grep -q ': ok$'"
ok bash -c "! '$cli' rk softmax --device sim -n 4 2> '$tmp/e'"
ok grep -q "needs -m and -n" "$tmp/e"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
