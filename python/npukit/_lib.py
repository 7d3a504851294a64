# SPDX-License-Identifier: MIT
"""Finding and loading libnpukit.so, and the C prototypes the package calls.

When ``NPUKIT_LIB`` is set, the file it names is the only one tried: if it does not load, the
import fails with that path and the loader's reason (a library silently taken from elsewhere
would run other code than the one asked for). Otherwise the library is looked for, in order:
the build trees of the checkout this package sits in, or, for a copy installed with ``pip
install ./python``, of the checkout it was installed from (``build/libnpukit.so``, then the
sanitized ``build/san/libnpukit.so``); the prefix pkg-config reports for ``npukit``; the
dynamic linker's own search (``libnpukit.so.0``). A library linked against a sanitizer runtime
that must be the process's first library (ASan, TSan) is passed over unless that runtime is
already loaded (preloaded with ``LD_PRELOAD``): loading it would make the runtime end the
process instead of failing. When none loads, the error lists every place that was tried and
why each was not used.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import mmap
import os
import shutil
import struct
import subprocess
from ctypes import (POINTER, c_bool, c_char, c_char_p, c_double, c_int, c_size_t, c_uint,
                    c_uint16, c_uint32, c_uint64, c_void_p)
from pathlib import Path
from typing import Optional

SONAME = "libnpukit.so.0"

# Sanitizer runtimes that abort a process they were not loaded first into, and a symbol each
# defines, which is present in the process exactly when the runtime was preloaded.
_FIRST_RUNTIMES = {"libasan.so": ("ASan", "__asan_init"), "libtsan.so": ("TSan", "__tsan_init")}


def elf_needed(path: str) -> Optional[list]:
    """The DT_NEEDED entries (the libraries it links against) of an ELF file, or None when the
    file is not an ELF object this reader understands. Read from the file, not by loading it:
    loading is what must be avoided for a sanitized library."""
    try:
        with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
            return _parse_needed(m)
    except (OSError, ValueError, struct.error, IndexError):
        return None


def _parse_needed(m) -> Optional[list]:
    if m[:4] != b"\x7fELF" or m[4] not in (1, 2) or m[5] not in (1, 2):
        return None
    wide, end = m[4] == 2, "<" if m[5] == 1 else ">"
    if wide:
        phoff, = struct.unpack_from(end + "Q", m, 0x20)
        phentsize, phnum = struct.unpack_from(end + "HH", m, 0x36)
        ph_fmt, dyn_fmt = end + "IIQQQQQQ", end + "qQ"
    else:
        phoff, = struct.unpack_from(end + "I", m, 0x1C)
        phentsize, phnum = struct.unpack_from(end + "HH", m, 0x2A)
        ph_fmt, dyn_fmt = end + "IIIIIIII", end + "iI"
    loads, dynamic = [], None
    for i in range(phnum):
        f = struct.unpack_from(ph_fmt, m, phoff + i * phentsize)
        # ELF64: type, flags, offset, vaddr, paddr, filesz; ELF32: type, offset, vaddr, paddr,
        # filesz (flags come later).
        p_type, off, vaddr, filesz = (f[0], f[2], f[3], f[5]) if wide else (f[0], f[1], f[2],
                                                                           f[4])
        if p_type == 1:  # PT_LOAD
            loads.append((vaddr, off, filesz))
        elif p_type == 2:  # PT_DYNAMIC
            dynamic = (off, filesz)
    if dynamic is None:
        return []
    step = struct.calcsize(dyn_fmt)
    needed, strtab = [], None
    for at in range(dynamic[0], dynamic[0] + dynamic[1] - step + 1, step):
        tag, val = struct.unpack_from(dyn_fmt, m, at)
        if tag == 0:  # DT_NULL
            break
        if tag == 1:  # DT_NEEDED: an offset into the string table
            needed.append(val)
        elif tag == 5:  # DT_STRTAB: an address, found in the file through the loadable segments
            strtab = next((val - v + o for v, o, n in loads if v <= val < v + n), None)
    if strtab is None:
        return [] if not needed else None
    out = []
    for off in needed:
        stop = m.find(b"\0", strtab + off)
        out.append(m[strtab + off:stop].decode(errors="replace"))
    return out


def _runtime_loaded(symbol: str) -> bool:
    try:
        return hasattr(ctypes.CDLL(None), symbol)
    except OSError:
        return False


def _unloadable(path: str) -> Optional[str]:
    """Why loading `path` would end the process (a sanitizer runtime it links against that is
    not loaded yet), or None."""
    for dep in elf_needed(path) or []:
        for prefix, (name, symbol) in _FIRST_RUNTIMES.items():
            if dep.startswith(prefix) and not _runtime_loaded(symbol):
                return (f"skipped: linked against {dep}, and the {name} runtime is not loaded "
                        f"in this process, so loading it would abort the process; preload the "
                        f"runtime (LD_PRELOAD=$(gcc -print-file-name={dep})) or use a plain "
                        f"build")
    return None


def _checkouts() -> list:
    """The source checkouts whose build trees come first: the one this package sits in
    (python/npukit/_lib.py inside it), and for an installed copy the one it was installed from
    (recorded by setup.py in _checkout.py)."""
    here = Path(__file__).resolve().parent
    out = [here.parent.parent]
    try:
        from ._checkout import CHECKOUT
    except ImportError:
        CHECKOUT = None
    if CHECKOUT and Path(CHECKOUT) not in out:
        out.append(Path(CHECKOUT))
    return out


def _candidates() -> list:
    out: list = []
    # The default build directories of each checkout (the plain one first: it loads without a
    # sanitizer runtime).
    for checkout in _checkouts():
        for build in ("build", "build/san"):
            out.append(str(checkout / build / "libnpukit.so"))
    pc = shutil.which("pkg-config")
    if pc:
        try:
            libdir = subprocess.run([pc, "--variable=libdir", "npukit"], capture_output=True,
                                    text=True, timeout=10).stdout.strip()
            if libdir:
                out.append(os.path.join(libdir, SONAME))
        except (OSError, subprocess.SubprocessError):
            pass
    found = ctypes.util.find_library("npukit")
    out.append(found or SONAME)
    return out


def _try(cand: str) -> tuple:
    """(the loaded library, None) or (None, why it was not loaded)."""
    if os.sep in cand and not os.path.exists(cand):
        return None, "no such file"
    why = _unloadable(cand) if os.sep in cand else None
    if why:
        return None, why
    try:
        return ctypes.CDLL(cand), None
    except OSError as e:
        return None, str(e)


def _load() -> ctypes.CDLL:
    env = os.environ.get("NPUKIT_LIB")
    if env:
        lib, why = _try(env)
        if lib is None:
            raise ImportError(f"npukit: cannot load NPUKIT_LIB={env}: {why}\nNPUKIT_LIB names "
                              "the one library to use; fix the path or unset it to search the "
                              "build tree, pkg-config and the dynamic linker's path.")
        return lib
    tried = []
    for cand in _candidates():
        lib, why = _try(cand)
        if lib is not None:
            return lib
        tried.append(f"{cand} ({why})")
    raise ImportError("npukit: cannot load libnpukit.so; looked for:\n  " + "\n  ".join(tried) +
                      "\nBuild it (make), install it (cmake --install), or set NPUKIT_LIB to "
                      "its path.")


lib = _load()


def lib_path() -> Optional[str]:
    """The file the loaded library came from (symlinks resolved), also when the dynamic
    linker found it by its soname; None if that cannot be told."""
    if os.sep in lib._name:
        return os.path.realpath(lib._name)
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                parts = line.split(maxsplit=5)  # address perms offset dev inode [path]
                if len(parts) == 6 and os.path.basename(parts[5].strip()).startswith(
                        "libnpukit.so"):
                    return os.path.realpath(parts[5].strip())
    except OSError:
        pass
    return None


def _fn(name: str, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


# ---- status ---------------------------------------------------------------------------------
npk_status_name = _fn("npk_status_name", c_char_p, c_int)
npk_last_error = _fn("npk_last_error", c_char_p)
npk_clear_error = _fn("npk_clear_error", None)
npk_version = _fn("npk_version", c_char_p)
npk_f32_to_f16 = _fn("npk_f32_to_f16", c_uint16, ctypes.c_float)

# ---- RK runtime -----------------------------------------------------------------------------
npk_rk_prec_name = _fn("npk_rk_prec_name", c_char_p, c_int)
npk_rk_ew_op_names = _fn("npk_rk_ew_op_names", c_char_p)


def _prec_table() -> dict:
    """Precision name -> enum value, read from the library's precision rows (never retyped)."""
    table = {}
    for value in range(64):
        name = npk_rk_prec_name(value)
        if name is None:
            break
        table[name.decode()] = value
    return table


