# SPDX-License-Identifier: MIT
"""npukit.kt: a Card over the simulator, over `kt serve` (pipe, TCP line protocol, card daemon),
the transport contract (block reads equal word loops; DRAM writes replace whole granules),
enumeration, saxpy against numpy, matmul on the clusters, the mover, host programs, RV64 and RV32 programs, errors, input checks
and struct layouts."""
import os
import re
import shlex
from pathlib import Path

import numpy as np
import pytest

import npukit
import npukit.kt as kt
from npukit import _ktlib

from layout_check import check_layouts

RNG = np.random.default_rng(99)


def cli():
    try:
        return kt.cli_path()
    except npukit.NpukitError:
        pytest.skip("the npukit command is not built beside the library")


@pytest.fixture()
def sim():
    with kt.Card("sim") as c:
        yield c


def test_sim_card_facts(sim):
    assert sim.kind == "simulator" and sim.meshes == 1
    b = sim.board
    assert b["stage_flits"] > 0 and b["dram_size"] > 0 and b["ctrl_base"] == sim.ctrl_base(0)
    assert sim.cycle is not None


def test_enumerate(sim):
    units = sim.enumerate()
    assert units, "the default preset has units"
    assert any(u.type == "SX" and u.type_code == 0x5358 for u in units)
    assert all(u.inst_depth > 0 for u in units)
    assert len({(u.x, u.y) for u in units}) == len(units)


def test_transport_blocks_equal_word_loops(sim):
    base = sim.mem_base(0) + 0x4000
    data = RNG.integers(0, 2**63, 16, dtype=np.uint64)
    sim.write_block(base, data.tobytes())
    words = [sim.read64(base + 8 * i) for i in range(16)]
    assert words == [int(v) for v in data]
    got = sim.read_block(base, 128)
    assert got == b"".join(w.to_bytes(8, "little") for w in words)
    # A single write64 into card DRAM zero-fills the rest of its 32-byte granule, as the card
    # does (blocks write whole granules).
    sim.write64(base + 8, 0x1122334455667788)
    assert sim.read_block(base, 32) == bytes(8) + (0x1122334455667788).to_bytes(8, "little") + \
        bytes(16)
    assert isinstance(sim.bulk, bool)
    c = sim.counters
    assert c["block_writes"] >= 1 and c["reads"] >= 16 and c["bytes_written"] >= 128


def test_saxpy_matches_numpy(sim):
    for n in (1, 64, 1000):
        x = RNG.integers(0, 100, n).astype(np.float32)
        y = RNG.integers(0, 100, n).astype(np.float32)
        np.testing.assert_array_equal(sim.saxpy(2.0, x, y), 2.0 * x + y)


def test_matmul_on_the_clusters():
    """C = A @ B on mg_2's clusters: MXFP7's error against the FP32 product of the FP16 inputs
    (about 1% RMS; the bound leaves room for the accumulator), the tiling over several jobs and
    rounds, and the shapes the cluster refuses."""
    with kt.Card("sim:mg_2") as c:
        assert sum(u.type == "MG" for u in c.enumerate()) == 2
        for m, k, n in ((4, 32, 4), (12, 96, 20), (64, 256, 48)):
            a = RNG.uniform(-1, 1, (m, k)).astype(np.float16)
            b = RNG.uniform(-1, 1, (k, n)).astype(np.float16)
            want = a.astype(np.float32) @ b.astype(np.float32)
            got = c.matmul(a, b)
            assert got.shape == (m, n) and got.dtype == np.float32
            rms = np.sqrt(np.mean((got - want) ** 2) / np.mean(want ** 2))
            assert rms < 0.03, f"{m}x{k}x{n}: RMS error {rms:.4f}"
        assert c.fault is None
        for a, b in ((np.ones((5, 32)), np.ones((32, 4))), (np.ones((4, 33)), np.ones((33, 4))),
                     (np.ones((4, 32)), np.ones((64, 4)))):
            with pytest.raises(npukit.BadArgument):
                c.matmul(a, b)


