# SPDX-License-Identifier: MIT
"""The RK NPU runtime from Python: any-shape matmuls on the NPU (or its simulator), resident
weights, element-wise ops on the SDP, the planner's plan as data, and regcmd programs as numpy
``uint64`` arrays.

>>> import numpy as np, npukit.rk as rk
>>> with rk.Runtime("sim") as rt:
...     a = np.ones((4, 64), np.float16); b = np.ones((64, 32), np.float16)
...     c = rt.matmul(a, b)              # float32 [4][32], every element 64.0

Element types: ``float16`` (fp16 weights; out float32 or float16), ``int8`` (out int32), and
int4 given as ``int8`` arrays with values in [-8, 7] and ``dtype="int4"`` (out int32);
:func:`pack_int4` / :func:`unpack_int4` convert to and from the NPU's two-per-byte form.
Arrays must be C-contiguous: the library reads them where they are (no copy).
"""
from __future__ import annotations

import ctypes
import dataclasses
import os
import threading
import weakref
from typing import Iterable, Optional, Sequence

import numpy as np

from . import _lib
from ._closing import Closing
from .errors import BadArgument, LimitError, check

__all__ = ["Runtime", "Weights", "QWeights", "Stats", "Plan", "Task", "Entry", "matmul", "plan", "synth",
           "decode", "pack_int4", "unpack_int4", "EW_OPS", "ACTS", "POOL_METHODS",
           "ACTIVATIONS"]

_IN_DTYPES = {"fp16": np.float16, "int8": np.int8, "int4": np.int8}
_OUT_DTYPES = {"fp32": np.float32, "fp16": np.float16, "int32": np.int32}
_NP_TO_OUT = {np.dtype(np.float32): "fp32", np.dtype(np.float16): "fp16",
              np.dtype(np.int32): "int32"}
# The SDP's ops, from the library's rows (name -> the enum's value); the LUT op runs through
# act, softmax and matmul_act, which fit its table.
EW_OPS = {name: v for name, v in _lib.EW_OP_VALUES.items() if name != "lut"}
# The operand kinds (npk_rk_ew_operand) and the ops that take none or only an immediate.
_PER_ELEMENT, _PER_CHANNEL, _NO_OPERAND, _IMMEDIATE = 0, 1, 2, 3
_EW_NO_OPERAND = {op for op, kinds in _lib.EW_OP_OPERANDS.items() if kinds == 1 << _NO_OPERAND}
# op -> the values its immediate holds, for the ops that take nothing but an immediate
_EW_IMMEDIATE_ONLY = {op: _lib.EW_OP_IMMEDIATES[op] for op, kinds in _lib.EW_OP_OPERANDS.items()
                      if kinds == 1 << _IMMEDIATE}


def _ew_operand(op: str, b, dtype, m: int, n: int, what: str):
    """B as (operand kind, array or None): None for relu/relu6; a number (leakyrelu's slope;
    add/mul/max/min's immediate) or batchnorm's (scale, shift) in a register; else an array
    [M][N] per element or [N] per channel of A's dtype."""
    if op in _EW_NO_OPERAND:
        if b is not None:
            raise BadArgument(f"{what}: {op} takes no operand")
        return _NO_OPERAND, None
    if b is None:
        raise BadArgument(f"{what}: {op} needs an operand")
    count = _EW_IMMEDIATE_ONLY.get(op)
    if count is not None or np.ndim(b) == 0:
        vals = np.atleast_1d(np.asarray(b, dtype=np.float64))
        want = count or 1
        if vals.ndim != 1 or vals.size != want:
            raise BadArgument(f"{what}: {op} takes {want} immediate value(s), got {b!r}")
        if not np.all(np.isfinite(vals)):
            raise BadArgument(f"{what}: immediate {b!r} is not finite")
        if np.dtype(dtype).kind == "i":
            info = np.iinfo(dtype)
            if np.any(vals != np.round(vals)) or np.any(vals < info.min) or np.any(vals > info.max):
                raise BadArgument(f"{what}: immediate {b!r} is not a whole {np.dtype(dtype)} value")
        return _IMMEDIATE, np.ascontiguousarray(vals.astype(dtype))
    b = _contig(b, "b")
    if b.dtype != np.dtype(dtype):
        raise BadArgument(f"b: dtype {b.dtype} differs from a's {np.dtype(dtype)}")
    if b.ndim == 1 and b.shape[0] == n:  # one row: per element and per channel agree
        return _PER_CHANNEL, b
    if b.shape == (m, n):
        return _PER_ELEMENT, b
    raise BadArgument(f"b: shape {b.shape}: expected ({m}, {n}) (per element), ({n},) (per "
                      "channel) or a number (immediate)")
_EW_PREC = {np.dtype(np.float16): "fp16", np.dtype(np.int16): "int16",
            np.dtype(np.int8): "int8"}
_LAYOUTS = {"rows": 0, "native": 1, "transposed": 2}
ACTS = {"none": 0, "relu": 1, "clip": 2}
POOL_METHODS = {"max": 0, "avg": 1, "min": 2}


def _pair(v, name: str) -> tuple:
    """An int or a pair of ints, each a non-negative value that fits uint32."""
    t = (v, v) if isinstance(v, (int, np.integer)) else tuple(v)
    if len(t) != 2:
        raise BadArgument(f"{name}: expected an int or a pair, got {v!r}")
    return tuple(_u32(int(x), name) for x in t)


def _pads(pads) -> tuple:
    """pads as an int, (ph, pw) or (top, left, bottom, right)."""
    t = (pads,) * 4 if isinstance(pads, (int, np.integer)) else tuple(pads)
    if len(t) == 2:
        t = (t[0], t[1], t[0], t[1])
    if len(t) != 4:
        raise BadArgument(f"pads: expected an int, (ph, pw) or (top, left, bottom, right), "
                          f"got {pads!r}")
    for x in t:
        if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or not 0 <= x <= 0xFFFFFFFF:
            raise BadArgument(f"pads = {pads!r}: expected integers from 0 to 4294967295")
    return tuple(int(x) for x in t)


def _nchw(x, name: str, int8: bool = False) -> np.ndarray:
    x = _contig(x, name)
    if x.dtype != np.float16 and not (int8 and x.dtype == np.int8):
        raise BadArgument(f"{name}: dtype {x.dtype}: convolution and pooling take float16 "
                          "(convolution also int8)")
    if x.ndim != 4:
        raise BadArgument(f"{name}: expected NCHW (4 dimensions), got shape {x.shape}")
    return x


# The SDP's activations by name (the library's rows: rk_act_hw.h); the LUT ones take float16.
ACTIVATIONS = ("sigmoid", "tanh", "gelu", "silu", "hardswish", "hardsigmoid", "exp", "relu",
               "relu6")


def _act_value(fn: str) -> int:
    v = ctypes.c_int(-1)
    if not isinstance(fn, str) or not _lib.npk_rk_act_parse(fn.encode(), ctypes.byref(v)):
        raise BadArgument(f"activation {fn!r}: expected one of {list(ACTIVATIONS)}")
    return v.value


