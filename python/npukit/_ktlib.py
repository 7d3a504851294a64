# SPDX-License-Identifier: MIT
"""C prototypes and struct mirrors of the KohakuTPU half of libnpukit (kt_open.h, kt.h,
kt_transport.h, kt_mover.h, kt_hostprog.h, kt_rv64_load.h, kt_rv32.h)."""
from __future__ import annotations

import ctypes
from ctypes import (CFUNCTYPE, POINTER, c_bool, c_char, c_char_p, c_float, c_int, c_int16,
                    c_int32, c_size_t, c_uint, c_uint8, c_uint16, c_uint32, c_uint64, c_void_p)

from ._lib import _fn, lib

P = c_void_p
FLIT_WORDS = 5
MV_MAX_DIMS = 6
BOARD_NAME_MAX = 32


class Coord(ctypes.Structure):
    _fields_ = [("x", c_uint8), ("y", c_uint8)]


class CuCaps(ctypes.Structure):
    _fields_ = [("type", c_uint16), ("version", c_uint8), ("n_buffers", c_uint8),
                ("inst_depth", c_uint16)]


class Unit(ctypes.Structure):
    _fields_ = [("at", Coord), ("caps", CuCaps), ("type_text", c_char * 8)]


class Flit(ctypes.Structure):
    _fields_ = [("w", c_uint64 * FLIT_WORDS)]


class Options(ctypes.Structure):
    _fields_ = [("stage_flits", c_uint), ("reply_budget", c_uint32), ("poll_budget", c_uint32),
                ("reply_to", Coord), ("bitstream_current", c_bool), ("expect_version", c_uint8),
                ("pause", c_void_p), ("pause_user", c_void_p), ("poll_cycles", c_uint64)]


class Ticket(ctypes.Structure):
    _fields_ = [("dst", Coord), ("baseline", c_uint16), ("n", c_uint16), ("txn", c_uint8),
                ("expect_cycles", c_uint64), ("paused_at", c_uint64)]


class NodeStatus(ctypes.Structure):
    _fields_ = [("code", c_uint8), ("arg", c_uint32), ("count", c_uint16), ("valid", c_bool)]


class WaitResult(ctypes.Structure):
    _fields_ = [("last", NodeStatus), ("fault_seen", c_bool), ("fault_arg", c_uint32),
                ("polls", c_uint32)]


class Counters(ctypes.Structure):
    _fields_ = [("reads", c_uint64), ("writes", c_uint64), ("block_reads", c_uint64),
                ("block_writes", c_uint64), ("bytes_read", c_uint64), ("bytes_written", c_uint64)]


class TransportHead(ctypes.Structure):
    """The leading fields of kt_transport (read through a pointer only)."""
    _fields_ = [("ops", c_void_p), ("ctx", c_void_p), ("name", c_char_p), ("bulk", c_bool),
                ("max_block", c_size_t), ("count", Counters)]


class Board(ctypes.Structure):
    _fields_ = [("name", c_char * BOARD_NAME_MAX), ("bitstream_current", c_bool),
                ("stage_flits", c_uint), ("ctrl_base", c_uint64), ("mem_base", c_uint64),
                ("engine_base", c_uint64), ("dram_size", c_uint64), ("clock_mhz", c_uint),
                ("mover", c_bool), ("cpu_rv64", c_bool)]


class OpenOpts(ctypes.Structure):
    _fields_ = [("board", c_char_p), ("meshes", c_uint), ("engine", c_bool),
                ("prestrobe", c_bool), ("backdoor", c_bool), ("ctrl_base_set", c_bool),
                ("mem_base_set", c_bool), ("ctrl_base", c_uint64), ("mem_base", c_uint64),
                ("timeout_ms", c_uint)]


class MvDim(ctypes.Structure):
    _fields_ = [("count", c_uint16), ("stride", c_int32), ("axis", c_uint8), ("astep", c_int16)]


class MvWindow(ctypes.Structure):
    _fields_ = [("base", c_int16), ("extent", c_uint16)]


