#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The ONNX runner (python3 -m npukit.onnx) against ONNX's own tests from Debian's
# libonnx-testdata on the simulator behind both kernel interfaces (per operator: passed,
# unsupported with the reason, failed; any failure fails the test), a MobileNetV2-shaped network
# whose top-1 must equal the CPU run's (64x64 here; NPUKIT_ONNX_FULL=1 runs 224x224), and
# malformed models refused with one line naming what is wrong. Skips (77), saying why, without a
# Python 3 that has numpy and onnx (apt-get install python3-onnx) or without the test data.
set -u
cli=$1 src=$2
bin=$(cd "$(dirname "$cli")" && pwd)
lib=$bin/libnpukit.so
[ -e "$lib" ] || { echo "no $lib: build the shared library first" >&2; exit 1; }
py=
for cand in "${NPUKIT_PYTHON:-}" python3 /usr/bin/python3; do
  [ -n "$cand" ] || continue
  if "$cand" -c 'import numpy, onnx' >/dev/null 2>&1; then py=$cand; break; fi
done
[ -n "$py" ] || { echo "skipped: no Python 3 with numpy and onnx (apt-get install python3-onnx)"; exit 77; }
data=${NPUKIT_ONNX_DATA:-/usr/share/libonnx-testdata/data}
[ -d "$data/node" ] || { echo "skipped: no $data (apt-get install libonnx-testdata)"; exit 77; }
preload=$(ldd "$lib" | grep -oE '/[^ ]*lib(asan|ubsan)\.so[^ ]*' | tr '\n' ' ')
export NPUKIT_LIB=$lib PYTHONPATH=$src/python PYTHONDONTWRITEBYTECODE=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:quarantine_size_mb=4}
export NPUKIT_RKSIM_TIMEOUT_SCALE=0
run() { LD_PRELOAD="$preload" "$py" "$@"; }
fail=0

# The counts the SDP's operators and MaxPool must have (passed/unsupported/failed,
# docs/rk-onnx.md; MaxPool's dilations run as dense pools over sub-sampled phases): both
# kernels run SDP tasks (rocket's fixed interrupt mask is the DPU's, which an SDP task ends
# on); rocket never sees the PDP's interrupt, so there MaxPool is unsupported with that reason.
expect_both="Sigmoid=3/0/0 Tanh=3/0/0 HardSigmoid=4/0/0 HardSwish=1/0/0 Softmax=10/0/0"
expect_both="$expect_both LeakyRelu=5/0/0 Clip=11/0/0 Add=3/0/0 Mul=5/0/0"
# The integer operators on the int8 conv / matmul engines (asymmetric uint8 and int8 exact,
# bit for bit); the rescalings are host steps, counted unsupported with that reason.
expect_both="$expect_both ConvInteger=3/0/0 QLinearConv=1/0/0 MatMulInteger=1/0/0"
expect_both="$expect_both QLinearMatMul=2/0/0 QuantizeLinear=0/2/0 DequantizeLinear=0/2/0"
expect_both="$expect_both DynamicQuantizeLinear=0/3/0"
# 3-D convolutions and pools run on the 2-D engines (docs/rk-onnx.md#3-d-layers).
expect_both="$expect_both Conv=32/0/0 AveragePool=18/0/0"
expect_sim="MaxPool=20/3/0 GlobalMaxPool=2/0/0 $expect_both"
expect_rocket="MaxPool=0/23/0 GlobalMaxPool=0/2/0 $expect_both"
for dev in sim sim-rocket; do
  args=()
  if [ "$dev" = sim ]; then
    for e in $expect_sim; do args+=(--expect "$e"); done
  else
    for e in $expect_rocket; do args+=(--expect "$e"); done
  fi
  out=$(run -m npukit.onnx.suite --data "$data" --device "$dev" "${args[@]}") || fail=1
  echo "$out"
  for op in QuantizeLinear DequantizeLinear DynamicQuantizeLinear; do
    grep -E "^  $op +0 " <<< "$out" | grep -qF "a host step" ||
      { echo "FAILED: $dev: the $op row does not name the host step" >&2; fail=1; }
  done
  if [ "$dev" = sim-rocket ]; then
    grep -E "^  GlobalMaxPool +0 " <<< "$out" | grep -qF "waits only for the DPU interrupt" ||
      { echo "FAILED: sim-rocket's GlobalMaxPool row does not name the PDP's interrupt" >&2; fail=1; }
  fi
done

# Softmax of rows far from 0 (ONNX's test_softmax_large_number has 10000..10003, where fp16's
# spacing is 8): the runner subtracts each row's maximum in float32 before the fp16 conversion
# (a counted host step per row), so the NPU sees x - max. Against float64 on both kernels; a row
# past fp16's range and a spread past it (exp underflows to 0 either way) run too.
run - <<'PY' || fail=1
import numpy as np
from npukit import rk
from npukit.onnx import npu
from npukit.onnx.model import Node
x = np.array([[10000, 10001, 10002, 10003],
              [1e6 + 0.5, 1e6 - 1.5, 1e6 + 2.0, 1e6],
              [-70000, 70000, 69999, 69998],
              [0.25, -3.0, 1.5, 2.0]], np.float32)
