# SPDX-License-Identifier: MIT
"""The ONNX runner's errors."""
from __future__ import annotations

from .. import errors as npk_errors
from ..errors import BadArgument


class OnnxError(BadArgument):
    """A model the runner cannot read or run: the message names the node, the field and what
    was expected."""


class Unsupported(Exception):
    """The NPU does not take this node as given; the message names the operator and the
    attribute or value (the node then runs on the CPU, counted as such)."""


def library_call(call, what):
    """Run a library call; its refusals (a limit, a kernel that cannot run the engine) make
    the node a CPU node, named."""
    try:
        return call()
    except (npk_errors.LimitError, npk_errors.BadArgument) as e:
        raise Unsupported(f"{what}: {e}") from e
