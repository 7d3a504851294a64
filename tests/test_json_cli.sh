#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every --json document the CLI prints on the simulators parses as strict JSON (python3's json
# module: no raw control characters, no bad escapes) and is one object. A program's own bytes
# (kt rv64 run echoes its --stdin: quotes, a backslash, control characters, ill-formed UTF-8 and
# a well-formed euro sign) come back as the string they were, each ill-formed byte as U+FFFD;
# a 64-bit exit word comes back exact.
cli=${1:?usage: test_json_cli.sh NPUKIT}
command -v python3 > /dev/null || { echo "test_json_cli: python3 not found: SKIPPED"; exit 77; }
fail=0
for cmd in "rk info --device sim --json" "rk info --soc rk3588 --json" \
    "rk matmul --device sim --dtype fp16 -m 4 -k 32 -n 16 --check --json" \
    "rk matmul --device sim --dtype int8 -m 3 -k 200 -n 20 --group 64 --scale-b 0.25 --check --json" \
    "rk bench --device sim --dtype fp16 -m 4 -k 64 -n 32 --iters 2 --warmup 0 --json" \
    "rk bench --device sim --dtype int8 -m 3 -k 300 -n 200 --submit all --iters 2 --warmup 1 --json" \
    "rk ew --device sim --op add -m 4 -n 32 --check --json" \
    "rk plan --dtype int8 -m 1 -k 10784 -n 4096 --cores 3 --json" \
    "kt enum --json" "kt status --json" "kt saxpy -n 100 --json" "kt move copy --json" \
    "kt link --json"; do
  # shellcheck disable=SC2086
  out=$("$cli" $cmd 2> /dev/null) || { echo "FAIL: npukit $cmd exited $?"; fail=1; continue; }
  if ! python3 -c 'import json, sys; d = json.loads(sys.stdin.read()); assert isinstance(d, dict)' <<< "$out"; then
    echo "FAIL: npukit $cmd: not one strict JSON object:"; echo "$out" | head -5; fail=1
  fi
done
rv=$(dirname "$cli")/rv64
if [ -e "$rv/hello.elf" ]; then
  out=$("$cli" kt rv64 run "$rv/hello.elf" --stdin $'q"uo\\te\x01\x1f\xff\xc3(\xe2\x82\xac' --json)
  python3 -c 'import json, sys
d = json.loads(sys.stdin.read())
want = "stdin: 15 bytes: q\"uo\\te\x01\x1f\ufffd\ufffd(\u20ac\n"
assert d["console"].endswith(want), repr(d["console"])' <<< "$out" ||
    { echo "FAIL: kt rv64 run: the console's bytes did not come back: $out"; fail=1; }
  out=$("$cli" kt rv64 run "$rv/exit_word.elf" --stdin ffffffffffffff00 --json)
  python3 -c 'import json, sys; assert json.loads(sys.stdin.read())["exit"] == 0xffffffffffffff00' <<< "$out" ||
    { echo "FAIL: kt rv64 run: the exit word is not exact: $out"; fail=1; }
else
  echo "test_json_cli: $rv/hello.elf not built (needs the RISC-V compiler): the program's bytes not tried"
fi
[ $fail = 0 ] && echo "test_json_cli: every document parses"
exit $fail
