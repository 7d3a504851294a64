#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The transaction economy of `npukit kt saxpy` (counts, never time) at n = 100 000: 1563
# instructions in 13 rounds of two programs on the default preset. The host form writes 5
# dispatch registers per program and one staging block per round, and reads at most 3 status
# words per round (the first program's end before the second's seed, the second's end, the
# credit check); polls (reads that came too early) stay under 10% of all transactions. The engine
# form loads the round's command words once and then writes per round only the staging block and
# GO; a loaded program run again costs one GO and one CTRL check.
set -u
cli=$1
pass=0 fail=0
ok() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $*" >&2; fi; }
# jf NAME: the first integer value of "NAME" in $out
jf() { echo "$out" | grep -o "\"$1\":[0-9]*" | head -1 | sed 's/.*://'; }
rounds=13 programs=26

out=$("$cli" kt saxpy -n 100000 --json)
ok bash -c "echo '$out' | grep -q '\"ok\":true'"
ok test "$(jf programs)" = $programs
ok test "$(jf writes)" = $((5 * programs))
ok test "$(jf block_writes)" = $rounds
ok test "$(jf block_reads)" = 1
ok test "$(jf reads)" -le $((3 * rounds + 5))
ok test $(( $(jf polls) * 10 )) -lt "$(jf transactions)"
# every status read is a check or a poll, apart from the credit check per round and kt_open's
ok test $(( $(jf checks) + $(jf polls) )) -le $((2 * rounds + 3))
host=$(jf transactions)

out=$("$cli" kt saxpy -n 100000 --engine --reruns 4 --json)
ok bash -c "echo '$out' | grep -q '\"ok\":true'"
ok bash -c "echo '$out' | grep -q '\"rerunnable\":true'"
ok test "$(jf block_writes)" = $rounds
# per round one GO; the command words: the first round's program (15 commands: 47 words) and the
# words of the shorter last round that differ
ok test "$(jf engine_command_writes)" -le 60
ok test "$(jf writes)" = $(( rounds + 4 + $(jf engine_command_writes) ))
# per round: the CTRL check and the fault check (each program's NODE_STATUS, the credit)
ok test "$(jf reads)" -le $(( 4 * rounds + 4 + 3 + 5 ))
ok test "$(jf transactions)" -lt "$host"
# the loaded program run again: one GO and one CTRL check per run (2 programs each), and
# one fault check of 3 reads after the last
rr=$(echo "$out" | grep -o '"reruns":{[^}]*}')
ok test "$(echo "$rr" | grep -o '"transactions":[0-9]*' | sed 's/.*://')" = 8
ok test "$(echo "$rr" | grep -o '"writes":[0-9]*' | sed 's/.*://')" = 4
ok test "$(echo "$rr" | grep -o '"check_transactions":[0-9]*' | sed 's/.*://')" = 3

# Back-to-back CTRL reads (--wait-cycles 0) are polls, counted as such.
out=$("$cli" kt saxpy -n 100000 --engine --wait-cycles 0 --json)
ok test "$(jf polls)" -gt 1000
# A pre-strobe bitstream runs the core's absolute-count program: it cannot run again.
out=$("$cli" kt saxpy -n 9000 --engine --prestrobe --json)
ok bash -c "echo '$out' | grep -q '\"rerunnable\":false'"
ok bash -c "echo '$out' | grep -q '\"ok\":true'"
ok bash -c "'$cli' kt saxpy -n 1000 --engine --prestrobe --reruns 1 2>&1 | grep -q 'needs a bitstream that honours strobes'"
ok bash -c "'$cli' kt saxpy -n 1000 --reruns 1 2>&1 | grep -q -- '--reruns applies to --engine only'"
ok bash -c "'$cli' kt saxpy -n 1000 --engine --reruns 0 2>&1 | grep -q -- '--reruns=0 is outside 1..1000'"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