PREC = _prec_table()
# The SDP's ops in the enum's order ("add|mul|max|min|relu"): name -> value.
EW_OP_VALUES = {name: i for i, name in enumerate(npk_rk_ew_op_names().decode().split("|"))}
npk_rk_ew_op_row_of = _fn("npk_rk_ew_op_row_of", ctypes.c_void_p, c_int)
npk_rk_ew_op_operands = _fn("npk_rk_ew_op_operands", c_uint, ctypes.c_void_p)
npk_rk_ew_op_immediates = _fn("npk_rk_ew_op_immediates", c_uint, c_int)
# Each op's operand kinds (a mask of bits 1 << npk_rk_ew_operand) and the values an immediate
# operand holds, read from the op rows.
EW_OP_OPERANDS = {name: npk_rk_ew_op_operands(npk_rk_ew_op_row_of(v))
                  for name, v in EW_OP_VALUES.items()}
EW_OP_IMMEDIATES = {name: npk_rk_ew_op_immediates(v) for name, v in EW_OP_VALUES.items()}
PLAN_MAX_CORES = 8
MATMUL_BODY = 108


class RkInfo(ctypes.Structure):
    _fields_ = [("soc", c_char_p), ("device", c_char * 64), ("simulated", c_bool),
                ("cores", c_uint), ("drv_version", c_uint32), ("hw_version", c_uint32),
                ("kernel", c_char * 16), ("sdp", c_bool), ("weight_spaces", c_uint),
                ("weight_capacity", c_uint64), ("weight_used", c_uint64),
                ("pdp", c_bool)]


