#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Decode speed of llama.cpp's llama-completion on a generated Q4_0 model (scripts/tiny_llama_gguf.py,
# 1024 wide, 2816 feed-forward, 4 layers: 50 M parameters), the CPU alone against the CPU with
# the npukit device loaded under NPUKIT_GGML_OFFLOAD=auto (and optionally another build of the
# backend, e.g. one that takes every weight), in the same run: the arms alternate, each RUNS
# times, and the medians (and the best) of llama-completion's own decode rate ("eval time",
# tokens per second) are printed with their ratio to the CPU alone. Each arm also reports where
# llama.cpp put the weights (its CPU_REPACK buffer, or the device's) and how many matmuls the
# device ran (the prompt's, when the cost model sends them; decode stays on the CPU).
# THREADS (default 2) sets llama.cpp's threads (1 is steadier on a loaded machine).
#   usage: llama_decode.sh LLAMA-BIN LLAMA-SRC PLUGIN [RUNS [OTHER-PLUGIN]]
set -u
bin=$1 src=$2 plugin=$3 runs=${4:-5} other=${5:-}
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$bin/llama-completion" ] || { echo "SKIP: $bin/llama-completion not built"; exit 77; }
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
model=$work/decode-q4_0.gguf
PYTHONPATH=$src/gguf-py "$py" "$here/../scripts/tiny_llama_gguf.py" "$model" --type q4_0 \
  --embd 1024 --ff 2816 --layers 4 > /dev/null || { echo "FAIL: could not write the model"; exit 1; }

args=(-m "$model" -t "${THREADS:-2}" --no-warmup -p "The quick brown fox jumps over the lazy dog." -n 32
      --temp 0 -c 256 -no-cnv -v)
arms=(cpu auto)
[ -n "$other" ] && arms+=(other)
one() { # one ARM RUN: the decode rate into ARM.rates, the placement into ARM.where
  local arm=$1 envs=(env -u GGML_BACKEND_PATH)
  case $arm in
    auto) envs=(env GGML_BACKEND_PATH="$plugin" NPUKIT_GGML_OFFLOAD=auto NPUKIT_GGML_VERBOSE=1) ;;
    other) envs=(env GGML_BACKEND_PATH="$other" NPUKIT_GGML_OFFLOAD=auto NPUKIT_GGML_VERBOSE=1) ;;
  esac
  # llama.cpp's logger can lose its last lines at exit (scripts/llama_tools_test.sh): a run
  # whose decode rate was lost runs again, at most 5 times
  local attempt
  for attempt in 1 2 3 4 5; do
    "${envs[@]}" NPUKIT_GGML_DEVICE="${NPUKIT_GGML_DEVICE:-sim}" "$bin/llama-completion" "${args[@]}" \
      > /dev/null 2> "$work/$arm.err" || { echo "FAIL: $arm exited $?"; tail -5 "$work/$arm.err"; exit 1; }
    grep -q 'common_perf_print: *eval time' "$work/$arm.err" && break
  done
  grep 'common_perf_print: *eval time' "$work/$arm.err" |
    sed 's/.*, *\([0-9.]*\) tokens per second.*/\1/' >> "$work/$arm.rates"
  {
    grep -o '[A-Za-z0-9_]* model buffer size = *[0-9.]* MiB' "$work/$arm.err" | tr -s ' ' | sort -u | paste -sd ';'
    echo "$(grep -c 'ggml-npukit: .* tasks .* submits' "$work/$arm.err") device calls"
  } | paste -sd ';' > "$work/$arm.where"
}
for r in $(seq 1 "$runs"); do
  for arm in "${arms[@]}"; do one "$arm"; done
done
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# the best run too: on a loaded machine the runs spread widely, and the best is the least disturbed
best() { sort -g "$1" | tail -1; }
base=$(median "$work/cpu.rates") base_best=$(best "$work/cpu.rates")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
printf '%-6s %10s %8s %10s %8s  %s\n' arm 'median' ratio 'best' ratio 'tok/s; weights; device calls (last run)'
for arm in "${arms[@]}"; do
  m=$(median "$work/$arm.rates") b=$(best "$work/$arm.rates")
  printf '%-6s %10s %8s %10s %8s  %s\n' "$arm" "$m" "$(ratio "$m" "$base")" "$b" "$(ratio "$b" "$base_best")" \
    "$(cat "$work/$arm.where")"
done
echo "($runs runs per arm, alternating; decode rates: $(for arm in "${arms[@]}"; do echo -n "$arm [$(paste -sd ' ' "$work/$arm.rates")] "; done))"
