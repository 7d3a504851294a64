#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# examples/kt_enumerate (built beside the CLI under examples/): on the simulator of a preset, and
# on the same card served by `npukit kt serve` over a pipe, it lists the same units; a bad spec is
# refused with the library's message and a failure status.
# Usage: test_kt_example_cli.sh CLI SOURCE_DIR
set -u
cli=$1
ex=$(dirname "$cli")/examples/kt_enumerate
[[ -x $ex ]] || { echo "kt_enumerate not built ($ex)"; exit 77; }
fail=0
check() { if "$@"; then :; else echo "FAILED: $*" >&2; fail=1; fi; }

sim=$("$ex" sim:card) || { echo "FAILED: kt_enumerate sim:card" >&2; fail=1; }
pipe=$("$ex" "pipe:'$cli' kt serve --sim card" card) ||
    { echo "FAILED: kt_enumerate over a pipe" >&2; fail=1; }
check grep -q '^simulator, board card:' <<<"$sim"
check grep -q '^line protocol (pipe), board card:' <<<"$pipe"
check grep -q '(2,2) TU version 4, 512 instruction slots' <<<"$sim"
# The same units either way (the first line names the machine).
check diff <(tail -n +2 <<<"$sim") <(tail -n +2 <<<"$pipe")
check bash -c "'$ex' bogus:1 2>&1 | grep -q \"machine spec 'bogus:1': use pipe:\""
check bash -c "! '$ex' bogus:1 >/dev/null 2>&1"
exit $fail