class RkStats(ctypes.Structure):
    _fields_ = [("tasks", c_uint32), ("submits", c_uint32), ("warmups", c_uint32),
                ("resets", c_uint32), ("retries", c_uint32), ("npu_ns", c_uint64),
                ("npu_span_ns", c_uint64), ("host_ns", c_uint64), ("synth_ns", c_uint64),
                ("pack_ns", c_uint64), ("sync_ns", c_uint64), ("submit_ns", c_uint64),
                ("accumulate_ns", c_uint64), ("wait_ns", c_uint64), ("cores_used", c_uint32),
                ("core_mask", c_uint32), ("b_repacks", c_uint32), ("b_check_ns", c_uint64),
                ("sdp_tasks", c_uint32), ("fused_jobs", c_uint32), ("sdp_direct", c_uint32),
                ("handoff_ns", c_uint64), ("host_steps", c_uint32),
                ("a_beyond_fp16", c_uint32)]


class PlanRequest(ctypes.Structure):
    _fields_ = [("in_", c_int), ("out", c_int), ("m", c_uint32), ("k", c_uint32),
                ("n", c_uint32), ("cores", c_uint), ("mode", c_int), ("soc", c_void_p),
                ("k_slice_max", c_uint32), ("k_slice", c_uint32), ("k_pad", c_int),
                ("chain", c_uint32), ("chain_m_tiles", c_bool), ("core_split", c_int),
                ("m_tiling", c_int), ("host_one_thread", c_bool), ("host", c_void_p),
                ("cost_warmups", c_bool), ("out_bytes", c_uint64 * PLAN_MAX_CORES),
                ("out_warm", c_uint32), ("a_pitch", c_uint32), ("m_tile_chain", c_bool),
                ("m_tile_max", c_uint32)]


