#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every `build/npukit rk ...` command in the README's code blocks, pasted as written (in a
# scratch directory, with the CLI under test in place of build/npukit, and $tmp, where the
# README's examples put their files, naming that directory): none may fail to run,
# and each exits with the status its comment promises (1 only for "status: wedge" or "status:
# mismatch", which rk exec reports through its exit status, and for "exit 1").
set -u
cli=$1
src=$2
export NPUKIT_RKSIM_TIMEOUT_SCALE=0 NPUKIT_RK_DEVICE=sim
work=$(mktemp -d) tmp=$(mktemp -d)
export tmp
trap 'rm -rf "$work" "$tmp"' EXIT
mkdir -p "$work/build"
ln -s "$cli" "$work/build/npukit"
pass=0 fail=0
cmds=$(awk '/^```/{inblock=!inblock; next} inblock && /^build\/npukit rk /' "$src/README.md" "$src"/docs/*.md)
[ -n "$cmds" ] || { echo "no rk commands found in README.md or docs/" >&2; exit 1; }
cd "$work"
while IFS= read -r line; do
  want=0
  case "$line" in *"status: wedge"*|*"status: mismatch"*|*"exit 1"*) want=1 ;; esac
  bash -c "$line" > out.txt 2> err.txt < /dev/null
  rc=$?
  if [ "$rc" = "$want" ]; then
    pass=$((pass+1))
  else
    fail=$((fail+1))
    echo "FAILED (exit $rc, want $want): $line" >&2
    head -3 err.txt >&2
  fi
done <<< "$cmds"
echo "$pass passed, $fail failed"
# The examples write nothing into the directory they run in (the repository, for a reader).
ok_clean=$(ls "$work" | grep -v -x -e build -e out.txt -e err.txt)
[ -z "$ok_clean" ] || { echo "README examples wrote into the working directory: $ok_clean" >&2; fail=$((fail+1)); }
[ "$fail" = 0 ] && [ "$pass" -ge 12 ]
