#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# npukit rk matmul / bench / info on the simulator.
set -u
cli=$1
export NPUKIT_RKSIM_TIMEOUT_SCALE=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $*" >&2; fi; }

for d in "fp16" "fp16 --out fp16" "int8" "int4"; do
  ok bash -c "'$cli' rk matmul --device sim --dtype $d -m 5 -k 100 -n 70 --check | grep -q ': ok$'"
done
# The verdict line says what it is measured against (a float result is rarely bit-equal).
ok bash -c "'$cli' rk matmul --device sim --dtype int8 -m 5 -k 100 -n 70 --check | grep -q '0 of 350 elements differ (exact required): ok$'"
ok bash -c "'$cli' rk matmul --device sim --dtype fp16 -m 5 -k 100 -n 70 --check | grep -q 'of 350 elements not equal to the rounded exact product, 0 outside the bound for any fp32 summation order (K\*u/(1-K\*u) \* sum|a\*b| + output rounding + 1 ulp, per element; worst at .* of it): ok$'"
# fp16 operands from files in [96, 128): summed in fp32 in any order (OpenBLAS, the portable
# loop, the NPU) the result errs by more than a fixed tolerance for [-1, 1) operands allowed;
# the order-independent bound holds for both arithmetic builds.
gen() { local i; for ((i = 0; i < $1; i++)); do printf "\\$(printf '%03o' $(( (i * 37 + $2) % 256 )))\\126"; done; }
gen 1024 5 > "$tmp/af16.bin"
gen 4096 11 > "$tmp/bf16.bin"
ok test "$(wc -c < "$tmp/af16.bin")" = 2048
ok bash -c "'$cli' rk matmul --device sim --dtype fp16 -m 4 -k 256 -n 16 --a '$tmp/af16.bin' --b '$tmp/bf16.bin' --check | grep -q '0 outside the bound.*: ok$'"
for out in fp32 fp16; do
  ok bash -c "'$cli' rk matmul --device sim --dtype fp16 --out $out -m 4 -k 256 -n 16 --a '$tmp/af16.bin' --b '$tmp/bf16.bin' --check | grep -q ': ok$'"
