# SPDX-License-Identifier: MIT
"""The package itself: how it finds the library (NPUKIT_LIB is the only one tried when set; a
library linked against a sanitizer runtime that is not loaded is passed over, not loaded into
an abort), and that every public object documents itself."""
import inspect
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import npukit
import npukit.kt as kt
import npukit.rk as rk
from npukit import _lib

PKG = Path(npukit.__file__).resolve().parent


def _clean_env(**extra):
    """The environment of a fresh interpreter with no sanitizer runtime preloaded and no
    library named: what a user's plain `python3` has."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("LD_PRELOAD", "NPUKIT_LIB", "NPUKIT_PY_INSTALLED")}
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def asan_lib(tmp_path_factory):
    """A shared object linked against libasan (a stand-in for build/san/libnpukit.so)."""
    cc = shutil.which(os.environ.get("CC", "cc"))
    if not cc:
        pytest.skip("needs a C compiler to build an ASan-linked library")
    d = tmp_path_factory.mktemp("asan")
    (d / "x.c").write_text("int npukit_stand_in(void) { return 1; }\n")
    out = d / "libnpukit.so"
    r = subprocess.run([cc, "-shared", "-fPIC", "-fsanitize=address", str(d / "x.c"), "-o",
                        str(out)], capture_output=True, text=True, env=_clean_env())
    if r.returncode:
        pytest.skip(f"cannot link against libasan here: {r.stderr.strip()}")
    return out


PROBE = """
try:
    import npukit._lib as L
except ImportError as e:
    print("IMPORT-ERROR", e)
else:
    print("LOADED", L.lib._name)
"""


def _probe(pythonpath, **env):
    return subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          timeout=60, env=_clean_env(PYTHONPATH=str(pythonpath), **env))


def test_elf_needed_reads_the_links(asan_lib, tmp_path):
    assert any(d.startswith("libasan.so") for d in _lib.elf_needed(str(asan_lib)))
    assert any(d.startswith("libc.so") for d in _lib.elf_needed(_lib.lib_path()))
    (tmp_path / "text").write_text("not an ELF file")
    assert _lib.elf_needed(str(tmp_path / "text")) is None


def test_sanitized_build_is_passed_over_without_its_runtime(asan_lib, tmp_path):
    # A checkout whose only library is the sanitized one: import must fail (or find another
    # library) with a reason, not let the ASan runtime end the process.
    shutil.copytree(PKG, tmp_path / "python" / "npukit",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "build" / "san").mkdir(parents=True)
    shutil.copy(asan_lib, tmp_path / "build" / "san" / "libnpukit.so")
    r = _probe(tmp_path / "python")
    assert r.returncode == 0, r.stdout + r.stderr
    san = str(tmp_path / "build" / "san" / "libnpukit.so")
    if r.stdout.startswith("LOADED"):
        assert san not in r.stdout  # an installed library was found instead
    else:
        assert f"{san} (skipped: linked against libasan" in r.stdout, r.stdout
        assert "ASan runtime is not loaded" in r.stdout and "LD_PRELOAD" in r.stdout


def test_npukit_lib_is_the_only_library_tried(asan_lib, tmp_path):
    missing = tmp_path / "nowhere" / "libnpukit.so"
    r = _probe(PKG.parent, NPUKIT_LIB=str(missing))
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith("IMPORT-ERROR") and f"NPUKIT_LIB={missing}: no such file" in \
        r.stdout, r.stdout
    r = _probe(PKG.parent, NPUKIT_LIB=str(tmp_path))  # a directory: the loader's reason
    assert r.stdout.startswith("IMPORT-ERROR") and str(tmp_path) in r.stdout, r.stdout
    r = _probe(PKG.parent, NPUKIT_LIB=str(asan_lib))
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith("IMPORT-ERROR") and "ASan runtime is not loaded" in r.stdout


def _public(mod):
    for name in mod.__all__:
        obj = getattr(mod, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            yield f"{mod.__name__}.{name}", obj
        if inspect.isclass(obj):
            for an, av in inspect.getmembers(obj):
                if an.startswith("_") or not (inspect.isfunction(av) or
                                              isinstance(av, property) or
                                              inspect.ismethod(av)):
                    continue
                yield f"{mod.__name__}.{name}.{an}", av.fget if isinstance(av, property) else av


def test_every_public_object_has_a_docstring():
    missing = [name for mod in (npukit, rk, kt) for name, obj in _public(mod)
               if not (inspect.getdoc(obj) or "").strip()]
    assert not missing, f"no docstring: {missing}"


def test_module_matmul_help_is_a_reference():
    doc = inspect.getdoc(rk.matmul)
    for word in ("float16", "int8", "int4", "out_dtype", "int32", "BadArgument", "LimitError",
                 "DeviceError", "[M][K]", ">>>"):
        assert word in doc, word
    assert "see Runtime.matmul" not in doc
