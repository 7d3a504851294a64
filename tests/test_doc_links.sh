#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every relative link in README.md, docs/*.md and python/README.md leads somewhere: the file
# exists and an #anchor names one of its headings (scripts/check_links.sh). The checker is first
# shown a page with known good and broken links, so a checker that passes everything fails here.
# Then the navigation: docs/README.md links every document, each document links back to it in
# its first line, README links the index, and README's Layout names every script in scripts/.
#   test_doc_links.sh CLI SRC_DIR   (the CLI is not used)
set -euo pipefail
src=${2:?usage: test_doc_links.sh CLI SRC_DIR}
check=$src/scripts/check_links.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/sub"
cat > "$tmp/sub/other.md" <<'MD'
# The `rk exec` command, step 2

## Options
## Options
MD
cat > "$tmp/page.md" <<'MD'
# Page
[ok](sub/other.md) [ok](sub/other.md#the-rk-exec-command-step-2) [ok](sub/other.md#options-1)
[ok](#page) [ok](sub/) [ok](https://example.com/x.md) `[code](nowhere.md)`
```
[fenced](nowhere.md)
```
[gone](sub/missing.md) [bad anchor](sub/other.md#options-2) [self](#nothing)
MD
out=$(bash "$check" "$tmp/page.md" 2>&1) && { echo "$out"; echo "test_doc_links: broken links passed" >&2; exit 1; }
for want in 'page.md:7: broken link (sub/missing.md): no such file' \
            'page.md:7: broken link (sub/other.md#options-2): no heading with anchor #options-2' \
            'page.md:7: broken link (#nothing): no heading with anchor #nothing' \
            '8 relative links, 3 broken'; do
  grep -qF "$want" <<< "$out" || { echo "$out"; echo "test_doc_links: missing: $want" >&2; exit 1; }
done
[ "$(grep -c 'broken link' <<< "$out")" = 3 ] || { echo "$out"; echo "test_doc_links: a good link was reported" >&2; exit 1; }
cd "$src"
bash "$check" README.md docs/*.md python/README.md
fail=0
for d in docs/*.md; do
  n=${d#docs/}
  [ "$n" = README.md ] && continue
  grep -qF "]($n)" docs/README.md || { echo "docs/README.md does not link $n" >&2; fail=1; }
  head -1 "$d" | grep -qF '](README.md)' || { echo "$d: its first line does not link the index" >&2; fail=1; }
done
grep -qF '](docs/README.md)' README.md || { echo "README.md does not link docs/README.md" >&2; fail=1; }
layout=$(awk '/^## Layout/ {on = 1; next} /^## / {on = 0} on' README.md)
for s in scripts/*.sh; do
  grep -qw "${s#scripts/}" <<< "$layout" || { echo "README's Layout does not name $s" >&2; fail=1; }
done
[ $fail = 0 ] && echo "test_doc_links: the index, its back-links and README's script list are complete"
exit $fail