done
# A non-finite operand: +Inf (0x7c00) in A's first element makes row 0 infinite; the check
# follows the non-finite rule instead of an infinite tolerance.
{ printf '\000\174'; tail -c +3 "$tmp/af16.bin"; } > "$tmp/ainf.bin"
ok bash -c "'$cli' rk matmul --device sim --dtype fp16 -m 4 -k 256 -n 16 --a '$tmp/ainf.bin' --b '$tmp/bf16.bin' --check --json | grep -q '\"outside_bound\":0,\"ok\":true'"
"$cli" rk matmul --device sim --dtype int8 -m 3 -k 64 -n 32 --check --json > "$tmp/j"
ok grep -q '"tasks":1,"submits":2,"warmups":1,"resets":1' "$tmp/j"
ok grep -q '"npu_time":"modelled"' "$tmp/j"
ok grep -q '"ok":true' "$tmp/j"
# Operands from files: int8 A [2][32] of ones, B [32][16] of twos -> every element 64.
head -c 64 /dev/zero | tr '\0' '\001' > "$tmp/a.bin"
head -c 512 /dev/zero | tr '\0' '\002' > "$tmp/b.bin"
ok bash -c "'$cli' rk matmul --device sim --dtype int8 -m 2 -k 32 -n 16 --a '$tmp/a.bin' --b '$tmp/b.bin' --check | grep -q ': ok$'"
ok bash -c "'$cli' rk matmul --device sim --dtype int8 -m 3 -k 32 -n 16 --a '$tmp/a.bin' 2>&1 | grep -q 'the shape needs exactly 96'"
ok bash -c "'$cli' rk matmul --device sim --dtype int8 -m 2 -k 32 -n 16 --a '$tmp' 2>&1 | grep -q 'Is a directory'"
ok bash -c "'$cli' rk matmul --device sim --dtype fp16 --out int32 -m 1 -k 32 -n 16 2>&1 | grep -q 'fp16 weights give fp32 or fp16, not int32'"
ok bash -c "'$cli' rk matmul --device sim --dtype fp16 -m 1 -k 32 -n 16 --cores 4 2>&1 | grep -q -- '--cores=4 is outside 1..3'"
ok bash -c "! '$cli' rk matmul --device sim --dtype fp16 -m 0 -k 32 -n 16 2>/dev/null"
# A shape beyond the runtime's limits is refused before any operand is allocated (it used to
# fill gigabytes of random operands for minutes first).
ok bash -c "timeout 10 '$cli' rk matmul --device sim --dtype fp16 -m 1 -k 4294967295 -n 1 2>&1 | grep -q -- '-k=4294967295 is outside 1..16777216'"
ok bash -c "timeout 10 '$cli' rk bench 4294967295 1 1 1 --device sim 2>&1 | grep -q 'M=4294967295 is outside 1..16777216'"
# one core (a second core's thread and job floor cost more than its share of 4 small tasks saves),
# its 4 tasks (4 K slices of 256) in one job after its warm-up
ok bash -c "'$cli' rk matmul --device sim --dtype int4 -m 64 -k 1000 -n 128 --chain 8 --check --json | grep -q '\"cores_used\":1,\"tasks\":4,\"submits\":2,.*\"ok\":true'"
ok bash -c "'$cli' rk matmul --device sim --dtype int4 -m 1 -k 64 -n 64 --chain 65 2>&1 | grep -q 'outside 1..64'"
# Submission forms: selectable per call, refused where the kernel cannot run them, all benched.
ok bash -c "'$cli' rk matmul --device sim --dtype int4 -m 64 -k 1000 -n 128 --chain 8 --submit concat --check --json | grep -q '\"tasks\":4,\"submits\":2,.*\"ok\":true'"
ok bash -c "'$cli' rk matmul --device sim --dtype int8 -m 5 -k 3000 -n 300 --chain 8 --submit multitask --check --json | grep -q '\"submits\":2,.*\"ok\":true'"
ok bash -c "'$cli' rk matmul --device sim-rocket --dtype int8 -m 3 -k 64 -n 64 --submit multitask 2>&1 | grep -q 'multitask on the rocket kernel: the rocket uAPI has no core mask'"
ok bash -c "'$cli' rk matmul --device sim --dtype int8 -m 3 -k 64 -n 64 --submit fast 2>&1 | grep -q \"submission form 'fast': not auto or one of single, chained\""
ok bash -c "'$cli' rk bench --device sim --dtype int8 -m 3 -k 300 -n 200 --submit all --iters 2 --warmup 1 --chain 4 --json | grep -q '\"form\":\"nonblock\",\"ok\":true,.*\"correct\":true'"
ok bash -c "'$cli' rk bench --device sim-rocket --dtype int8 -m 3 -k 300 -n 200 --submit all --iters 2 --warmup 1 | grep -q '^multitask  refused: submission form multitask on the rocket kernel'"
# How many cores a call used: fewer than allowed when N has fewer than two groups per core.
ok bash -c "'$cli' rk matmul --device sim --dtype fp16 -m 4 -k 32 -n 16 | grep -q '^fp16 4x32x16 -> fp32 on sim (rk3588, 3 cores, 1 used)$'"
ok bash -c "'$cli' rk matmul --device sim --dtype fp16 -m 4 -k 32 -n 160 --json | grep -q '\"soc\":\"rk3588\",\"cores_used\":3,\"tasks\":3,'"
# bench: the vendor demo's positional form and the named form.
"$cli" rk bench 8 64 64 2 --iters 3 --warmup 1 --device sim > "$tmp/b"
ok grep -q '^int8 8x64x64 -> int32 on sim: 3 runs after 1 warm-up, medians' "$tmp/b"
ok grep -q 'memcpy of the same bytes per submit' "$tmp/b"
ok bash -c "'$cli' rk bench --dtype fp16 -m 4 -k 64 -n 32 --iters 2 --json --device sim | grep -q '\"overhead_vs_memcpy\"'"
ok bash -c "'$cli' rk bench 8 64 64 3 2>&1 | grep -q \"TYPE '3' is not a matmul type of RK3588\""
# TYPE and --dtype together were resolved by their order, silently.
ok bash -c "'$cli' rk bench 8 64 64 2 --dtype int4 2>&1 | grep -q 'TYPE and --dtype/--out both set the precision'"
ok bash -c "'$cli' rk bench 8 64 64 --dtype int8 --iters 1 --device sim | grep -q '^int8 8x64x64 -> int32'"
# An unknown last option is unknown, not an option missing its value.
for c in "synth --dtype fp16 -m 4 -k 32 -n 16" "plan --dtype fp16 -m 4 -k 32 -n 16" \
         "matmul --dtype fp16 -m 4 -k 32 -n 16" "bench 1 1 1 1"; do
  name=${c%% *}
  ok bash -c "'$cli' rk $c --chek 2>&1 | grep -q \"rk $name: unknown option '--chek'\""
