#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `kt enum --verbose` and `kt status --verbose` read every unit's CU_STATUS, CU_COUNTERS and
# CU_DBG and decode CU_DBG per CU_TYPE. Against a served machine after `kt saxpy -n 1000` has run
# on it: the saxpy units' CU_DBG (cumulative elements) adds up to the 1000 elements, their retired
# counts to the 16 instructions of 64 (the last one 40), and every unit is idle with its whole
# instruction FIFO free. Loopback only, an ephemeral port.
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
card="tcp:127.0.0.1:$port"
ok "$cli" kt saxpy -n 1000 --card "$card" --json >/dev/null

check() {
    python3 - "$1" <<'PY'
import json, sys
units = json.load(open(sys.argv[1]))["unit_detail"]
sx = [u for u in units if u["type"] == "SX"]
ok = (len(sx) == 2 and sum(u["dbg"] for u in sx) == 1000
      and sum(u["retired"] for u in sx) == 16
      and all(u["dbg_decoded"].endswith("(cumulative)") for u in sx)
      and all(not u["busy"] and u["inst_space"] > 0 for u in units))
sys.exit(0 if ok else 1)
PY
}
"$cli" kt enum --verbose --card "$card" --json >"$tmp/enum.json"
ok check "$tmp/enum.json"
"$cli" kt status --verbose --card "$card" --json >"$tmp/status.json"
ok check "$tmp/status.json"
"$cli" kt status --verbose --card "$card" >"$tmp/status.txt"
ok grep -q '^(1,1) SX: idle, inst_space 8; retired [0-9]*, busy_cycles [0-9]*; elements=[0-9]* (cumulative)$' "$tmp/status.txt"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
