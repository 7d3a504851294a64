#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# llama.cpp's own tools with the npukit device: a small generated LLaMA-architecture model
# (scripts/tiny_llama_gguf.py, seeded random weights, byte vocabulary) run by llama-completion
# (greedy, 24 tokens) and llama-perplexity (a fixed text), once on the CPU alone and once with
# every layer on NPUKIT0 (libggml-npukit.so through GGML_BACKEND_PATH, NPUKIT_GGML_DEVICE=FRONT,
# NPUKIT_GGML_OFFLOAD=always). Passes when the NPU run produces the CPU's text byte for byte, its
# perplexity is within 1 % of the CPU's, and the device really ran matmuls.
# Why 1 %: f16 weights are fp16 on both sides, but the NPU multiplies fp16 activations where
# ggml's CPU path keeps some f32, and the LUT activations are an approximation; quantised
# weights are int8 rows on the NPU (docs/ggml.md), which moves the perplexity a few tenths of a
# percent; the measured difference is printed.
#   usage: llama_tools_test.sh LLAMA-BIN-DIR LLAMA-SRC-DIR LIBGGML-NPUKIT FRONT [f16|q8_0|q4_0]
set -u
bin=$1 src=$2 plugin=$3 front=$4 type=${5:-f16}
here=$(cd "$(dirname "$0")" && pwd)
for tool in llama-completion llama-perplexity; do
  [ -x "$bin/$tool" ] || { echo "SKIP: $bin/$tool not built (scripts/llama_tree.sh builds it)"; exit 77; }
done
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
PYTHONPATH=$src/gguf-py "$py" -c 'import numpy, gguf' 2>/dev/null ||
  { echo "SKIP: numpy or $src/gguf-py missing (python3-numpy)"; exit 77; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
model=$work/tiny-$type.gguf
PYTHONPATH=$src/gguf-py "$py" "$here/tiny_llama_gguf.py" "$model" --type "$type" > /dev/null 2>&1 ||
  { echo "FAIL: could not write the model"; PYTHONPATH=$src/gguf-py "$py" "$here/tiny_llama_gguf.py" "$model" --type "$type"; exit 1; }
# the perplexity text: ~1 KiB of fixed English (bytes are tokens: 8 chunks of 128)
text=$work/text.txt
for i in $(seq 1 24); do
  echo "Line $i: the quick brown fox jumps over the lazy dog, and $((i * 37 % 101)) sheep count it."
done > "$text"

common=(-m "$model" -t 2 --no-warmup)
npu_env=(GGML_BACKEND_PATH="$plugin" NPUKIT_GGML_DEVICE="$front" NPUKIT_GGML_OFFLOAD=always
         NPUKIT_GGML_VERBOSE=1)
npu_args=(-ngl 99 -dev NPUKIT0)

run() { # run NAME TOOL ARGS...: stdout to NAME.out, stderr to NAME.err; CPU unless NAME is npu-*
  local name=$1 tool=$2; shift 2
  local envs=(env -u GGML_BACKEND_PATH)
  local extra=()
  case $name in
    npu-*) envs=(env "${npu_env[@]}"); extra=("${npu_args[@]}") ;;
    auto-*) envs=(env "${npu_env[@]}" NPUKIT_GGML_OFFLOAD=auto); extra=("${npu_args[@]}") ;;
  esac
  # llama.cpp's logger writes from a thread of its own and the tools exit without flushing it
  # (common/log.cpp says logs may be lost then): a generation whose text lacks its closing blank
  # line lost its tail (as much as all of it, seen here) and is run again, at most 5 times.
  local attempt
  for attempt in 1 2 3 4 5; do
    "${envs[@]}" "$bin/$tool" "${common[@]}" "$@" "${extra[@]}" \
      > "$work/$name.out" 2> "$work/$name.err" ||
      { echo "FAIL: $name ($tool) exited $?:"; tail -20 "$work/$name.err"; exit 1; }
    case $name in *-gen) ;; *) return 0 ;; esac
    [ "$(tail -c 2 "$work/$name.out" | od -An -c | tr -d ' ')" = '\n\n' ] && return 0
    echo "$name: the tool's output lost its tail at exit (attempt $attempt); running it again"
  done
  echo "FAIL: $name: 5 runs each lost the end of their output"; exit 1
}
gen=(-p "The quick brown fox" -n 24 --temp 0 -c 128 -no-cnv)
ppl=(-f "$text" -c 128 -b 128)
run cpu-gen llama-completion "${gen[@]}"
run npu-gen llama-completion "${gen[@]}"
run cpu-ppl llama-perplexity "${ppl[@]}"
run npu-ppl llama-perplexity "${ppl[@]}"

