#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Long CLI work shows progress on a terminal: `rk matmul` on a pseudo-terminal (script(1)) draws
# "DONE/TOTAL tasks (P%), R tasks/s, S s left" in place and erases it before the result; with
# --quiet, or when standard error is not a terminal, it prints no progress at all.
set -u
cli=$1
export NPUKIT_RKSIM_TIMEOUT_SCALE=0
command -v script >/dev/null || { echo "SKIP: script(1) not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $*" >&2; fi; }
# A call of 24 tasks, its progress shown from the first task (NPUKIT_PROGRESS_AFTER_MS=0), so
# the test does not depend on how fast the machine runs it.
export NPUKIT_PROGRESS_AFTER_MS=0
job="'$cli' rk matmul --dtype fp16 -m 256 -k 4096 -n 4096 --device sim"
script -qec "$job" "$tmp/tty.txt" >/dev/null 2>&1
ok grep -aqE 'rk matmul: [0-9]+/24 tasks \([0-9]+%\), [0-9.]+ tasks/s, [0-9]+ s left' "$tmp/tty.txt"
ok grep -aq 'rk matmul: 24/24 tasks (100%)' "$tmp/tty.txt"
# erased (carriage return, erase to the end of the line) before the result is printed
ok bash -c "tr -d '\r' < '$tmp/tty.txt' | grep -aq \$'\033\\[Kfp16 256x4096x4096 -> fp32'"
script -qec "$job --quiet" "$tmp/quiet.txt" >/dev/null 2>&1
ok grep -aq 'fp16 256x4096x4096 -> fp32' "$tmp/quiet.txt"
ok bash -c "! grep -aq 'tasks/s' '$tmp/quiet.txt'"
bash -c "$job" >"$tmp/out.txt" 2>"$tmp/err.txt"
ok grep -q 'tasks 24' "$tmp/out.txt"
ok bash -c "[ ! -s '$tmp/err.txt' ]"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
