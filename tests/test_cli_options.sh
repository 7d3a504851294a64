#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The option tables: every command answers --help from its rows, numbers are decimal (0x only
# where an address or register value is meant), an error is one line naming the option and
# the same limits whichever side of the range is broken.
set -u
cli=$1
export NPUKIT_RKSIM_TIMEOUT_SCALE=0
pass=0 fail=0
ok() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $*" >&2; fi; }
# one_line EXIT NEEDLE ARGS...: exits EXIT, prints nothing on stdout and exactly one stderr line
# containing NEEDLE.
one_line() {
  local want=$1 needle=$2 out err rc
  shift 2
  out=$("$cli" "$@" 2>/tmp/npukit_opt_err.$$); rc=$?
  err=$(cat /tmp/npukit_opt_err.$$); rm -f /tmp/npukit_opt_err.$$
  [ "$rc" = "$want" ] && [ -z "$out" ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] &&
    grep -qF -- "$needle" <<< "$err" || { echo "  got rc $rc, stdout '$out', stderr '$err'" >&2; return 1; }
}

# The top level lists every command of every family, on stdout for --help, on stderr without
# arguments (exit 2).
"$cli" --help > /tmp/npukit_help.$$
ok grep -q '^    regs ' /tmp/npukit_help.$$
ok grep -q '^    info ' /tmp/npukit_help.$$
ok grep -q '^    prog ' /tmp/npukit_help.$$
ok bash -c "'$cli' 2>&1 >/dev/null | grep -q '^    regs '"
ok bash -c "! '$cli' >/dev/null 2>&1"
# Every command of every family answers --help with its usage and exit 0.
cmds=$(awk '/^  [a-z]/ {fam=$1} /^    [a-z]/ {print fam, $1}' /tmp/npukit_help.$$)
rm -f /tmp/npukit_help.$$
ok test "$(wc -l <<< "$cmds")" -ge 14
while read -r fam sub; do
  ok bash -c "'$cli' $fam $sub --help | grep -q '^usage: npukit $fam $sub'"
  ok bash -c "'$cli' $fam $sub -h | grep -q -- '-h, --help'"
done <<< "$cmds"
# kt commands list their common options, rk commands their shape.
ok bash -c "'$cli' kt move --help | grep -q -- '--sim PRESET'"
ok bash -c "'$cli' kt enum --help | grep -q -- '--prestrobe'"
ok bash -c "'$cli' kt link --help | grep -q -- '--meshes K .*(1..4)'"
ok bash -c "'$cli' rk matmul --help | grep -q -- '--cores C .*(1..3)'"
ok bash -c "'$cli' rk matmul --help | grep -q -- '--chain T .*(1..64)'"
ok bash -c "'$cli' demo --help | grep -q '^usage: npukit demo'"
# --help wins wherever it is, even after a bad option or before a missing argument.
ok bash -c "'$cli' kt prog --help | grep -q '^usage: npukit kt prog FILE'"
# version
ok bash -c "'$cli' --version | grep -qx 'npukit [0-9]*\.[0-9]*\.[0-9]*'"
ok test "$("$cli" --version)" = "$("$cli" version)"
ok test "$("$cli" version | tail -c 1 | od -An -c | tr -d ' ')" = '\n'

# Numbers: decimal only, the option named; 0x where an address or register value is meant.
ok one_line 2 "-m '010': a decimal number has no leading zero" rk synth --dtype fp16 -m 010 -k 32 -n 16
ok one_line 2 "-m ' 5' is not a decimal number" rk synth --dtype fp16 -m ' 5' -k 32 -n 16
ok one_line 2 "-m '+5' is not a decimal number" rk synth --dtype fp16 -m +5 -k 32 -n 16
ok one_line 2 "-k '0x20' is not a decimal number" rk plan --dtype fp16 -m 1 -k 0x20 -n 16
ok one_line 2 "-m '' is not a decimal number" rk plan --dtype fp16 -m '' -k 32 -n 16
ok one_line 2 "--src '010': a decimal number has no leading zero (hex takes 0x)" kt move copy --src 010
ok one_line 2 "--src '0xg' is not a number (decimal, or hex with 0x)" kt move copy --src 0xg
ok one_line 2 "--src=0x1000000000 is outside 0..0xfffffffff" kt move copy --src 0x1000000000
ok one_line 2 "--indices '01': expected 1 to 256 comma-separated decimal numbers" kt move gather --indices 01
ok one_line 2 "--ring '00:1'" kt link --ring 00:1
ok bash -c "'$cli' rk synth --dtype fp16 -m 4 -k 32 -n 16 --a 0x1000 --c 4096 | grep -q '^0x'"
ok bash -c "'$cli' kt move fill --value 0x12 --words 2 | grep -q 'check: ok'"
# The same range on both sides of it.
ok one_line 2 "--cores=0 is outside 1..3" rk plan --dtype fp16 -m 1 -k 32 -n 16 --cores 0
ok one_line 2 "--cores=4 is outside 1..3" rk plan --dtype fp16 -m 1 -k 32 -n 16 --cores 4
ok one_line 2 "--chain=0 is outside 1..64" rk matmul --dtype fp16 -m 1 -k 32 -n 16 --chain 0
ok one_line 2 "--meshes=0 is outside 1..4" kt link --meshes 0
ok one_line 2 "--meshes=5 is outside 1..4" kt link --meshes 5
# One line per error.
ok one_line 2 "TYPE '99' is not a matmul type of RK3588" rk bench 4 32 16 99
ok one_line 2 "--width '7': the element width is 8, 16 or 32" kt move fill --width 7
ok one_line 2 "unknown option '--bogus' (npukit rk synth --help lists them)" rk synth --bogus
ok one_line 2 "option --sim needs a value" kt enum --sim
ok one_line 2 "--mode 'diag' is not one of line, cube" rk plan --dtype fp16 -m 1 -k 32 -n 16 --mode diag
ok one_line 2 "--soc 'rk9999' is not one of rk3588, rk3576" rk plan --dtype fp16 -m 1 -k 32 -n 16 --soc rk9999
ok one_line 2 "unexpected argument 'c'" rk diff a b c
ok one_line 2 "missing argument" rk diff a
ok one_line 2 "missing argument" kt prog
ok one_line 2 "--meshes applies to --engine only" kt saxpy --meshes 2
ok one_line 2 "needs --dtype, -m, -k and -n" rk exec --dtype fp16 -m 4
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
