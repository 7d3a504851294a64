#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The hazard table printed by `npukit rk exec --list-hazards` and the ones in
# docs/rk-simulator.md and README.md agree row by row: number, kernels and source.
set -u
cli=$1 src=$2
listed=$("$cli" rk exec --list-hazards) || { echo "--list-hazards failed" >&2; exit 1; }
fail=0
for doc in "$src/docs/rk-simulator.md" "$src/README.md"; do
  rows=0
  while IFS=$'\t' read -r id name kernels source scope; do
    rows=$((rows+1))
    [ -n "$name" ] && [ -n "$scope" ] || { echo "row $id: empty name or scope" >&2; fail=1; }
    line=$(grep -E "^\| $id \| " "$doc" | head -1)
    if [ -z "$line" ]; then echo "row $id missing from $doc" >&2; fail=1; continue; fi
    # columns: | # | hazard | kernels | source | ... (a literal \| in a cell is an escaped bar)
    cells=$(sed 's/\\|/\x01/g' <<<"$line")
    doc_kernels=$(awk -F' \\| ' '{print $3}' <<<"$cells" | tr '\001' '|')
    doc_source=$(awk -F' \\| ' '{print $4}' <<<"$cells" | sed 's/ |$//' | tr '\001' '|')
    if [ "$doc_kernels" != "$kernels" ]; then
      echo "$doc row $id: kernels '$doc_kernels', the table '$kernels'" >&2; fail=1
    fi
    if [ "$doc_source" != "$source" ]; then
      echo "$doc row $id: source '$doc_source', the table '$source'" >&2; fail=1
    fi
  done <<<"$listed"
  doc_rows=$(grep -cE '^\| [0-9]+ \| ' "$doc")
  [ "$rows" -ge 22 ] || { echo "only $rows rows listed" >&2; fail=1; }
  [ "$doc_rows" = "$rows" ] || { echo "$doc has $doc_rows numbered rows, the table $rows" >&2; fail=1; }
  echo "$rows hazard rows compared with $doc"
done
exit $fail