class MvWalker(ctypes.Structure):
    _fields_ = [("base", c_uint64), ("ndim", c_uint), ("dims", MvDim * MV_MAX_DIMS),
                ("window", MvWindow * 2), ("xform_id", c_uint8), ("xform_mode", c_uint8)]


class MvMove(ctypes.Structure):
    _fields_ = [("mode", c_int), ("width", c_int), ("flags", c_uint8), ("imm", c_uint32),
                ("seed", c_uint64), ("src", MvWalker), ("dst", MvWalker),
                ("index_base", c_uint64), ("index_count", c_uint16),
                ("indices", POINTER(c_uint32)), ("gather_pitch", c_uint32),
                ("gather_words", c_uint16)]


class HpOpts(ctypes.Structure):
    _fields_ = [("poll_budget", c_uint32), ("idle", c_void_p), ("idle_user", c_void_p)]


class HpResult(ctypes.Structure):
    _fields_ = [("code", c_uint64), ("polls", c_uint32), ("waits", c_uint32), ("pc", c_uint)]


class Hostprog(ctypes.Structure):
    _fields_ = [("setup", c_void_p), ("n_setup", c_size_t), ("cap_setup", c_size_t),
                ("cmds", c_void_p), ("n_cmds", c_size_t), ("cap_cmds", c_size_t)]


class Rv64Limits(ctypes.Structure):
    _fields_ = [("imem_bytes", c_uint32), ("spad_base", c_uint64), ("spad_bytes", c_uint32)]


class Rv64Segment(ctypes.Structure):
    _fields_ = [("phdr", c_uint), ("region", c_int), ("offset", c_uint32), ("vaddr", c_uint64),
                ("filesz", c_uint64), ("memsz", c_uint64), ("data", c_void_p)]


class Rv64Image(ctypes.Structure):
    _fields_ = [("seg", Rv64Segment * 16), ("n_seg", c_uint), ("entry", c_uint64),
                ("file", c_void_p), ("size", c_size_t)]


class Rv64RunOpts(ctypes.Structure):
    _fields_ = [("stdin_text", c_char_p), ("stdin_len", c_size_t), ("timeout_ms", c_uint32)]


class Rv64Result(ctypes.Structure):
    _fields_ = [("exited", c_bool), ("halted", c_bool), ("timed_out", c_bool), ("cause", c_uint),
                ("exit_word", c_uint64), ("halt_pc", c_uint64), ("cycles", c_uint64),
                ("retired", c_uint64), ("console", c_void_p), ("console_len", c_size_t),
                ("rings", c_uint), ("clears", c_uint)]


class Rv32Image(ctypes.Structure):
    _fields_ = [("text", POINTER(c_uint32)), ("text_words", c_size_t),
                ("data", POINTER(c_uint32)), ("data_words", c_size_t)]


class Rv32BootOpts(ctypes.Structure):
    _fields_ = [("engine", c_bool), ("engine_base", c_uint64), ("max_polls", c_uint32)]


class Rv32Result(ctypes.Structure):
    _fields_ = [("halt_word", c_uint32), ("faulted", c_bool), ("polls", c_uint32),
                ("programs", c_uint32)]


MIRRORED = {"kt_coord": Coord, "kt_cu_caps": CuCaps, "kt_unit": Unit, "kt_flit": Flit,
            "kt_options": Options, "kt_ticket": Ticket, "kt_node_status": NodeStatus,
            "kt_wait_result": WaitResult, "kt_counters": Counters, "kt_board": Board,
            "kt_open_opts": OpenOpts, "kt_mv_dim": MvDim, "kt_mv_window": MvWindow,
            "kt_mv_walker": MvWalker, "kt_mv_move": MvMove, "kt_hp_opts": HpOpts,
            "kt_hp_result": HpResult, "kt_hostprog": Hostprog, "kt_rv64_limits": Rv64Limits,
            "kt_rv64_segment": Rv64Segment, "kt_rv64_image": Rv64Image,
            "kt_rv64_run_opts": Rv64RunOpts,
            "kt_rv64_result": Rv64Result, "kt_rv32_image": Rv32Image,
            "kt_rv32_boot_opts": Rv32BootOpts, "kt_rv32_result": Rv32Result}