def _rows_2d(x: np.ndarray, name: str) -> tuple:
    """[M][N] of a 1- or 2-dimensional array (a vector is one row)."""
    if x.ndim not in (1, 2):
        raise BadArgument(f"{name}: expected 1 or 2 dimensions, got shape {x.shape}")
    return x.shape if x.ndim == 2 else (1, x.shape[0])


@dataclasses.dataclass(frozen=True)
class Stats:
    """What one call did. ``npu_time_s`` is the device's elapsed time: *modelled* when the NPU
    is the simulator (``npu_time_kind == "modelled"``), measured by the hardware otherwise.
    ``host_time_s`` is the measured wall time of the whole call."""
    tasks: int
    submits: int
    warmups: int
    resets: int
    retries: int
    cores_used: int
    npu_time_s: float
    npu_time_kind: str
    npu_time_summed_s: float
    host_time_s: float
    b_repacks: int
    sdp_tasks: int
    fused_jobs: int
    host_steps: int = 0
    a_beyond_fp16: int = 0  # float activations: 1 when a finite one was beyond fp16's range

    @classmethod
    def _from(cls, s: _lib.RkStats, simulated: bool) -> "Stats":
        return cls(tasks=s.tasks, submits=s.submits, warmups=s.warmups, resets=s.resets,
                   retries=s.retries, cores_used=s.cores_used,
                   npu_time_s=s.npu_span_ns * 1e-9,
                   npu_time_kind="modelled" if simulated else "measured",
                   npu_time_summed_s=s.npu_ns * 1e-9, host_time_s=s.host_ns * 1e-9,
                   b_repacks=s.b_repacks, sdp_tasks=s.sdp_tasks, fused_jobs=s.fused_jobs,
                   host_steps=s.host_steps, a_beyond_fp16=s.a_beyond_fp16)


def _contig(x, name: str) -> np.ndarray:
    if not isinstance(x, np.ndarray):
        raise BadArgument(f"{name}: expected a numpy array, got {type(x).__name__}")
    if not x.flags.c_contiguous:
        raise BadArgument(f"{name}: the array is not C-contiguous (npukit reads it in place); "
                          f"pass np.ascontiguousarray({name})")
    return x


def _out(x, shape: tuple, dtype=None) -> np.ndarray:
    """A caller's `out=` array: an ndarray, C-contiguous, writeable (a read-only memmap or a
    view numpy marked read-only must not be written behind numpy's back), of `shape`."""
    _contig(x, "out")
    if not x.flags.writeable:
        raise BadArgument("out: the array is read-only (flags.writeable is False); pass a "
                          "writeable array or leave out= unset")
    if x.shape != shape or (dtype is not None and x.dtype != dtype):
        want = f"{np.dtype(dtype)}{shape}" if dtype is not None else f"shape {shape}"
        raise BadArgument(f"out: {x.dtype}{x.shape}, expected {want}")
    return x


def _in_prec(x: np.ndarray, dtype: Optional[str], name: str) -> str:
    if dtype is None:
        if x.dtype == np.float16:
            dtype = "fp16"
        elif x.dtype == np.int8:
            dtype = "int8"
        else:
            raise BadArgument(f"{name}: dtype {x.dtype} is not a matmul input "
                              "(float16, int8, or int8 with dtype='int4')")
    if dtype not in _IN_DTYPES:
        raise BadArgument(f"dtype {dtype!r}: expected one of {sorted(_IN_DTYPES)}")
    if x.dtype != _IN_DTYPES[dtype]:
        raise BadArgument(f"{name}: dtype {x.dtype} does not match {dtype!r} "
                          f"(expected {np.dtype(_IN_DTYPES[dtype])})")
    if dtype == "int4" and x.size and (x.min() < -8 or x.max() > 7):
        raise LimitError(f"{name}: int4 values must lie in [-8, 7]; found "
                         f"[{int(x.min())}, {int(x.max())}]")
    return dtype


def _u32(v: int, name: str) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1 or v > 0xFFFFFFFF:
        raise BadArgument(f"{name} = {v!r}: expected an integer from 1 to 4294967295")
    return int(v)


def _rows(a: np.ndarray, k: Optional[int] = None) -> int:
    """M of a [M][K] operand, checked before anything is packed for it, so a bad A is reported
    as the shape given rather than as a setting derived from it."""
    if a.ndim != 2 or (k is not None and a.shape[1] != k):
        want = f"(M, {k})" if k is not None else "(M, K)"
        kpart = f" does not match B's K = {k}" if k is not None and a.ndim == 2 else ""
        raise BadArgument(f"a: shape {a.shape}{kpart} (expected {want})")
    if not 1 <= a.shape[0] <= 0xFFFFFFFF:
        raise BadArgument(f"a: shape {a.shape}: M = {a.shape[0]}, expected 1 to 4294967295 rows")
    return int(a.shape[0])


def pack_int4(values: np.ndarray) -> np.ndarray:
    """int4 values (int8 array in [-8, 7], even length along the last axis) to the NPU's byte
    form: two per byte, the even index in the low nibble. Returns uint8, last axis halved."""
    v = np.asarray(values)
    if v.dtype != np.int8:
        raise BadArgument(f"pack_int4: dtype {v.dtype}, expected int8")
    if v.size and (v.min() < -8 or v.max() > 7):
        raise LimitError(f"pack_int4: values must lie in [-8, 7]; found "
                         f"[{int(v.min())}, {int(v.max())}]")
    if v.ndim == 0 or v.shape[-1] % 2:
        raise BadArgument(f"pack_int4: the last axis ({v.shape[-1] if v.ndim else 0}) must be "
                          "even")
    u = v.astype(np.uint8) & 0x0F
    return np.ascontiguousarray(u[..., 0::2] | (u[..., 1::2] << 4))


def unpack_int4(packed: np.ndarray) -> np.ndarray:
    """The inverse of :func:`pack_int4`: uint8 bytes to int8 values in [-8, 7]."""
    p = np.asarray(packed)
    if p.dtype != np.uint8:
        raise BadArgument(f"unpack_int4: dtype {p.dtype}, expected uint8")
    lo = (p & 0x0F).astype(np.int8)
    hi = (p >> 4).astype(np.int8)
    out = np.empty(p.shape[:-1] + (p.shape[-1] * 2,), np.int8) if p.ndim else None
    if out is None:
        raise BadArgument("unpack_int4: expected at least one axis")
    out[..., 0::2] = lo
    out[..., 1::2] = hi
    out[out > 7] -= 16
    return out


