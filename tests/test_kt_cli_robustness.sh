#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Output that cannot be written fails the command: a trace file or standard output on a full
# device (/dev/full) exits non-zero with a message naming the file and the system's reason; and
# the small input rules: host-program numbers are decimal or 0x hex (no octal by accident),
# `rk ew --submit` takes only the known forms; `kt enum` names the coordinates that did not answer
# within the reply budget (a slow unit is not silently left out).
set -u
cli=$1
pass=0 fail=0
ok() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $*" >&2; fi; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# fails CMD...: exits non-zero; its stderr is in $tmp/err
fails() { ! "$@" >"$tmp/out" 2>"$tmp/err"; }
said() { grep -q -- "$1" "$tmp/err" || { echo "stderr was: $(cat "$tmp/err")" >&2; false; }; }

if [ -w /dev/full ]; then
  ok fails "$cli" kt enum --trace /dev/full
  ok said "trace file /dev/full: No space left on device"
  ok fails env NPUKIT_TRACE=/dev/full "$cli" kt enum
  ok said "trace file /dev/full: No space left on device"
  ok fails bash -c "'$cli' kt enum --json >/dev/full"
  ok said "writing the standard output: No space left on device"
  ok fails bash -c "'$cli' kt status >/dev/full"
  ok said "writing the standard output"
fi
# A trace that can be written still ends well and complete.
ok "$cli" kt enum --trace "$tmp/t.json" >/dev/null
ok python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/t.json"
ok fails "$cli" kt enum --trace "$tmp/no/such/dir/t.json"
ok said "--trace $tmp/no/such/dir/t.json: No such file or directory"

# kt prog: 010 is not octal 8
printf 'WR 010 1\nDONE 0\n' >"$tmp/p.txt"
ok fails "$cli" kt prog "$tmp/p.txt"
ok said "without a leading zero"
printf 'POLL 0x10000010 08 0xff\nDONE 0\n' >"$tmp/p.txt"
ok fails "$cli" kt prog "$tmp/p.txt"
ok said "without a leading zero"

# rk ew --submit: a form it does not know is refused, not ignored
ok fails "$cli" rk ew --op add -m 4 -n 4 --device sim --submit bogus
ok said "submission form 'bogus'"
ok "$cli" rk ew --op add -m 4 -n 4 --device sim --submit chained --check >/dev/null

# kt enum: a unit slower than the reply budget is named among the silent coordinates
sed 's/^\(unit 1 2 test .*\)$/\1 reply_delay=200000/' "$(dirname "$0")/../data/kt/default.mesh" >"$tmp/slow.mesh"
ok grep -q reply_delay "$tmp/slow.mesh"
ok bash -c "'$cli' kt enum --sim '$tmp/slow.mesh' --reply-budget 4 >'$tmp/enum.txt'"
ok grep -q '^2 units' "$tmp/enum.txt"
ok grep -q '^empty positions: (1,0) (1,2) (no unit answered within 4 mailbox reads; a slower unit needs --reply-budget N)' "$tmp/enum.txt"
ok bash -c "'$cli' kt enum --sim '$tmp/slow.mesh' --reply-budget 4 --json | grep -q '\"silent\":\[\[1,0\],\[1,2\]\]'"
ok bash -c "'$cli' kt enum | grep -q '^3 units'"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
