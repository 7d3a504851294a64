# SPDX-License-Identifier: MIT
"""Exceptions: npukit's status codes as a small hierarchy, each carrying the library's message
(``npk_last_error``), which names the bad value and the limit it broke."""
from __future__ import annotations

from . import _lib

__all__ = ["NpukitError", "BadArgument", "LimitError", "DeviceError", "check"]


class NpukitError(Exception):
    """Any failure npukit reports. ``status`` is the C status name ("EINVAL", ...), or None for
    an error found in Python before the library was called."""

    def __init__(self, message: str, status: str | None = None):
        super().__init__(message)
        self.status = status


class BadArgument(NpukitError, ValueError):
    """A bad argument: wrong dtype, shape, layout, a closed object, malformed text."""


class LimitError(NpukitError, ValueError):
    """Refused by the hardware's limits, or outside what the hardware (or the simulator's
    model of it) is known to do."""


class DeviceError(NpukitError, OSError):
    """The device or the transport failed: I/O, a timeout (a wedge), a fault, a busy or missing
    device, a protocol violation, a result that differs from its reference."""


_CLASS = {
    "EINVAL": BadArgument, "EPARSE": BadArgument,
    "ELIMIT": LimitError, "EUNSUPPORTED": LimitError,
    "ENOMEM": DeviceError, "EIO": DeviceError, "ETIMEDOUT": DeviceError, "EFAULT": DeviceError,
    "EBUSY": DeviceError, "ENODEV": DeviceError, "EPROTO": DeviceError,
    "EMISMATCH": DeviceError,
}


def check(status: int, what: str = "") -> None:
    """Raise the exception for a non-zero npk_status, with the library's message."""
    if status == 0:
        return
    name = (_lib.npk_status_name(status) or b"?").decode()
    msg = (_lib.npk_last_error() or b"").decode(errors="replace")
    # the library's message often names the call already ("pool2d: ..."): say it once
    named = msg.startswith(f"{what}:")
    text = f"{what}: {msg}" if what and msg and not named else (msg or what or name)
    raise _CLASS.get(name, NpukitError)(f"{text} [{name}]", name)
