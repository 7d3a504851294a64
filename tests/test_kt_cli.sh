#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `npukit kt`: enum, saxpy and status on the simulator presets, both generations, --json, errors.
set -u
cli=$1
pass=0 fail=0
ok() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $*" >&2; fi; }
ok bash -c "'$cli' kt enum | grep -q '^3 units'"
ok bash -c "'$cli' kt enum | grep -q '(1,2) *TU'"
ok bash -c "'$cli' kt enum --sim mesh2x2 --prestrobe | grep -q '^6 units'"
ok bash -c "'$cli' kt enum --json | grep -q '\"inst_depth\":8'"
ok bash -c "'$cli' kt enum | grep -q '^transport: [0-9]* transactions'"
ok bash -c "'$cli' kt saxpy -n 1000 | grep -q 'check: ok (0 of 1000'"
ok bash -c "'$cli' kt saxpy -n 300 --prestrobe --sim mesh2x2 | grep -q 'check: ok'"
ok bash -c "'$cli' kt saxpy -n 9000 --prestrobe --sim card --json | grep -q '\"ok\":true'"
ok bash -c "'$cli' kt status | grep -q 'mesh_ready'"
ok bash -c "'$cli' kt status --json | grep -q '\"node_status\":\['"
ok bash -c "'$cli' kt saxpy -n 100 | grep -q '^transport: [0-9]* transactions'"
ok bash -c "'$cli' kt status | grep -q '^transport: [0-9]* transactions'"
ok bash -c "'$cli' kt saxpy -n 100 --json | grep -q '\"transport\":{\"transactions\":[0-9]'"
ok bash -c "'$cli' kt status --json | grep -q '\"transport\":{\"transactions\":[0-9]'"
ok bash -c "'$cli' kt enum --json | grep -q '\"transport\":{\"transactions\":[0-9]'"
ok bash -c "'$cli' kt saxpy -n 0 2>&1 | grep -q -- '-n=0 is outside 1..1048576'"
ok bash -c "'$cli' kt saxpy -n 1048577 2>&1 | grep -q -- '-n=1048577 is outside 1..1048576'"
ok bash -c "'$cli' kt saxpy -n 99999999999999999999 2>&1 | grep -q -- '-n=99999999999999999999 is outside 1..1048576'"
ok bash -c "'$cli' kt move copy --meshes 99999999999999999999 2>&1 | grep -q -- '--meshes=99999999999999999999 is outside 1..4'"
# Past 262144 elements x is longer than 1 MiB: y must not be uploaded over its tail.
ok bash -c "'$cli' kt saxpy -n 262152 | grep -q 'check: ok (0 of 262152'"
ok bash -c "'$cli' kt saxpy -n 262152 --engine --wait-cycles 200 | grep -q 'check: ok (0 of 262152'"
# Every command's JSON has the same top-level traffic members.
ok bash -c "'$cli' kt saxpy -n 100 --json | grep -q '\"ok\":true,\"transactions\":[0-9]*,\"bytes\":[0-9]*,\"transport\"'"
ok bash -c "'$cli' kt enum --json | grep -q '\"transactions\":[0-9]*,\"bytes\":[0-9]*,\"transport\"'"
ok bash -c "'$cli' kt status --json | grep -q '\"transactions\":[0-9]*,\"bytes\":[0-9]*,\"transport\"'"
ok bash -c "'$cli' kt saxpy --sim nosuch 2>&1 | grep -q \"no mesh preset 'nosuch': the presets are\""
ok bash -c "'$cli' kt status --sim 2>&1 | grep -q 'option --sim needs a value'"
ok bash -c "'$cli' kt enum --sim nosuch 2>&1 | grep -q \"no mesh preset 'nosuch': the presets are\""
ok bash -c "'$cli' kt enum --bogus 2>&1 | grep -q \"unknown option '--bogus'\""
# Presets from a file: a staging page of one flit for two saxpy units (a round stages what fits,
# never an empty block), and a zero FIFO depth named by its key.
src=${2:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed 's/^stage_flits .*/stage_flits 1/' "$src/data/kt/default.mesh" > "$tmp/page1.mesh"
sed 's/^tx_depth .*/tx_depth 0/' "$src/data/kt/default.mesh" > "$tmp/tx0.mesh"
sed 's/inst_depth=8/inst_depth=0/' "$src/data/kt/default.mesh" > "$tmp/depth0.mesh"
sed 's/^name .*/name de"f/' "$src/data/kt/default.mesh" > "$tmp/quote.mesh"
sed "s/^name .*/name $(printf 'n%.0s' $(seq 40))/" "$src/data/kt/default.mesh" > "$tmp/long.mesh"
ok bash -c "'$cli' kt enum --json --sim '$tmp/quote.mesh' 2>&1 | grep -q \"name 'de\\\"f': letters, digits\""
ok bash -c "'$cli' kt enum --sim '$tmp/long.mesh' 2>&1 | grep -q 'name of 40 characters (limit 31)'"
sed 's/^dram_size .*/dram_size 0x400000/' "$src/data/kt/default.mesh" > "$tmp/small.mesh"
ok bash -c "'$cli' kt saxpy -n 300000 --sim '$tmp/small.mesh' 2>&1 | grep -q \"x and y end at 0x[0-9a-f]*, past the preset's DRAM of 0x400000 bytes\""
ok bash -c "'$cli' kt saxpy -n 1000 --sim '$tmp/small.mesh' | grep -q 'check: ok'"
ok bash -c "'$cli' kt saxpy -n 200 --sim '$tmp/page1.mesh' | grep -q 'check: ok (0 of 200'"
ok bash -c "'$cli' kt saxpy -n 200 --engine --sim '$tmp/page1.mesh' | grep -q 'check: ok (0 of 200'"
ok bash -c "'$cli' kt enum --sim '$tmp/tx0.mesh' 2>&1 | grep -q 'tx_depth=0 in preset .default.: a FIFO holds at least 1'"
ok bash -c "'$cli' kt status --sim '$tmp/depth0.mesh' 2>&1 | grep -q 'inst_depth=0, at least 1'"
# Hostile presets: a key given twice (the second used to win silently), a unit setting given
# twice, a NUL byte (it used to cut the preset short), a directory (it used to be an empty mesh).
{ cat "$src/data/kt/default.mesh"; echo 'tx_depth 4'; } > "$tmp/dup.mesh"
ok bash -c "'$cli' kt enum --sim '$tmp/dup.mesh' 2>&1 | grep -q \"dup.mesh:21: 'tx_depth' given again (first on line 7); each setting once\""
{ cat "$src/data/kt/default.mesh"; echo 'grid 1 2'; } > "$tmp/dupgrid.mesh"
ok bash -c "'$cli' kt enum --sim '$tmp/dupgrid.mesh' 2>&1 | grep -q \"'grid' given again (first on line 5)\""
sed 's/latency=24/latency=24 latency=2/' "$src/data/kt/default.mesh" > "$tmp/dupunit.mesh"
ok bash -c "'$cli' kt enum --sim '$tmp/dupunit.mesh' 2>&1 | grep -q \"unit setting 'latency' given twice\""
{ head -c 100 "$src/data/kt/default.mesh"; printf '\000'; tail -c +101 "$src/data/kt/default.mesh"; } > "$tmp/nul.mesh"
ok bash -c "! '$cli' kt enum --sim '$tmp/nul.mesh' >/dev/null 2>&1"
ok bash -c "'$cli' kt enum --sim '$tmp/nul.mesh' 2>&1 | grep -q 'a NUL byte at offset 100 (a preset is text)'"
mkdir "$tmp/dir.mesh"
ok bash -c "! '$cli' kt enum --sim '$tmp/dir.mesh' >/dev/null 2>&1"
ok bash -c "'$cli' kt enum --sim '$tmp/dir.mesh' 2>&1 | grep -q 'cannot read: Is a directory'"
# A unit that answers CU_CTRL after the reply budget is named, not taken for an empty
# coordinate; a larger budget finds it.
sed 's/latency=24/latency=24 reply_delay=3000/' "$src/data/kt/default.mesh" > "$tmp/slow.mesh"
ok bash -c "! '$cli' kt enum --sim '$tmp/slow.mesh' >/dev/null 2>&1"
ok bash -c "'$cli' kt enum --sim '$tmp/slow.mesh' 2>&1 | grep -q 'CU_CTRL replies from (1,2) arrived after the reply budget of 256 mailbox reads: those units were not enumerated; raise kt_options.reply_budget (--reply-budget N'"
ok bash -c "'$cli' kt enum --sim '$tmp/slow.mesh' --reply-budget 2000 | grep -q '^3 units'"
ok bash -c "'$cli' kt saxpy -n 100 --sim '$tmp/slow.mesh' --reply-budget 2000 | grep -q 'check: ok'"
# A host program with a NUL byte is refused where it is, not blamed on a cut-off line.
printf 'WR 0x10000020 5 IRQ_EN\n\000DONE 0\n' > "$tmp/nul.prog"
ok bash -c "'$cli' kt prog '$tmp/nul.prog' 2>&1 | grep -q 'a NUL byte at offset 23 (a program is text)'"
ok bash -c "timeout 20 '$cli' kt prog /dev/zero 2>&1 | grep -q 'zero. is larger than 16777216 bytes'"
# The cycles a host access is charged are a preset value, and --json says which.
ok bash -c "'$cli' kt saxpy -n 10 --json | grep -q '\"host_access_cycles\":8,'"
sed 's/^host_access_cycles .*/host_access_cycles 3/' "$src/data/kt/default.mesh" > "$tmp/access3.mesh"
ok bash -c "'$cli' kt enum --json --sim '$tmp/access3.mesh' | grep -q '\"host_access_cycles\":3,'"
ok bash -c "'$cli' kt move copy --json --sim '$tmp/access3.mesh' | grep -q '\"host_access_cycles\":3,'"
# One span for every figure: cycles and counts start together. kt enum spans the whole command
# (enumeration is the command); kt saxpy and kt move start after the machine is open and the
# operands are up, and on the RTL bench's preset (3 cycles an access, no access cheaper) the span's
# cycles cover at least its transactions' cost.
span_ok() { # FIELD_JSON: span_start_cycle condition, cycles >= 3 * transactions
  local j=$1 want=$2 st cy tr
  st=$(echo "$j" | grep -o '"span_start_cycle":[0-9]*' | sed 's/.*://')
  cy=$(echo "$j" | grep -o '"cycles":[0-9]*' | head -1 | sed 's/.*://')
  tr=$(echo "$j" | grep -o '"transactions":[0-9]*' | head -1 | sed 's/.*://')
  [ -n "$st" ] && [ -n "$cy" ] && [ "$cy" -ge $((3 * tr)) ] || return 1
  if [ "$want" = zero ]; then [ "$st" = 0 ]; else [ "$st" -gt 0 ]; fi
}
ok span_ok "$("$cli" kt enum --json --sim rtl_bench)" zero
ok span_ok "$("$cli" kt status --json --sim rtl_bench)" zero
ok span_ok "$("$cli" kt saxpy -n 1000 --json --sim rtl_bench)" after
ok span_ok "$("$cli" kt move copy --json --sim rtl_bench)" after
# The unit timing is a preset row over the calibrated defaults, and kt saxpy reports it.
{ cat "$src/data/kt/default.mesh"; echo 'timing saxpy read_wait=5 element=2'; } > "$tmp/slow.mesh"
ok bash -c "'$cli' kt saxpy -n 100 --json --sim '$tmp/slow.mesh' | grep -q '\"saxpy\":{\"setup\":[0-9]*,\"read_wait\":5,\"element\":2,'"
ok bash -c "'$cli' kt saxpy -n 100 --engine --json --sim '$tmp/slow.mesh' | grep -q '\"read_wait\":5,\"element\":2,'"
ok bash -c "'$cli' kt saxpy -n 100 --sim '$tmp/slow.mesh' | grep -q '^unit timing (cycles): saxpy setup [0-9]*, read_wait 5, element 2,'"
ok bash -c "'$cli' kt saxpy -n 100 --sim '$tmp/slow.mesh' | grep -q 'check: ok'"
echo "timing saxpy element=0" > "$tmp/bad_timing.mesh"
ok bash -c "'$cli' kt saxpy -n 100 --sim '$tmp/bad_timing.mesh' 2>&1 | grep -q 'bad_timing.mesh:1: element=0 outside 1..65536'"
# Transaction economy (counts, not time): at n = 100 000 (13 rounds of two programs) the host form
# writes exactly 5 dispatch registers per program and one staging block per round, and its waits
# pace themselves from the unit timing: polls (status reads that came too early) stay under 10%
# of all transactions, and each program costs few reads.
out=$("$cli" kt saxpy -n 100000 --json)
jf() { echo "$out" | grep -o "\"$1\":[0-9]*" | head -1 | sed 's/.*://'; }
ok test "$(jf writes)" = 130
ok test "$(jf block_writes)" = 13
ok test $(( $(jf polls) * 10 )) -lt "$(jf transactions)"
ok test "$(jf reads)" -le $(( 26 * 5 ))
# --poll-us is a fixed interval instead: the same work, more polls.
out2=$("$cli" kt saxpy -n 100000 --json --poll-us 1)
ok test "$(echo "$out2" | grep -o '"polls":[0-9]*' | head -1 | sed 's/.*://')" -gt "$(jf polls)"
ok bash -c "'$cli' kt saxpy -n 10 --poll-us 0 2>&1 | grep -q -- '--poll-us=0 is outside 1..60000000'"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
