#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Messages a person can act on, and exit codes scripts can rely on: 2 for a usage or range error
# (told before any work), 1 for a failure; the valid names listed where a name was wrong; the
# output's write checked for --help and --version too; whole words in the tour's lines.
set -u
cli=$1
export NPUKIT_RKSIM_TIMEOUT_SCALE=0
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $*" >&2; fi; }
# says EXIT NEEDLE ARGS...: exits EXIT, nothing on stdout, NEEDLE on stderr.
says() {
  local want=$1 needle=$2 rc
  shift 2
  "$cli" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ "$rc" = "$want" ] && [ ! -s "$tmp/out" ] && grep -qF -- "$needle" "$tmp/err" ||
    { echo "  $*: rc $rc, stdout '$(head -c 200 "$tmp/out")', stderr '$(cat "$tmp/err")'" >&2; return 1; }
}
M=(--dtype int8 -m 4 -k 64 -n 32)

# --help and --version write their text like any command: a full device is a failure.
if [ -w /dev/full ]; then
  for a in --help --version version "rk --help" "rk matmul --help"; do
    ok bash -c "! '$cli' $a >/dev/full 2>/dev/null"
  done
fi
ok says 2 "2 numbers given; the shape is three, M K N" rk bench 128 2048
ok says 2 "give M K N as three numbers or as -m -k -n, not both" rk bench 128 2048 64 -m 4
ok says 2 "--group 33: K per group (a multiple of 32)" rk matmul "${M[@]}" --group 33
ok says 1 "device 'sim-rockit' is none of auto|sim|sim-rocket|npu|kernel|rocket, nor a device path" \
  rk matmul "${M[@]}" --device sim-rockit
ok says 1 "no mesh preset 'nosuchpreset': the presets are card, default," kt enum --sim nosuchpreset
# the trace file is opened before the work: the error is the option's, and nothing ran
ok says 2 "--trace $tmp/no/dir/t.json: No such file or directory" rk matmul "${M[@]}" --trace "$tmp/no/dir/t.json"
ok says 2 "port '99999'" kt serve --protocol daemon --listen 127.0.0.1:99999
# a data path that is not found names each place once
NPUKIT_DATA_DIR=$tmp "$cli" kt enum --sim nosuch 2>"$tmp/err" >/dev/null
ok bash -c "! grep -q 'in none of' '$tmp/err' || [ \$(grep -o '[^ ,]*share/npukit' '$tmp/err' | sort | uniq -d | wc -l) = 0 ]"

# The tour and kt enum: empty positions said plainly; counts agree with their nouns; decoded
# register lines end on a whole field.
"$cli" demo >"$tmp/demo.txt" 2>&1
ok grep -q '^empty position: (1,0) (no unit answered within' "$tmp/demo.txt"
ok bash -c "! grep -Eq '(^|[^0-9])1 (resets|warm-ups)' '$tmp/demo.txt'"
ok bash -c "! grep -q 'no answer within the reply budget' '$tmp/demo.txt'"
ok bash -c "sed -n '/First lines, decoded/,/^\$/p' '$tmp/demo.txt' | grep -E '^ +[0-9] 0x' | grep -Ev '( \.\.\.|[A-Z_0-9]+=[0-9a-fx]+|0x[0-9a-f]{8})\$' | { ! grep -q .; }"
ok bash -c "'$cli' kt enum | grep -q '^empty position: (1,0)'"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
