#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The no-hardware session in docs/kt-remote.md, run as written: its servers start in the
# background, its clients talk to them, every command succeeds. Each server binds port 0 in place
# of its documented port (a busy CI machine may hold that one, and a port found free can be taken
# before the bind) and the clients use the port it reports; the servers are stopped at the end.
set -u
cli=$1 src=$2
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done
  wait 2> /dev/null
  rm -rf "$work"
}
trap cleanup EXIT
block=$(awk '/<!-- test_kt_remote_doc runs the next block -->/ { armed = 1; next }
             armed && /^```/ { if (inblock) exit; inblock = 1; next }
             inblock' "$src/docs/kt-remote.md")
[ -n "$block" ] || { echo "docs/kt-remote.md: the marked session block is missing" >&2; exit 1; }
mkdir -p "$work/build"
ln -s "$cli" "$work/build/npukit"
cd "$work"

# Each server listens on port 0 (the system picks a free one, so nothing else can take it
# between a check and the bind) and its "listening on 127.0.0.1:PORT" line says which; the
# lines after it use that port wherever the documented one stood.
listening_port() { # file: up to 30 s for a server under the sanitizers on a loaded machine
  for _ in $(seq 300); do
    p=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$1")
    [ -n "$p" ] && { echo "$p"; return 0; }
    sleep 0.1
  done
  return 1
}
declare -A real=()
with_ports() {
  local l=$1 p
  for p in "${!real[@]}"; do l=$(sed -E "s/127\.0\.0\.1:$p\b/127.0.0.1:${real[$p]}/g" <<< "$l"); done
  printf '%s\n' "$l"
}

pass=0 fail=0 n=0
while IFS= read -r line; do
  [ -n "$line" ] || continue
  if [[ "$line" == *"&" ]]; then
    n=$((n + 1))
    doc=$(grep -o -- '--listen 127\.0\.0\.1:[0-9]*' <<< "$line" | cut -d: -f2)
    cmd=$(sed -E 's/(--listen 127\.0\.0\.1:)[0-9]+/\10/' <<< "${line%&}")
    bash -c "exec $cmd" > "server$n.out" 2> "server$n.err" < /dev/null &
    pids+=($!)
    if port=$(listening_port "server$n.out"); then
      real[$doc]=$port
      pass=$((pass + 1))
    else
      fail=$((fail + 1)); echo "FAILED: server never listened: $line" >&2; cat "server$n.err" >&2
    fi
  elif bash -c "$(with_ports "$line")" > out.txt 2> err.txt < /dev/null; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAILED (exit $?): $line" >&2
    head -5 err.txt out.txt >&2
  fi
done <<< "$block"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -ge 5 ]
