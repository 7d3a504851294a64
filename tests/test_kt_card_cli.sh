#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every kt command over --card: the driver reaches `npukit kt serve` through a real pipe, a
# loopback TCP socket (line protocol) and the card daemon protocol, and must print the same
# results and spend the same transactions and bytes as on the simulator in-process (blocks stay
# under the line protocol's 2048 bytes, so no command splits differently). Servers are started
# and stopped here, on ephemeral loopback ports; every wait is bounded.
set -u
cli=$1
pass=0 fail=0
ok() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $*" >&2; fi; }

tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT

# start PROTOCOL NAME [ARGS]: a server on 127.0.0.1:0; its address in $tmp/NAME.addr
start() {
  timeout 300 "$cli" kt serve --protocol "$1" --listen 127.0.0.1:0 "${@:3}" >"$tmp/$2.out" 2>"$tmp/$2.err" &
  pids+=($!)
  for _ in $(seq 200); do
    grep -q '^listening on' "$tmp/$2.out" 2>/dev/null && break
    sleep 0.05
  done
  sed -n 's/^listening on \([^ ]*\).*/\1/p' "$tmp/$2.out" >"$tmp/$2.addr"
}
start line line
start daemon daemon
line_addr=$(cat "$tmp/line.addr")
daemon_addr=$(cat "$tmp/daemon.addr")
ok test -n "$line_addr"
ok test -n "$daemon_addr"

# field NAME < json: the first value of "NAME"
field() { grep -o "\"$1\":[^,}]*" | head -1 | sed 's/^[^:]*://'; }

"$cli" kt move fill --words 4 --emit >"$tmp/prog.txt"
commands=(
  "kt enum --json"
  "kt status --json"
  "kt saxpy -n 500 --json"
  "kt move copy --json"
  "kt move gather --indices 3,1,2 --json"
  "kt prog $tmp/prog.txt --json"
  "kt saxpy -n 300 --engine --json"
)
pipe="pipe:'$cli' kt serve"
for c in "${commands[@]}"; do
  # shellcheck disable=SC2086
  direct=$("$cli" $c 2>&1)
  ok test "$(echo "$direct" | field transactions)" -gt 0
  for card in "$pipe" "tcp:$line_addr" "daemon:$daemon_addr"; do
    # shellcheck disable=SC2086
    got=$("$cli" $c --card "$card" 2>&1)
    fields="transactions bytes reads writes block_reads block_writes ok units mismatches mismatched_words"
    # A saxpy (either form) paces its waits by letting the machine run: the simulator steps, a
    # line peer advances, but a daemon's client sleeps while the card runs on its own — and a
    # served simulator's clock moves only with operations, so there the status reads (and so the
    # transaction and byte totals) differ; everything written must not.
    case "$card:$c" in daemon:*"kt saxpy -n "*) fields="writes block_reads block_writes ok units mismatches";; esac
    for f in $fields; do
      want=$(echo "$direct" | field $f)
      have=$(echo "$got" | field $f)
      [ "$want" = "$have" ] || { echo "$c --card $card: $f $have, want $want" >&2; echo "$got" >&2; }
      ok test "$want" = "$have"
    done
    # A fresh machine behind the pipe runs the same cycles as the simulator in-process.
    if [ "$card" = "$pipe" ]; then
      ok test "$(echo "$direct" | field cycles)" = "$(echo "$got" | field cycles)"
    fi
  done
done

# kt serve as a bridge: the daemon protocol in front of a line-protocol machine on a pipe.
start daemon bridge --card "pipe:'$cli' kt serve"
bridge_addr=$(cat "$tmp/bridge.addr")
want=$("$cli" kt saxpy -n 200 --json | field writes)
ok test "$("$cli" kt saxpy -n 200 --json --card "daemon:$bridge_addr" | field writes)" = "$want"
ok bash -c "'$cli' kt saxpy -n 200 --json --card 'daemon:$bridge_addr' | grep -q '\"ok\":true'"

# The text forms name the machine.
ok bash -c "'$cli' kt enum --card 'tcp:$line_addr' | grep -q 'line protocol (tcp)'"
ok bash -c "'$cli' kt saxpy -n 64 --card 'daemon:$daemon_addr' | grep -q 'check: ok'"
# The backdoor: the operands go through BR/BW and the result is the same.
ok bash -c "'$cli' kt saxpy -n 1000 --card \"$pipe\" --backdoor | grep -q 'check: ok'"
ok bash -c "'$cli' kt saxpy -n 64 --card 'daemon:$daemon_addr' --backdoor 2>&1 | grep -q 'needs a line-protocol'"
# Board options: a control window where nothing answers is refused by kt_open, named.
ok bash -c "'$cli' kt enum --card 'tcp:$line_addr' --ctrl-base 0x800000 2>&1 | grep -q 'R 800010.*no slave answers at 0x800010'"
ok bash -c "'$cli' kt enum --sim card --ctrl-base 0x800000 --card \"pipe:'$cli' kt serve --sim card\" | grep -q '4 units'"
# Peers that are not there, die, or never speak: errors, never hangs.
ok bash -c "'$cli' kt enum --card bogus:1 2>&1 | grep -q 'use pipe:'"
ok bash -c "'$cli' kt enum --card 'pipe:echo READY; exit 4' 2>&1 | grep -q 'exited with status 4'"
ok bash -c "timeout 20 '$cli' kt enum --card 'pipe:sleep 30' --timeout-ms 300 2>&1 | grep -q 'within 300 ms'"
ok bash -c "'$cli' kt enum --card 'pipe:echo READY; read c; echo E bus error; sleep 5' --timeout-ms 2000 2>&1 | grep -q 'E bus error'"
ok bash -c "'$cli' kt prog $tmp/prog.txt --engine --card 'pipe:echo READY; sleep 5' 2>&1 | grep -q 'no control-program engine'"
ok bash -c "'$cli' kt enum --card daemon:127.0.0.1:1 2>&1 | grep -q 'cannot connect'"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
