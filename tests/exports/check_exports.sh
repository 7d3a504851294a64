#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The shared library's interface is its installed headers: every symbol libnpukit.so exports is
# declared with NPUKIT_API in one of them, and every such declaration is defined (exported).
#   check_exports.sh NM LIBNPUKIT_SO HEADER...
set -euo pipefail
nm=$1 lib=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Defined dynamic symbols (code, data, read-only data, weak); the linker's own are not the API.
"$nm" -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVWiu]$/ {print $3}' | sed 's/@.*//' |
  grep -Ev '^(_init|_fini|_edata|_end|__bss_start)$' |
  grep -v '^__odr_asan\.' | sort -u > "$tmp/exported"  # ASan's ODR indicators, not the API
# Declared: the identifier each NPUKIT_API declaration names (before its '(' for a function,
# before '[' or ';' for an object), across line breaks, comments and preprocessor lines aside.
perl -0777 -ne 's{/\*.*?\*/}{}gs; s{^\s*#.*$}{}mg;
  while (/\bNPUKIT_API\b([^;(]*)/g) { my $d = $1; $d =~ s/\[.*//s; print "$1\n" if $d =~ /(\w+)\s*$/ }' \
  "$@" | sort -u > "$tmp/declared"
[ -s "$tmp/declared" ] || { echo "check_exports: no NPUKIT_API declaration found in $*" >&2; exit 1; }
leaked=$(comm -23 "$tmp/exported" "$tmp/declared")
missing=$(comm -13 "$tmp/exported" "$tmp/declared")
status=0
if [ -n "$leaked" ]; then
  echo "check_exports: exported by $lib but declared in no installed header:" >&2
  echo "$leaked" | sed 's/^/  /' >&2
  status=1
fi
if [ -n "$missing" ]; then
  echo "check_exports: declared NPUKIT_API but not exported by $lib:" >&2
  echo "$missing" | sed 's/^/  /' >&2
  status=1
fi
[ $status = 0 ] && echo "check_exports: $(wc -l < "$tmp/declared") symbols, declared = exported"
exit $status