# kt_transport is mirrored only up to its counters (read through a pointer).
PREFIX_MIRRORED = {"kt_transport": TransportHead}
HEADERS = ["npukit/kt.h", "npukit/kt_open.h", "npukit/kt_board.h", "npukit/kt_mover.h",
           "npukit/kt_hostprog.h", "npukit/kt_rv64_load.h", "npukit/kt_transport.h",
           "npukit/kt_rv32.h"]

kt_open_spec = _fn("kt_open_spec", c_int, c_char_p, POINTER(OpenOpts), POINTER(P))
kt_machine_close = _fn("kt_machine_close", c_int, P)
kt_machine_transport = _fn("kt_machine_transport", POINTER(TransportHead), P)
kt_machine_board = _fn("kt_machine_board", POINTER(Board), P)
kt_machine_meshes = _fn("kt_machine_meshes", c_uint, P)
kt_machine_has_engine = _fn("kt_machine_has_engine", c_bool, P)
kt_machine_kind = _fn("kt_machine_kind", c_char_p, P)
kt_machine_ctrl_base = _fn("kt_machine_ctrl_base", c_uint64, P, c_uint)
kt_machine_mem_base = _fn("kt_machine_mem_base", c_uint64, P, c_uint)
kt_machine_step = _fn("kt_machine_step", None, P, c_uint64)
kt_machine_cycle = _fn("kt_machine_cycle", c_bool, P, POINTER(c_uint64))
kt_machine_fault = _fn("kt_machine_fault", c_bool, P, c_char_p, c_size_t)
kt_machine_pause_addr = ctypes.cast(lib.kt_machine_pause, c_void_p).value

kt_read64 = _fn("kt_read64", c_int, POINTER(TransportHead), c_uint64, POINTER(c_uint64))
kt_write64 = _fn("kt_write64", c_int, POINTER(TransportHead), c_uint64, c_uint64)
kt_read_block = _fn("kt_read_block", c_int, POINTER(TransportHead), c_uint64, c_void_p, c_size_t)
kt_write_block = _fn("kt_write_block", c_int, POINTER(TransportHead), c_uint64, c_void_p,
                     c_size_t)
kt_counters_reset = _fn("kt_counters_reset", None, POINTER(TransportHead))

kt_dev_create = _fn("kt_dev_create", c_int, POINTER(TransportHead), c_uint64, POINTER(Options),
                    POINTER(P))
kt_dev_destroy = _fn("kt_dev_destroy", None, P)
kt_enumerate = _fn("kt_enumerate", c_int, P, POINTER(Unit), c_size_t, POINTER(c_size_t))
kt_stage = _fn("kt_stage", c_int, P, c_uint, POINTER(Flit), c_size_t)
kt_dispatch = _fn("kt_dispatch", c_int, P, POINTER(Unit), c_uint, c_uint, c_uint, POINTER(Ticket))
kt_wait = _fn("kt_wait", c_int, P, POINTER(Ticket), POINTER(WaitResult))
kt_saxpy_inst = _fn("kt_saxpy_inst", c_int, POINTER(Flit), c_uint32, c_float, c_uint64, c_uint64,
                    c_uint8, c_bool)
kt_mat_fill = _fn("kt_mat_fill", c_int, POINTER(Flit), c_uint64, c_uint32, c_bool, c_bool, c_bool,
                  c_uint8, c_uint8, c_bool)
kt_mat_gemm = _fn("kt_mat_gemm", c_int, POINTER(Flit), c_uint8, c_uint8, c_uint8, c_bool, c_uint8,
                  c_uint8, c_bool, c_bool, c_uint8, c_bool)
kt_mat_drain = _fn("kt_mat_drain", c_int, POINTER(Flit), c_uint64, c_uint32, c_uint8, c_bool)
kt_mat_gemm_emit = _fn("kt_mat_gemm_emit", c_int, POINTER(Flit), c_uint8, c_uint8, c_uint8, c_bool,
                       c_uint8, c_uint8, c_bool, c_bool, c_uint64, c_uint8, c_bool)
