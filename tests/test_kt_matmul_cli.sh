#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `npukit kt matmul` on the mg_2 preset: shapes of one job, several jobs over both clusters and
# several rounds, --json, --trace, and the refusals (a shape the cluster cannot take, a preset
# with no cluster).
set -u
cli=$1
pass=0 fail=0
ok() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $*" >&2; fi; }
ok bash -c "'$cli' kt matmul --sim mg_2 -m 4 -n 4 -k 32 | grep -q 'check: ok (0 of 16 elements'"
ok bash -c "'$cli' kt matmul --sim mg_2 -m 68 -n 36 -k 320 | grep -q 'on 2 clusters in [0-9]* jobs'"
ok bash -c "'$cli' kt matmul --sim mg_2 -m 128 -n 64 -k 1024 --seed 7 | grep -q 'check: ok (0 of 8192'"
ok bash -c "'$cli' kt matmul --sim mg_2 --json | grep -q '\"mismatches\":0,.*\"ok\":true'"
ok bash -c "'$cli' kt matmul --sim mg_2 | grep -q 'MXFP7 error against the FP32 product: 1\.[0-9]*% RMS'"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
ok bash -c "'$cli' kt matmul --sim mg_2 -m 8 -n 8 -k 32 --trace '$tmp' > /dev/null && grep -q '\"name\": *\"mat\"' '$tmp'"
ok bash -c "'$cli' kt matmul --sim mg_2 -m 6 2>&1 | grep -q 'M=6 and N=64 must be multiples of 4 and K=128 of 32'"
ok bash -c "'$cli' kt matmul --sim mg_2 -k 8192 2>&1 | grep -q '8192'"
ok bash -c "! '$cli' kt matmul --sim default > /dev/null 2>&1"
ok bash -c "'$cli' kt matmul --sim default 2>&1 | grep -q \"no matmul cluster ('MG') in preset default\""
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
