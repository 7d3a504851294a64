#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Figures the documentation states are the program's, not copies. First, sentences: each row
# below is a sentence pattern in a docs file and the command whose JSON "transactions" count it
# must equal. Then every transcript in a docs code block.
set -u
cli=$1 src=$2
tmpd=$(mktemp -d)
trap 'rm -rf "$tmpd"' EXIT
pass=0 fail=0
# doc file | the figure's pattern (sed -E, \1 the number) | the command
rows=(
  "docs/kt-driver.md|.*\`kt saxpy -n 1000\` costs ([0-9]+) control-plane transactions.*|kt saxpy -n 1000 --json"
  "docs/kt-driver.md|.*\`kt enum\` costs ([0-9]+) .*|kt enum --json"
)
for row in "${rows[@]}"; do
  IFS='|' read -r doc pat cmd <<< "$row"
  stated=$(tr '\n' ' ' < "$src/$doc" | sed -nE "s/$pat/\1/p")
  got=$($cli $cmd 2>/dev/null | grep -o '"transactions":[0-9]*' | head -1 | sed 's/.*://')
  if [ -n "$stated" ] && [ "$stated" = "$got" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAILED: $doc says '${stated:-(pattern not found)}' for 'npukit $cmd', the program counts ${got:-nothing}" >&2
  fi
done

# Transcripts: every `$ npukit ...` line in a docs code block is run, and the output printed
# under it must be the program's. Host and wall times are the reader's machine's, so each kind
# of transcript names the part of a line that is the program's own result (a filter run on both
# the documented and the real output). A transcript without a filter fails: none goes unchecked.
export NPUKIT_RKSIM_TIMEOUT_SCALE=0
# rk bench --submit all: the form, its submits per call and the modelled NPU time.
filter_forms() { awk '{print $1, $2, $3}'; }
# rk bench --epilogue: the modelled NPU figures (the first number after "NPU" and after "alone").
filter_npu() {
  awk '{ out = ""
         for (i = 1; i < NF; i++)
           if ($i == "NPU" || $i == "alone")
             for (j = i + 1; j <= NF; j++)
               if ($j ~ /^[0-9.]+[,;]?$/) { sub(/[,;]$/, "", $j); out = out " " $j; break }
         if (out != "") print out }'
}
filter_for() {
  case "$1" in
    *"--submit all"*) echo filter_forms ;;
    *"--epilogue"*) echo filter_npu ;;
    *) echo "" ;;
  esac
}
for doc in "$src"/README.md "$src"/docs/*.md; do
  # one file per transcript: the command on its first line, then its documented output
  awk -v dir="$tmpd" '
    function close_t() { if (f != "") close(f); f = "" }
    /^ *```/ { inblock = !inblock; close_t(); next }
    inblock && /^ *\$ npukit / { close_t(); f = sprintf("%s/t.%03d", dir, ++n)
                                 sub(/^ *\$ npukit /, ""); print > f; next }
    inblock && f != "" { sub(/^  /, ""); print > f }' "$doc"
  for t in "$tmpd"/t.*; do
    [ -e "$t" ] || continue
    cmd=$(head -1 "$t")
    tail -n +2 "$t" > "$tmpd/doc_out"
    f=$(filter_for "$cmd")
    if [ -z "$f" ]; then
      fail=$((fail + 1))
      echo "FAILED: ${doc#$src/}: no filter says which part of 'npukit $cmd' to check" >&2
      continue
    fi
    # shellcheck disable=SC2086 # the documented command, split as a shell would
    eval "$cli $cmd" > "$tmpd/out" 2>&1
    $f < "$tmpd/doc_out" > "$tmpd/want"
    # the documented lines are a selection of the output: each must appear, in order
    $f < "$tmpd/out" > "$tmpd/got"
    if awk 'NR == FNR { want[++n] = $0; next } k < n && $0 == want[k + 1] { k++ } END { exit k < n }' \
        "$tmpd/want" "$tmpd/got"; then
      pass=$((pass + 1))
    else
      fail=$((fail + 1))
      echo "FAILED: ${doc#$src/}: the output under 'npukit $cmd' is not the program's:" >&2
      diff "$tmpd/want" "$tmpd/got" | head -20 >&2
    fi
  done
  rm -f "$tmpd"/t.*
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