def _f16_step(v):
    """One FP16 step at each value: 2^(e-10) for normals, 2^-24 below."""
    e = np.floor(np.log2(np.maximum(np.abs(v), 2.0 ** -24)))
    return np.where(e < -14, 2.0 ** -24, 2.0 ** (e - 10))


def test_vec_kernels_against_numpy():
    """z = f(x, y) on mg2_vc2's vector cores against numpy in float64 on the same FP16 inputs:
    within one FP16 step (the lanes round to E8M15 and then to FP16), over lengths that leave a
    partial block; the four units the RTL's map lists; refusals by name."""
    with kt.Card("sim:mg2_vc2") as c:
        assert [(u.x, u.y, u.type) for u in c.enumerate()] == \
            [(1, 0, "VC"), (1, 1, "MG"), (2, 1, "MG"), (1, 2, "VC")]
        refs = {"axpy": lambda x, y: 0.75 * x + y, "add": np.add, "mul": np.multiply,
                "max": np.maximum, "relu": lambda x, y: np.maximum(x, 0),
                "exp2": lambda x, y: np.exp2(x),
                "inv": lambda x, y: np.clip(1 / x, -65504, 65504),  # the FP16 store saturates
                "log2": lambda x, y: np.log2(np.abs(x)),
                "rsqrt": lambda x, y: 1 / np.sqrt(np.abs(x))}
        for n in (1, 130, 1000):
            x = RNG.uniform(-3, 3, n).astype(np.float16)
            y = RNG.uniform(-3, 3, n).astype(np.float16)
            for kernel, ref in refs.items():
                xin = np.abs(x) if kernel in ("log2", "rsqrt") else x
                got = c.vec(kernel, xin, y, a=0.75)
                want = ref(x.astype(np.float64), y.astype(np.float64))
                # log2's seed is 2^-19 off at most, absolutely, near x = 1
                tol = _f16_step(want) + (2.0 ** -19 if kernel == "log2" else 0)
                assert got.shape == (n,) and got.dtype == np.float32
                assert np.all(np.abs(got - want) <= tol), f"{kernel} n={n}"
        assert c.fault is None
        with pytest.raises(npukit.BadArgument):
            c.vec("add", np.ones(4), np.ones(5))
        with pytest.raises(npukit.BadArgument):
            c.vec("add", np.ones(4))
        with pytest.raises(npukit.NpukitError, match="one of axpy"):
            c.vec("softmax", np.ones(4), np.ones(4))
    with kt.Card("sim") as c:
        with pytest.raises(npukit.DeviceError, match="no vector core"):
            c.vec("relu", np.ones(4))


def test_matmul_through_the_engine_and_on_served_cards():
    """The same C bit for bit from the host form in-process, the engine form (each round one
    control program), and mg_2 served over a pipe, the line protocol on TCP and the card
    daemon's protocol, the engine form over the pipe too, and with emitting sweeps and fused
    DRAINs; each within MXFP7's error of the FP32 product. 64 x 512 x 64 is two rounds of two
    jobs on the two clusters."""
    a = RNG.uniform(-1, 1, (64, 512)).astype(np.float16)
    b = RNG.uniform(-1, 1, (512, 64)).astype(np.float16)
    f32 = a.astype(np.float32) @ b.astype(np.float32)
    with kt.Card("sim:mg_2") as c:
        want = c.matmul(a, b)
        with pytest.raises(npukit.LimitError, match="no control-program engine"):
            c.matmul(a, b, engine=True)
        # emitting sweeps and fused DRAINs write the same C; K=32 cannot emit
        np.testing.assert_array_equal(c.matmul(a, b, emit=True), want)
        with pytest.raises(npukit.BadArgument, match="K=32"):
            c.matmul(a[:, :32], b[:32], emit=True)
        assert c.fault is None
    assert np.sqrt(np.mean((want - f32) ** 2) / np.mean(f32 ** 2)) < 0.03
    pipe = f"pipe:{shlex.quote(cli())} kt serve --sim mg_2"
    with kt.serve("line", preset="mg_2") as line, kt.serve("daemon", preset="mg_2") as daemon:
        for spec, engine in (("sim:mg_2", True), (pipe, False), (pipe, True), (line, False),
                             (daemon, False)):
            board = None if spec.startswith("sim") else "mg_2"
            with kt.Card(spec, board=board, engine=engine) as c:
                assert c.has_engine or not engine
                got = c.matmul(a, b, engine=engine)
                assert c.fault is None
            np.testing.assert_array_equal(got, want, err_msg=f"{spec} engine={engine}")


