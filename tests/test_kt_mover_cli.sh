#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `npukit kt move` (every mode, cross-mesh, pre-strobe, refusals, --json) and
# `npukit kt saxpy --engine` (both forms print transactions and bytes).
set -u
cli=$1
pass=0 fail=0
ok() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $*" >&2; fi; }
ok bash -c "'$cli' kt move copy | grep -q 'check: ok (0 of 16 words'"
ok bash -c "'$cli' kt move fill --width 8 --value 0x7f --words 5 | grep -q 'check: ok'"
ok bash -c "'$cli' kt move fill --width 32 --value 0xdeadbeef | grep -q 'check: ok'"
ok bash -c "'$cli' kt move generate --seed 12345 --words 40 | grep -q 'check: ok'"
ok bash -c "'$cli' kt move gather --indices 9,2,2,7,0 --row-words 2 --pitch 96 | grep -q 'check: ok (0 of 10'"
ok bash -c "'$cli' kt move copy --sim mesh2x2 --words 100 | grep -q 'mover: 1 moves completed, fault 0 (none)'"
ok bash -c "'$cli' kt move copy --dst-mesh 1 --words 32 | grep -q 'mesh 1 (over the interlink'"
ok bash -c "'$cli' kt move generate --dst-mesh 3 | grep -q 'check: ok'"
ok bash -c "'$cli' kt move copy --json | grep -q '\"transactions\":[0-9]*,\"bytes\":[0-9]*'"
ok bash -c "'$cli' kt move fill --json | grep -q '\"ok\":true'"
ok bash -c "'$cli' kt move gather --engine --indices 4,4,1 | grep -q 'check: ok (0 of 3'"
ok bash -c "'$cli' kt move fill --engine --json | grep -q '\"form\":\"engine\"'"
ok bash -c "'$cli' kt move copy --engine --dst-mesh 1 2>&1 | grep -q 'runs a local move'"
# The converting move (mode 5): the occupant named on the source walker's header, each entry
# checked against the library's quantiser (tests/test_kt_mover_walkers.c holds it to the RTL).
ok bash -c "'$cli' kt move transform | grep -q 'slot 1 (MXFP7 quantiser), mode 0x0: 4 entries of 8 words in, 4 out'"
ok bash -c "'$cli' kt move transform | grep -q 'check: ok (0 of 16 words'"
ok bash -c "'$cli' kt move transform --xform-mode 1 --entries 100 --json | grep -q '\"entries\":100,\"xform_id\":1,\"occupant\":\"MXFP7 quantiser\",\"xform_mode\":1.*\"ok\":true'"
ok bash -c "'$cli' kt move transform --xform-id 0 --entries 5 | grep -q 'check: ok (0 of 5 words'"
ok bash -c "'$cli' kt move transform --dst-mesh 1 --entries 8 | grep -q 'check: ok (0 of 32 words'"
ok bash -c "'$cli' kt move transform --engine --xform-mode 1 | grep -q 'check: ok'"
ok bash -c "'$cli' kt move transform --emit | grep -q '^WR 0x10000810 0xa00000100000 mover_HDR$'"
ok bash -c "'$cli' kt move transform --src-dims 3:1024,8:32 --dst-dims 3:256 | grep -q 'check: ok (0 of 20 words'"
ok bash -c "'$cli' kt move transform --xform-id 2 2>&1 | grep -q 'transform slot 2 (XFORM_ID) holds no occupant'"
ok bash -c "'$cli' kt move transform --src-dims 12:32 2>&1 | grep -q 'the source walks 12 words, not a whole number of 8-word entries'"
ok bash -c "'$cli' kt move transform --src-dims 16:32 --dst-dims 3:128 2>&1 | grep -q 'feeds 2 entries but the destination walks 3'"
ok bash -c "'$cli' kt move transform --src-window 0:4 2>&1 | grep -q 'mover fault 7'"
ok bash -c "'$cli' kt move transform --words 4 2>&1 | grep -q 'it counts entries (--entries)'"
ok bash -c "'$cli' kt move copy --entries 4 2>&1 | grep -q 'it counts words (--words)'"
ok bash -c "'$cli' kt move transform --xform-id 16 2>&1 | grep -q -- '--xform-id=16 is outside 0..15'"
# Walkers of several dimensions and bound-axis windows: a transposed 4 x 3 matrix of words, its
# first source row padded with --value and its last destination column left alone.
ok bash -c "'$cli' kt move copy --src-dims 3:32,4:96 --dst-dims 3:128,4:32 | grep -q 'check: ok (0 of 12 words'"
ok bash -c "'$cli' kt move copy --src-dims 3:32,4:96:1:1 --src-window -1:3 --dst-dims 3:128:2:1,4:32 --dst-window 0:0,0:2 --value 0x1234 | grep -q 'check: ok (0 of 8 words'"
ok bash -c "'$cli' kt move fill --dst-dims 2:256,3:-32 --dst 0x20040 --width 8 --value 0x3c | grep -q 'check: ok (0 of 11 words'"
ok bash -c "'$cli' kt move generate --dst-dims 5:96:1:2 --dst-window 1:7 | grep -q 'check: ok (0 of 7 words'"
ok bash -c "'$cli' kt move gather --dst-dims 2:64,2:32 | grep -q 'check: ok (0 of 4 words'"
ok bash -c "'$cli' kt move copy --dst-dims 4:-32 --dst 0x40 2>&1 | grep -q 'element 3 at address -32 is outside the 40-bit space'"
ok bash -c "'$cli' kt move copy --dst-dims 4:-64 --dst 0x20 --dst-mesh 1 2>&1 | grep -q 'reaches 192 bytes below --dst 0x20, before offset 0'"
ok bash -c "'$cli' kt move copy --src-dims 3:32:4:1 2>&1 | grep -q \"dimension 0 '3:32:4:1': expected COUNT:STRIDE\""
ok bash -c "'$cli' kt move copy --src-dims 1:32,1:32,1:32,1:32,1:32,1:32,1:32 2>&1 | grep -q 'more than 6 dimensions'"
ok bash -c "'$cli' kt move copy --dst-window 1:2:3 2>&1 | grep -q \"dst-window '1:2:3': expected BASE:EXTENT\""
ok bash -c "'$cli' kt move fill --src-dims 4:32 2>&1 | grep -q -- '--src-dims does not apply to a fill move: it reads no source'"
ok bash -c "'$cli' kt move gather --src-window 0:1 2>&1 | grep -q 'reads rows by index from --src'"
ok bash -c "'$cli' kt move copy --dst-dims 300:32,300:9600 2>&1 | grep -q 'more than 65535 elements'"
ok bash -c "'$cli' kt move copy --src-dims 2000:32,600:64000 --dst-dims 2000:32,600:64000 2>&1 | grep -q 'visits 1200000 elements; this command checks at most 1048576'"
# The CTRL flags: bursts, not bytes. Coalescing off writes 2048 words as 2048 bursts, which the
# mover alone takes 2.7 times as long over in the RTL (tests/test_kt_mover_sweep.c holds the model
# to the RTL figures).
ok bash -c "'$cli' kt move copy --no-coalesce --burst-cap 16 | grep -q 'flags 0xa0: write coalescing off, bursts of at most 16 words'"
ok bash -c "'$cli' kt move copy --no-coalesce --words 300 | grep -q 'check: ok'"
ok bash -c "'$cli' kt move fill --burst-cap 1 --emit | grep -q '^WR 0x10000800 0x1280c mover_CTRL$'"
cyc() { "$cli" kt move copy --words 2048 "$@" --json | sed 's/.*"cycles":\([0-9]*\).*/\1/'; }
on=$(cyc) off=$(cyc --no-coalesce)
ok test "$((off * 10))" -gt "$((on * 22))"
ok bash -c "'$cli' kt move fill --burst-cap 3 2>&1 | grep -q \"burst-cap '3': the mover caps bursts at 1, 2, 4\""
# A move as program text, run by `kt prog` on the host and in the engine.
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.poll"' EXIT
"$cli" kt move fill --words 4 --emit > "$tmp"
ok grep -q '^WR 0x10000800 0x1080c mover_CTRL$' "$tmp"
ok bash -c "'$cli' kt prog '$tmp' | grep -q 'DONE code 0'"
ok bash -c "'$cli' kt prog '$tmp' --engine --json | grep -q '\"form\":\"engine\"'"
ok bash -c "printf 'WR 0x10000020 5 IRQ_EN\nPOLL 0x10000020 4 0xf IRQ_EN\nDONE 0\n' | '$cli' kt prog - --budget 20 2>&1 | grep -q 'last read 0x0000000000000005 after 20 reads'"
ok bash -c "printf 'JUMP 1\n' | '$cli' kt prog - 2>&1 | grep -q \"unknown command 'JUMP'\""
ok bash -c "printf 'WR 0x100000000 1\nDONE 0\n' | '$cli' kt prog - 2>&1 | grep -q 'no slave answers at 0x100000000+8 on the card.s host bus'"
ok bash -c "printf 'WR 0x100000000 1\nDONE 0\n' | '$cli' kt prog - --engine 2>&1 | grep -q 'beyond the engine.s 32-bit master'"
# A pre-strobe bitstream: the descriptor shares flits with CTRL and the move goes wrong.
ok bash -c "! '$cli' kt move copy --prestrobe >/dev/null 2>&1"
# Refused before anything is issued, with the value named.
ok bash -c "'$cli' kt move copy --src 0x10008 2>&1 | grep -q 'source walker base 0x10008 is not 32-byte aligned'"
ok bash -c "'$cli' kt move rotate 2>&1 | grep -q 'the mode is one of'"
ok bash -c "'$cli' kt move copy --width 12 2>&1 | grep -q 'width is 8, 16 or 32'"
ok bash -c "'$cli' kt move copy --bogus 2>&1 | grep -q \"unknown option '--bogus'\""
# Bad values are named with their limit, never an allocation failure or a silent exit.
ok bash -c "'$cli' kt move gather --indices '' 2>&1 | grep -q 'expected 1 to 256 comma-separated'"
ok bash -c "'$cli' kt move gather --indices 1,2, 2>&1 | grep -q \"indices '1,2,'\""
ok bash -c "'$cli' kt move gather --indices -1 2>&1 | grep -q \"indices '-1'\""
ok bash -c "'$cli' kt move gather --indices 99999999999 2>&1 | grep -q 'index 99999999999 exceeds the limit 4294967295'"
ok bash -c "'$cli' kt move gather --indices 4000000 2>&1 | grep -q 'larger than the 64 MiB'"
ok bash -c "'$cli' kt move gather --indices \$(seq -s, 0 256) 2>&1 | grep -q 'more than 256 indices'"
ok bash -c "'$cli' kt move copy --words 0 2>&1 | grep -q -- '--words=0 is outside 1..65535'"
ok bash -c "'$cli' kt move copy --width 2>&1 | grep -c . | grep -qx 1"
ok bash -c "'$cli' kt move copy --dst-mesh 3 --meshes 2 2>&1 | grep -q -- '--dst-mesh 3 is beyond a card of --meshes 2'"
ok bash -c "'$cli' kt move copy --src 0x10000000 2>&1 | grep -q -- '--src 0x10000000 + 512 bytes ends past the mesh.s DRAM of 0x10000000'"
ok bash -c "'$cli' kt move fill --dst 0xFFFFFF00 2>&1 | grep -q -- '--dst 0xffffff00 + 512 bytes ends past'"
ok bash -c "'$cli' kt move copy --src 0x20000 --dst 0x20020 --words 4 2>&1 | grep -q -- '--src 0x20000+128 overlaps --dst 0x20020+128'"
ok bash -c "'$cli' kt move gather --dst 0x30000 2>&1 | grep -q 'the index buffer 0x30000+32 overlaps --dst'"
ok bash -c "'$cli' kt move fill --width 8 --value 0x1ff 2>&1 | grep -q -- '--value 0x1ff does not fit a 8-bit element (max 0xff)'"
ok bash -c "'$cli' kt move fill --width 8 | grep -q 'check: ok'"
ok bash -c "'$cli' kt move copy --dst-mesh 1 --dst 0x10000 | grep -q 'check: ok'"
ok bash -c "'$cli' kt link --ring 0:1:2:3 2>&1 | grep -q \"ring '0:1:2:3': expected FROM:TO\""
ok bash -c "'$cli' kt link --ring 0:1: 2>&1 | grep -q \"ring '0:1:': expected\""
ok bash -c "'$cli' kt link --ring 0:1:256 2>&1 | grep -q 'tag 0..255'"
ok bash -c "'$cli' kt link \$(for i in \$(seq 17); do printf -- '--ring 0:1 '; done) 2>&1 | grep -q 'at most 16 --ring'"
ok bash -c "'$cli' kt prog /  2>&1 | grep -q \"cannot read '/'\""
# Fill and generate read no source, so the pre-strobe source-walker damage leaves them intact.
ok bash -c "'$cli' kt move fill --prestrobe | grep -q 'check: ok'"
ok bash -c "'$cli' kt move copy --sim card 2>&1 | grep -q 'mover fault 3 (AXI) on a copy move'"
# Its fault path frees what it allocated: under AddressSanitizer (the sanitized build ctest runs)
# the command exits 1 for the fault, not LeakSanitizer's 23, and reports no leak.
if grep -q __asan_init "$cli"; then
    ok bash -c "'$cli' kt move copy --sim card > /dev/null 2> '$tmp'; [ \$? = 1 ] && ! grep -q LeakSanitizer '$tmp'"
