# SPDX-License-Identifier: MIT
"""python3 -m npukit.onnx MODEL.onnx: run a model on the NPU (or its simulator) with numpy for
the rest; print each step's placement, its error against a CPU run and its NPU time.

Inputs: --input NAME=FILE.npy (or an ONNX TensorProto .pb) for each graph input; without one,
a standard-normal array of the shape the model declares (--seed), every unknown dimension 1."""
from __future__ import annotations

import argparse
import sys

import numpy as np

from .. import rk
from ..errors import NpukitError
from . import format_report, load, load_tensor, report_json, run


def _feeds(model, given, seed):
    rng = np.random.default_rng(seed)
    feeds = {}
    for spec in given:
        name, _, path = spec.partition("=")
        if not path:
            raise SystemExit(f"npukit.onnx: --input {spec!r}: expected NAME=FILE")
        feeds[name] = np.load(path) if path.endswith(".npy") else load_tensor(path)
    for name in model.inputs:
        if name not in feeds:
            shape = [d or 1 for d in model.input_shapes.get(name) or []]
            feeds[name] = rng.standard_normal(shape).astype(np.float32)
    return feeds


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m npukit.onnx", description=__doc__.split("\n")[0])
    p.add_argument("model", help="the .onnx file")
    p.add_argument("--device", default="sim", help="npukit.rk device (default sim; "
                   "sim-rocket, auto, npu, rocket, a node path)")
    p.add_argument("--input", action="append", default=[], metavar="NAME=FILE",
                   help="a graph input from a .npy or .pb file (repeatable)")
    p.add_argument("--seed", type=int, default=0, help="seed of generated inputs (default 0)")
    p.add_argument("--cpu-only", action="store_true", help="run every node on the CPU")
    p.add_argument("--json", action="store_true", help="machine-readable report")
    a = p.parse_args(argv)
    try:
        model = load(a.model)
        feeds = _feeds(model, a.input, a.seed)
        if a.cpu_only:
            r = run(model, feeds, None)
            kind = "none"
        else:
            with rk.Runtime(a.device) as rt:
                r = run(model, feeds, rt)
                kind = "modelled" if rt.simulated else "measured"
    except NpukitError as e:
        print(f"npukit.onnx: {e}", file=sys.stderr)
        return 2
    print(report_json(r, kind) if a.json else format_report(r, kind))
    for name, v in r.outputs.items():
        ref = r.cpu_outputs[name]
        if not a.json and v.ndim >= 1 and v.size > 1:
            print(f"output {name}: shape {list(v.shape)}, top-1 {int(np.argmax(v.reshape(v.shape[0], -1)[0]))}"
                  f" (CPU {int(np.argmax(ref.reshape(ref.shape[0], -1)[0]))})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