def test_mg_vc_top_runs_matmul_and_vec_in_process_and_served():
    """Upstream's mesh_1x1_2+2 top (mg2_vc2) runs a matmul on its clusters and a vector kernel
    on its vector cores in this process and behind `kt serve` over a pipe: the same C and z
    bit for bit both ways."""
    a = RNG.uniform(-1, 1, (64, 256)).astype(np.float16)
    b = RNG.uniform(-1, 1, (256, 32)).astype(np.float16)
    x = RNG.uniform(-3, 3, 300).astype(np.float16)
    y = RNG.uniform(-3, 3, 300).astype(np.float16)
    with kt.Card("sim:mg2_vc2") as c:
        want_c = c.matmul(a, b)
        want_z = c.vec("axpy", x, y, a=0.5)
        assert c.fault is None
    f32 = a.astype(np.float32) @ b.astype(np.float32)
    assert np.sqrt(np.mean((want_c - f32) ** 2) / np.mean(f32 ** 2)) < 0.03
    pipe = f"pipe:{shlex.quote(cli())} kt serve --sim mg2_vc2"
    with kt.Card(pipe, board="mg2_vc2") as c:
        np.testing.assert_array_equal(c.matmul(a, b), want_c)
        np.testing.assert_array_equal(c.vec("axpy", x, y, a=0.5), want_z)
        assert c.fault is None


def test_mover(sim):
    src = RNG.integers(0, 256, 32 * 8, dtype=np.uint8)
    sim.dram_write(0x10000, src)
    sim.move("copy", dst=0x20000, src=0x10000, words=8)
    np.testing.assert_array_equal(sim.dram_read(0x20000, src.size), src)
    sim.move("fill", dst=0x30000, words=2, value=0xABCD, width=16)
    np.testing.assert_array_equal(sim.dram_read(0x30000, 32, np.uint16), np.full(32, 0xABCD))
    sim.move("generate", dst=0x40000, words=4, seed=7)
    a = sim.dram_read(0x40000, 128)
    sim.move("generate", dst=0x40000, words=4, seed=7)
    b = sim.dram_read(0x40000, 128)
    sim.move("generate", dst=0x40000, words=4, seed=8)
    c = sim.dram_read(0x40000, 128)
    assert (a == b).all() and not (a == c).all() and a.any()
    with pytest.raises(npukit.NpukitError, match="32|align"):
        sim.move("copy", dst=0x20010, src=0x10000, words=1)


def test_host_program(sim):
    ctrl = sim.ctrl_base(0)
    prog = f"WR {ctrl + 0x20:#x} 0x1 IRQ_EN\nPOLL {ctrl + 0x20:#x} 0x1 0x1\nDONE 7\n"
    r = sim.run_program(prog)
    assert r.code == 7
    with pytest.raises(npukit.NpukitError):
        sim.run_program("WR 0x20 -1\n")
    with pytest.raises(npukit.LimitError, match="engine"):
        sim.run_program(prog, engine=True)


def test_engine_program():
    with kt.Card("sim", engine=True) as c:
        if not c.has_engine:
            pytest.skip("the default preset has no engine")
        ctrl = c.ctrl_base(0)
        r = c.run_program(f"WR {ctrl + 0x20:#x} 0x1\nDONE 5\n", engine=True)
        assert r.code == 5


