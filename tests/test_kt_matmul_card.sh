#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `npukit kt matmul` on a served card and through the host control-program engine. Each run
# checks C against the CPU's product of the same MXFP7 operands within the accumulator's
# rounding (mismatches 0) and prints C's FNV-1a digest; the engine form (one control program a
# round, current and pre-strobe bitstreams) and the same command against `npukit kt serve`
# (a pipe, the line protocol on a loopback TCP port, the card daemon's protocol) must return the
# same C bit for bit as the host form on the simulator in-process, write the same, and on a fresh
# served machine behind a pipe take the same cycles. Servers bind port 0 on loopback and are
# stopped here; every wait is bounded.
set -u
cli=$1
pass=0 fail=0
ok() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $*" >&2; fi; }

tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
. "$(dirname "$0")/kt_serve_lib.sh"

# serve PROTOCOL NAME: a server of mg_2 on 127.0.0.1:0; its port in $tmp/NAME.port
serve() {
  timeout 300 "$cli" kt serve --sim mg_2 --protocol "$1" --listen 127.0.0.1:0 >"$tmp/$2.out" 2>"$tmp/$2.err" &
  pids+=($!)
  kt_served_port "$tmp/$2.out" >"$tmp/$2.port"
}
serve line line
serve daemon daemon
line_port=$(cat "$tmp/line.port")
daemon_port=$(cat "$tmp/daemon.port")
ok test -n "$line_port"
ok test -n "$daemon_port"

# field NAME < json: the first value of "NAME"
field() { grep -o "\"$1\":[^,}]*" | head -1 | sed 's/^[^:]*://'; }

pipe="pipe:'$cli' kt serve --sim mg_2"
# form N: the options of run N (an array, so the pipe's command stays one argument)
form() {
  case $1 in
    0) args=(--engine) ;;
    1) args=(--engine --prestrobe) ;;
    2) args=(--card "$pipe") ;;
    3) args=(--card "tcp:127.0.0.1:$line_port") ;;
    4) args=(--card "daemon:127.0.0.1:$daemon_port") ;;
    5) args=(--engine --card "$pipe") ;;
  esac
}
# One job; two clusters in one round; 4 jobs in 2 rounds.
for shape in "-m 4 -n 4 -k 32" "-m 68 -n 36 -k 320 --seed 3" "-m 64 -n 64 -k 512 --seed 7"; do
  # shellcheck disable=SC2086
  want=$("$cli" kt matmul --sim mg_2 $shape --json 2>&1)
  digest=$(echo "$want" | field c_fnv1a)
  ok test "$(echo "$want" | field mismatches)" = 0
  ok test "${#digest}" -eq 18 # 16 digits and the quotes
  for n in 0 1 2 3 4 5; do
    form $n
    # shellcheck disable=SC2086
    got=$("$cli" kt matmul --sim mg_2 $shape "${args[@]}" --json 2>&1)
    for f in mismatches ok c_fnv1a rms_error_vs_fp32 jobs rounds; do
      have=$(echo "$got" | field $f)
      [ "$have" = "$(echo "$want" | field $f)" ] || echo "$shape ${args[*]}: $f $have; $got" >&2
      ok test "$have" = "$(echo "$want" | field $f)"
    done
    case $n in
      0|1|5) ok test "$(echo "$got" | field form)" = '"engine"' ;;
      *) # the host form writes the same words wherever the machine is
        ok test "$(echo "$got" | field writes)" = "$(echo "$want" | field writes)"
        ok test "$(echo "$got" | field bytes_written)" = "$(echo "$want" | field bytes_written)" ;;
    esac
    # A fresh machine behind the pipe runs the same cycles as the simulator in-process.
    if [ $n = 2 ]; then
      ok test "$(echo "$got" | field cycles)" = "$(echo "$want" | field cycles)"
    fi
  done
done
# The engine takes the waits off the host: one completion check of CTRL a round, where the host
# form checks each cluster's ticket.
eng=$("$cli" kt matmul --sim mg_2 -m 64 -n 64 -k 512 --engine --json)
ok test "$(echo "$eng" | field checks)" = "$(echo "$eng" | field rounds)"
ok test "$(echo "$eng" | field rounds)" = 2
# The text form names the form and the digest.
ok bash -c "'$cli' kt matmul --sim mg_2 -m 8 -n 8 -k 64 --engine | grep -q '^matmul (engine): .* in 2 jobs, 1 rounds'"
ok bash -c "'$cli' kt matmul --sim mg_2 -m 8 -n 8 -k 64 --engine | grep -q \"C's FNV-1a [0-9a-f]\\{16\\}\""
# Refusals: a preset whose top has no engine, and a served machine that announces none.
ok bash -c "! '$cli' kt matmul --sim rtl_bench --engine > /dev/null 2>&1"
ok bash -c "'$cli' kt matmul --sim rtl_bench --engine 2>&1 | grep -q 'preset rtl_bench has no host control-program engine'"
ok bash -c "'$cli' kt matmul --sim mg_2 --engine --card \"pipe:'$cli' kt serve --sim card\" 2>&1 | grep -q 'no control-program engine'"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
