#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `kt serve --trace FILE` runs until it is stopped, usually by a signal: stopped by SIGINT, SIGTERM
# or SIGHUP it still leaves a whole trace (valid JSON holding the served machine's events) and
# ends by that signal as it would without a trace. Loopback only, an ephemeral port; each wait is
# bounded.
set -u
cli=$1
. "$(dirname "$0")/kt_serve_lib.sh"
pass=0 fail=0
ok() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $*" >&2; fi; }
tmp=$(mktemp -d)
server=
trap '[ -n "$server" ] && kill -KILL "$server" 2>/dev/null; rm -rf "$tmp"' EXIT

valid_trace() {
    python3 - "$1" <<'PY'
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
spans = [e for e in events if e.get("ph") == "X"]
sys.exit(0 if spans else 1)  # the client's traffic is in it
PY
}

for sig in INT TERM HUP; do
    trace=$tmp/$sig.json
    # (a background job starts with SIGINT ignored: give the server the default back)
    env --default-signal=INT,TERM,HUP "$cli" kt serve --listen 127.0.0.1:0 --trace "$trace" \
        >"$tmp/$sig.out" 2>"$tmp/$sig.err" &
    server=$!
    port=$(kt_served_port "$tmp/$sig.out")
    ok test -n "$port"
    ok "$cli" kt enum --card "tcp:127.0.0.1:$port" --json >/dev/null
    kill -"$sig" "$server"
    status=0
    wait "$server" || status=$?
    server=
    ok test "$status" -eq $((128 + $(kill -l "$sig")))
    ok valid_trace "$trace"
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