else
    echo "note: $cli is not built with AddressSanitizer; the leak check above runs in make test"
fi
# The interlink's state, read through each mesh's window; a forwarded doorbell.
ok bash -c "'$cli' kt link --meshes 3 --ring 0:2:7 | grep -q 'forwarded 1'"
ok bash -c "'$cli' kt link --meshes 3 --ring 0:2:7 | grep -q 'mesh 2: interlink 0x000000001422494c, mesh id 2'"
ok bash -c "'$cli' kt link --json --ring 1:0 | grep -q '\"received\":\[0,1,0,0\]'"
ok bash -c "'$cli' kt link --meshes 1 | grep -q 'no interlink'"
ok bash -c "'$cli' kt link --ring 0:3 2>&1 | grep -q 'beyond the card'"
# Runtime mesh ids and clearing, through the driver's kt_il_set_mesh_id and kt_il_clear.
ok bash -c "'$cli' kt link --mesh-id 1:2 --ring 0:2 | grep -q 'mesh 1: interlink 0x000000001422494c, mesh id 2'"
ok bash -c "'$cli' kt link --mesh-id 1:2 --ring 0:2 | grep -A1 '^mesh 1' | grep -q 'received from mesh 0..3: 1 0 0 0'"
ok bash -c "'$cli' kt link --mesh-id 1:2 --ring 0:1 2>&1 | grep -q 'no mesh has that id'"
ok bash -c "'$cli' kt link --ring 0:1 --clear | grep -A1 '^mesh 1' | grep -q 'received from mesh 0..3: 0 0 0 0'"
ok bash -c "'$cli' kt link --ring 0:1 | grep -A1 '^mesh 1' | grep -q 'received from mesh 0..3: 1 0 0 0'"
ok bash -c "'$cli' kt link --mesh-id 1:5 2>&1 | grep -q \"mesh-id '1:5': expected MESH:ID, both 0..3\""
ok bash -c "'$cli' kt link --mesh-id 2:1 2>&1 | grep -q 'mesh-id 2:1 names a mesh beyond the card.s 2'"
# The same saxpy, host form and engine form; both report transactions and bytes.
ok bash -c "'$cli' kt saxpy -n 1000 --json | grep -q '\"transactions\":[0-9]*,\"bytes\":[0-9]*'"
ok bash -c "'$cli' kt saxpy -n 1000 --engine --json | grep -q '\"transactions\":[0-9]*,\"bytes\":[0-9]*'"
ok bash -c "'$cli' kt saxpy -n 1000 --engine | grep -q 'check: ok (0 of 1000'"
ok bash -c "'$cli' kt saxpy -n 9000 --engine --prestrobe --wait-cycles 200 --json | grep -q '\"ok\":true'"
ok bash -c "'$cli' kt saxpy -n 300 --engine --sim mesh2x2 | grep -q 'check: ok'"
ok bash -c "! '$cli' kt saxpy -n 0 --engine 2>/dev/null"
# --poll-us: the host's waits (AUX_STAT on the host, CTRL for the engine form, a program's POLLs)
# let the machine run that long between two reads that found the wait not over: fewer reads.
pj() { echo "$1" | grep -o "\"$2\":[0-9]*" | head -1 | sed 's/.*://'; }
b2b=$("$cli" kt move copy --words 2048 --json)
paced=$("$cli" kt move copy --words 2048 --poll-us 10 --json)
ok bash -c "echo '$paced' | grep -q '\"ok\":true'"
ok test "$(pj "$paced" polls)" -lt "$(pj "$b2b" polls)"
b2b=$("$cli" kt move copy --words 2048 --engine --json)
paced=$("$cli" kt move copy --words 2048 --engine --poll-us 1 --json)
ok test "$(pj "$paced" transactions)" -lt "$(pj "$b2b" transactions)"
printf 'WR 0x10000020 5\nPOLL 0x10000020 5 0xF IRQ_EN\nDONE 3\n' >"$tmp.poll"
ok bash -c "'$cli' kt prog '$tmp.poll' --poll-us 1 --json | grep -q '\"code\":3'"
ok bash -c "'$cli' kt prog '$tmp.poll' --engine --poll-us 1 --json | grep -q '\"code\":3'"
ok bash -c "'$cli' kt move fill --poll-us 0 2>&1 | grep -q -- '--poll-us=0 is outside 1..60000000'"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
