#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `npukit demo` (what `make demo` runs) completes, and every checked step reports ok.
set -u
cli=$1
export NPUKIT_RKSIM_TIMEOUT_SCALE=0
out=$("$cli" demo 2>&1); rc=$?
pass=0 fail=0
ok() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $*" >&2; fi; }
ok test "$rc" = 0
ok grep -q 'Rockchip RK3588 NPU' <<<"$out"
ok grep -q 'KohakuTPU' <<<"$out"
ok test "$(grep -c ': ok$' <<<"$out")" -ge 4          # the four RK layer runs
ok test "$(grep -c '^check: ok' <<<"$out")" -ge 3     # the KohakuTPU checked steps
ok bash -c "! grep -qi 'mismatch' <<<\"\$0\"" "$out"
[ "$fail" = 0 ] || printf '%s\n' "$out" | tail -40 >&2
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
