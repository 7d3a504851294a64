# SPDX-License-Identifier: MIT
"""A KohakuTPU card from Python: the simulator of a preset, a Verilated card harness or
``npukit kt serve`` over a pipe or TCP, or a card daemon — one :class:`Card` for all of them.

>>> import numpy as np, npukit.kt as kt
>>> with kt.Card("sim") as card:
...     units = card.enumerate()                      # discovery over CU_CTRL
...     y = card.saxpy(2.0, np.arange(100, dtype=np.float32), np.ones(100, np.float32))

A Card keeps the transport contract of the KohakuTPU Python driver's transports:
``read64(addr)``, ``write64(addr, value)``, ``read_block(addr, n) -> bytes`` and
``write_block(addr, data)`` at byte addresses, and ``bulk`` (a real block path exists) — so
code written against that contract runs on npukit's simulator and transports. What holds:

- ``read_block`` is byte-equal to ascending little-endian ``read64`` loops.
- Every write into card DRAM replaces whole 32-byte granules, as the card's write path does:
  the bytes of a granule the write touches but does not cover read back as zero. A
  ``write_block`` of whole aligned granules therefore leaves exactly its bytes, and one that
  starts or ends inside a granule zeroes the rest of that granule; but ascending ``write64``
  over the same 32 bytes leave only the last word (``[0, 0, 0, w3]``: each write zeroes the
  words before it). In card DRAM a block write is not a word loop.
"""
from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import functools
import math
import numbers
import os
import re
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Iterator, Optional, Sequence

import numpy as np

from . import _ktlib as K
from . import _lib
from ._closing import Closing
from .errors import BadArgument, DeviceError, LimitError, check

__all__ = ["Card", "Unit", "HostProgramResult", "Rv64Result", "Rv32Result", "serve", "cli_path"]

SAXPY_TYPE = 0x5358  # "SX"
SAXPY_CHUNK = 64     # elements per saxpy instruction (§3.3)
MAT_TYPE = 0x4D47    # "MG", the matmul cluster (§3.1)
MAT_FILL_MAX = 255   # entries one FILL reads (an 8-bit count)
VEC_TYPE = 0x5643    # "VC", the vector core (§3.2)
VEC_BLOCK = 128      # elements one vector-kernel run computes (VLMAX)
VEC_LOAD_FLITS = 24  # KT_VEC_LOAD_FLITS, KT_VEC_BLOCK_FLITS (kt_vec_job.h)
VEC_BLOCK_FLITS = 8
RV32_TYPE = 0x5256   # "RV", the RV32 control processor (CPU_RV64 = 0)
RV32_WINDOW_WORDS = 2048  # its instruction window and scratchpad at the reference build
CU_DBG = 3           # CU_CTRL index 3
_MAX_UNITS = 256
_U64 = (1 << 64) - 1
_U32 = (1 << 32) - 1
MAX_MESHES = 4       # KT_BOARD_MAX_MESHES (kt_board.h): interlink mesh ids 0..3


@dataclasses.dataclass(frozen=True)
class Unit:
    """A compute unit found by enumeration: its mesh coordinate and CU_CAPS."""
    x: int
    y: int
    type: str
    type_code: int
    version: int
    n_buffers: int
    inst_depth: int


@dataclasses.dataclass(frozen=True)
class HostProgramResult:
    """A host control program's DONE code and what the waits cost."""
    code: int
    polls: int
    waits: int
    pc: int


@dataclasses.dataclass(frozen=True)
class Rv64Result:
    """How a program on the RV64 control complex ended: ``exited`` with ``exit_word``, or
    ``halted`` (``cause``: ecall, ebreak, illegal, fault) at ``halt_pc``; its console text."""
    exited: bool
    halted: bool
    timed_out: bool
    cause: str
    exit_word: int
    halt_pc: int
    cycles: int
    retired: int
    console: str
    rings: int
    clears: int


@dataclasses.dataclass(frozen=True)
class Rv32Result:
    """How a program on the RV32 control processor ended: its halt word (a0 at ECALL or
    EBREAK, the faulting pc otherwise), ``faulted`` for EBREAK or a fault, the program's own
    counters (CU_DBG: instructions retired and processor cycles of this run), and what the wait
    cost: NODE_STATUS reads, or with ``engine`` the engine programs and reads of its CTRL."""
    x: int
    y: int
    halt_word: int
    faulted: bool
    instructions: int
    cycles: int
    polls: int
    engine_programs: int


def _rv32_words(image, name: str) -> np.ndarray:
    """A boot image as little-endian 32-bit words: a path (its bytes), bytes, or an array of
    32-bit words; a tail short of a word is padded with zeros."""
    if isinstance(image, (str, os.PathLike)):
        image = Path(image).read_bytes()
    if isinstance(image, np.ndarray):
        if image.dtype.kind not in "ui" or image.dtype.itemsize != 4:
            raise BadArgument(f"{name}: an array of 32-bit words, not {image.dtype}")
        return np.ascontiguousarray(image.ravel(), "<u4").view(np.uint32)
    try:
        raw = bytes(image)
    except TypeError:
        raise BadArgument(f"{name}: a path, bytes or an array of 32-bit words, not "
                          f"{type(image).__name__}") from None
    raw += b"\0" * (-len(raw) % 4)
    return np.frombuffer(raw, "<u4").astype(np.uint32)


def _addr(v, name="addr") -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 0 <= v <= _U64:
        raise BadArgument(f"{name} = {v!r}: expected an integer from 0 to 2^64-1")
    return int(v)


def _uint(v, name: str, lo: int, hi: int, what: str) -> int:
    # ctypes passes the low bits of a wider Python int without a word, so C's unsigned
    # parameters are bounded here.
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= v <= hi:
        raise BadArgument(f"{name} = {v!r}: expected an integer from {lo} to {hi} ({what})")
    return int(v)


def _saxpy_operand(v: float, name: str, truncate: bool) -> None:
    """Refuse an operand the saxpy unit cannot take: it converts every operand to a 32-bit
    integer toward zero, which NaN, infinities and values beyond the int32 range do not have
    (the simulator reports them as a model error and leaves y unwritten); a fractional value
    is truncated, so it is refused unless the caller asked for the unit's arithmetic."""
    if not math.isfinite(v) or not -2.0 ** 31 <= v < 2.0 ** 31:
        raise BadArgument(f"saxpy operand {name} = {v!r} has no 32-bit integer value: the "
                          "unit converts each operand to an integer in [-2^31, 2^31)")
    if not truncate and v != math.trunc(v):
        raise BadArgument(f"saxpy operand {name} = {v!r} is not a whole number: the unit "
                          "converts each operand to an integer toward zero (pass "
                          "truncate=True to compute as the unit does)")


