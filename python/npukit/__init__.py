# SPDX-License-Identifier: MIT
"""npukit: drive (and simulate) the Rockchip RK35xx NPU and the KohakuTPU mesh from Python.

``npukit.rk``: the RK NPU runtime (matmul, resident weights, element-wise ops, plans,
regcmd programs). ``npukit.kt``: a KohakuTPU card (simulated, over a pipe, TCP or the card
daemon). Errors raise :class:`npukit.NpukitError` subclasses carrying the library's message.
"""
import importlib

from . import _lib
from .errors import BadArgument, DeviceError, LimitError, NpukitError

__version__ = _lib.npk_version().decode()
__all__ = ["NpukitError", "BadArgument", "LimitError", "DeviceError", "__version__"]

_SUBMODULES = ("rk", "kt")


def __getattr__(name: str):
    # `import npukit` then `npukit.rk` works as `import npukit.rk` does; each submodule is
    # loaded on first use, so a program that drives one device does not load the other's code.
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'npukit' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_SUBMODULES))
