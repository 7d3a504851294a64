# SPDX-License-Identifier: MIT
"""npukit: drive (and simulate) the Rockchip RK35xx NPU and the KohakuTPU mesh from Python.

``npukit.rk``: the RK NPU runtime (matmul, resident weights, element-wise ops, plans,
regcmd programs). ``npukit.kt``: a KohakuTPU card (simulated, over a pipe, TCP or the card
daemon). Errors raise :class:`npukit.NpukitError` subclasses carrying the library's message.
"""
from . import _lib
from .errors import BadArgument, DeviceError, LimitError, NpukitError

__version__ = _lib.npk_version().decode()
__all__ = ["NpukitError", "BadArgument", "LimitError", "DeviceError", "__version__"]