def test_rv64_program():
    lib_dir = Path(npukit._lib.lib._name).parent
    elf = lib_dir / "rv64" / "hello.elf"
    if not elf.exists():
        pytest.skip("no RV64 programs built (the riscv64 toolchain is optional)")
    with kt.Card("sim:rv64") as c:
        r = c.rv64_run(elf)
        assert r.exited and r.exit_word == 0 and r.console
    with kt.Card("sim") as c:
        with pytest.raises(npukit.LimitError, match="RV64"):
            c.rv64_run(elf)


# addi a0, x0, 0x105; ecall  and  lui t0, 0x20000; lw a0, 0x14(t0); ecall (a0 = the kick's arg)
_RV32_FIVE = bytes.fromhex("13055010" "73000000")
_RV32_ARG = bytes.fromhex("b7020020" "03a54201" "73000000")


def test_rv32_program(tmp_path):
    """The RV32 control processor at (0,0) on sim:rv32: hand-written images as bytes, a path and
    an array, from the host and through the control-program engine — the same halt word and
    counters; the example move_chain (when the toolchain built it) fills memory with the kick's
    argument from the host, the engine and a served card alike."""
    (tmp_path / "five.text").write_bytes(_RV32_FIVE)
    with kt.Card("sim:rv32", engine=True) as c:
        r = c.rv32_run(_RV32_FIVE)
        assert (r.x, r.y, r.halt_word, r.faulted) == (0, 0, 0x105, False)
        assert (r.instructions, r.cycles, r.engine_programs) == (2, 4, 0)  # as rv_core: 2 + fill
        e = c.rv32_run(tmp_path / "five.text", engine=True)
        assert (e.halt_word, e.instructions, e.cycles, e.engine_programs) == (0x105, 2, 4, 1)
        words = np.frombuffer(_RV32_ARG, "<u4").astype(np.uint32)
        assert c.rv32_run(words, arg=0xDEADBEEF, at=(0, 0)).halt_word == 0xDEADBEEF
        brk = c.rv32_run(bytes.fromhex("13057000" "73001000"))  # addi a0, x0, 7; ebreak
        assert brk.faulted and brk.halt_word == 7
        with pytest.raises(npukit.LimitError, match="2049 words"):
            c.rv32_run(np.zeros(2049, np.uint32))
        with pytest.raises(npukit.BadArgument, match="32-bit words"):
            c.rv32_run(np.zeros(4, np.float32))
    with kt.Card("sim") as c:
        with pytest.raises(npukit.DeviceError, match="no RV32 control processor"):
            c.rv32_run(_RV32_FIVE)
        with pytest.raises(npukit.LimitError, match="control-program engine"):
            c.rv32_run(_RV32_FIVE, engine=True)
    prog = Path(npukit._lib.lib._name).parent / "rv32" / "move_chain"
    if not prog.with_suffix(".text").exists():
        pytest.skip("move_chain not built (the riscv64 toolchain is optional)")
    text, data = prog.with_suffix(".text"), prog.with_suffix(".data")
    runs = []
    for spec, engine in (("sim:rv32", False), ("sim:rv32", True),
                         (f"pipe:{shlex.quote(cli())} kt serve --sim rv32", False)):
        with kt.Card(spec, engine=engine) as c:
            r = c.rv32_run(text, data if data.exists() else None, arg=0x600DF00D, engine=engine)
            assert r.halt_word == 0 and not r.faulted
            assert (c.dram_read(0x180000, 64 * 8, np.uint32) == 0x600DF00D).all()
            runs.append((r.instructions, r.cycles))
    assert runs[0] == runs[1] == runs[2]


