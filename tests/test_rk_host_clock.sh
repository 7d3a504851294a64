#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# NPUKIT_RK_HOST_CLOCK: a matmul's host parts timed on the wall clock (the default: their spans
# are on the trace's host tracks) or by their threads' CPU time (thread: no such spans, the
# submits' still there); any other value is warned about, naming it, and the wall clock used.
set -u
cli=$1
export NPUKIT_RKSIM_TIMEOUT_SCALE=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $*" >&2; fi; }

run() { # clock (empty: unset), trace file; the matmul checked against the CPU
  if [ -n "$1" ]; then
    NPUKIT_RK_HOST_CLOCK=$1 "$cli" rk matmul --device sim --dtype fp16 -m 64 -k 2048 -n 256 \
      --check --trace "$2" > "$tmp/out" 2> "$tmp/err"
  else
    env -u NPUKIT_RK_HOST_CLOCK "$cli" rk matmul --device sim --dtype fp16 -m 64 -k 2048 \
      -n 256 --check --trace "$2" > "$tmp/out" 2> "$tmp/err"
  fi
}
spans() { grep -o "\"name\":\"$1\"" "$2" | wc -l; }

ok run "" "$tmp/wall.json"
ok grep -q ": ok" "$tmp/out"
ok test "$(spans pack "$tmp/wall.json")" -gt 0
ok test "$(spans accumulate "$tmp/wall.json")" -gt 0

ok run thread "$tmp/thread.json"
ok grep -q ": ok" "$tmp/out"
ok test "$(spans pack "$tmp/thread.json")" -eq 0
ok test "$(spans accumulate "$tmp/thread.json")" -eq 0
ok test "$(spans submit "$tmp/thread.json")" -gt 0
ok test ! -s "$tmp/err"

ok run bogus "$tmp/bogus.json"
ok grep -q ": ok" "$tmp/out"
ok grep -q "NPUKIT_RK_HOST_CLOCK=bogus: not a clock (wall or thread)" "$tmp/err"
ok test "$(spans pack "$tmp/bogus.json")" -gt 0

echo "test_rk_host_clock: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
