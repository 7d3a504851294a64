#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Figures the documentation states are the program's, not copies: each row below is a sentence
# pattern in a docs file and the command whose JSON "transactions" count it must equal.
set -u
cli=$1 src=$2
pass=0 fail=0
# doc file | the figure's pattern (sed -E, \1 the number) | the command
rows=(
  "docs/kt-driver.md|.*\`kt saxpy -n 1000\` costs ([0-9]+) control-plane transactions.*|kt saxpy -n 1000 --json"
  "docs/kt-driver.md|.*\`kt enum\` costs ([0-9]+) .*|kt enum --json"
)
for row in "${rows[@]}"; do
  IFS='|' read -r doc pat cmd <<< "$row"
  stated=$(tr '\n' ' ' < "$src/$doc" | sed -nE "s/$pat/\1/p")
  got=$($cli $cmd 2>/dev/null | grep -o '"transactions": [0-9]*' | head -1 | sed 's/.*: //')
  if [ -n "$stated" ] && [ "$stated" = "$got" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAILED: $doc says '${stated:-(pattern not found)}' for 'npukit $cmd', the program counts ${got:-nothing}" >&2
  fi
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
