#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every function the vendor-compatible headers (include/rknn/) declare has a row, with its
# status, in README's vendor-API table and in docs/rknn.md's: a function added to the headers
# without a word on what it does fails here.
set -u
src=$2
funcs=$(grep -ohE '^[A-Za-z_][A-Za-z0-9_ ]*[ *](rknn_[A-Za-z0-9_]+)\(' "$src"/include/rknn/*.h |
        grep -oE 'rknn_[A-Za-z0-9_]+\($' | tr -d '(' | sort -u)
n=$(wc -w <<<"$funcs")
[ "$n" -ge 16 ] || { echo "only $n functions found in include/rknn/*.h" >&2; exit 1; }
fail=0
for doc in "$src/README.md" "$src/docs/rknn.md"; do
  for f in $funcs; do
    # a table row naming the function in its first cell (alone or in a list), with a status
    grep -qE "^\| ([^|]*, )?\`$f\`(, [^|]*)? \| (built|refused)" "$doc" ||
      { echo "$doc: no status row for $f" >&2; fail=1; }
  done
done
echo "$n vendor functions checked in README.md and docs/rknn.md"
exit $fail
