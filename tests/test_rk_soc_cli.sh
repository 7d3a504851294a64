#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --soc on the commands: `rk info --soc` prints the row with each value's source; `rk exec`,
# `rk matmul`, `rk bench` and `rk ew` simulate the SoC they are given — RK3588 runs, RK3576
# (whose register encodings the facts do not describe) is refused as unsupported by the model,
# never run as if it were an RK3588; `rk plan` and `rk synth` follow its row and say that the
# program is written in RK3588's encoding; every --help says exactly that.
# Usage: test_rk_soc_cli.sh CLI SOURCE_DIR
set -u
cli=$1
fail=0
ok() { if "$@"; then :; else echo "FAILED: $*" >&2; fail=1; fi; }
has() { grep -q -- "$2" <<<"$1" || { echo "FAILED: output lacks '$2':" >&2; echo "$1" >&2; fail=1; }; }

out=$("$cli" rk info --soc rk3576 2>&1)
has "$out" "soc rk3576 (unvalidated"
has "$out" "cores            2   \[facts E.1"
has "$out" "hardware version unknown"
out=$("$cli" rk info --soc rk3588 --json)
has "$out" '"cores":3,"cbuf_banks":12,"bank_bytes":32768,"cbuf_entry_bytes":64'
has "$out" '"hw_version":1179210309' # 0x46495245, facts A.1
has "$out" '"clock_mhz":600,'
has "$out" '"timing":{"job_floor_us":54,"task_us":3,"dma_bytes_per_s":8.6e+09,"mac_efficiency":{"fp16":0.31,"int8":0.117,"int4":0.167}}'
out=$("$cli" rk info --soc rk3576 2>&1)
has "$out" "job floor        54 us   \[unvalidated: assumed equal to rk3588\]"
has "$out" "MAC efficiency   fp16 31%, int8 11.7%, int4 16.7%   \[unvalidated"
out=$("$cli" rk info --soc rk1808 2>&1); rc=$?
ok [ $rc -ne 0 ]
has "$out" "is not one of rk3588, rk3576"

out=$("$cli" rk exec --dtype fp16 -m 64 -k 64 -n 64 --soc rk3588 2>&1)
has "$out" "status: ok"
out=$("$cli" rk exec --dtype fp16 -m 64 -k 64 -n 64 --soc rk3576 2>&1); rc=$?
ok [ $rc -ne 0 ]
has "$out" "status: unsupported"
has "$out" "rk3576's register encodings are not described"
# rk bench and rk ew take --soc too: RK3588 runs, RK3576 is refused by the model, never run as an
# RK3588; a name outside the table is refused with the accepted names.
for cmd in "rk bench --dtype fp16 -m 64 -k 64 -n 64 --iters 2 --warmup 0 --json" \
    "rk ew --op add -m 4 -n 32 --check --json" "rk matmul --dtype fp16 -m 4 -k 32 -n 16 --check --json"; do
    out=$("$cli" $cmd --device sim --soc rk3588 2>&1)
    ok [ $? -eq 0 ]
    has "$out" '"npu_time":"modelled"'
    out=$("$cli" $cmd --device sim --soc rk3576 2>&1); rc=$?
    ok [ $rc -eq 1 ]
    has "$out" "warning: rk3576 is not validated"
    has "$out" "rk3576's register encodings are not described"
    out=$("$cli" $cmd --device sim --soc rk1808 2>&1); rc=$?
    ok [ $rc -eq 2 ]
    has "$out" "--soc 'rk1808' is not one of rk3588, rk3576"
    help=$("$cli" ${cmd%% -*} --help)
    has "$help" "--soc rk3588|rk3576"
    has "$help" "rk3576: encodings not described, programs are written in rk3588's and the simulator refuses to run them"
    [[ $help == *"the simulator models it too"* ]] && { echo "FAILED: ${cmd%% -*} --help claims the simulator models every row" >&2; fail=1; }
done
# planning and synthesis follow the row and run; they warn what the program is
for cmd in "rk plan" "rk synth"; do
    out=$("$cli" $cmd --dtype fp16 -m 4 -k 32 -n 16 --soc rk3576 2>&1 >/dev/null); rc=$?
    ok [ $rc -eq 0 ]
    has "$out" "warning: rk3576's register encodings are not described: programs are written in rk3588's, and the simulator refuses to run them"
    out=$("$cli" $cmd --dtype fp16 -m 4 -k 32 -n 16 --soc rk3588 2>&1 >/dev/null)
    ok [ -z "$out" ]
done
exit $fail