kt_mat_drain_fused = _fn("kt_mat_drain_fused", c_int, POINTER(Flit), c_uint64, c_uint32, c_uint8,
                         c_bool)
kt_vec_kernel_find = _fn("kt_vec_kernel_find", c_int, c_char_p, POINTER(c_int))
kt_vec_kernel_binary = _fn("kt_vec_kernel_binary", c_bool, c_int)
kt_vec_kernel_load = _fn("kt_vec_kernel_load", c_int, c_int, c_float, c_uint8, POINTER(Flit),
                         POINTER(c_size_t), POINTER(c_float))
kt_vec_kernel_block = _fn("kt_vec_kernel_block", c_int, c_int, c_uint, c_uint64, c_uint64,
                          c_uint64, c_uint8, POINTER(Flit))

kt_mv_copy = _fn("kt_mv_copy", MvMove, c_uint64, c_uint64, c_uint16)
kt_mv_fill = _fn("kt_mv_fill", MvMove, c_uint64, c_uint16, c_int, c_uint32)
kt_mv_generate = _fn("kt_mv_generate", MvMove, c_uint64, c_uint16, c_uint64)
kt_mv_validate = _fn("kt_mv_validate", c_int, POINTER(MvMove))
kt_mv_run_idle = _fn("kt_mv_run_idle", c_int, POINTER(TransportHead), c_uint64, POINTER(MvMove),
                     c_uint32, c_void_p, c_void_p, c_void_p)

HP = POINTER(Hostprog)
kt_hp_init = _fn("kt_hp_init", None, HP)
kt_hp_free = _fn("kt_hp_free", None, HP)
kt_hp_parse = _fn("kt_hp_parse", c_int, c_char_p, c_char_p, HP)
kt_hp_run_host = _fn("kt_hp_run_host", c_int, POINTER(TransportHead), HP, POINTER(HpOpts),
                     POINTER(HpResult))
kt_hp_run_engine = _fn("kt_hp_run_engine", c_int, POINTER(TransportHead), c_uint64, HP,
                       POINTER(HpOpts), POINTER(HpResult))
kt_hp_stage = _fn("kt_hp_stage", c_int, HP, P, c_uint, POINTER(Flit), c_size_t)
kt_hp_dispatch = _fn("kt_hp_dispatch", c_int, HP, P, POINTER(Unit), c_uint, c_uint, c_uint,
                     POINTER(Ticket))
kt_hp_await = _fn("kt_hp_await", c_int, HP, P, POINTER(Ticket))
kt_hp_done = _fn("kt_hp_done", c_int, HP, c_uint64)
kt_hp_check_ticket = _fn("kt_hp_check_ticket", c_int, P, POINTER(Ticket))

IMG = POINTER(Rv64Image)
kt_rv64_limits_default = _fn("kt_rv64_limits_default", None, POINTER(Rv64Limits))
kt_rv64_image_parse = _fn("kt_rv64_image_parse", c_int, c_void_p, c_size_t, c_char_p,
                          POINTER(Rv64Limits), IMG)
kt_rv64_image_free = _fn("kt_rv64_image_free", None, IMG)
kt_rv64_run = _fn("kt_rv64_run", c_int, POINTER(TransportHead), c_uint64, IMG,
                  POINTER(Rv64RunOpts), POINTER(Rv64Result))
kt_rv64_result_free = _fn("kt_rv64_result_free", None, POINTER(Rv64Result))
kt_rv64_cause_name = _fn("kt_rv64_cause_name", c_char_p, c_uint)

kt_rv32_boot_run = _fn("kt_rv32_boot_run", c_int, P, POINTER(Rv32BootOpts), Coord,
                       POINTER(Rv32Image), c_uint32, c_uint32, POINTER(Rv32Result))
kt_ctrl_read = _fn("kt_ctrl_read", c_int, P, Coord, c_uint8, POINTER(c_uint64), POINTER(c_bool))

IDLE_FN = CFUNCTYPE(None, c_void_p)