class TaskPlan(ctypes.Structure):
    _fields_ = [("m0", c_uint32), ("m1", c_uint32), ("k0", c_uint32), ("k1", c_uint32),
                ("n0", c_uint32), ("n1", c_uint32), ("mp", c_uint32), ("kp", c_uint32),
                ("np", c_uint32), ("core", c_uint), ("sched", c_int), ("cbuf_con0", c_uint32)]


class Plan(ctypes.Structure):
    _fields_ = [("req", PlanRequest), ("mode", c_int), ("cores_used", c_uint),
                ("k_slices", c_size_t), ("k_slice", c_uint32), ("k_padded", c_bool),
                ("core_split", c_int), ("m_tiling", c_int), ("jobs", c_uint64),
                ("model_us", c_double), ("warmup_us", c_double), ("host_us", c_double),
                ("total_us", c_double), ("tasks", POINTER(TaskPlan)), ("count", c_size_t)]


class Mm(ctypes.Structure):
    _fields_ = [("in_", c_int), ("out", c_int), ("m", c_uint32), ("k", c_uint32),
                ("n", c_uint32), ("mode", c_int), ("sched", c_int), ("a", c_uint32),
                ("b", c_uint32), ("c", c_uint32), ("a_pitch", c_uint32), ("c_pitch", c_uint32),
                ("requant_scale", c_uint16), ("requant_shift", c_uint16), ("c_rows", c_uint32),
                ("row_offset", c_uint32), ("unchecked", c_bool), ("soc", c_void_p),
                ("next_m_tile", c_bool)]


class SynthInfo(ctypes.Structure):
    _fields_ = [("mode", c_int), ("sched", c_int), ("cbuf_con0", c_uint32),
                ("feature_grains", c_uint32), ("m_ceiling", c_uint32)]


class EwStep(ctypes.Structure):
    _fields_ = [("op", c_int), ("operand", c_int), ("b", c_void_p)]


EPILOGUE_MAX = 4


class Epilogue(ctypes.Structure):
    _fields_ = [("count", c_uint32), ("step", EwStep * EPILOGUE_MAX), ("no_fuse", c_bool)]


class QWeightsDesc(ctypes.Structure):
    _fields_ = [("in_", c_int), ("k", c_uint32), ("n", c_uint32), ("b", c_void_p),
                ("layout", c_int), ("group", c_uint32), ("scale", c_void_p),
                ("scale_count", c_uint64), ("m_hint", c_uint32), ("groups_per_pass", c_uint32)]


class MatmulItem(ctypes.Structure):
    _fields_ = [("w", c_void_p), ("m", c_uint32), ("a", c_void_p), ("c", c_void_p),
                ("stats", RkStats), ("a_fp32", c_bool)]


class Conv2dArgs(ctypes.Structure):
    _fields_ = [("n", c_uint32), ("c", c_uint32), ("h", c_uint32), ("w", c_uint32),
                ("out_c", c_uint32), ("k_h", c_uint32), ("k_w", c_uint32),
                ("stride_h", c_uint32), ("stride_w", c_uint32), ("pad_top", c_uint32),
                ("pad_left", c_uint32), ("pad_bottom", c_uint32), ("pad_right", c_uint32),
                ("dil_h", c_uint32), ("dil_w", c_uint32), ("groups", c_uint32),
                ("input", c_void_p), ("weights", c_void_p), ("bias", c_void_p), ("act", c_int),
                ("act_max", ctypes.c_float), ("output", c_void_p), ("dtype", c_int),
                ("input_i8", c_void_p), ("weights_i8", c_void_p), ("in_scale", ctypes.c_float),
                ("w_scales", c_void_p), ("out_scale", ctypes.c_float), ("acc", c_void_p),
                ("output_i8", c_void_p)]


# npk_rk_conv_dtype
CONV_DTYPES = {"fp16": 0, "int8": 1}