x64 = x.astype(np.float64)
e = np.exp(x64 - x64.max(axis=1, keepdims=True))
want = e / e.sum(axis=1, keepdims=True)
bad = 0
for dev in ("sim", "sim-rocket"):
    with rk.Runtime(dev) as rt:
        got = npu.run_node(rt, Node("s", "Softmax", "", ["x"], ["y"], {}), [x], 13)[0]
        err = np.abs(got.astype(np.float64) - want)
        limit = 2.0 ** -10 * want + 2.0 ** -12 * want.max(axis=1, keepdims=True)
        steps = rt.last_stats.host_steps
        if not (err <= limit).all() or steps < 3 * x.shape[0]:
            print(f"FAILED: {dev}: softmax of large rows: max |err| {err.max():.3g}, "
                  f"host steps {steps} (at least {3 * x.shape[0]})")
            bad = 1
raise SystemExit(bad)
PY

# Dilated pooling (the PDP has none: dense pools over host sub-sampled phases) against the CPU
# reference: a stride the dilation does not divide (several phases), one it divides (one phase),
# padding an average excludes, a max kernel past the PDP's 16 (chained stages), 1-D.
run - <<'PY' || fail=1
import numpy as np
from npukit import rk
from npukit.onnx import cpu, npu
from npukit.onnx.model import Node
rng = np.random.default_rng(7)
cases = [("MaxPool", (1, 3, 11, 13), dict(kernel_shape=[3, 2], strides=[3, 1], dilations=[2, 3])),
         ("MaxPool", (2, 9, 20, 20), dict(kernel_shape=[3, 3], strides=[4, 4], dilations=[2, 2],
                                          pads=[1, 2, 3, 1])),
         ("AveragePool", (1, 4, 12, 15), dict(kernel_shape=[2, 3], strides=[1, 2],
                                              dilations=[3, 2], pads=[2, 1, 2, 1])),
         ("AveragePool", (1, 2, 9, 9), dict(kernel_shape=[3, 3], dilations=[2, 2], pads=[1, 1, 1, 1],
                                            count_include_pad=1)),
         ("MaxPool", (1, 1, 50, 44), dict(kernel_shape=[20, 18], strides=[2, 3], dilations=[2, 2])),
         ("MaxPool", (1, 2, 40), dict(kernel_shape=[4], strides=[3], dilations=[5], pads=[2, 2]))]
bad = 0
with rk.Runtime("sim") as rt:
    for op, shape, attrs in cases:
        x = rng.standard_normal(shape).astype(np.float16).astype(np.float32)
        node = Node("p", op, "", ["x"], ["y"], attrs)
        want = cpu.run(node, [x], 13)[0]
        got = npu.run_node(rt, node, [x], 13)[0]
        err = float(np.max(np.abs(got - want))) if got.shape == want.shape else np.inf
        limit = 0 if op == "MaxPool" else 2e-3
        if not err <= limit or rt.last_stats.host_steps < 3:
            print(f"FAILED: dilated {op} {shape} {attrs}: max |err| {err} (limit {limit}), "
                  f"host steps {rt.last_stats.host_steps}")
            bad = 1
raise SystemExit(bad)
PY

res=64
[ "${NPUKIT_ONNX_FULL:-0}" = 1 ] && res=224
out=$(run -m npukit.onnx.mobilenet --resolution "$res" --device sim) || { echo "$out"; fail=1; }
echo "$out" | tail -3

# Malformed models: one line naming the problem, exit 2, never a traceback.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'not a protobuf \x01\x02\x03' > "$work/garbage.onnx"
head -c 200 "$data/node/test_conv_with_strides_padding/model.onnx" > "$work/truncated.onnx"
run - "$work/dangling.onnx" <<'PY'
import sys, onnx
from onnx import helper, TensorProto
g = helper.make_graph([helper.make_node("Relu", ["nowhere"], ["y"])], "g",
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
onnx.save(helper.make_model(g), sys.argv[1])
PY
for f in garbage truncated dangling missing; do
  err=$(run -m npukit.onnx "$work/$f.onnx" 2>&1 >/dev/null); rc=$?
  lines=$(printf '%s\n' "$err" | wc -l)
  case $f in
    garbage|truncated) want="not an ONNX model" ;;
    dangling) want="input 'nowhere' is produced by no" ;;
    missing) want="No such file" ;;
  esac
  if [ "$rc" != 2 ] || [ "$lines" != 1 ] || ! grep -qF -- "$want" <<< "$err"; then
    echo "FAILED: $f.onnx: rc $rc, stderr: $err" >&2
    fail=1
  fi
done
exit $fail