# where llama.cpp puts the weights (-v prints its buffers), the CPU alone and the device loaded
# under auto
place=(-p "The quick brown fox" -n 2 --temp 0 -c 128 -no-cnv -v)
run cpu-place llama-completion "${place[@]}"
run auto-place llama-completion "${place[@]}"

status=0
# The weights the CPU alone keeps repacked for its own kernels (its CPU_REPACK buffer, where its
# features repack the type) stay there with the device loaded: decode, which the cost policy
# leaves to the CPU, keeps the CPU's fast path.
repack_mib() { grep -o 'CPU_REPACK model buffer size = *[0-9.]*' "$work/$1.err" | grep -o '[0-9.]*$' | tail -1; }
cpu_repack=$(repack_mib cpu-place) auto_repack=$(repack_mib auto-place)
echo "CPU_REPACK model buffer: ${cpu_repack:-none} MiB on the CPU alone, ${auto_repack:-none} MiB with the device under auto"
[ "${cpu_repack:-none}" = "${auto_repack:-none}" ] ||
  { echo "FAIL: the device took weights the CPU keeps repacked"; status=1; }
calls=$(cat "$work/npu-gen.err" "$work/npu-ppl.err" | grep -c 'ggml-npukit: .* tasks .* submits')
echo "$front, $type: $calls matmuls on the NPU"
[ "$calls" -gt 0 ] || { echo "FAIL: the device ran no matmul"; status=1; }
# Only fp16 weights are compared token for token (each run's text whole, see run()): for a
# quantised type ggml's CPU path also quantises the activations (Q8_0 dot products), the NPU
# requantises the weights (int8 rows), and this random model's logits are close enough together
# that greedy picks diverge; its perplexity is compared instead.
if [ "$type" != f16 ]; then
  echo "llama-completion ($type): $(cmp "$work/cpu-gen.out" "$work/npu-gen.out" > /dev/null && echo the same text || echo texts differ, not compared) on the CPU and the NPU"
elif cmp -s "$work/cpu-gen.out" "$work/npu-gen.out"; then
  echo "llama-completion: the same text on the CPU and the NPU ($(wc -c < "$work/cpu-gen.out") bytes)"
else
  echo "FAIL: llama-completion's text differs:"
  od -c "$work/cpu-gen.out" | head; od -c "$work/npu-gen.out" | head
  status=1
fi
# llama-perplexity prints the running estimate after each chunk ([k]PPL); its tail can be lost
# the same way, so the last chunk both runs printed is compared (at least 10 of the 20).
chunks() { grep -o '\[[0-9]*\][0-9.]*' "$work/$1.out" | tr -d '[' | tr ']' ' '; }
last=$(join <(chunks cpu-ppl | sort -k1,1) <(chunks npu-ppl | sort -k1,1) | sort -n | tail -1)
read -r k p_cpu p_npu <<< "$last"
if [ -z "$last" ] || [ "$k" -lt 10 ]; then
  echo "FAIL: fewer than 10 perplexity chunks printed by both runs ('$last')"; tail -5 "$work/npu-ppl.err"; exit 1
fi
awk -v k="$k" -v c="$p_cpu" -v n="$p_npu" 'BEGIN {
  d = (n - c) / c; if (d < 0) d = -d
  printf "llama-perplexity after %d chunks: CPU %s, NPU %s, relative difference %.2e (limit 1e-2)\n", k, c, n, d
  exit d <= 0.01 ? 0 : 1 }' || { echo "FAIL: the perplexities differ by more than 1 %"; status=1; }
exit $status
