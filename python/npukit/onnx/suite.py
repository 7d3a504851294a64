# SPDX-License-Identifier: MIT
"""ONNX's own tests through the runner: every test of a libonnx-testdata tree (node and
pytorch-converted, each a model with inputs and expected outputs) whose operators are all ones
the runner knows, run on an NPU device with numpy for what the NPU does not take, the outputs
compared with the expected ones. Per target operator it counts passed (every node of it on the
NPU, outputs right), unsupported (a node of it on the CPU, the reason named) and failed (an
output wrong, whichever side computed it). python3 -m npukit.onnx.suite [--data DIR]
[--device sim] [--known-failure TEST]... [--expect OP=PASSED/UNSUPPORTED/FAILED]...; exit 1 on
a failure not named by --known-failure, a named one that passes, or counts other than
--expect's."""
from __future__ import annotations

import argparse
import collections
import glob
import os
import sys

import numpy as np

from .. import rk
from .cpu import CPU_OPS
from .errors import OnnxError
from .model import load, load_tensor
from .runner import run

DATA = "/usr/share/libonnx-testdata/data"
# The operators the suite is about; CPU_OPS also holds the data-movement ones around them.
TARGETS = ["Conv", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "Relu",
           "LeakyRelu", "Clip", "Sigmoid", "Tanh", "HardSigmoid", "HardSwish", "Softmax", "Add",
           "Mul", "MatMul", "Gemm", "BatchNormalization", "ConvInteger", "QLinearConv",
           "MatMulInteger", "QLinearMatMul", "QuantizeLinear", "DequantizeLinear",
           "DynamicQuantizeLinear"]
# The fp16 pipeline's bound: the largest |error| within 1% of the largest |expected|.
REL_TOL = 1e-2


def _close(got, want):
    if got.shape != want.shape:
        return False, f"shape {list(got.shape)}, expected {list(want.shape)}"
    if want.dtype.kind in "iub":
        ok = np.array_equal(got.astype(want.dtype), want)
        return ok, "" if ok else "integers differ"
    g, w = got.astype(np.float64), want.astype(np.float64)
    scale = max(float(np.max(np.abs(w))) if w.size else 0.0, 1e-3)
    err = float(np.max(np.abs(g - w))) if w.size else 0.0
    return err <= REL_TOL * scale, f"max |err| {err:.3g} vs {REL_TOL} x {scale:.3g}"


def tests(data):
    for kind in ("node", "pytorch-converted"):
        for d in sorted(glob.glob(os.path.join(data, kind, "test_*"))):
            if os.path.exists(os.path.join(d, "model.onnx")):
                yield kind, d


def _why(reason, op):
    """A reason without the operator's prefix and node names: what is not taken."""
    for prefix in (f"{op} input: ", f"{op}: "):
        if reason.startswith(prefix):
            return reason[len(prefix):]
    if reason.startswith("node ") and "): " in reason:
        return reason.split("): ", 1)[1]
    return reason


def run_test(d, rt):
    """{target op: (status, detail)} of one test directory ({} when the suite skips it)."""
    try:
        model = load(os.path.join(d, "model.onnx"))
    except OnnxError:
        return {}
    ops = {n.op for n in model.nodes}
    if not ops <= CPU_OPS or not ops & set(TARGETS):
        return {}
    targets = sorted(ops & set(TARGETS))
    sets = sorted(glob.glob(os.path.join(d, "test_data_set_*")))
    every = lambda st, why: {op: (st, why) for op in targets}  # noqa: E731
    if not sets:
        return {}
    result = every("passed", "")
    for s in sets:
        ins = [load_tensor(p) for p in sorted(glob.glob(os.path.join(s, "input_*.pb")))]
        outs = [load_tensor(p) for p in sorted(glob.glob(os.path.join(s, "output_*.pb")))]
        if len(ins) != len(model.inputs):
            return every("failed", f"{len(ins)} inputs for {len(model.inputs)} graph inputs")
        try:
            r = run(model, dict(zip(model.inputs, ins)), rt)
        except OnnxError as e:  # a feature of the test the runner does not implement
            return {op: ("unsupported", _why(str(e), op)) for op in targets}
        for name, want in zip(model.outputs, outs):
            ok, why = _close(np.asarray(r.outputs[name]), want)
            if not ok:
                return every("failed", f"output {name!r}: {why}")
        for step in r.steps:
            op = step.op.split("+")[0]
            if step.placement == "cpu" and op in result and result[op][0] == "passed":
                result[op] = ("unsupported", _why(step.reason, op))
    return result


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m npukit.onnx.suite")
    p.add_argument("--data", default=DATA, help=f"a libonnx-testdata tree (default {DATA})")
    p.add_argument("--device", default="sim", help="npukit.rk device (default sim)")
    p.add_argument("--verbose", action="store_true", help="one line per test")
    p.add_argument("--known-failure", action="append", default=[], metavar="TEST",
                   help="a test (kind/name) known to fail: still counted and printed as failed")
    p.add_argument("--expect", action="append", default=[], metavar="OP=P/U/F",
                   help="the counts an operator must have")
    a = p.parse_args(argv)
    expect = {}
    for e in a.expect:
        op, _, counts = e.partition("=")
        try:
            expect[op] = tuple(int(v) for v in counts.split("/"))
        except ValueError:
            expect[op] = ()
        if op not in TARGETS or len(expect[op]) != 3:
            p.error(f"--expect {e!r}: expected OP=PASSED/UNSUPPORTED/FAILED with OP one of "
                    f"{', '.join(TARGETS)}")
    if not os.path.isdir(os.path.join(a.data, "node")):
        print(f"npukit.onnx.suite: {a.data}: no node/ tests (apt-get install libonnx-testdata)",
              file=sys.stderr)
        return 77
    count = collections.defaultdict(collections.Counter)
    reasons = collections.defaultdict(set)
    failures = []
    with rk.Runtime(a.device) as rt:
        for kind, d in tests(a.data):
            name = f"{kind}/{os.path.basename(d)}"
            for op, (status, detail) in run_test(d, rt).items():
                if a.verbose:
                    print(f"{status:<11} {op:<18} {name}  {detail}")
                count[op][status] += 1
                if status == "unsupported":
                    reasons[op].add(detail)
                if status == "failed":
                    failures.append((name, f"{name} ({op}): {detail}"))
    print(f"ONNX tests on {a.device}: op, passed, unsupported, failed (unsupported: why)")
    for op in TARGETS:
        c = count[op]
        why = "; ".join(sorted(reasons[op]))
        print(f"  {op:<22} {c['passed']:4d} {c['unsupported']:4d} {c['failed']:4d}  {why}")
    print(f"  (a test with several of the operators counts under each) failures: {len(failures)}")
    bad = False
    for name, f in failures:
        known = name in a.known_failure
        bad |= not known
        print(f"FAILED {f}" + (" (known)" if known else ""))
    for name in sorted(set(a.known_failure) - {n for n, _ in failures}):
        print(f"ERROR {name}: named a known failure but did not fail")
        bad = True
    for op, want in sorted(expect.items()):
        c = count[op]
        got = (c["passed"], c["unsupported"], c["failed"])
        if got != want:
            print(f"ERROR {op}: passed/unsupported/failed {'/'.join(map(str, got))}, "
                  f"expected {'/'.join(map(str, want))}")
            bad = True
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
