# SPDX-License-Identifier: MIT
"""A small ONNX runner over the RK NPU: python3-onnx reads the model; each node the NPU takes
(Conv with its folded BatchNormalization and fused Relu/Clip, the pools, element-wise Relu,
LeakyRelu, Clip, Add, Mul, BatchNormalization, MatMul, Gemm, the LUT activations, Softmax, and
the integer ConvInteger, QLinearConv, MatMulInteger, QLinearMatMul and QDQ groups around a Conv
or MatMul) runs through npukit.rk, the rest in numpy, and every step reports where it ran and why, its error against a CPU run of the
whole model, and the NPU time the device gave (modelled on the simulator).

>>> from npukit import onnx as nox, rk
>>> m = nox.load("model.onnx")
>>> with rk.Runtime("sim") as rt:
...     r = nox.run(m, {"x": x}, rt)
...     print(nox.format_report(r))

Command line: ``python3 -m npukit.onnx MODEL.onnx [--device sim] [--json]``."""
from __future__ import annotations

from .errors import OnnxError, Unsupported
from .model import Model, Node, from_proto, load, load_tensor
from .runner import Result, StepReport, run, run_cpu
from .report import format_report, report_json

__all__ = ["OnnxError", "Unsupported", "Model", "Node", "load", "from_proto", "load_tensor",
           "run", "run_cpu", "Result", "StepReport", "format_report", "report_json"]
