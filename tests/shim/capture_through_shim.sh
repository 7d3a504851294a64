#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The capture library stacked over the simulator shim (capture first, the simulator behind
# it): a capture of npukit's own rk matmul decodes, and diffs equal to rk synth of the same
# task (the addresses taken from the capture), on both kernel interfaces; the program's own
# results are the same with and without the capture.
set -u
cli=$1 cap=$2 shim=$3
pass=0 fail=0
ok() { if "$@"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $*" >&2; fi; }
export NPUKIT_RKSIM_TIMEOUT_SCALE=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() { "$cli" rk matmul --device "$1" --dtype fp16 -m 4 -k 32 -n 16 --cores 1 --check --json; }
field() { grep -o "\"$1\":[^,}]*" <<<"$2"; }
for case in "/dev/dri/card1 rknpu" "/dev/accel/accel0 rocket"; do
  set -- $case
  dev=$1 kernel=$2 dir=$tmp/$kernel
  mkdir -p "$dir"
  plain=$(LD_PRELOAD="$shim" run "$dev")
  captured=$(NPUKIT_CAPTURE_DIR="$dir" NPUKIT_CAPTURE_BUFFERS=1 LD_PRELOAD="$cap:$shim" run "$dev")
  # what the program sees is unchanged
  for f in ok submits tasks mismatches; do
    ok test "$(field $f "$plain")" = "$(field $f "$captured")"
  done
  ok grep -q '"ok":true' <<<"$captured"
  # one file per submit (the warm-up and the real one) and an index line for each
  ok test -s "$dir/submit-0000.txt" -a -s "$dir/submit-0001.txt"
  ok test "$(wc -l < "$dir/index.txt")" = 2
  ok grep -q "^submit-0001.txt $kernel" "$dir/index.txt"
  ls "$dir"/submit-0001-buf-*.bin >/dev/null 2>&1
  ok test $? = 0
  "$cli" rk decode "$dir/submit-0001.txt" > "$dir/decoded.txt"
  ok test $? = 0
  addr() { awk -v r="$1" '$4 == r { v = $5 } END { print v }' "$dir/decoded.txt"; }
  a=$(addr CNA_FEATURE_DATA_ADDR) b=$(addr CNA_DCOMP_ADDR0) c=$(addr DPU_DST_BASE_ADDR)
  ok test -n "$a" -a -n "$b" -a -n "$c"
  "$cli" rk synth --kernel "$kernel" --dtype fp16 -m 4 -k 32 -n 16 --a "$a" --b "$b" --c "$c" \
    > "$dir/synth.u64"
  "$cli" rk diff "$dir/synth.u64" "$dir/submit-0001.txt" > "$dir/diff.txt"
  ok test $? = 0
  # a different task does differ
  "$cli" rk synth --kernel "$kernel" --dtype fp16 -m 8 -k 32 -n 16 --a "$a" --b "$b" --c "$c" \
    > "$dir/other.u64"
  "$cli" rk diff "$dir/other.u64" "$dir/submit-0001.txt" > /dev/null
  ok test $? = 1
done
# Without NPUKIT_CAPTURE_DIR the library records nothing and changes nothing.
out=$(cd "$tmp" && LD_PRELOAD="$cap:$shim" run /dev/dri/card1)
ok grep -q '"ok":true' <<<"$out"
ok test -z "$(find "$tmp" -maxdepth 1 -name 'submit-*')"
# A failing open is failed the same way (errno and all).
ok bash -c "LD_PRELOAD='$cap' '$cli' rk info --device /dev/dri/card7 2>&1 | grep -q 'No such file'"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
