#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `npukit rk conv` (fp16 and int8) and `rk pool`: --check against the CPU passes on both kernels' simulators,
# --json is one JSON object, --trace writes a trace, bad shapes are one line naming the value
# and the limit, pooling's refusal on rocket names the interrupt, max pooling is exact.
set -u
cli=$1
export NPUKIT_RKSIM_TIMEOUT_SCALE=0
pass=0 fail=0
ok() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $*" >&2; fi; }
one_line() { # one_line EXIT NEEDLE ARGS...
  local want=$1 needle=$2 err rc
  shift 2
  err=$("$cli" "$@" 2>&1 >/dev/null); rc=$?
  [ "$rc" = "$want" ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && grep -qF -- "$needle" <<< "$err" ||
    { echo "  got rc $rc, stderr '$err'" >&2; return 1; }
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for dev in sim sim-rocket; do
  ok "$cli" rk conv -c 19 -H 23 -W 17 --out-c 21 -k 3 --stride 2 --pad 1 --bias --act relu6 --check --device "$dev"
  ok "$cli" rk conv --dtype int8 -c 19 -H 23 -W 17 --out-c 21 -k 3 --stride 2 --pad 1 --bias --act relu6 --check --device "$dev"
  ok "$cli" rk conv -c 16 -H 12 -W 12 --out-c 32 --groups 16 --dilation 2 --pad 2 --check --device "$dev"
done
ok "$cli" rk pool -c 13 -H 15 -W 11 -k 3 --stride 2 --pad 1 --method max --check
ok "$cli" rk pool -c 9 -H 20 -W 20 -k 2 --method avg --check
ok "$cli" rk pool -c 5 -H 56 -W 56 --global --method avg --check
ok "$cli" rk pool -c 5 -H 7 -W 7 --global --method avg --check --device sim-rocket

"$cli" rk conv -c 8 -H 9 -W 9 --out-c 4 --check --json > "$work/c.json"
ok python3 -c "import json,sys; d=json.load(open('$work/c.json')); sys.exit(0 if d['check']['ok'] and d['out_h']==7 else 1)"
"$cli" rk conv --dtype int8 -c 20 -H 9 -W 9 --out-c 4 --groups 4 --check --json > "$work/i.json"
ok python3 -c "import json,sys; d=json.load(open('$work/i.json')); sys.exit(0 if d['check']['ok'] and d['dtype']=='int8' and d['host_steps']==4 else 1)"
"$cli" rk pool -c 8 -H 8 -W 8 --check --json > "$work/p.json"
ok python3 -c "import json,sys; d=json.load(open('$work/p.json')); sys.exit(0 if d['check']['ok'] and d['out_w']==4 else 1)"
ok "$cli" rk conv -c 8 -H 9 -W 9 --out-c 4 --trace "$work/t.json"
ok python3 -c "import json; json.load(open('$work/t.json'))"

ok one_line 2 "kernel 5x5 is larger than the padded input 4x4" rk conv -c 2 -H 4 -W 4 --out-c 2 -k 5
ok one_line 2 "exceeds 7" rk conv -c 2 -H 40 -W 40 --out-c 2 --stride 8
ok one_line 2 "groups 3 must divide" rk conv -c 4 -H 4 -W 4 --out-c 4 -k 1 --groups 3
ok one_line 2 "past 131071" rk conv --dtype int8 -c 16384 -H 3 -W 3 --out-c 1
ok one_line 2 "--dtype" rk conv --dtype int4 -c 2 -H 4 -W 4 --out-c 2
ok one_line 2 "--stride" rk conv -c 2 -H 4 -W 4 --out-c 2 --stride 0
ok one_line 2 "exceeds 16" rk pool -c 2 -H 40 -W 40 -k 17
ok one_line 1 "DPU interrupt" rk pool -c 2 -H 4 -W 4 --device sim-rocket
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
