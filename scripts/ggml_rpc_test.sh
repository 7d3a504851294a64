#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ggml's RPC server hosting the npukit device: `ggml-rpc-server -d NPUKIT0` (llama.cpp's tool,
# with libggml-npukit.so loaded through GGML_BACKEND_PATH, NPUKIT_GGML_DEVICE=FRONT) on a
# loopback port, and the client (test_ggml_model --rpc) generating with it: the CPU's tokens.
# The server binds a port it is given (no port 0), so a free one is probed for and the start
# retried on another when the bind fails; the server is stopped by its process id.
#   usage: ggml_rpc_test.sh LLAMA-BIN-DIR CLIENT LIBGGML-NPUKIT FRONT
set -u
bin=$1 client=$2 plugin=$3 front=$4
server=$bin/ggml-rpc-server
[ -x "$server" ] || { echo "SKIP: $server not built"; exit 77; }
log=$(mktemp)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi
  rm -f "$log"
}
trap cleanup EXIT
port=
for attempt in 1 2 3 4 5 6 7 8; do
  try=$((20000 + (RANDOM * 7 + $$ + attempt * 131) % 40000))
  GGML_BACKEND_PATH=$plugin NPUKIT_GGML_DEVICE=$front NPUKIT_GGML_OFFLOAD=always \
    NPUKIT_GGML_VERBOSE=1 "$server" -d NPUKIT0 -H 127.0.0.1 -p "$try" > "$log" 2>&1 &
  pid=$!
  # listening, or gone (the port was taken): at most 30 s under load
  for _ in $(seq 300); do
    if ! kill -0 "$pid" 2>/dev/null; then break; fi
    if (exec 3<>"/dev/tcp/127.0.0.1/$try") 2>/dev/null; then port=$try; break; fi
    sleep 0.1
  done
  [ -n "$port" ] && break
  wait "$pid" 2>/dev/null
  pid=
  echo "port $try: the server did not start (attempt $attempt); retrying"
done
if [ -z "$port" ]; then
  echo "FAIL: ggml-rpc-server did not start on any port:"
  cat "$log"
  exit 1
fi
echo "ggml-rpc-server -d NPUKIT0 ($front) on 127.0.0.1:$port"
# the client: no npukit in its process, only the CPU and RPC backends of the llama.cpp build
env -u GGML_BACKEND_PATH "$client" "$bin" --rpc "127.0.0.1:$port"
status=$?
calls=$(grep -c 'ggml-npukit: .* tasks .* submits' "$log")
echo "the server's device: $calls verbose lines (runtime calls on the NPU)"
if [ "$calls" -eq 0 ]; then
  echo "FAIL: the server's device ran no matmul on the NPU"; status=1
fi
exit $status
