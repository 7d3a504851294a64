#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Debian packages of scripts/debs.sh, checked: lintian over every .deb (each tag it still
# reports is explained in docs/packaging.md; an error not listed there fails), then the amd64
# packages unpacked into an empty root (dpkg -x), where examples/ are built against them with
# find_package and pkg-config and run, as scripts/check_install.sh does for an install.
#   bash scripts/check_debs.sh [DEBS_DIR]   (default build/debs)
set -euo pipefail
cd "$(dirname "$0")/.."
debs=${1:-build/debs}
ls "$debs"/*.deb > /dev/null
# The lintian errors the packages keep, and why, are in docs/packaging.md ("lintian").
allowed='bogus-mail-host|no-changelog'
if command -v lintian >/dev/null; then
  report=$(lintian --tag-display-limit 0 "$debs"/*.deb 2>&1 || true)
  echo "$report"
  bad=$(grep -E '^E: ' <<< "$report" | grep -Ev ": ($allowed)( |$)" || true)
  [ -z "$bad" ] || { echo "check_debs: lintian errors not explained in docs/packaging.md:" >&2; echo "$bad" >&2; exit 1; }
else
  echo "check_debs: lintian not installed: skipped"
fi
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
for d in "$debs"/*_amd64.deb; do dpkg -x "$d" "$root"; done
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
# a manual that man renders
man -l "$root/usr/share/man/man1/npukit.1.gz" > /dev/null 2>&1 || { echo "check_debs: npukit.1" >&2; exit 1; }
NPUKIT_CHECK_ROOT=$root/usr NPUKIT_CHECK_LIBDIR=lib/$triplet bash scripts/check_install.sh
echo "check_debs: $(ls "$debs"/*.deb | wc -l) packages; the amd64 ones unpacked and used"
