#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# libggml-npukit.so exports ggml's backend entry point and nothing else (cmake/ggml-npukit.map):
# the runtime it carries stays inside, so another libnpukit or librknnrt in the same process
# neither interposes it nor is interposed.
#   check_ggml_exports.sh NM LIBGGML_NPUKIT_SO
set -euo pipefail
nm=$1 lib=$2
syms=$("$nm" -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVWiu]$/ {print $3}' | sed 's/@.*//' |
  grep -Ev '^(_init|_fini|_edata|_end|__bss_start)$' | sort -u | tr '\n' ' ')
echo "check_ggml_exports: $lib exports: $syms"
[ "$syms" = "ggml_backend_init " ] || { echo "check_ggml_exports: expected ggml_backend_init only" >&2; exit 1; }
