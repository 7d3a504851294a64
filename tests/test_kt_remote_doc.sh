#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The no-hardware session in docs/kt-remote.md, run as written: its servers start in the
# background, its clients talk to them, every command succeeds. The block's loopback ports are
# swapped for free ones (a busy CI machine may hold the documented ones), and each server is
# waited for until it listens; the servers are stopped at the end.
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

port_free() { ! (exec 3<> "/dev/tcp/127.0.0.1/$1") 2> /dev/null; }
wait_listening() { # port: up to 30 s for a server under the sanitizers on a loaded machine
  for _ in $(seq 300); do
    (exec 3<> "/dev/tcp/127.0.0.1/$1") 2> /dev/null && return 0
    sleep 0.1
  done
  return 1
}
# Every documented port gets a free one of its own.
for p in $(grep -o '127\.0\.0\.1:[0-9]*' <<< "$block" | sort -u | cut -d: -f2); do
  q=$((20000 + RANDOM % 40000))
  while ! port_free "$q"; do q=$((20000 + RANDOM % 40000)); done
  block=${block//127.0.0.1:$p/127.0.0.1:$q}
done

pass=0 fail=0
while IFS= read -r line; do
  [ -n "$line" ] || continue
  if [[ "$line" == *"&" ]]; then
    bash -c "exec ${line%&}" > /dev/null 2> server.err < /dev/null &
    pids+=($!)
    port=$(grep -o -- '--listen 127\.0\.0\.1:[0-9]*' <<< "$line" | cut -d: -f2)
    if wait_listening "$port"; then pass=$((pass + 1)); else
      fail=$((fail + 1)); echo "FAILED: server never listened: $line" >&2; cat server.err >&2
    fi
  elif bash -c "$line" > out.txt 2> err.txt < /dev/null; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAILED (exit $?): $line" >&2
    head -5 err.txt out.txt >&2
  fi
done <<< "$block"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -ge 5 ]
