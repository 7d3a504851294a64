#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The rknn layer's messages and their levels (docs/logging.md), through a program of the
# compatible API (rknn_matmul_demo) whose rknn_matmul_create fails on a type that does not
# exist: the "E RKNN:" line by default and at RKNN_LOG_LEVEL=0; NPUKIT_LOG_LEVEL=none silences
# it unless RKNN_LOG_LEVEL speaks for the layer; a bad RKNN_LOG_LEVEL is refused by name.
cli=${1:?usage: test_rknn_log_level.sh NPUKIT}
demo=$(dirname "$cli")/rknn/rknn_matmul_demo
case $cli in *.emu) echo "test_rknn_log_level: a cross build's programs: SKIPPED"; exit 77 ;; esac
[ -x "$demo" ] || { echo "test_rknn_log_level: $demo not built: SKIPPED"; exit 77; }
fail=0
line='E RKNN: matmul type 99 is not a matmul type (1..12)'
check() { # check WANT_LINE(1/0) WANT_WARNING(1/0) ENV...
  local want=$1 warn=$2
  shift 2
  local err
  err=$(env "$@" "$demo" 99 4,32,16 2>&1 > /dev/null)
  if [ "$want" = 1 ] && ! grep -qxF "$line" <<< "$err"; then
    echo "FAIL: $*: no '$line' in: $err"; fail=1
  elif [ "$want" = 0 ] && grep -q 'RKNN:.*matmul type' <<< "$err"; then
    echo "FAIL: $*: printed although silenced: $err"; fail=1
  fi
  if [ "$warn" = 1 ] && ! grep -qF 'W RKNN: RKNN_LOG_LEVEL="loud" ignored: expected a number from 0' <<< "$err"; then
    echo "FAIL: $*: the bad RKNN_LOG_LEVEL is not named: $err"; fail=1
  fi
}
check 1 0 -u RKNN_LOG_LEVEL -u NPUKIT_LOG_LEVEL
check 1 0 -u NPUKIT_LOG_LEVEL RKNN_LOG_LEVEL=0
check 1 0 -u NPUKIT_LOG_LEVEL RKNN_LOG_LEVEL=5
check 0 0 -u RKNN_LOG_LEVEL NPUKIT_LOG_LEVEL=none
check 1 0 RKNN_LOG_LEVEL=0 NPUKIT_LOG_LEVEL=none
check 1 1 -u NPUKIT_LOG_LEVEL RKNN_LOG_LEVEL=loud
[ $fail = 0 ] && echo "test_rknn_log_level: ok"
exit $fail
