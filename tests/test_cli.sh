#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CLI's top level: help, version, and a clear error for an unknown command.
set -u
cli=$1
pass=0 fail=0
ok() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $*" >&2; fi; }
ok bash -c "'$cli' version | grep -q '^npukit '"
ok bash -c "'$cli' --help | grep -q 'rk'"
ok bash -c "! '$cli' nosuch 2>/dev/null"
ok bash -c "'$cli' nosuch 2>&1 | grep -q \"unknown command 'nosuch'\""
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