done
ok bash -c "'$cli' rk synth --dtype fp16 -m 4 -k 32 -n 16 --format 2>&1 | grep -q 'option --format needs a value'"
ok bash -c "'$cli' rk info --device sim --json | grep -q '\"soc\":\"rk3588\",\"cores\":3,\"drv_version\":908'"
# Device selection errors name the device, and where the name came from.
ok bash -c "'$cli' rk info --device /dev/null 2>&1 | grep -q '/dev/null: its DRM driver is not rknpu'"
ok bash -c "'$cli' rk info --device /nonexistent 2>&1 | grep -q '/nonexistent: No such file or directory'"
ok bash -c "NPUKIT_RK_DEVICE=/nonexistent '$cli' rk info 2>&1 | grep -q 'NPUKIT_RK_DEVICE=/nonexistent: /nonexistent: No such file'"
ok bash -c "NPUKIT_RK_DEVICE=sim '$cli' rk info | grep -q '^device sim (simulator)'"
if ! ls /dev/dri/card* /dev/dri/renderD* >/dev/null 2>&1; then # no DRM node on this machine
  ok bash -c "'$cli' rk info --device npu 2>&1 | grep -q 'no /dev/dri node with the rknpu driver'"
  # "npu" in the variable means what it means to --device (it was read as a file name)
  ok bash -c "NPUKIT_RK_DEVICE=npu '$cli' rk info 2>&1 | grep -q 'NPUKIT_RK_DEVICE=npu: no /dev/dri node with the rknpu driver'"
fi
# --trace FILE: the runtime's phases as trace events (the format is checked in test_rk_trace);
# a file that cannot be written is a bad option, refused (2) before any work; through the
# variable it is named on stderr and the command still runs.
ok bash -c "'$cli' rk matmul --device sim --dtype fp16 -m 8 -k 64 -n 32 --trace '$tmp/t.json' > /dev/null && grep -q '\"name\":\"submit\"' '$tmp/t.json' && tail -1 '$tmp/t.json' | grep -q '^]}$'"
ok bash -c "'$cli' rk bench --device sim --dtype int8 -m 8 -k 64 -n 32 --iters 1 --trace '$tmp' 2>&1 >/dev/null | grep -q 'rk bench: --trace $tmp: Is a directory' && [ \${PIPESTATUS[0]} = 2 ]"
ok bash -c "NPUKIT_TRACE='$tmp' '$cli' rk bench --device sim --dtype int8 -m 8 -k 64 -n 32 --iters 1 2>&1 | grep -q 'NPUKIT_TRACE=$tmp: Is a directory (no trace written)'"
# --batch L: the matmul L times in one npk_rk_matmul_batch call, every C equal, the first checked.
ok bash -c "'$cli' rk matmul --device sim --dtype int8 -m 1 -k 2048 -n 512 --batch 8 --chain 8 --check | grep -q 'items whose C differs from the first: 0'"
ok bash -c "'$cli' rk matmul --device sim --dtype fp16 -m 3 -k 100 -n 37 --batch 5 --json --check | grep -q '\"batch\":5,.*\"ok\":true'"
ok bash -c "'$cli' rk matmul --device sim --dtype fp16 -m 3 -k 100 -n 37 --batch 5 --scale random 2>&1 | grep -q 'does not combine'"
ok bash -c "'$cli' rk matmul --device sim --dtype fp16 -m 3 -k 100 -n 37 --batch 0 2>&1 | grep -q 'batch'"
# --feature-pitch F: rows F x their packed width apart (int4 2: its zero-line form); --sched chain:
# the PC-chained M-tile schedule; each checked against the CPU reference, and the refusals.
ok bash -c "'$cli' rk matmul --device sim --dtype int4 -m 40 -k 480 -n 128 --feature-pitch 2 --check | grep -q '0 of 5120 elements differ'"
ok bash -c "'$cli' rk matmul --device sim --dtype fp16 -m 20 -k 96 -n 32 --feature-pitch 8 --check | grep -q ': ok'"
ok bash -c "'$cli' rk matmul --device sim --dtype int4 -m 8 -k 256 -n 64 --feature-pitch 4 2>&1 | grep -q 'described only at 2'"
ok bash -c "'$cli' rk matmul --device sim --dtype int8 -m 100 -k 1024 -n 64 --sched chain --chain 4 --cores 1 --check | grep -q 'tasks 3, submits 2 '"
ok bash -c "'$cli' rk matmul --device sim --dtype int8 -m 8 -k 300 -n 64 --sched chain 2>&1 | grep -q 'captured at K = 512'"
ok bash -c "'$cli' rk matmul --device sim --dtype int8 -m 8 -k 512 -n 64 --sched tiles 2>&1 | grep -q \"schedule 'tiles': not auto or chain\""
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