def test_errors(sim):
    with pytest.raises(npukit.NpukitError, match="nonsense"):
        kt.Card("nonsense:thing")
    with pytest.raises(npukit.BadArgument, match="mesh"):
        sim.ctrl_base(3)
    with pytest.raises(npukit.BadArgument, match="multiple of 8"):
        sim.read_block(sim.mem_base(), 12)
    with pytest.raises(npukit.LimitError, match="DRAM"):
        sim.dram_read(sim.board["dram_size"], 8)
    with pytest.raises(npukit.BadArgument, match="equal"):
        sim.saxpy(1.0, np.ones(3, np.float32), np.ones(4, np.float32))
    c = kt.Card("sim")
    c.close()
    c.close()
    with pytest.raises(npukit.BadArgument, match="closed"):
        c.read64(0)


def _same_enumeration(spec, **kw):
    with kt.Card("sim", **kw) as ref:
        ref.reset_counters()
        want = ref.enumerate()
        want_counts = ref.counters
    with kt.Card(spec, **kw) as remote:
        remote.reset_counters()
        got = remote.enumerate()
        assert got == want
        counts = remote.counters
        for k in ("reads", "writes", "block_reads", "block_writes"):
            assert counts[k] == want_counts[k], (k, counts, want_counts)
        x = np.arange(100, dtype=np.float32)
        np.testing.assert_array_equal(remote.saxpy(3.0, x, x), 4 * x)
        return remote.kind


def test_card_over_pipe():
    assert _same_enumeration(f"pipe:{shlex.quote(cli())} kt serve") == "line protocol (pipe)"


def test_card_over_tcp_line():
    cli()
    with kt.serve("line") as spec:
        assert spec.startswith("tcp:127.0.0.1:")
        assert _same_enumeration(spec) == "line protocol (tcp)"


def test_card_over_daemon():
    cli()
    with kt.serve("daemon") as spec:
        assert spec.startswith("daemon:127.0.0.1:")
        assert _same_enumeration(spec) == "card daemon"


def test_struct_layouts_match_c(tmp_path):
    check_layouts(tmp_path, _ktlib.HEADERS, _ktlib.MIRRORED, _ktlib.PREFIX_MIRRORED)


def test_bounded_memory_over_many_cards():
    def rounds(n):
        for _ in range(n):
            with kt.Card("sim") as c:
                c.enumerate()
                c.write_block(c.mem_base(), bytes(256))

    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024

    rounds(5)
    before = rss()
    rounds(40)
    assert rss() - before < 32 * 1024


def test_closed_card_refuses_everything():
    c = kt.Card("sim")
    c.close()
    # Each of these reaches the transport, which lived inside the closed machine.
    for use in (lambda: c.counters, c.reset_counters, lambda: c.bulk,
                lambda: c.run_program("DONE 1\n"), lambda: c.write_block(0, bytes(8))):
        with pytest.raises(npukit.BadArgument, match="closed"):
            use()


def test_saxpy_refuses_operands_the_unit_cannot_take(sim):
    x, y = np.ones(8, np.float32), np.ones(8, np.float32)
    for a in (float("nan"), float("inf"), 2.0**31, 1e39):
        with pytest.raises(npukit.BadArgument,
                           match=re.escape(f"a = {a!r} has no 32-bit integer value")):
            sim.saxpy(a, x, y)
    with pytest.raises(npukit.BadArgument, match=r"a = 2\.5 is not a whole number"):
        sim.saxpy(2.5, x, y)
    bad = x.copy()
    bad[5] = np.nan
    with pytest.raises(npukit.BadArgument, match=r"x\[5\] = nan"):
        sim.saxpy(2.0, bad, y)
    with pytest.raises(npukit.BadArgument, match=r"y\[0\] = 0\.25"):
        sim.saxpy(2.0, x, np.full(8, 0.25, np.float32))
    assert sim.fault is None
    # The unit's own arithmetic, asked for: operands truncated toward zero.
    got = sim.saxpy(2.5, np.full(8, 3.75, np.float32), np.full(8, 2.0, np.float32),
                    truncate=True)
    np.testing.assert_array_equal(got, np.full(8, 2 * 3 + 2, np.float32))


