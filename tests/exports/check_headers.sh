#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The installed header set is exactly the API entry points and what they include, transitively:
# a header listed as included that nothing includes is installed for no reason (or is an entry
# point not said to be one), and an include that reaches an uninstalled header breaks every
# program that includes the entry point.
#   check_headers.sh INCLUDE_NPUKIT_DIR ENTRY_HEADER... -- INCLUDED_HEADER...
set -euo pipefail
dir=$1
shift
entries=() included=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do entries+=("$1"); shift; done
[ $# -gt 0 ] && shift
included=("$@")
[ ${#entries[@]} -gt 0 ] || { echo "check_headers: no entry headers given" >&2; exit 1; }
declare -A seen
queue=("${entries[@]}")
while [ ${#queue[@]} -gt 0 ]; do
  h=${queue[0]}
  queue=("${queue[@]:1}")
  [ -z "${seen[$h]:-}" ] || continue
  seen[$h]=1
  [ -f "$dir/$h" ] || { echo "check_headers: $h is not in $dir" >&2; exit 1; }
  while read -r inc; do
    queue+=("$inc")
  done < <(sed -n 's|^[[:space:]]*#[[:space:]]*include[[:space:]]*"npukit/\([^"]*\)".*|\1|p' "$dir/$h")
done
reached=$(printf '%s\n' "${!seen[@]}" | sort)
listed=$(printf '%s\n' "${entries[@]}" "${included[@]}" | sort -u)
status=0
if extra=$(comm -13 <(echo "$reached") <(echo "$listed")) && [ -n "$extra" ]; then
  echo "check_headers: installed but reached from no entry point:" >&2
  echo "$extra" | sed 's/^/  /' >&2
  status=1
fi
if missing=$(comm -23 <(echo "$reached") <(echo "$listed")) && [ -n "$missing" ]; then
  echo "check_headers: included by an installed header but not installed:" >&2
  echo "$missing" | sed 's/^/  /' >&2
  status=1
fi
[ $status = 0 ] && echo "check_headers: ${#entries[@]} entry points reach the $(echo "$listed" | wc -l) installed headers"
exit $status
