# SPDX-License-Identifier: MIT
"""The ONNX runner's errors."""
from __future__ import annotations

from ..errors import BadArgument


class OnnxError(BadArgument):
    """A model the runner cannot read or run: the message names the node, the field and what
    was expected."""


class Unsupported(Exception):
    """The NPU does not take this node as given; the message names the operator and the
    attribute or value (the node then runs on the CPU, counted as such)."""