def test_saxpy_raises_the_machines_fault(sim, monkeypatch):
    # Past the operand check, a model fault during the call is raised, not returned as y.
    monkeypatch.setattr(kt, "_saxpy_operand", lambda *a: None)
    with pytest.raises(npukit.DeviceError, match="a=nan .*no 32-bit integer value"):
        sim.saxpy(float("nan"), np.ones(8, np.float32), np.ones(8, np.float32))


@pytest.fixture(params=["sim", "pipe"])
def card(request):
    spec = "sim" if request.param == "sim" else f"pipe:{shlex.quote(cli())} kt serve"
    with kt.Card(spec) as c:
        yield c


def test_dram_writes_replace_whole_granules(card):
    base = card.mem_base(0) + 0x6000
    words = [0x1111111111111111 * (i + 1) for i in range(4)]
    le = b"".join(w.to_bytes(8, "little") for w in words)
    # Word writes: each zero-fills the rest of its granule, so only the last survives.
    for i, w in enumerate(words):
        card.write64(base + 8 * i, w)
    assert [card.read64(base + 8 * i) for i in range(4)] == [0, 0, 0, words[3]]
    # A block of the same whole granule leaves all four; reads equal word loops.
    card.write_block(base, le)
    assert [card.read64(base + 8 * i) for i in range(4)] == words
    assert card.read_block(base, 32) == le
    # A block starting and ending inside granules zeroes the rest of each granule it touches.
    card.write_block(base + 32, le + le)
    card.write_block(base + 16, b"\xdd" * 32)
    assert card.read_block(base, 64) == bytes(16) + b"\xdd" * 32 + bytes(16)
    got = card.read_block(base, 64)
    assert got == b"".join(card.read64(base + 8 * i).to_bytes(8, "little") for i in range(8))


def test_input_checks(sim):
    with pytest.raises(npukit.BadArgument, match=r"cycles = 1180591620717411303424.*2\^64-1"):
        sim.step(2**70)
    with pytest.raises(npukit.BadArgument, match="meshes = 0"):
        kt.Card("sim", meshes=0)
    with pytest.raises(npukit.BadArgument, match="spec ''"):
        kt.Card("")
    base = sim.mem_base() + 0x7000
    arr = np.arange(16, dtype=np.uint64)
    for data, what in ((arr[::2], "not C-contiguous"), ([1, 2, 3, 4, 5, 6, 7, 8], "list"),
                       ("abcdefgh", "str")):
        with pytest.raises(npukit.BadArgument, match=what):
            sim.write_block(base, data)
    sim.write_block(base, arr[::2].copy())
    assert sim.read_block(base, 64) == arr[::2].tobytes()


def test_cli_found_in_an_installed_prefix(tmp_path, monkeypatch):
    # Debian's multiarch layout: <prefix>/lib/<triplet>/libnpukit.so.0 and <prefix>/bin/npukit.
    libdir = tmp_path / "lib" / "x86_64-linux-gnu"
    libdir.mkdir(parents=True)
    (tmp_path / "bin").mkdir()
    exe = tmp_path / "bin" / "npukit"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    monkeypatch.delenv("NPUKIT_CLI", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(npukit._lib.lib, "_name", str(libdir / "libnpukit.so.0"))
    assert kt.cli_path() == str(exe)
    exe.unlink()
    with pytest.raises(npukit.DeviceError, match=rf"searched: .*{tmp_path}/bin/npukit"):
        kt.cli_path()


def test_readme_move_example_runs(sim):
    # The lines of python/README.md's example, as written there.
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    lines = [ln.split("#")[0].strip() for ln in readme.splitlines()
             if "card.move(\"copy\"" in ln or "card.dram_write(0x10000" in ln]
    assert len(lines) == 2, lines
    card = sim
    for ln in lines:
        exec(ln, {"np": np, "card": card})
    np.testing.assert_array_equal(sim.dram_read(0x20000, 64, np.uint32), np.arange(64))


def test_move_from_never_written_source_says_so(sim):
    with pytest.raises(npukit.DeviceError, match="source range was never written"):
        sim.move("copy", dst=0x40000, src=0x30000, words=2)