class Weights:
    """B [K][N] resident on the NPU, packed once into its layout; multiply it with many A.
    Created by :meth:`Runtime.weights`; freed by :meth:`free`, by its runtime's close, or when
    collected."""

    def __init__(self, rt: "Runtime", handle: int, dtype: str, k: int, n: int):
        self._rt = rt
        self._h: Optional[int] = handle
        self.dtype, self.k, self.n = dtype, k, n

    @property
    def shape(self) -> tuple:
        """(K, N): the shape of B as a [K][N] matrix, whatever layout it was given in."""
        return (self.k, self.n)

    def _handle(self) -> int:
        if self._h is None:
            raise BadArgument("the weights were freed")
        return self._h

    def free(self) -> None:
        """Release the packed weights on the NPU now. Idempotent; after it, a matmul with
        these weights raises BadArgument. Waits for a call of the runtime that is running
        (possibly with these weights) to end first. Closing the runtime frees them too."""
        self._release(_lib.npk_rk_weights_free)

    def _release(self, c_free) -> None:
        # Under the runtime's lock: another thread may be multiplying with these weights.
        with self._rt._lock:
            if self._h is not None and self._rt._h is not None:
                c_free(self._rt._h, self._h)
            self._h = None

    def __del__(self):
        try:
            self.free()
        except Exception:
            pass

    def __repr__(self) -> str:
        state = "freed" if self._h is None else "resident"
        return f"<npukit.rk.Weights {self.dtype} {self.k}x{self.n} {state}>"


