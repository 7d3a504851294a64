#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `npukit kt vec` on the mg2_vc2 preset (upstream's mesh_1x1_2+2 top): every kernel against the
# CPU, lengths with a partial block and several rounds over both cores, --json, --trace, the
# enumeration of the top and the vector cores' CU_DBG in `kt status --verbose`, and the
# refusals (an unknown kernel, a bad scalar, a preset with no vector core). The same top runs a
# vector kernel and `kt matmul` on its matmul clusters in this process, behind `kt serve` (a
# pipe), through the control-program engine and with emitting sweeps and fused DRAINs: one C
# (its FNV-1a hash) every way.
set -u
cli=$1
pass=0 fail=0
ok() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $*" >&2; fi; }
for k in axpy add mul max relu exp2 log2 inv rsqrt; do
  ok bash -c "'$cli' kt vec --kernel $k -n 1000 | grep -q 'check: ok (0 of 1000 elements'"
done
ok bash -c "'$cli' kt vec -n 1 | grep -q 'on 2 vector cores: 1 runs, 178 kernel cycles'"
ok bash -c "'$cli' kt vec -n 4096 --seed 9 -a -0.625 | grep -q 'a = -0.625) on 2 vector cores: 32 runs'"
ok bash -c "'$cli' kt vec --json -n 300 | grep -q '\"kernel\":\"axpy\",\"n\":300,.*\"runs\":3,.*\"mismatches\":0,.*\"ok\":true'"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
ok bash -c "'$cli' kt vec -n 128 --trace '$tmp' > /dev/null && grep -q '\"name\": *\"vec\"' '$tmp'"
ok bash -c "'$cli' kt enum --sim mg2_vc2 | grep -q '^(1,0) *VC *4 *2 *512'"
ok bash -c "'$cli' kt enum --sim mg2_vc2 | grep -q '^4 units'"
ok bash -c "'$cli' kt status --sim mg2_vc2 --verbose | grep -q 'kernel_cycles=0 (per run'"
ok bash -c "'$cli' kt vec --kernel softmax 2>&1 | grep -q \"vector kernel 'softmax': one of axpy, add, mul, max, relu, exp2, log2, inv, rsqrt\""
ok bash -c "'$cli' kt vec -a 1e9 2>&1 | grep -q 'within FP16'"
ok bash -c "! '$cli' kt vec --sim default > /dev/null 2>&1"
ok bash -c "'$cli' kt vec --sim default 2>&1 | grep -q \"no vector core ('VC') in preset default\""
serve="pipe:$cli kt serve --sim mg2_vc2"
ok bash -c "'$cli' kt vec --card '$serve' -n 1000 | grep -q 'check: ok (0 of 1000 elements'"
hash() { "$cli" kt matmul "$@" 2>&1 | sed -n "s/.*C's FNV-1a \([0-9a-f]*\).*/\1/p"; }
h_local=$(hash --sim mg2_vc2)
ok test -n "$h_local"
ok bash -c "'$cli' kt matmul --sim mg2_vc2 | grep -q '^check: ok (0 of 4096 elements'"
ok test "$(hash --card "$serve")" = "$h_local"
ok test "$(hash --sim mg2_vc2 --engine)" = "$h_local"
# emitting sweeps with fused DRAINs write the same C (also over 8 K blocks); K=32 is refused
ok test "$(hash --sim mg2_vc2 --emit)" = "$h_local"
ok test "$(hash --sim mg2_vc2 --emit -k 1024 -m 128)" = "$(hash --sim mg2_vc2 -k 1024 -m 128)"
ok bash -c "'$cli' kt matmul --sim mg2_vc2 --emit --json | grep -q '\"emit\":true'"
ok bash -c "'$cli' kt matmul --sim mg2_vc2 --emit -k 32 2>&1 | grep -q 'K=32: one K block'"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
