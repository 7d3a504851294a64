#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The manual page generated from the CLI (scripts/manpage.sh) is valid roff (groff reports no
# warning) and has a section for every command `npukit --help` lists, with that command's
# options.
set -u
cli=$1 src=$2
command -v groff >/dev/null || { echo "SKIP: groff not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bash "$src/scripts/manpage.sh" "$cli" > "$tmp/npukit.1" || { echo "manpage.sh failed"; exit 1; }
warn=$(groff -man -Tutf8 -ww -z "$tmp/npukit.1" 2>&1)
[ -z "$warn" ] || { echo "groff: $warn"; exit 1; }
page=$(groff -man -Tascii "$tmp/npukit.1" 2>/dev/null | sed 's/.\x08//g')
fail=0
while read -r fam cmd; do
  grep -q "^   npukit $fam $cmd\$" <<< "$page" || { echo "no section for 'npukit $fam $cmd'"; fail=1; }
done < <("$cli" --help | awk '/^  [a-z]/ {fam=$1} /^    [a-z]/ {print fam, $1}')
# options as the parser prints them: one command's rows, checked in the page
for opt in --dtype --cores --submit --seed; do
  grep -q -- "^       $opt" <<< "$page" || { echo "option $opt missing"; fail=1; }
done
[ $fail = 0 ] && echo "manpage: $(grep -c '^\.SS' "$tmp/npukit.1") command sections, no groff warning"
exit $fail