class Pool2dArgs(ctypes.Structure):
    _fields_ = [("method", c_int), ("global_", c_bool), ("n", c_uint32), ("c", c_uint32),
                ("h", c_uint32), ("w", c_uint32), ("k_h", c_uint32), ("k_w", c_uint32),
                ("stride_h", c_uint32), ("stride_w", c_uint32), ("pad_top", c_uint32),
                ("pad_left", c_uint32), ("pad_bottom", c_uint32), ("pad_right", c_uint32),
                ("count_include_pad", c_bool), ("input", c_void_p), ("output", c_void_p)]


# The C structs this module mirrors, for the layout check (tests compare every offset with the
# C compiler's, so a header change cannot silently shift a field).
MIRRORED = {"npk_rk_info": RkInfo, "npk_rk_stats": RkStats,
            "npk_rk_plan_request": PlanRequest, "npk_rk_task_plan": TaskPlan,
            "npk_rk_plan": Plan, "npk_rk_mm": Mm, "npk_rk_synth_info": SynthInfo,
            "npk_rk_ew_step": EwStep, "npk_rk_epilogue": Epilogue,
            "npk_rk_qweights_desc": QWeightsDesc, "npk_rk_matmul_item": MatmulItem,
            "npk_rk_conv2d_args": Conv2dArgs, "npk_rk_pool2d_args": Pool2dArgs}

P = c_void_p
npk_rk_open = _fn("npk_rk_open", c_int, c_char_p, POINTER(P))
npk_rk_open_shared = _fn("npk_rk_open_shared", c_int, c_char_p, POINTER(P))
npk_rk_close = _fn("npk_rk_close", None, P)
npk_rk_query = _fn("npk_rk_query", c_int, P, POINTER(RkInfo))
npk_rk_set_cores = _fn("npk_rk_set_cores", c_int, P, c_uint)
npk_rk_set_core_mask = _fn("npk_rk_set_core_mask", c_int, P, c_uint)
npk_rk_set_chain = _fn("npk_rk_set_chain", c_int, P, c_uint)
# void (*)(void *user, uint32_t done, uint32_t total)
PROGRESS_FN = ctypes.CFUNCTYPE(None, c_void_p, c_uint32, c_uint32)
npk_rk_set_progress = _fn("npk_rk_set_progress", c_int, P, PROGRESS_FN, c_void_p)
npk_rk_set_submission = _fn("npk_rk_set_submission", c_int, P, c_char_p)
npk_rk_submission = _fn("npk_rk_submission", c_char_p, P)
npk_rk_weights_pack = _fn("npk_rk_weights_pack", c_int, P, c_int, c_uint32, c_uint32, c_void_p,
                          c_uint32, POINTER(P))
npk_rk_weights_pack_layout = _fn("npk_rk_weights_pack_layout", c_int, P, c_int, c_uint32,
                                 c_uint32, c_void_p, c_int, c_uint32, POINTER(P))
npk_rk_weights_free = _fn("npk_rk_weights_free", None, P, P)
npk_rk_matmul = _fn("npk_rk_matmul", c_int, P, P, c_uint32, c_void_p, c_int, c_void_p,
                    POINTER(RkStats))
npk_rk_matmul_batch = _fn("npk_rk_matmul_batch", c_int, P, POINTER(MatmulItem), c_uint32, c_int,
                          POINTER(RkStats))
npk_rk_matmul_epilogue = _fn("npk_rk_matmul_epilogue", c_int, P, P, c_uint32, c_void_p, c_int,
                             c_void_p, POINTER(Epilogue), POINTER(RkStats))
npk_rk_conv2d_shape = _fn("npk_rk_conv2d_shape", c_int, POINTER(Conv2dArgs), POINTER(c_uint32),
                          POINTER(c_uint32))
npk_rk_conv2d = _fn("npk_rk_conv2d", c_int, P, POINTER(Conv2dArgs), POINTER(RkStats))
npk_rk_pool2d_shape = _fn("npk_rk_pool2d_shape", c_int, POINTER(Pool2dArgs), POINTER(c_uint32),
                          POINTER(c_uint32))
