#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CI's fuzzing time is shared by weight (fuzz/shares.txt), not equally: every libFuzzer target has
# a row, the split spends what equal shares would (SECONDS per target on average), and the
# targets that drive a simulator or a server get more of it than the parse-only ones, which with
# equal time took most of the executions. Generated seeds exist for the rknn layer's target so
# that it gets past context creation.
set -u
src=$2
cd "$src" || exit 1
fail=0
[ -f fuzz/shares.txt ] || { echo "fuzz/shares.txt is missing"; exit 1; }
for t in fuzz/fuzz_*.c; do
  name=$(basename "$t" .c)
  awk -v t="$name" '$1 == t && $2 > 0 { found = 1 } END { exit !found }' fuzz/shares.txt ||
    { echo "$name has no positive weight in fuzz/shares.txt"; fail=1; }
done
plan=$(bash fuzz/build.sh --plan 10) || { echo "fuzz/build.sh --plan failed"; exit 1; }
n=$(ls fuzz/fuzz_*.c | wc -l)
total=$(awk '{ s += $2 } END { print s }' <<< "$plan")
[ $((total - 10 * n)) -ge -"$n" ] && [ $((total - 10 * n)) -le "$n" ] ||
  { echo "the plan spends $total s, not about $((10 * n)) s"; fail=1; }
secs() { awk -v t="$1" '$1 == t { print $2 }' <<< "$plan"; }
for deep in fuzz_rknn_matmul fuzz_rk_runtime fuzz_kt_serve_daemon; do
  for parse in fuzz_kt_rv64_elf fuzz_kt_preset fuzz_rk_synth; do
    [ "$(secs "$deep")" -gt "$(secs "$parse")" ] ||
      { echo "$deep ($(secs "$deep") s) gets no more than $parse ($(secs "$parse") s)"; fail=1; }
  done
done
# the seeds: every matmul type, each header one the target turns into a context's shape
if command -v python3 >/dev/null; then
  tmp=$(mktemp -d)
  python3 fuzz/seeds_rknn_matmul.py "$tmp" >/dev/null || fail=1
  types=$(for f in "$tmp"/*; do od -An -tu1 -j4 -N1 "$f"; done | sort -un | tr -d ' ' | tr '\n' ' ')
  [ "$types" = "1 2 3 4 5 6 7 8 9 10 11 12 " ] || { echo "seeds cover types: $types"; fail=1; }
  rm -rf "$tmp"
fi
[ $fail = 0 ] && echo "fuzz shares: $n targets, $total s for 10 s each on average"
exit $fail