def _serial(method):
    """Run a Card method under the card's lock: one call at a time per card, so threads that
    share a card never interleave on its transport (a line peer's replies would reach the
    wrong caller), and close() waits for a running call before it frees the machine."""
    @functools.wraps(method)
    def call(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)
    return call


def _float32_exact(v, name: str) -> np.ndarray:
    """`v` as a contiguous float32 vector, refusing any element the conversion would change
    as the unit sees it (its integer part): numpy's casting rules call int64 -> float32 or
    float64 -> float32 unsafe, and 16777217 would quietly become 16777216."""
    src = np.asarray(v)
    out = np.ascontiguousarray(src, np.float32).ravel()
    if np.can_cast(src.dtype, np.float32, "safe"):
        return out
    flat = src.ravel()
    with np.errstate(invalid="ignore", over="ignore"):
        if src.dtype.kind in "iu":
            # Compared as integers: a float64 view of int64 rounds as well.
            back = out.astype(np.float64)
            lost = (np.abs(back) >= 2.0 ** 63) | (back.astype(np.int64, casting="unsafe")
                                                  .astype(flat.dtype, casting="unsafe") != flat)
        else:
            f = flat.astype(np.float64)
            lost = np.isfinite(f) & (np.trunc(out.astype(np.float64)) != np.trunc(f))
    if lost.any():
        i = int(np.argmax(lost))
        raise BadArgument(f"saxpy operand {name}[{i}] = {flat[i]!r} ({src.dtype}) has no "
                          f"exact float32 value (it would become {out[i]!r}); numpy calls "
                          f"{src.dtype} -> float32 an unsafe cast. Pass float32 operands")
    return out