class QWeights(Weights):
    """Quantised weights (W8A8 or per-group scales along K) resident on the NPU: int8 (or int4)
    B with float32 scales per output channel or per group of K. Created by
    :meth:`Runtime.qweights`; multiplied by :meth:`Runtime.matmul_quant`."""

    def __init__(self, rt, handle, dtype, k, n, group):
        super().__init__(rt, handle, dtype, k, n)
        self.group = group
        self.groups = 1 if group == 0 else -(-k // group)

    def free(self) -> None:
        """Release the quantised weights on the NPU now (as :meth:`Weights.free`)."""
        self._release(_lib.npk_rk_qweights_free)

    def __repr__(self) -> str:
        g = "per channel" if self.group == 0 else f"groups of {self.group}"
        state = "freed" if self._h is None else "resident"
        return f"<npukit.rk.QWeights {self.dtype} {self.k}x{self.n} {g} {state}>"


class _Progress:
    """A caller's progress(done, total) installed on the runtime for one call (under the
    runtime's lock), removed after it; an exception from the callback is kept (ctypes would
    only print it) and raised once the call is over."""

    def __init__(self, rt: "Runtime", fn):
        if fn is not None and not callable(fn):
            raise BadArgument(f"progress: expected a callable progress(done, total), got "
                              f"{type(fn).__name__}")
        self._rt, self._fn, self._error = rt, fn, None
        self._c = _lib.PROGRESS_FN(self._call) if fn is not None else None

    def _call(self, _user, done, total):
        if self._error is None:
            try:
                self._fn(done, total)
            except BaseException as e:  # noqa: BLE001 - raised after the call
                self._error = e

    def __enter__(self):
        if self._c is not None:
            check(_lib.npk_rk_set_progress(self._rt._handle(), self._c, None), "progress")
        return self

    def __exit__(self, *exc):
        if self._c is not None:
            _lib.npk_rk_set_progress(self._rt._handle(), _lib.PROGRESS_FN(), None)
            if self._error is not None and exc[0] is None:
                raise self._error


class Runtime(Closing):
    """An NPU runtime (a context manager).

    device: "auto" (an NPU node if present, else the simulator), "sim" (the simulator behind
    the rknpu interface), "sim-rocket" (behind the mainline rocket interface), "npu", "rocket",
    or a device path (/dev/dri/card1, /dev/accel/accel0).
    cores: use at most this many cores (default: all); core_mask pins exact cores.
    submit: a submission form ("single", "chained", "concat", "multitask", "nonblock"),
    chain: tasks per submit. shared: share one engine with other shared runtimes of the device.

    A runtime may be shared between threads: its calls run one at a time, and :meth:`close`
    (or freeing weights) waits for a running call to end; a call after close raises
    BadArgument.
    """

    def __init__(self, device: str = "auto", cores: Optional[int] = None,
                 submit: Optional[str] = None, chain: Optional[int] = None,
                 core_mask: Optional[int] = None, shared: bool = False):
        # Set first: close() (from __del__ too) must work on a runtime whose open failed.
        self._h: Optional[int] = None
        # Reentrant: close() frees the weights, and each free takes the lock as well.
        self._lock = threading.RLock()
        self._weights: "weakref.WeakSet[Weights]" = weakref.WeakSet()
        self.last_stats: Optional[Stats] = None
        if device is None:  # the library's own spelling of "auto"
            device = "auto"
        if isinstance(device, os.PathLike):
            device = os.fspath(device)
        if not isinstance(device, str):
            raise BadArgument(f"device {device!r}: expected a string (\"auto\", \"sim\", "
                              "\"sim-rocket\", \"npu\", \"rocket\" or a device path)")
        h = ctypes.c_void_p()
        opener = _lib.npk_rk_open_shared if shared else _lib.npk_rk_open
        check(opener(device.encode(), ctypes.byref(h)), f"open {device!r}")
        self._h = h.value
        try:
            if cores is not None:
                check(_lib.npk_rk_set_cores(self._h, _u32(cores, "cores")), "cores")
            if core_mask is not None:
                check(_lib.npk_rk_set_core_mask(self._h, self._mask(core_mask)), "core_mask")
            if submit is not None:
                check(_lib.npk_rk_set_submission(self._h, submit.encode()), "submit")
            if chain is not None:
                check(_lib.npk_rk_set_chain(self._h, _u32(chain, "chain")), "chain")
            self._info = self._query()
        except BaseException:
            self.close()
            raise

    def _mask(self, mask) -> int:
        # The C parameter is an unsigned int: a wider value would arrive truncated (2**32 + 1
        # as core 0 alone, 2**40 as 0, every core), so it is refused here, naming the SoC's.
        if isinstance(mask, bool) or not isinstance(mask, (int, np.integer)) or mask < 0:
            raise BadArgument(f"core_mask = {mask!r}: expected an integer bit mask of cores "
                              "(bit c: core c; 0: every core)")
        if mask > 0xFFFFFFFF:
            info = self._query()
            raise BadArgument(f"core_mask = {int(mask):#x}: {info['soc']} has cores "
                              f"0..{info['cores'] - 1} (mask {(1 << info['cores']) - 1:#x})")
        return int(mask)

    # -- lifetime --
    def close(self) -> None:
        """Free every resident weight of this runtime, then the runtime. Idempotent. Waits for
        a call running in another thread to end; later calls raise BadArgument."""
        with self._lock:
            if self._h is None:
                return
            for w in list(self._weights):
                w.free()
            _lib.npk_rk_close(self._h)
            self._h = None

    def _handle(self) -> int:
        if self._h is None:
            raise BadArgument("the runtime is closed")
        return self._h

    # -- facts --
    def _query(self) -> dict:
        info = _lib.RkInfo()
        with self._lock:
            check(_lib.npk_rk_query(self._handle(), ctypes.byref(info)), "query")
        return {"soc": (info.soc or b"").decode(), "device": info.device.decode(),
                "simulated": bool(info.simulated), "cores": info.cores,
                "drv_version": info.drv_version, "hw_version": info.hw_version,
                "kernel": info.kernel.decode(), "sdp": bool(info.sdp),
                "weight_spaces": info.weight_spaces, "weight_capacity": info.weight_capacity,
                "pdp": bool(info.pdp)}

    @property
    def info(self) -> dict:
        """soc, device, simulated, cores, drv_version, hw_version, kernel ("rknpu"/"rocket"),
        sdp (the kernel runs SDP tasks: element-wise ops, activations, softmax), weight_spaces
        and weight_capacity (the address spaces packed weights are placed over, and the bytes
        of them the device holds at most)."""
        self._handle()
        return dict(self._info)

    @property
    def simulated(self) -> bool:
        """True when the NPU is the simulator (its times are modelled, not measured)."""
        return self._info["simulated"]

    @property
    def submission(self) -> str:
        """The submission form in use ("single", "chained", ...; see ``submit=``)."""
        with self._lock:
            return _lib.npk_rk_submission(self._handle()).decode()

    # -- weights and matmul --
    def weights(self, b: np.ndarray, dtype: Optional[str] = None, layout: str = "rows",
                m_hint: int = 64) -> Weights:
        """Pack B once and keep it resident. layout "rows": B [K][N]; "transposed": B [N][K]
        (ggml's and PyTorch's Linear weight form). dtype as for :meth:`matmul`."""
        b = _contig(b, "b")
        dt = _in_prec(b, dtype, "b")
        if layout not in ("rows", "transposed"):
            raise BadArgument(f"layout {layout!r}: expected 'rows' or 'transposed'")
        if b.ndim != 2:
            raise BadArgument(f"b: expected 2 dimensions, got shape {b.shape}")
        k, n = (b.shape if layout == "rows" else b.shape[::-1])
        _u32(k, "K")
        _u32(n, "N")
        m_hint = _u32(m_hint, "m_hint")
        h = ctypes.c_void_p()
        with self._lock:
            check(_lib.npk_rk_weights_pack_layout(self._handle(), _lib.PREC[dt], k, n,
                                                  b.ctypes.data, _LAYOUTS[layout], m_hint,
                                                  ctypes.byref(h)), "weights")
            w = Weights(self, h.value, dt, k, n)
            self._weights.add(w)
        return w

    def _out_prec(self, dt: str, out_dtype) -> str:
        if out_dtype is None:
            return "fp32" if dt == "fp16" else "int32"
        od = _NP_TO_OUT.get(np.dtype(out_dtype)) if not isinstance(out_dtype, str) else \
            {"float32": "fp32", "float16": "fp16", "int32": "int32", "fp32": "fp32",
             "fp16": "fp16"}.get(out_dtype)
        allowed = ("fp32", "fp16") if dt == "fp16" else ("int32",)
        if od not in allowed:
            raise BadArgument(f"out_dtype {out_dtype!r}: {dt} weights give "
                              f"{' or '.join(np.dtype(_OUT_DTYPES[a]).name for a in allowed)}")
        return od

    def matmul(self, a: np.ndarray, b, out_dtype=None, dtype: Optional[str] = None,
               out: Optional[np.ndarray] = None, progress=None) -> np.ndarray:
        """C [M][N] = A [M][K] . B. b is a :class:`Weights` of this runtime or an array
        [K][N] (packed for this call only). out_dtype: float32 (default) or float16 for fp16,
        int32 for int8/int4. out: a C-contiguous, writeable array to write C into (no
        allocation). progress: called as progress(done, total) as the call's tasks are read
        back (from the threads that run the NPU's cores, one call at a time; the last has
        done == total); an exception it raises is raised by matmul once the call ends."""
        a = _contig(a, "a")
        # A's rows are checked before a B array is packed for it (M is that packing's hint).
        m = _rows(a)
        if isinstance(b, Weights):
            if b._rt is not self:
                raise BadArgument("the weights belong to another runtime")
            w, tmp = b, None
        else:
            w = tmp = self.weights(b, dtype=dtype, m_hint=m)
        try:
            dt = _in_prec(a, w.dtype if dtype is None else dtype, "a")
            if dt != w.dtype:
                raise BadArgument(f"a is {dt} but the weights are {w.dtype}")
            _rows(a, w.k)
            if out is not None:
                _out(out, (m, w.n))
            od = self._out_prec(dt, out_dtype if out is None else out.dtype)
            if out is None:
                out = np.empty((m, w.n), _OUT_DTYPES[od])
            st = _lib.RkStats()
            with self._lock, _Progress(self, progress):
                check(_lib.npk_rk_matmul(self._handle(), w._handle(), m, a.ctypes.data,
                                         _lib.PREC[od], out.ctypes.data, ctypes.byref(st)),
                      "matmul")
            self.last_stats = Stats._from(st, self.simulated)
            return out
        finally:
            if tmp is not None:
                tmp.free()

    def matmul_batch(self, pairs, out_dtype=None) -> list:
        """Several independent matmuls in one call: pairs is a list of (a, w), w a
        :class:`Weights` of this runtime (one input dtype for all), a [M][K] with its own M.
        Their tasks share submits (set chain= on the runtime: tasks per submit). Returns the
        list of C; last_stats is the whole call's, last_batch_stats each matmul's."""
        if not pairs:
            raise BadArgument("pairs: at least one (a, weights)")
        items = (_lib.MatmulItem * len(pairs))()
        outs, keep, od = [], [], None
        for i, (a, w) in enumerate(pairs):
            if not isinstance(w, Weights) or w._rt is not self:
                raise BadArgument(f"pairs[{i}]: weights packed by this runtime")
            a = _contig(a, f"pairs[{i}] a")
            dt = _in_prec(a, w.dtype, f"pairs[{i}] a")
            m = _rows(a, w.k)
            o = self._out_prec(dt, out_dtype)
            if od not in (None, o):
                raise BadArgument(f"pairs[{i}]: output {o} after {od}; one output for the batch")
            od = o
            c = np.empty((m, w.n), _OUT_DTYPES[o])
            keep.append(a)
            outs.append(c)
            items[i].w = w._handle()
            items[i].m = m
            items[i].a = a.ctypes.data
            items[i].c = c.ctypes.data
        st = _lib.RkStats()
        with self._lock:
            check(_lib.npk_rk_matmul_batch(self._handle(), items, len(pairs), _lib.PREC[od],
                                           ctypes.byref(st)), "matmul_batch")
        self.last_stats = Stats._from(st, self.simulated)
        self.last_batch_stats = [Stats._from(items[i].stats, self.simulated)
                                 for i in range(len(pairs))]
        return outs

    def qweights(self, b: np.ndarray, scale: np.ndarray, group: Optional[int] = None,
                 dtype: Optional[str] = None, layout: str = "rows", m_hint: int = 64,
                 groups_per_pass: int = 0) -> QWeights:
        """Pack quantised B once: int8 (or int4 values with dtype="int4") B [K][N]
        (layout "transposed": [N][K]) with float32 scales per output channel (group None:
        scale [N], W8A8) or per group of `group` K (a multiple of 32): scale [groups][N]
        ([N][groups] for "transposed"). Each group's partial is an exact int32 sum on the NPU,
        scaled and added on the host in fp32. groups_per_pass: 0 lets the cost model choose
        at m_hint (1: K-sliced tasks)."""
        b = _contig(b, "b")
        dt = _in_prec(b, dtype if dtype is not None else ("int8" if b.dtype == np.int8 else None),
                      "b")
        if dt == "fp16":
            raise BadArgument("b: quantised weights are int8 or int4")
        if layout not in ("rows", "transposed") or b.ndim != 2:
            raise BadArgument(f"b: a 2-D array in layout 'rows' or 'transposed' (got "
                              f"{layout!r}, shape {b.shape})")
        k, n = (b.shape if layout == "rows" else b.shape[::-1])
        scale = _contig(np.asarray(scale), "scale")
        if scale.dtype != np.float32:
            raise BadArgument(f"scale: dtype {scale.dtype}, expected float32")
        d = _lib.QWeightsDesc()
        d.in_, d.k, d.n, d.b = _lib.PREC[dt], _u32(k, "K"), _u32(n, "N"), b.ctypes.data
        d.layout = _LAYOUTS[layout]
        d.group = 0 if group is None else _u32(group, "group")
        d.scale, d.scale_count = scale.ctypes.data, scale.size
        d.m_hint, d.groups_per_pass = _u32(m_hint, "m_hint"), int(groups_per_pass)
        h = ctypes.c_void_p()
        with self._lock:
            check(_lib.npk_rk_qweights_pack(self._handle(), ctypes.byref(d), ctypes.byref(h)),
                  "qweights")
            w = QWeights(self, h.value, dt, k, n, d.group)
            self._weights.add(w)
        return w

    def matmul_quant(self, a: np.ndarray, w: QWeights, a_scale, out_dtype=np.float32,
                     out: Optional[np.ndarray] = None) -> np.ndarray:
        """C [M][N] = sum over groups of a_scale * b_scale * (A . B) over the group's K, with A
        int8 (or int4 values, as the weights) [M][K]; a_scale a float, [M] (per row / token) or
        [M][groups]. C float32 or float16."""
        a = _contig(a, "a")
        if not isinstance(w, QWeights) or w._rt is not self:
            raise BadArgument("w: quantised weights of this runtime (Runtime.qweights)")
        _in_prec(a, w.dtype, "a")
        m = _rows(a, w.k)
        sa = np.ascontiguousarray(np.atleast_1d(np.asarray(a_scale, np.float32)))
        if out is not None:
            _out(out, (m, w.n))
        od = {np.dtype(np.float32): "fp32", np.dtype(np.float16): "fp16"}.get(
            np.dtype(out_dtype if out is None else out.dtype))
        if od is None:
            raise BadArgument(f"out_dtype {out_dtype!r}: float32 or float16")
        if out is None:
            out = np.empty((m, w.n), _OUT_DTYPES[od])
        st = _lib.RkStats()
        with self._lock:
            check(_lib.npk_rk_matmul_quant(self._handle(), w._handle(), m, a.ctypes.data,
                                           sa.ctypes.data, sa.size, _lib.PREC[od],
                                           out.ctypes.data, ctypes.byref(st)), "matmul_quant")
        self.last_stats = Stats._from(st, self.simulated)
        return out

    def ew(self, op: str, a: np.ndarray, b=None,
           out: Optional[np.ndarray] = None) -> np.ndarray:
        """Element-wise on the NPU's SDP. A is [M][N] (or [N], one row) float16 (computed in
        fp32, rounded to nearest even), int16 or int8 (exact, saturating); C has A's shape and
        dtype (out: a C-contiguous array of that shape and dtype to write it into).

        - add, mul, max, min: C = A op B with B [M][N] per element, B [N] per channel
          broadcast over the rows, or a number (an immediate in a stage register);
        - relu, relu6 (min(max(A, 0), 6)): b None;
        - leakyrelu: A < 0 ? A * slope : A, b the slope;
        - batchnorm: A * scale + shift, b (scale, shift).
        """
        if op not in EW_OPS:
            raise BadArgument(f"op {op!r}: expected one of {sorted(EW_OPS)}")
        a = _contig(a, "a")
        prec = _EW_PREC.get(a.dtype)
        if prec is None:
            raise BadArgument(f"a: dtype {a.dtype}: element-wise ops take float16, int16 or "
                              "int8")
        if a.ndim not in (1, 2):
            raise BadArgument(f"a: expected 1 or 2 dimensions, got shape {a.shape}")
        # A vector is one row to the SDP; C keeps the shape A was given in.
        m, n = a.shape if a.ndim == 2 else (1, a.shape[0])
        operand, barr = _ew_operand(op, b, a.dtype, m, n, f"ew {op}")
        if operand == _PER_ELEMENT and barr.shape != a.shape:
            raise BadArgument(f"b: shape {barr.shape}: expected {a.shape} (per element) or "
                              f"({n},) (per channel)")
        bp = barr.ctypes.data if barr is not None else None
        if out is None:
            out = np.empty_like(a)
        else:
            _out(out, a.shape, a.dtype)
        st = _lib.RkStats()
        with self._lock:
            args = _lib.RkEwArgs(EW_OPS[op], _lib.PREC[prec], _u32(m, "M"), _u32(n, "N"),
                                 operand, a.ctypes.data, bp, out.ctypes.data)
            check(_lib.npk_rk_ew(self._handle(), ctypes.byref(args), ctypes.byref(st)),
                  f"ew {op}")
        self.last_stats = Stats._from(st, self.simulated)
        return out

    def matmul_epilogue(self, a: np.ndarray, w: "Weights", steps,
                        fuse: bool = True) -> np.ndarray:
        """C [M][N] = A . B (fp16 weights, fp16 C) followed by element-wise steps on the SDP,
        fused into the matmul's submits where the fusion rules allow: steps is a list of
        (op, b) as :meth:`ew` takes them (B per element [M][N], per channel [N], a number, None
        for relu/relu6, (scale, shift) for batchnorm), at most 4."""
        a = _contig(a, "a")
        if not isinstance(w, Weights) or w._rt is not self:
            raise BadArgument("w: weights packed by this runtime")
        m = _rows(a, w.k)
        if len(steps) > _lib.EPILOGUE_MAX:
            raise BadArgument(f"steps: {len(steps)} exceed {_lib.EPILOGUE_MAX}")
        ep = _lib.Epilogue()
        ep.count = len(steps)
        ep.no_fuse = not fuse
        keep = []  # the operands live until the call returns
        for i, (op, b) in enumerate(steps):
            if op not in EW_OPS:
                raise BadArgument(f"steps[{i}]: op {op!r}: expected one of {sorted(EW_OPS)}")
            operand, barr = _ew_operand(op, b, np.float16, m, w.n, f"steps[{i}]")
            keep.append(barr)
            ep.step[i] = _lib.EwStep(EW_OPS[op], operand,
                                     barr.ctypes.data if barr is not None else None)
        out = np.empty((m, w.n), np.float16)
        st = _lib.RkStats()
        with self._lock:
            check(_lib.npk_rk_matmul_epilogue(self._handle(), w._handle(), m, a.ctypes.data,
                                              _lib.PREC["fp16"], out.ctypes.data,
                                              ctypes.byref(ep), ctypes.byref(st)),
                  "matmul_epilogue")
        self.last_stats = Stats._from(st, self.simulated)
        return out

    def act(self, fn: str, x: np.ndarray, out: Optional[np.ndarray] = None,
            alpha: float = 0.0, beta: float = 0.0) -> np.ndarray:
        """Y = fn(X) on the NPU's SDP: sigmoid, tanh, gelu, silu, hardswish, hardsigmoid, exp
        through the LUT (float16 only; within 2^-11 |f(x)| + one table step of f in double
        precision), relu as a clamp (float16, int16, int8; exact). X is [M][N] or [N];
        alpha/beta: hardsigmoid's (both 0: 1/6 and 1/2). out may be X (in place).
        """
        act = _act_value(fn)
        x = _contig(x, "x")
        prec = _EW_PREC.get(x.dtype)
        if prec is None:
            raise BadArgument(f"x: dtype {x.dtype}: activations take float16 (relu also int16, "
                              "int8)")
        m, n = _rows_2d(x, "x")
        if out is None:
            out = np.empty_like(x)
        else:
            _out(out, x.shape, x.dtype)
        st = _lib.RkStats()
        with self._lock:
            args = _lib.RkActArgs(act, _lib.PREC[prec], _u32(m, "M"), _u32(n, "N"),
                                  x.ctypes.data, out.ctypes.data, float(alpha), float(beta))
            check(_lib.npk_rk_act(self._handle(), ctypes.byref(args), ctypes.byref(st)),
                  f"act {fn}")
        self.last_stats = Stats._from(st, self.simulated)
        return out

    def softmax(self, x: np.ndarray, out: Optional[np.ndarray] = None) -> np.ndarray:
        """Softmax over each row of X (float16 [M][N] or [N]): two chained passes of the SDP's
        exp LUT; the row maximum and sum on the host (``last_stats.host_steps``)."""
        x = _contig(x, "x")
        if x.dtype != np.float16:
            raise BadArgument(f"x: dtype {x.dtype}: softmax takes float16")
        m, n = _rows_2d(x, "x")
        if out is None:
            out = np.empty_like(x)
        else:
            _out(out, x.shape, x.dtype)
        st = _lib.RkStats()
        with self._lock:
            check(_lib.npk_rk_softmax(self._handle(), _lib.PREC["fp16"], _u32(m, "M"),
                                      _u32(n, "N"), x.ctypes.data, out.ctypes.data,
                                      ctypes.byref(st)), "softmax")
        self.last_stats = Stats._from(st, self.simulated)
        return out

    def norm(self, kind: str, x: np.ndarray, gamma: Optional[np.ndarray] = None,
             beta: Optional[np.ndarray] = None, eps: float = 1e-5) -> np.ndarray:
        """RMSNorm (kind "rms") or LayerNorm ("layer") of each row of X (float16), times gamma
        and plus beta ([N], float16) when given: a named host fallback (the spec puts the
        reductions on the conv engine, whose registers no source gives)."""
        kinds = {"rms": 0, "layer": 1}
        if kind not in kinds:
            raise BadArgument(f"kind {kind!r}: expected 'rms' or 'layer'")
        x = _contig(x, "x")
        if x.dtype != np.float16:
            raise BadArgument(f"x: dtype {x.dtype}: norms take float16")
        m, n = _rows_2d(x, "x")
        vecs = []
        for name, v in (("gamma", gamma), ("beta", beta)):
            if v is not None:
                v = _contig(v, name)
                if v.dtype != np.float16 or v.shape != (n,):
                    raise BadArgument(f"{name}: expected float16 of shape ({n},), got "
                                      f"{v.dtype} {v.shape}")
            vecs.append(v)
        out = np.empty_like(x)
        st = _lib.RkStats()
        with self._lock:
            args = _lib.RkNormArgs(kinds[kind], _lib.PREC["fp16"], _u32(m, "M"), _u32(n, "N"),
                                   x.ctypes.data, out.ctypes.data,
                                   vecs[0].ctypes.data if vecs[0] is not None else None,
                                   vecs[1].ctypes.data if vecs[1] is not None else None,
                                   float(eps))
            check(_lib.npk_rk_norm(self._handle(), ctypes.byref(args), ctypes.byref(st)),
                  f"norm {kind}")
        self.last_stats = Stats._from(st, self.simulated)
        return out

    def matmul_act(self, a: np.ndarray, b: "Weights", fn: str,
                   bias: Optional[np.ndarray] = None, fuse: bool = True) -> np.ndarray:
        """C = fn(A . B + bias) in float16: B fp16 weights (``weights()``), bias [N] float16,
        the bias add and the activation chained behind the matmul on the SDP in one submit per
        matmul task when the fusion rules allow (``last_stats.fused_jobs``)."""
        act = _act_value(fn)
        if not isinstance(b, Weights):
            raise BadArgument("b: expected Weights from Runtime.weights()")
        a = _contig(a, "a")
        if a.dtype != np.float16:
            raise BadArgument(f"a: dtype {a.dtype}: matmul_act takes float16")
        k, n = b.shape[0], b.shape[1]
        m = _rows(a, k)
        if bias is not None:
            bias = _contig(bias, "bias")
            if bias.dtype != np.float16 or bias.shape != (n,):
                raise BadArgument(f"bias: expected float16 of shape ({n},), got {bias.dtype} "
                                  f"{bias.shape}")
        out = np.empty((m, n), dtype=np.float16)
        st = _lib.RkStats()
        with self._lock:
            args = _lib.RkMatmulActArgs(b._handle(), _u32(m, "M"), a.ctypes.data,
                                        out.ctypes.data,
                                        bias.ctypes.data if bias is not None else None, act,
                                        0.0, 0.0, not fuse)
            check(_lib.npk_rk_matmul_act(self._handle(), ctypes.byref(args), ctypes.byref(st)),
                  f"matmul_act {fn}")
        self.last_stats = Stats._from(st, self.simulated)
        return out


    def conv2d(self, x: np.ndarray, w: np.ndarray, bias: Optional[np.ndarray] = None,
               stride=1, pads=0, dilation=1, groups: int = 1, act: str = "none",
               act_max: float = 6.0, x_scale: Optional[float] = None, w_scales=None,
               out_scale: Optional[float] = None) -> np.ndarray:
        """2-D convolution on the NPU: x float16 NCHW, w float16 [O][C/groups][KH][KW], bias
        float32 [O] (or None), stride / dilation an int or (h, w), pads an int, (ph, pw) or
        (top, left, bottom, right); act "none", "relu" or "clip" (min(max(x, 0), act_max)),
        fused after the bias. fp16 products accumulate in fp32 and round once to fp16. Returns
        float16 [N][O][OH][OW].

        int8 (x and w int8, symmetric): the NPU sums the int8 products exactly in int32; with
        out_scale None those sums come back (int32 [N][O][OH][OW]); with out_scale the host
        requantises them (``last_stats.host_steps``): y = sum * (x_scale * w_scales[o]) +
        bias[o], act, then round(y / out_scale) to nearest even, saturated to int8. x_scale a
        float > 0 and w_scales [O] (float32, each > 0) are required."""
        x = _nchw(x, "x", int8=True)
        w = _contig(w, "w")
        if w.dtype != x.dtype or w.ndim != 4:
            raise BadArgument(f"w: expected {x.dtype} [O][C/groups][KH][KW] (x's dtype), got "
                              f"{w.dtype}{w.shape}")
        if act not in ACTS:
            raise BadArgument(f"act {act!r}: expected one of {sorted(ACTS)}")
        n, c, h, wd = x.shape
        o, cg, kh, kw = w.shape
        g = _u32(groups, "groups")
        if g == 0 or cg * g != c:
            raise BadArgument(f"w: {cg} input channels per group x groups {groups} != the "
                              f"input's {c} channels")
        bp = None
        if bias is not None:
            bias = _contig(np.asarray(bias, np.float32), "bias")
            if bias.shape != (o,):
                raise BadArgument(f"bias: shape {bias.shape}, expected ({o},)")
            bp = bias.ctypes.data
        (sh, sw), (dh, dw) = _pair(stride, "stride"), _pair(dilation, "dilation")
        pt, pl, pb, pr = _pads(pads)
        args = _lib.Conv2dArgs(n=_u32(n, "N"), c=_u32(c, "C"), h=_u32(h, "H"), w=_u32(wd, "W"),
                               out_c=_u32(o, "O"), k_h=_u32(kh, "KH"), k_w=_u32(kw, "KW"),
                               stride_h=sh, stride_w=sw, pad_top=pt, pad_left=pl,
                               pad_bottom=pb, pad_right=pr, dil_h=dh, dil_w=dw, groups=g,
                               bias=bp, act=ACTS[act], act_max=float(act_max))
        if x.dtype == np.float16:
            args.input, args.weights = x.ctypes.data, w.ctypes.data
            return self._nchw_call(args, n, o, _lib.npk_rk_conv2d_shape, _lib.npk_rk_conv2d,
                                   "conv2d")
        if x_scale is None or w_scales is None:
            raise BadArgument("int8 conv2d: x_scale and w_scales are required")
        scales = _contig(np.asarray(w_scales, np.float32), "w_scales")
        if scales.shape != (o,):
            raise BadArgument(f"w_scales: shape {scales.shape}, expected ({o},)")
        args.dtype = _lib.CONV_DTYPES["int8"]
        args.input_i8, args.weights_i8 = x.ctypes.data, w.ctypes.data
        args.in_scale, args.w_scales = float(x_scale), scales.ctypes.data
        if out_scale is not None:
            args.out_scale = float(out_scale)
        out_dtype = np.int32 if out_scale is None else np.int8
        return self._nchw_call(args, n, o, _lib.npk_rk_conv2d_shape, _lib.npk_rk_conv2d,
                               "conv2d", out_dtype)

    def pool2d(self, x: np.ndarray, method: str = "max", kernel=2, stride=None, pads=0,
               global_pool: bool = False, count_include_pad: bool = False) -> np.ndarray:
        """2-D pooling on the NPU's PDP: method "max", "avg" or "min" over a kernel window
        (an int or (h, w); stride defaults to the kernel), pads as for conv2d; global_pool
        reduces each plane to 1x1. count_include_pad: an average divides by the whole window.
        x float16 NCHW; returns float16 [N][C][OH][OW]. Pooling runs on the rknpu kernel only
        (the rocket kernel never waits for the PDP's interrupt)."""
        x = _nchw(x, "x")
        if method not in POOL_METHODS:
            raise BadArgument(f"method {method!r}: expected one of {sorted(POOL_METHODS)}")
        n, c, h, w = x.shape
        kh, kw = _pair(kernel, "kernel")
        sh, sw = _pair(stride if stride is not None else (kh, kw), "stride")
        pt, pl, pb, pr = _pads(pads)
        args = _lib.Pool2dArgs(method=POOL_METHODS[method], global_=bool(global_pool),
                               n=_u32(n, "N"), c=_u32(c, "C"), h=_u32(h, "H"), w=_u32(w, "W"),
                               k_h=kh, k_w=kw, stride_h=sh, stride_w=sw, pad_top=pt,
                               pad_left=pl, pad_bottom=pb, pad_right=pr,
                               count_include_pad=bool(count_include_pad), input=x.ctypes.data)
        return self._nchw_call(args, n, c, _lib.npk_rk_pool2d_shape, _lib.npk_rk_pool2d, "pool2d")

    def _nchw_call(self, args, n: int, c: int, shape_fn, run_fn, what: str,
                   out_dtype=np.float16) -> np.ndarray:
        """A conv2d or pool2d call: the library says the output's height and width (checking
        the arguments), the [N][C][OH][OW] output is made (float16; an int8 conv's int32 sums
        or int8 results), then the call runs."""
        oh, ow = ctypes.c_uint32(), ctypes.c_uint32()
        check(shape_fn(ctypes.byref(args), ctypes.byref(oh), ctypes.byref(ow)), what)
        out = np.empty((n, c, oh.value, ow.value), out_dtype)
        field = {np.dtype(np.float16): "output", np.dtype(np.int32): "acc",
                 np.dtype(np.int8): "output_i8"}[np.dtype(out_dtype)]
        setattr(args, field, out.ctypes.data)
        st = _lib.RkStats()
        with self._lock:
            check(run_fn(self._handle(), ctypes.byref(args), ctypes.byref(st)), what)
        self.last_stats = Stats._from(st, self.simulated)
        return out


def matmul(a: np.ndarray, b: np.ndarray, out_dtype=None, dtype: Optional[str] = None,
           device: str = "auto") -> np.ndarray:
    """C [M][N] = A [M][K] . B [K][N] on a runtime opened (and closed) for this one call.

    a: A, a C-contiguous 2-D array [M][K]; b: B, a C-contiguous 2-D array [K][N] of the same
    element type. Any M, K, N from 1 to 2^32-1: the runtime pads and tiles the shape onto the
    hardware's limits.

    Element types and results:

    - float16 x float16 -> float32 (default) or float16 with ``out_dtype=np.float16``
    - int8 x int8 -> int32, exact
    - int4: int8 arrays holding values in [-8, 7] with ``dtype="int4"`` -> int32, exact

    dtype: "fp16", "int8" or "int4"; None takes it from the arrays (float16 or int8).
    out_dtype: the result's numpy dtype (float32 or float16 for fp16 inputs; int32 for int8
    and int4); None chooses float32 or int32.
    device: "auto" (the NPU if present, else the simulator), "sim", "sim-rocket", "npu",
    "rocket" or a device path, as for :class:`Runtime`.

    Returns a new C-contiguous array [M][N]. For many products with the same B, open a
    :class:`Runtime` and pack B once with :meth:`Runtime.weights`: this function packs B on
    every call.

    Raises :class:`~npukit.BadArgument` for a wrong dtype, a non-contiguous array, shapes that
    do not match or an unusable out_dtype; :class:`~npukit.LimitError` for int4 values outside
    [-8, 7] or what the hardware refuses; :class:`~npukit.DeviceError` when the device fails
    or is missing. Each names the bad value and the limit.

    >>> import numpy as np, npukit.rk as rk
    >>> a = np.arange(6, dtype=np.int8).reshape(2, 3)
    >>> b = np.ones((3, 4), np.int8)
    >>> rk.matmul(a, b, device="sim")
    array([[ 3,  3,  3,  3],
           [12, 12, 12, 12]], dtype=int32)
    """
    with Runtime(device) as rt:
        return rt.matmul(a, b, out_dtype=out_dtype, dtype=dtype)


# ---- the planner --------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Task:
    """One task of a plan: half-open ranges over the user's shape, the synthesized (padded)
    shape, the core it runs on, its schedule and CBUF bank split."""
    m: tuple
    k: tuple
    n: tuple
    padded: tuple
    core: int
    sched: int
    cbuf_con0: int


@dataclasses.dataclass(frozen=True)
class Plan:
    """How the runtime splits a matmul. The times are the planner's *model* (microseconds),
    not a measurement."""
    dtype: str
    shape: tuple
    cores_used: int
    k_slice: int
    k_slices: int
    k_padded: bool
    core_split: str
    m_tiling: str
    jobs: int
    modelled_npu_us: float
    modelled_warmup_us: float
    modelled_host_us: float
    modelled_total_us: float
    tasks: tuple


def plan(m: int, k: int, n: int, dtype: str = "fp16", cores: Optional[int] = None,
         chain: int = 1, soc: Optional[str] = None) -> Plan:
    """The planner's split of an M x K x N matmul onto the NPU's limits, as data."""
    if dtype not in _IN_DTYPES:
        raise BadArgument(f"dtype {dtype!r}: expected one of {sorted(_IN_DTYPES)}")
    req = _lib.PlanRequest()
    _lib.npk_rk_plan_request_init(ctypes.byref(req), _lib.PREC[dtype], _u32(m, "M"),
                                  _u32(k, "K"), _u32(n, "N"))
    if cores is not None:
        req.cores = _u32(cores, "cores")
    req.chain = _u32(chain, "chain")
    if soc is not None:
        s = _lib.npk_rk_soc_find(soc.encode())
        if not s:
            raise BadArgument(f"soc {soc!r}: unknown")
        req.soc = s
    p = _lib.Plan()
    check(_lib.npk_rk_plan_matmul(ctypes.byref(req), ctypes.byref(p)), "plan")
    try:
        tasks = tuple(Task(m=(t.m0, t.m1), k=(t.k0, t.k1), n=(t.n0, t.n1),
                           padded=(t.mp, t.kp, t.np), core=t.core, sched=t.sched,
                           cbuf_con0=t.cbuf_con0)
                      for t in (p.tasks[i] for i in range(p.count)))
        return Plan(dtype=dtype, shape=(m, k, n), cores_used=p.cores_used,
                    k_slice=p.k_slice, k_slices=p.k_slices, k_padded=bool(p.k_padded),
                    core_split=_lib.npk_rk_core_split_name(p.core_split).decode(),
                    m_tiling=_lib.npk_rk_m_tiling_name(p.m_tiling).decode(), jobs=p.jobs,
                    modelled_npu_us=p.model_us, modelled_warmup_us=p.warmup_us,
                    modelled_host_us=p.host_us, modelled_total_us=p.total_us, tasks=tasks)
    finally:
        _lib.npk_rk_plan_free(ctypes.byref(p))


# ---- programs -----------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Entry:
    """One regcmd entry: target block, register offset, value, and its decoded text."""
    target: int
    reg: int
    value: int
    text: str


def synth(m: int, k: int, n: int, dtype: str = "fp16", out_dtype: Optional[str] = None,
          a: int = 0, b: int = 0, c: int = 0, soc: Optional[str] = None) -> np.ndarray:
    """Synthesize one matmul task's regcmd body (108 entries) as a numpy uint64 array.
    a, b, c: the IOVAs of the feature, the packed weights and the output."""
    if dtype not in _IN_DTYPES:
        raise BadArgument(f"dtype {dtype!r}: expected one of {sorted(_IN_DTYPES)}")
    mm = _lib.npk_rk_mm_default(_lib.PREC[dtype], _u32(m, "M"), _u32(k, "K"), _u32(n, "N"))
    if out_dtype is not None:
        if out_dtype not in _lib.PREC:
            raise BadArgument(f"out_dtype {out_dtype!r}: unknown")
        mm.out = _lib.PREC[out_dtype]
    for name, v in (("a", a), ("b", b), ("c", c)):
        if not 0 <= int(v) <= 0xFFFFFFFF:
            raise BadArgument(f"{name} = {v:#x}: an IOVA is 32 bits")
    mm.a, mm.b, mm.c = int(a), int(b), int(c)
    if soc is not None:
        s = _lib.npk_rk_soc_find(soc.encode())
        if not s:
            raise BadArgument(f"soc {soc!r}: unknown")
        mm.soc = s
    body = np.zeros(_lib.MATMUL_BODY, np.uint64)
    info = _lib.SynthInfo()
    check(_lib.npk_rk_synth_matmul(ctypes.byref(mm),
                                   body.ctypes.data_as(ctypes.POINTER(ctypes.c_uint64)),
                                   ctypes.byref(info)), "synth")
    return body


def decode(program: Iterable[int]) -> list:
    """Name every entry of a regcmd program (a uint64 array or any iterable of entries)
    through the register table: a list of :class:`Entry`."""
    arr = np.asarray(program)
    if arr.dtype.kind not in "ui":
        raise BadArgument(f"program: dtype {arr.dtype}, expected uint64 entries")
    buf = ctypes.create_string_buffer(256)
    out = []
    for e in arr.astype(np.uint64).ravel():
        e = int(e)
        _lib.npk_rk_entry_describe(e, buf, len(buf))
        out.append(Entry(target=(e >> 48) & 0xFFFF, reg=e & 0xFFFF,
                         value=(e >> 16) & 0xFFFFFFFF, text=buf.value.decode()))
    return out