npk_rk_pool2d = _fn("npk_rk_pool2d", c_int, P, POINTER(Pool2dArgs), POINTER(RkStats))
class RkEwArgs(ctypes.Structure):
    """npk_rk_ew_args (rk.h)."""
    _fields_ = [("op", c_int), ("prec", c_int), ("m", c_uint32), ("n", c_uint32),
                ("operand", c_int), ("a", c_void_p), ("b", c_void_p), ("c", c_void_p)]


npk_rk_ew = _fn("npk_rk_ew", c_int, P, POINTER(RkEwArgs), POINTER(RkStats))


class RkActArgs(ctypes.Structure):
    """npk_rk_act_args (rk.h)."""
    _fields_ = [("act", c_int), ("prec", c_int), ("m", c_uint32), ("n", c_uint32),
                ("x", c_void_p), ("y", c_void_p), ("alpha", ctypes.c_double),
                ("beta", ctypes.c_double)]


class RkNormArgs(ctypes.Structure):
    """npk_rk_norm_args (rk.h)."""
    _fields_ = [("kind", c_int), ("prec", c_int), ("m", c_uint32), ("n", c_uint32),
                ("x", c_void_p), ("y", c_void_p), ("gamma", c_void_p), ("beta", c_void_p),
                ("eps", ctypes.c_float)]


class RkMatmulActArgs(ctypes.Structure):
    """npk_rk_matmul_act_args (rk.h)."""
    _fields_ = [("w", c_void_p), ("m", c_uint32), ("a", c_void_p), ("c", c_void_p),
                ("bias", c_void_p), ("act", c_int), ("alpha", ctypes.c_double),
                ("beta", ctypes.c_double), ("no_fuse", c_bool)]


MIRRORED.update({"npk_rk_act_args": RkActArgs, "npk_rk_norm_args": RkNormArgs,
                 "npk_rk_matmul_act_args": RkMatmulActArgs})

npk_rk_act = _fn("npk_rk_act", c_int, P, POINTER(RkActArgs), POINTER(RkStats))
npk_rk_softmax = _fn("npk_rk_softmax", c_int, P, c_int, c_uint32, c_uint32, c_void_p, c_void_p,
                     POINTER(RkStats))
npk_rk_norm = _fn("npk_rk_norm", c_int, P, POINTER(RkNormArgs), POINTER(RkStats))
npk_rk_matmul_act = _fn("npk_rk_matmul_act", c_int, P, POINTER(RkMatmulActArgs),
                        POINTER(RkStats))
npk_rk_act_parse = _fn("npk_rk_act_parse", c_bool, c_char_p, POINTER(c_int))
npk_rk_plan_request_init = _fn("npk_rk_plan_request_init", None, POINTER(PlanRequest), c_int,
                               c_uint32, c_uint32, c_uint32)
npk_rk_plan_matmul = _fn("npk_rk_plan_matmul", c_int, POINTER(PlanRequest), POINTER(Plan))
npk_rk_plan_free = _fn("npk_rk_plan_free", None, POINTER(Plan))
npk_rk_core_split_name = _fn("npk_rk_core_split_name", c_char_p, c_int)
npk_rk_m_tiling_name = _fn("npk_rk_m_tiling_name", c_char_p, c_int)
npk_rk_soc_find = _fn("npk_rk_soc_find", c_void_p, c_char_p)
npk_rk_mm_default = _fn("npk_rk_mm_default", Mm, c_int, c_uint32, c_uint32, c_uint32)
npk_rk_synth_matmul = _fn("npk_rk_synth_matmul", c_int, POINTER(Mm), POINTER(c_uint64),
                          POINTER(SynthInfo))
npk_rk_entry_describe = _fn("npk_rk_entry_describe", c_size_t, c_uint64, c_char_p, c_size_t)
npk_rk_qweights_pack = _fn("npk_rk_qweights_pack", c_int, P, POINTER(QWeightsDesc), POINTER(P))
npk_rk_qweights_free = _fn("npk_rk_qweights_free", None, P, P)
npk_rk_matmul_quant = _fn("npk_rk_matmul_quant", c_int, P, P, c_uint32, c_void_p, c_void_p,
                          c_uint64, c_int, c_void_p, POINTER(RkStats))