class Card(Closing):
    """A KohakuTPU machine (a context manager).

    spec: "sim" or "sim:PRESET" (the simulator in this process), "pipe:COMMAND" (a line-protocol
    peer such as ``npukit kt serve`` or a Verilated card harness), "tcp:HOST:PORT",
    "daemon" or "daemon:HOST:PORT" (a card daemon).
    board: the preset describing a machine outside the process (its map, STAGE_FLITS, DRAM).
    meshes: meshes to drive (1 to 4); engine: use the host control-program engine; backdoor:
    DRAM blocks through a line peer's BR/BW; ctrl_base / mem_base override the board's;
    timeout_ms bounds each reply from a remote machine (0: the library's default).
    """

    def __init__(self, spec: str = "sim", board: Optional[str] = None, meshes: int = 1,
                 engine: bool = False, prestrobe: bool = False, backdoor: bool = False,
                 ctrl_base: Optional[int] = None, mem_base: Optional[int] = None,
                 timeout_ms: int = 0):
        # Set first: close() (from __del__ too) must work on a card whose open failed.
        # Reentrant: saxpy, dram_read, ... call other methods of the card.
        self._lock = threading.RLock()
        self._m: Optional[int] = None
        self._devs: dict = {}
        if not isinstance(spec, str):
            raise BadArgument(f"spec: expected a string, got {type(spec).__name__}")
        # The library reads "" as the default simulator; here an empty spec is more likely a
        # missing value (an unset variable) than a choice, so it is refused.
        if not spec.strip():
            raise BadArgument(f"spec {spec!r}: empty; expected \"sim\", \"sim:PRESET\", "
                              "\"pipe:COMMAND\", \"tcp:HOST:PORT\" or \"daemon[:HOST:PORT]\"")
        if board is not None and not isinstance(board, str):
            raise BadArgument(f"board {board!r}: expected a preset name (a string)")
        o = K.OpenOpts()
        self._board_name = board.encode() if board else None
        o.board = self._board_name
        # The library reads meshes=0 as 1; a caller asking for no mesh has made a mistake.
        o.meshes = _uint(meshes, "meshes", 1, MAX_MESHES, "meshes to drive")
        o.engine, o.prestrobe, o.backdoor = engine, prestrobe, backdoor
        if ctrl_base is not None:
            o.ctrl_base_set, o.ctrl_base = True, _addr(ctrl_base, "ctrl_base")
        if mem_base is not None:
            o.mem_base_set, o.mem_base = True, _addr(mem_base, "mem_base")
        o.timeout_ms = _uint(timeout_ms, "timeout_ms", 0, _U32, "0: the library's default")
        h = ctypes.c_void_p()
        check(K.kt_open_spec(spec.encode(), ctypes.byref(o), ctypes.byref(h)), f"open {spec!r}")
        self._m = h.value
        self.spec = spec
        self._t = K.kt_machine_transport(self._m)

    # -- lifetime --
    @_serial
    def close(self) -> None:
        """Close the machine (a pipe child is reaped; a daemon's leases end). Idempotent."""
        if self._m is None:
            return
        for d in self._devs.values():
            K.kt_dev_destroy(d)
        self._devs.clear()
        m, self._m = self._m, None
        # The transport lives inside the machine: nothing may reach it once the machine is gone.
        self._t = None
        check(K.kt_machine_close(m), "close")

    def _mh(self) -> int:
        if self._m is None:
            raise BadArgument("the card is closed")
        return self._m

    def _tp(self):
        """The machine's transport; raises on a closed card (it points into the machine)."""
        self._mh()
        return self._t

    # -- what the machine is --
    @property
    @_serial
    def kind(self) -> str:
        """"simulator", "line protocol (pipe)", "line protocol (tcp)" or "card daemon"."""
        return K.kt_machine_kind(self._mh()).decode()

    @property
    @_serial
    def meshes(self) -> int:
        """The number of meshes this card drives (``meshes=`` at open)."""
        return K.kt_machine_meshes(self._mh())

    @property
    @_serial
    def has_engine(self) -> bool:
        """True when the host control-program engine is in use (``engine=True`` on a machine
        that has one)."""
        return bool(K.kt_machine_has_engine(self._mh()))

    @property
    @_serial
    def board(self) -> dict:
        """The board description: name, stage_flits, ctrl_base, mem_base, engine_base,
        dram_size, clock_mhz, bitstream_current, mover, cpu_rv64."""
        b = K.kt_machine_board(self._mh()).contents
        return {"name": b.name.decode(), "stage_flits": b.stage_flits, "ctrl_base": b.ctrl_base,
                "mem_base": b.mem_base, "engine_base": b.engine_base, "dram_size": b.dram_size,
                "clock_mhz": b.clock_mhz, "bitstream_current": bool(b.bitstream_current),
                "mover": bool(b.mover), "cpu_rv64": bool(b.cpu_rv64)}

    @_serial
    def ctrl_base(self, mesh: int = 0) -> int:
        """The host address of a mesh's control window."""
        self._mesh(mesh)
        return K.kt_machine_ctrl_base(self._mh(), mesh)

    @_serial
    def mem_base(self, mesh: int = 0) -> int:
        """The host address of a mesh's DRAM (offset 0)."""
        self._mesh(mesh)
        return K.kt_machine_mem_base(self._mh(), mesh)

    def _mesh(self, mesh: int) -> None:
        if not isinstance(mesh, int) or not 0 <= mesh < self.meshes:
            raise BadArgument(f"mesh {mesh!r}: this card drives meshes 0..{self.meshes - 1}")

    @property
    @_serial
    def cycle(self) -> Optional[int]:
        """The machine's mesh clock, when it reports one (the simulator, ``kt serve``)."""
        c = ctypes.c_uint64()
        return c.value if K.kt_machine_cycle(self._mh(), ctypes.byref(c)) else None

    @_serial
    def step(self, cycles: int) -> None:
        """Let the machine run `cycles` mesh cycles (0 to 2^64-1) with no host traffic."""
        if isinstance(cycles, bool) or not isinstance(cycles, (int, np.integer)) or \
                not 0 <= cycles <= _U64:
            raise BadArgument(f"cycles = {cycles!r}: expected an integer from 0 to 2^64-1")
        K.kt_machine_step(self._mh(), int(cycles))

    @property
    @_serial
    def fault(self) -> Optional[str]:
        """The machine's model fault (a simulator's text, or what a served machine reports)."""
        buf = ctypes.create_string_buffer(512)
        return buf.value.decode(errors="replace") if K.kt_machine_fault(self._mh(), buf,
                                                                          len(buf)) else None

    # -- the transport contract --
    @property
    @_serial
    def bulk(self) -> bool:
        """True when a real block path exists (blocks are not word loops)."""
        return bool(self._tp().contents.bulk)

    @property
    @_serial
    def counters(self) -> dict:
        """Transactions so far: reads, writes, block_reads, block_writes, bytes_read,
        bytes_written (every backend counted in one place)."""
        c = self._tp().contents.count
        return {f: getattr(c, f) for f, _ in K.Counters._fields_}

    @_serial
    def reset_counters(self) -> None:
        """Set every transaction counter of :attr:`counters` back to zero."""
        K.kt_counters_reset(self._tp())

    @_serial
    def read64(self, addr: int) -> int:
        """The 64-bit little-endian word at byte address `addr` (8-aligned): a control
        register (``ctrl_base() + offset``) or card DRAM (``mem_base() + offset``)."""
        t = self._tp()
        v = ctypes.c_uint64()
        check(K.kt_read64(t, _addr(addr), ctypes.byref(v)), f"read64 {addr:#x}")
        return v.value

    @_serial
    def write64(self, addr: int, data: int) -> None:
        """Write the 64-bit word `data` (0 to 2^64-1) at byte address `addr` (8-aligned).
        In card DRAM the write replaces its whole 32-byte granule: the granule's other three
        words read back as zero afterwards."""
        t = self._tp()
        check(K.kt_write64(t, _addr(addr), _addr(data, "data")), f"write64 {addr:#x}")

    @_serial
    def read_block(self, addr: int, n: int) -> bytes:
        """n bytes (a multiple of 8) from an 8-aligned address, byte-equal to ascending
        :meth:`read64` of the same words."""
        t = self._tp()
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n <= 0 or n % 8:
            raise BadArgument(f"read_block n={n!r}: a positive multiple of 8 bytes")
        n = int(n)
        # The card's largest window is its DRAM: a longer read cannot be met, and allocating
        # its buffer first would fail with a bare MemoryError.
        size = K.kt_machine_board(self._mh()).contents.dram_size
        if n > size:
            raise LimitError(f"read_block n={n}: past the card, whose largest window (DRAM) "
                             f"holds {size:#x} bytes")
        buf = ctypes.create_string_buffer(n)
        check(K.kt_read_block(t, _addr(addr), buf, n), f"read_block {addr:#x}+{n}")
        return buf.raw

    @_serial
    def write_block(self, addr: int, data) -> None:
        """Write `data` (a multiple of 8 bytes) at an 8-aligned address. `data` is a bytes-like
        object with contiguous memory: bytes, bytearray, memoryview or a C-contiguous numpy
        array (its bytes as they are in memory). In card DRAM it writes whole 32-byte
        granules: a block of whole aligned granules leaves exactly its bytes, and the bytes of
        a granule it touches but does not cover read back as zero. (Ascending :meth:`write64`
        over a granule leave only the last word: each zeroes the granule's other words.)"""
        t = self._tp()
        # The same rule as the array arguments of npukit.rk: anything else is refused by name
        # rather than converted, so a list or str is not silently given some byte form.
        try:
            mv = memoryview(data)
        except TypeError:
            raise BadArgument(f"write_block data: expected bytes, bytearray, memoryview or a "
                              f"C-contiguous numpy array, got {type(data).__name__}") from None
        if not mv.c_contiguous:
            raise BadArgument("write_block data: the buffer is not C-contiguous (the library "
                              "reads it in place); pass np.ascontiguousarray(data) or "
                              "bytes(data)")
        mv = mv.cast("B")
        n = mv.nbytes
        if n == 0 or n % 8:
            raise BadArgument(f"write_block of {n} bytes: a positive multiple of 8 bytes")
        buf = (ctypes.c_char * n).from_buffer_copy(mv) if mv.readonly else \
            (ctypes.c_char * n).from_buffer(mv)
        check(K.kt_write_block(t, _addr(addr), buf, n), f"write_block {addr:#x}+{n}")

    # -- the driver --
    def _dev(self, mesh: int = 0) -> int:
        self._mesh(mesh)
        d = self._devs.get(mesh)
        if d is None:
            o = K.Options()
            o.stage_flits = K.kt_machine_board(self._mh()).contents.stage_flits
            o.pause, o.pause_user = K.kt_machine_pause_addr, self._m
            h = ctypes.c_void_p()
            check(K.kt_dev_create(self._tp(), self.ctrl_base(mesh), ctypes.byref(o),
                                  ctypes.byref(h)), "open the control window")
            d = self._devs[mesh] = h.value
        return d

    def _units(self, mesh: int):
        arr = (K.Unit * _MAX_UNITS)()
        n = ctypes.c_size_t()
        check(K.kt_enumerate(self._dev(mesh), arr, _MAX_UNITS, ctypes.byref(n)), "enumerate")
        return [arr[i] for i in range(n.value)]

    @_serial
    def enumerate(self, mesh: int = 0) -> list:
        """Discover the mesh's compute units over CU_CTRL (CU_CAPS read twice to agree)."""
        return [Unit(x=u.at.x, y=u.at.y, type=u.type_text.decode(), type_code=u.caps.type,
                     version=u.caps.version, n_buffers=u.caps.n_buffers,
                     inst_depth=u.caps.inst_depth) for u in self._units(mesh)]

    @_serial
    def dram_write(self, offset: int, array: np.ndarray, mesh: int = 0) -> None:
        """Write an array's bytes into a mesh's DRAM at `offset` (whole 32-byte granules:
        the memory window zero-fills the rest of a partial one)."""
        a = np.ascontiguousarray(array)
        raw = a.view(np.uint8).ravel()
        pad = (-raw.nbytes) % 32
        if pad:
            raw = np.concatenate([raw, np.zeros(pad, np.uint8)])
        self._dram_range(offset, raw.nbytes, mesh)
        self.write_block(self.mem_base(mesh) + offset, raw)

    @_serial
    def dram_read(self, offset: int, count: int, dtype=np.uint8, mesh: int = 0) -> np.ndarray:
        """Read `count` elements of `dtype` from a mesh's DRAM at `offset`."""
        dt = np.dtype(dtype)
        n = count * dt.itemsize
        whole = (n + 7) // 8 * 8
        self._dram_range(offset, whole, mesh)
        return np.frombuffer(self.read_block(self.mem_base(mesh) + offset, whole)[:n], dt).copy()

    def _dram_range(self, offset: int, n: int, mesh: int) -> None:
        size = self.board["dram_size"]
        if not isinstance(offset, int) or offset < 0 or offset % 8 or offset + n > size:
            raise LimitError(f"DRAM offset {offset!r} + {n} bytes: the mesh's DRAM holds "
                             f"{size:#x} bytes (offsets 8-byte aligned)")

    @_serial
    def saxpy(self, a: float, x: np.ndarray, y: np.ndarray, mesh: int = 0,
              x_offset: int = 0x100000, truncate: bool = False) -> np.ndarray:
        """y' = a*x + y on the mesh's saxpy units ('SX'): x and y (float32) are uploaded to
        DRAM, staged as 64-element instructions, dispatched with credit over every unit and
        waited for; y' is read back.

        The unit computes on integers, as the card's RTL does: each operand converted to a
        32-bit integer toward zero, a wrapping 32-bit multiply-add, converted back. It is
        exact for whole-valued operands. An operand with no 32-bit integer value (NaN, an
        infinity, beyond [-2^31, 2^31)) raises BadArgument naming it; so does a fractional
        one unless truncate=True asks for the unit's truncating arithmetic (a = 2.5, x = 0.25,
        y = 2 gives 2). A model fault the machine reports during the call raises DeviceError
        with its text."""
        if isinstance(a, bool) or not isinstance(a, numbers.Real):
            raise BadArgument(f"saxpy operand a = {a!r}: expected a real number")
        _saxpy_operand(float(a), "a", truncate)
        with np.errstate(over="ignore"):
            a32 = float(np.float32(a))  # what the instruction carries
        _saxpy_operand(a32, f"a (float32 of {a!r})", truncate)
        if math.isfinite(a32) and (math.trunc(a32) != math.trunc(float(a)) or (
                isinstance(a, numbers.Integral) and int(a) != math.trunc(a32))):
            raise BadArgument(f"saxpy operand a = {a!r} has no exact float32 value (it "
                              f"would become {a32!r}): the instruction carries a float32")
        x = _float32_exact(x, "x")
        y = _float32_exact(y, "y")
        if x.shape != y.shape or x.size == 0:
            raise BadArgument(f"x and y: equal non-empty lengths, got {x.size} and {y.size}")
        for name, v in (("x", x), ("y", y)):
            with np.errstate(invalid="ignore"):
                bad = ~np.isfinite(v) | (v >= 2.0 ** 31) | (v < -2.0 ** 31)
                if not truncate:
                    bad |= v != np.trunc(v)
            if bad.any():
                i = int(np.argmax(bad))
                _saxpy_operand(float(v[i]), f"{name}[{i}]", truncate)
        # The model's fault is sticky and the first one stays: only one that appears during
        # this call is this call's.
        fault_before = self.fault
        units = [u for u in self._units(mesh) if u.caps.type == SAXPY_TYPE]
        if not units:
            raise DeviceError("no saxpy unit ('SX') on this mesh", "ENODEV")
        n = x.size
        padded = (n + 7) // 8 * 8
        y_offset = x_offset + (padded * 4 + 0xFFFFF) // 0x100000 * 0x100000
        self.dram_write(x_offset, x, mesh)
        self.dram_write(y_offset, y, mesh)
        dev = self._dev(mesh)
        stage = K.kt_machine_board(self._mh()).contents.stage_flits
        chunks = (n + SAXPY_CHUNK - 1) // SAXPY_CHUNK
        nxt, txn = 0, 0x40
        while nxt < chunks:
            per = max(1, min((chunks - nxt + len(units) - 1) // len(units),
                             stage // len(units)))
            flits = (K.Flit * stage)()
            progs, used = [], 0
            for u in units:
                base, cnt = used, 0
                while cnt < per and nxt < chunks and used < stage:
                    first = nxt * SAXPY_CHUNK
                    ln = min(SAXPY_CHUNK, n - first)
                    last = cnt + 1 == per or nxt + 1 == chunks or used + 1 == stage
                    check(K.kt_saxpy_inst(ctypes.byref(flits[used]), ln, float(a),
                                          x_offset + first * 4, y_offset + first * 4, txn, last),
                          "saxpy instruction")
                    used, cnt, nxt = used + 1, cnt + 1, nxt + 1
                if cnt:
                    progs.append((u, base, cnt))
            txn = (txn + 1) & 0xFF
            check(K.kt_stage(dev, 0, flits, used), "stage")
            tickets = []
            for u, base, cnt in progs:
                tk = K.Ticket()
                check(K.kt_dispatch(dev, ctypes.byref(u), base, cnt, 0, ctypes.byref(tk)),
                      "dispatch")
                tickets.append(tk)
            for tk in tickets:
                check(K.kt_wait(dev, ctypes.byref(tk), None), "wait")
        if fault_before is None:
            fault = self.fault
            if fault is not None:
                raise DeviceError(f"saxpy: {fault} [EFAULT]",
                                  "EFAULT")
        return self.dram_read(y_offset, n, np.float32, mesh)

    @_serial
    def matmul(self, a: np.ndarray, b: np.ndarray, mesh: int = 0,
               offset: int = 0x100000, engine: bool = False, emit: bool = False) -> np.ndarray:
        """C = A @ B on the mesh's matmul clusters ('MG'). A (M x K) and B (K x N) are rounded to
        FP16 and uploaded in the clusters' entry layout (4 rows of A, or 4 columns of B, by 32 K);
        the memory port quantises them to MXFP7 as each FILL reads them. Each tile of C small
        enough for one FILL is one program — FILL A, FILL B, GEMM, DRAIN — dealt to the clusters a
        round at a time. C comes back as FP16 (returned as float32); it carries MXFP7's error
        (about 1% RMS of the product on random operands) and the FP22 accumulator's rounding.
        M and N must be multiples of 4, K of 32 and at most 32 * 255. With engine=True (a card
        opened with engine=True) each round's staging, dispatches and waits are one host control
        program that the card's control-program engine runs for one GO; C is the same. With
        emit=True each GEMM emits its sub-tiles as its sweep completes them and each DRAIN is the
        fused barrier (K of 64 or more); C is the same. A model fault the machine reports during
        the call raises DeviceError with its text."""
        if engine and not self.has_engine:
            raise LimitError("matmul(engine=True): this machine has no control-program engine "
                             "(open it with engine=True on a preset that has one)")
        a = np.asarray(a)
        b = np.asarray(b)
        if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
            raise BadArgument(f"A {a.shape} and B {b.shape}: expected M x K and K x N")
        m, k = a.shape
        n = b.shape[1]
        if m == 0 or n == 0 or m % 4 or n % 4 or k % 32 or not 32 <= k <= 32 * MAT_FILL_MAX:
            raise BadArgument(f"matmul {m} x {k} x {n}: M and N multiples of 4, K a multiple "
                              f"of 32 in 32..{32 * MAT_FILL_MAX} (the cluster's sub-tile, K "
                              "block and FILL)")
        if emit and k == 32:
            raise BadArgument("matmul(emit=True) with K=32: one K block, which a sweep cannot "
                              "both open and emit (K of 64 or more)")
        fault_before = self.fault
        units = [u for u in self._units(mesh) if u.caps.type == MAT_TYPE]
        if not units:
            raise DeviceError("no matmul cluster ('MG') on this mesh", "ENODEV")
        gm, gn, nk = m // 4, n // 4, k // 32
        mt = min(gm, MAT_FILL_MAX // nk)
        nt = min(gn, MAT_FILL_MAX // nk, -(-gn // len(units)))

        def entries(rows: np.ndarray) -> np.ndarray:  # [groups*4][K] -> entry order
            r = rows.astype(np.float16).reshape(-1, 4, nk, 32)
            return np.ascontiguousarray(r.transpose(0, 2, 1, 3))

        region = 0x100000
        a_off = offset
        b_off = a_off + -(-(m * k * 2) // region) * region
        c_off = b_off + -(-(n * k * 2) // region) * region
        self.dram_write(a_off, entries(a), mesh)
        self.dram_write(b_off, entries(b.T), mesh)
        jobs = [(g0, h0) for g0 in range(0, gm, mt) for h0 in range(0, gn, nt)]
        job_bytes = mt * nt * 32
        self._dram_range(c_off, len(jobs) * job_bytes, mesh)
        dev = self._dev(mesh)
        stage = K.kt_machine_board(self._mh()).contents.stage_flits
        per_round = min(len(units), stage // 4)
        txn = 0x40
        for first in range(0, len(jobs), per_round):
            batch = list(enumerate(jobs))[first:first + per_round]
            flits = (K.Flit * (4 * len(batch)))()
            for slot, (j, (g0, h0)) in enumerate(batch):
                gms, gns = min(mt, gm - g0), min(nt, gn - h0)
                f = [ctypes.byref(flits[4 * slot + i]) for i in range(4)]
                check(K.kt_mat_fill(f[0], a_off + g0 * nk * 256,
                                    gms * nk, False, False, False, 0, txn, False), "FILL A")
                check(K.kt_mat_fill(f[1], b_off + h0 * nk * 256, gns * nk, True, False, False,
                                    0, txn, False), "FILL B")
                at = c_off + j * job_bytes
                if emit:
                    check(K.kt_mat_gemm_emit(f[2], gms, gns, nk, False, 0, 0, False, False, at,
                                             txn, False), "GEMM emit")
                    check(K.kt_mat_drain_fused(f[3], at, gms * gns, txn, True), "fused DRAIN")
                else:
                    check(K.kt_mat_gemm(f[2], gms, gns, nk, False, 0, 0, False, False, txn,
                                        False), "GEMM")
                    check(K.kt_mat_drain(f[3], at, gms * gns, txn, True), "DRAIN")
            if engine:
                self._engine_round(dev, flits, units[:len(batch)])
            else:
                check(K.kt_stage(dev, 0, flits, 4 * len(batch)), "stage")
                tickets = []
                for slot in range(len(batch)):
                    tk = K.Ticket()
                    check(K.kt_dispatch(dev, ctypes.byref(units[slot]), 4 * slot, 4, 0,
                                        ctypes.byref(tk)), "dispatch")
                    tickets.append(tk)
                for tk in tickets:
                    check(K.kt_wait(dev, ctypes.byref(tk), None), "wait")
            txn = (txn + 1) & 0xFF
        if fault_before is None and self.fault is not None:
            raise DeviceError(f"matmul: {self.fault} [EFAULT]", "EFAULT")
        c = np.empty((m, n), np.float32)
        for j, (g0, h0) in enumerate(jobs):
            gms, gns = min(mt, gm - g0), min(nt, gn - h0)
            sub = self.dram_read(c_off + j * job_bytes, gms * gns * 16, np.float16, mesh)
            tile = sub.reshape(gms, gns, 4, 4).transpose(0, 2, 1, 3).reshape(gms * 4, gns * 4)
            c[g0 * 4:(g0 + gms) * 4, h0 * 4:(h0 + gns) * 4] = tile
        return c

    def _engine_round(self, dev: int, flits, units: list) -> None:
        """Programs of 4 flits each, staged back to back, on units[0], units[1], ... as one host
        control program run by the engine: the staging block, each dispatch, the wait for every
        program's NODE_STATUS count, DONE; then each program's fault and credit check."""
        hp = K.Hostprog()
        K.kt_hp_init(ctypes.byref(hp))
        try:
            check(K.kt_hp_stage(ctypes.byref(hp), dev, 0, flits, 4 * len(units)), "stage")
            tickets = [K.Ticket() for _ in units]
            for slot, (u, tk) in enumerate(zip(units, tickets)):
                check(K.kt_hp_dispatch(ctypes.byref(hp), dev, ctypes.byref(u), 4 * slot, 4, 0,
                                       ctypes.byref(tk)), "dispatch")
            for tk in tickets:
                check(K.kt_hp_await(ctypes.byref(hp), dev, ctypes.byref(tk)), "wait")
            check(K.kt_hp_done(ctypes.byref(hp), MAT_TYPE), "DONE")
            res = K.HpResult()
            base = K.kt_machine_board(self._mh()).contents.engine_base
            check(K.kt_hp_run_engine(self._tp(), base, ctypes.byref(hp), None,
                                     ctypes.byref(res)), "engine program")
            for tk in tickets:
                check(K.kt_hp_check_ticket(dev, ctypes.byref(tk)), "after the engine program")
        finally:
            K.kt_hp_free(ctypes.byref(hp))

    @_serial
    def vec(self, kernel: str, x: np.ndarray, y: Optional[np.ndarray] = None, a: float = 1.5,
            mesh: int = 0, offset: int = 0x100000) -> np.ndarray:
        """z = f(x, y) elementwise on the mesh's vector cores ('VC'): kernel "axpy" (a*x + y,
        one fused multiply-add), "add", "mul", "max", "relu" (max(x, 0)), or one of the lanes'
        seeds of x: "exp2", "log2", "inv" (1/x), "rsqrt" (1/sqrt(x)) (y unused by the last five;
        the seeds are within 0.75 of an E8M15 ulp, log2 2^-19 plus half an ulp). x and y are
        rounded to FP16 and uploaded; each core is loaded once with the kernel, then runs blocks
        of 128 elements dealt round-robin, computing in the lanes' E8M15 (a rounded to it) and
        storing FP16. z comes back as FP16 values (returned as float32). A kernel fault raises
        DeviceError naming it; so does a model fault the machine reports during the call."""
        code = ctypes.c_int()
        check(K.kt_vec_kernel_find(kernel.encode() if isinstance(kernel, str) else None,
                                   ctypes.byref(code)), "vector kernel")
        x = np.asarray(x, np.float16).ravel()
        binary = K.kt_vec_kernel_binary(code.value)
        if binary:
            if y is None:
                raise BadArgument(f"vector kernel {kernel} needs y")
            y = np.asarray(y, np.float16).ravel()
            if y.shape != x.shape:
                raise BadArgument(f"x {x.shape} and y {y.shape}: expected the same length")
        else:
            y = x
        n = x.size
        if n == 0:
            raise BadArgument("vector kernel over 0 elements: x is empty")
        fault_before = self.fault
        units = [u for u in self._units(mesh) if u.caps.type == VEC_TYPE]
        if not units:
            raise DeviceError("no vector core ('VC') on this mesh", "ENODEV")
        blocks = -(-n // VEC_BLOCK)
        span = -(-(blocks * VEC_BLOCK * 2) // 0x100000) * 0x100000
        x_off, y_off, z_off = offset, offset + span, offset + 2 * span
        pad = np.zeros(blocks * VEC_BLOCK, np.float16)
        for off, v in ((x_off, x), (y_off, y)):
            pad[:n] = v
            self.dram_write(off, pad, mesh)
        dev = self._dev(mesh)
        stage = K.kt_machine_board(self._mh()).contents.stage_flits
        per_round = min(len(units), stage // VEC_LOAD_FLITS)
        txn = 0x40

        def run(flits, per, group, what):  # program i of `per` flits to group[i], then wait
            check(K.kt_stage(dev, 0, flits, per * len(group)), "stage")
            tickets = []
            for slot, unit in enumerate(group):
                tk = K.Ticket()
                check(K.kt_dispatch(dev, ctypes.byref(unit), per * slot, per, 0,
                                    ctypes.byref(tk)), "dispatch")
                tickets.append(tk)
            for tk in tickets:
                check(K.kt_wait(dev, ctypes.byref(tk), None), what)

        load = (K.Flit * VEC_LOAD_FLITS)()
        nload = ctypes.c_size_t()
        check(K.kt_vec_kernel_load(code.value, a, txn, load, ctypes.byref(nload), None),
              "vector kernel load")
        for first in range(0, len(units), per_round):
            count = min(per_round, len(units) - first)
            flits = (K.Flit * (nload.value * count))()
            for slot in range(count):
                ctypes.memmove(ctypes.byref(flits[slot * nload.value]), load,
                               nload.value * ctypes.sizeof(K.Flit))
            run(flits, nload.value, units[first:first + count], "vector kernel load")
        for first in range(0, blocks, per_round):
            count = min(per_round, blocks - first)
            flits = (K.Flit * (VEC_BLOCK_FLITS * count))()
            for slot in range(count):
                b = first + slot
                at = b * VEC_BLOCK * 2
                check(K.kt_vec_kernel_block(code.value, min(VEC_BLOCK, n - b * VEC_BLOCK),
                                            x_off + at, y_off + at, z_off + at, txn,
                                            ctypes.byref(flits[slot * VEC_BLOCK_FLITS])),
                      "vector kernel block")
            run(flits, VEC_BLOCK_FLITS, units[:count], "vector kernel run")
        if fault_before is None and self.fault is not None:
            raise DeviceError(f"vec: {self.fault} [EFAULT]", "EFAULT")
        words = -(-n // 16)
        z = self.dram_read(z_off, words * 16, np.float16, mesh)
        return z[:n].astype(np.float32)

    @_serial
    def move(self, mode: str, dst: int, words: int, src: int = 0, value: int = 0,
             width: int = 32, seed: int = 1, mesh: int = 0) -> None:
        """One memory-mover move inside a mesh's DRAM (addresses are DRAM byte offsets,
        multiples of 32; words of 32 bytes): "copy" (src -> dst), "fill" (value at `width`
        bits), "generate" (the Philox stream of `seed`). Waits until the mover is idle; a
        fault raises naming its code."""
        self._mesh(mesh)
        if not isinstance(words, int) or not 1 <= words <= 0xFFFF:
            raise BadArgument(f"words {words!r}: 1..65535")
        widths = {8: 0, 16: 1, 32: 2}
        if width not in widths:
            raise BadArgument(f"width {width!r}: 8, 16 or 32")
        if mode == "copy":
            mv = K.kt_mv_copy(_addr(dst, "dst"), _addr(src, "src"), words)
        elif mode == "fill":
            mv = K.kt_mv_fill(_addr(dst, "dst"), words, widths[width], int(value) & 0xFFFFFFFF)
        elif mode == "generate":
            mv = K.kt_mv_generate(_addr(dst, "dst"), words, _addr(seed, "seed"))
        else:
            raise BadArgument(f"mode {mode!r}: copy, fill or generate")
        if mode != "fill":
            mv.width = widths[width]
        check(K.kt_mv_validate(ctypes.byref(mv)), f"move {mode}")
        check(K.kt_mv_run_idle(self._tp(), self.ctrl_base(mesh), ctypes.byref(mv), 0,
                               None, None, None), f"move {mode}")

    @_serial
    def run_program(self, text: str, engine: bool = False,
                    origin: str = "<program>") -> HostProgramResult:
        """Run a host control program given as text (setup writes and WR / POLL / DONE
        commands, the format `npukit kt prog` reads) on the host, or shipped to the card's
        control-program engine (engine=True)."""
        if engine and not self.has_engine:
            raise LimitError("this machine has no control-program engine (open it with "
                             "engine=True on a preset that has one)")
        hp = K.Hostprog()
        K.kt_hp_init(ctypes.byref(hp))
        try:
            check(K.kt_hp_parse(text.encode(), origin.encode(), ctypes.byref(hp)), "program")
            res = K.HpResult()
            if engine:
                base = K.kt_machine_board(self._mh()).contents.engine_base
                check(K.kt_hp_run_engine(self._tp(), base, ctypes.byref(hp), None,
                                         ctypes.byref(res)), "engine program")
            else:
                check(K.kt_hp_run_host(self._tp(), ctypes.byref(hp), None, ctypes.byref(res)),
                      "host program")
            return HostProgramResult(code=res.code, polls=res.polls, waits=res.waits, pc=res.pc)
        finally:
            K.kt_hp_free(ctypes.byref(hp))

    @_serial
    def rv32_run(self, text, data=None, arg: int = 0, at: Optional[tuple] = None,
                 engine: bool = False, polls: int = 100000, mesh: int = 0) -> Rv32Result:
        """Boot a program on the RV32 control processor (CPU_RV64 = 0; CU_CAPS 'RV') the way
        the hardware boots it: `text` into its instruction window and `data` (optional) into
        its scratchpad by CU_DATA, then a kick at pc 0 with `arg`, and wait for its completion.
        Images are paths, bytes or arrays of 32-bit words (``build/rv32/NAME.text`` and
        ``.data``). `at` names the processor, else the first 'RV' unit enumerated. With
        engine=True the image, the kick and the wait are host control programs run by the
        card's control-program engine (the card must be opened with engine=True). An image
        larger than its window (2048 words) or no processor raises, naming it; a program that
        sends no completion within `polls` raises DeviceError (ETIMEDOUT)."""
        if engine and not self.has_engine:
            raise LimitError("rv32_run(engine=True): this machine has no control-program engine "
                             "(open it with engine=True on a preset that has one)")
        words = [_rv32_words(text, "text"),
                 _rv32_words(b"" if data is None else data, "data")]
        for name, w in zip(("text", "data"), words):
            if w.size > RV32_WINDOW_WORDS:
                raise LimitError(f"rv32 {name} image of {w.size} words: the window holds "
                                 f"{RV32_WINDOW_WORDS}")
        polls = _uint(polls, "polls", 1, _U32, "completion reads")
        arg = _uint(arg, "arg", 0, _U32, "the kick's argument")
        dev = self._dev(mesh)
        if at is None:
            found = [u for u in self._units(mesh) if u.caps.type == RV32_TYPE]
            if not found:
                raise DeviceError("no RV32 control processor ('RV') on this mesh (the rv32 "
                                  "preset has one)", "ENODEV")
            where = found[0].at
        else:
            x, y = at
            where = K.Coord(_uint(x, "at x", 0, 15, "mesh x"), _uint(y, "at y", 0, 15, "mesh y"))
        img = K.Rv32Image()
        img.text = words[0].ctypes.data_as(ctypes.POINTER(ctypes.c_uint32))
        img.text_words = words[0].size
        img.data = words[1].ctypes.data_as(ctypes.POINTER(ctypes.c_uint32))
        img.data_words = words[1].size
        opts = K.Rv32BootOpts(engine, K.kt_machine_board(self._mh()).contents.engine_base, polls)
        res = K.Rv32Result()
        check(K.kt_rv32_boot_run(dev, ctypes.byref(opts), where, ctypes.byref(img), 0, arg,
                                 ctypes.byref(res)), "rv32 run")
        dbg = ctypes.c_uint64()
        present = ctypes.c_bool()
        check(K.kt_ctrl_read(dev, where, CU_DBG, ctypes.byref(dbg), ctypes.byref(present)),
              "rv32 CU_DBG")
        return Rv32Result(x=where.x, y=where.y, halt_word=res.halt_word,
                          faulted=bool(res.faulted), instructions=dbg.value >> 32,
                          cycles=dbg.value & _U32, polls=res.polls,
                          engine_programs=res.programs)

    @_serial
    def rv64_run(self, elf, stdin: Optional[bytes] = None, timeout_ms: int = 0,
                 mesh: int = 0) -> Rv64Result:
        """Load an RV64 ELF (a path or its bytes) into the control complex, boot it and run it
        to its exit; returns how it ended with its console text."""
        if not self.board["cpu_rv64"]:
            raise LimitError("this board has no RV64 control complex (a preset with an "
                             "`rv64 X Y` line, e.g. sim:rv64)")
        data = Path(elf).read_bytes() if isinstance(elf, (str, os.PathLike)) else bytes(elf)
        origin = str(elf) if isinstance(elf, (str, os.PathLike)) else "<elf>"
        lim = K.Rv64Limits()
        K.kt_rv64_limits_default(ctypes.byref(lim))
        img = K.Rv64Image()
        buf = ctypes.create_string_buffer(data, len(data))
        check(K.kt_rv64_image_parse(buf, len(data), origin.encode(), ctypes.byref(lim),
                                    ctypes.byref(img)), "rv64 image")
        res = K.Rv64Result()
        try:
            opt = K.Rv64RunOpts()
            if stdin:
                opt.stdin_text, opt.stdin_len = bytes(stdin), len(stdin)
            opt.timeout_ms = int(timeout_ms)
            st = K.kt_rv64_run(self._tp(), self.ctrl_base(mesh), ctypes.byref(img),
                               ctypes.byref(opt), ctypes.byref(res))
            console = ctypes.string_at(res.console, res.console_len).decode(errors="replace") \
                if res.console else ""
            if st and not res.timed_out:
                check(st, "rv64 run")
            return Rv64Result(exited=bool(res.exited), halted=bool(res.halted),
                              timed_out=bool(res.timed_out),
                              cause=K.kt_rv64_cause_name(res.cause).decode() if res.halted
                              else "", exit_word=res.exit_word, halt_pc=res.halt_pc,
                              cycles=res.cycles, retired=res.retired, console=console,
                              rings=res.rings, clears=res.clears)
        finally:
            K.kt_rv64_result_free(ctypes.byref(res))
            K.kt_rv64_image_free(ctypes.byref(img))


# ---- kt serve ----------------------------------------------------------------------------
def _cli_candidates() -> list:
    """Where the npukit command may be, given the loaded library: NPUKIT_CLI; beside the
    library (a build tree); the bin/ of the library's prefix: lib/ -> ../bin, and Debian's
    multiarch lib/<triplet>/ -> ../../bin; then PATH."""
    out = []
    env = os.environ.get("NPUKIT_CLI")
    if env:
        out.append(("NPUKIT_CLI", env))
    path = _lib.lib_path()
    if path is not None:
        libdir = Path(path).parent
        out.append(("beside the library", str(libdir / "npukit")))
        for up in (libdir.parent, libdir.parent.parent):
            out.append(("the library's prefix", str(up / "bin" / "npukit")))
    out.append(("on PATH", shutil.which("npukit") or "npukit"))
    return out


def cli_path() -> str:
    """The npukit command: NPUKIT_CLI; the one beside the loaded library (a build tree); the
    bin/ of the prefix the library is installed in (lib/ or lib/<triplet>/); or on PATH.
    Raises DeviceError listing every place searched when none is an executable file."""
    cands = _cli_candidates()
    for _, c in cands:
        if os.sep in c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    searched = "; ".join(f"{c} ({where})" for where, c in dict.fromkeys(cands))
    raise DeviceError(f"npukit command not found; searched: {searched}. Set NPUKIT_CLI to its "
                      "path, or put npukit on PATH", "ENODEV")


def _listening_port(proc: subprocess.Popen, err, timeout: float) -> int:
    """The port from a starting server's "listening on HOST:PORT" line, waiting at most
    `timeout` seconds; DeviceError with its stderr when it exits or stays silent."""
    ready = threading.Event()
    line: list = []

    def read_first_line():
        line.append(proc.stdout.readline().decode(errors="replace"))
        ready.set()

    threading.Thread(target=read_first_line, daemon=True).start()
    if not ready.wait(timeout):
        raise DeviceError(f"kt serve did not say where it listens within {timeout} s",
                          "ETIMEDOUT")
    m = re.match(r"listening on \S+:(\d+) ", line[0])
    if not m:
        proc.wait(timeout)
        err.seek(0)
        raise DeviceError(f"kt serve exited ({proc.returncode}): "
                          f"{err.read().decode(errors='replace').strip()}", "EIO")
    return int(m.group(1))


@contextlib.contextmanager
def serve(protocol: str = "line", preset: Optional[str] = None, meshes: int = 1,
          args: Sequence[str] = (), timeout: float = 30.0) -> Iterator[str]:
    """Start ``npukit kt serve`` on a loopback TCP port for the length of a ``with`` block and
    yield the spec that reaches it ("tcp:127.0.0.1:PORT" for the line protocol,
    "daemon:127.0.0.1:PORT" for the card daemon's). The server is stopped on exit."""
    if protocol not in ("line", "daemon"):
        raise BadArgument(f"protocol {protocol!r}: 'line' or 'daemon'")
    # Port 0: the system picks a free port as the server binds it (a port found free first
    # could be taken by another program before the bind), and the server's first line says
    # which: "listening on 127.0.0.1:PORT (...)".
    cmd = [cli_path(), "kt", "serve", "--protocol", protocol, "--listen", "127.0.0.1:0",
           "--meshes", str(meshes)]
    if preset:
        cmd += ["--sim", preset]
    cmd += list(args)
    # The daemon logs each connection to stderr: a file, not a pipe nobody drains (a full
    # pipe would stop the server).
    err = tempfile.TemporaryFile()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err)
    try:
        port = _listening_port(proc, err, timeout)
        yield (f"tcp:127.0.0.1:{port}" if protocol == "line" else f"daemon:127.0.0.1:{port}")
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        err.close()
