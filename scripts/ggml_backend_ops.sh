#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs ggml's conformance suite (test-backend-ops, unmodified) on one backend device and one op,
# and prints what the backend claimed: per weight type (type_a) and activation type (type_b),
# the cases claimed (run and compared with the CPU backend) out of all the suite's cases, and
# the cases only the CPU reference declined (not run: there is nothing to compare with).
# Fails when the suite fails, or when the backend claimed nothing (a backend that does not load
# must not pass by declining).
# PATTERN (optional): only the cases whose parameters match it (test-backend-ops -p, a regex).
#   usage: scripts/ggml_backend_ops.sh TEST-BACKEND-OPS DEVICE OP [PATTERN]
set -uo pipefail
tbo=${1:?usage: ggml_backend_ops.sh TEST-BACKEND-OPS DEVICE OP [PATTERN]} dev=${2:?device} op=${3:?op}
filter=()
[ -n "${4:-}" ] && filter=(-p "$4")
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$SECONDS
"$tbo" -b "$dev" -o "$op" "${filter[@]}" > "$log" 2>&1
rc=$?
grep -E "Device description|tests passed|Backend $dev:" "$log" | sed 's/\x1b\[[0-9;]*m//g'
# one line per case: "  OP(type_a=..,type_b=..,...): OK | FAIL | not supported [..]"
# A failing case whose line another message broke into (a stderr line inside a stdout line) is
# not a table row: every line that says FAIL is shown, whatever it starts with.
sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -n 'FAIL' | grep -v "Backend $dev: FAIL" | head -20
sed 's/\x1b\[[0-9;]*m//g' "$log" | awk -v op="$op" -v dev="$dev" '
  index($0, "  " op "(") == 1 {
    ta = $0; sub(/.*type_a=/, "", ta); sub(/,.*/, "", ta)
    tb = $0; sub(/.*type_b=/, "", tb); sub(/,.*/, "", tb)
    key = ta " x " tb
    # an op without type_a: its one type (CONT: "type=f32"; CONV_2D: "type_kernel=f16")
    if ($0 !~ /type_a=/) {
      key = "-"
      if (match($0, /[(,]type(_kernel)?=[a-z0-9_]+/)) {
        key = substr($0, RSTART + 1, RLENGTH - 1); sub(/.*=/, "", key)
      }
    }
    total[key]++
    if ($0 ~ /not supported/) {
      # declined by the CPU reference alone: the suite cannot compare, whatever the backend says
      if ($0 !~ ("not supported \\[.*" dev)) cpu_only[key]++
      next
    }
    claimed[key]++
    if ($0 ~ /FAIL/) { failed[key]++; print "FAILED: " $0 }
  }
  END {
    printf "%-22s %9s %7s %6s %9s\n", op " type_a x type_b", "claimed", "total", "failed", "cpu_only"
    for (k in total) {
      c += claimed[k]; t += total[k]; f += failed[k]; o += cpu_only[k]
      printf "%-22s %9d %7d %6d %9d\n", k, claimed[k], total[k], failed[k], cpu_only[k] | "sort"
    }
    close("sort")
    printf "%-22s %9d %7d %6d %9d\n", "all", c, t, f, o
    if (c == 0) { print "the backend claimed no case"; exit 1 }
  }' || rc=1
# A case that missed the suite's error bound (an "ERR = x > bound" line) is run twice more. The
# suite draws fresh random operands on every run (std::random_device), and an fp16 product whose
# few outputs cancel (one output of 2048 terms summing near zero) can miss a relative bound on
# unlucky data about once in a hundred runs; a wrong result misses it on every draw. Anything else
# (a crash, a failure that is no bound) fails at once.
misses=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E "\] (ERR|NMSE) = [0-9.e+-]+ > [0-9.e+-]+ +$op\(" |
    sed -E "s/.* $op\((.*)\): FAIL.*/\1/")
failed_rows=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -cE "^  $op\(.*FAIL")
if [ "$rc" -ne 0 ] && [ -n "$misses" ] && grep -q "tests passed" "$log" &&
    [ "$(grep -c . <<<"$misses")" -eq "$failed_rows" ]; then
    rc=0
    while IFS= read -r params; do
        regex=$(sed 's/[][\.*^$()+?{}|]/\\&/g' <<<"$params")
        for again in 1 2; do
            if "$tbo" -b "$dev" -o "$op" -p "^$regex\$" > "$log" 2>&1 &&
                grep -q "1/1 tests passed" "$log"; then
                echo "bound missed once, passed on fresh operands (run $again of 2): $op($params)"
            else
                echo "FAILED again on fresh operands: $op($params)"
                rc=1
                break
            fi
        done
    done <<<"$misses"
fi
echo "test-backend-ops -b $dev -o $op${4:+ -p $4}: exit $rc in $((SECONDS - start)) s"
exit $rc
