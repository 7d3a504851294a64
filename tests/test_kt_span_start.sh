#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `kt enum` and `kt status` count the mesh cycles of their own span: from the machine's clock when
# the command opened it, not from 0. Against a served machine whose clock earlier clients have
# already moved (as a card counts from power-on), each reports the same cycles as on a fresh
# simulator, and its JSON names where the span started. Loopback only, an ephemeral port.
set -u
cli=$1
. "$(dirname "$0")/kt_serve_lib.sh"
pass=0 fail=0
ok() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $*" >&2; fi; }
tmp=$(mktemp -d)
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$tmp"' EXIT

"$cli" kt serve --listen 127.0.0.1:0 >"$tmp/serve.out" 2>"$tmp/serve.err" &
server=$!
port=$(kt_served_port "$tmp/serve.out")
ok test -n "$port"

# The number at KEY of a --json reply's "transport" object.
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["transport"][sys.argv[2]])' "$1" "$2"; }

for cmd in enum status; do
    "$cli" kt "$cmd" --json >"$tmp/fresh.json"
    want=$(field "$tmp/fresh.json" cycles)
    ok test -n "$want"
    ok test "$(field "$tmp/fresh.json" span_start_cycle)" = 0
    # twice against the served machine: its clock keeps what the first run spent
    "$cli" kt "$cmd" --card "tcp:127.0.0.1:$port" --json >"$tmp/first.json"
    "$cli" kt "$cmd" --card "tcp:127.0.0.1:$port" --json >"$tmp/second.json"
    start=$(field "$tmp/second.json" span_start_cycle)
    ok test -n "$start"
    ok test "${start:-0}" -gt 0
    ok test "$(field "$tmp/second.json" cycles)" = "$want"
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
