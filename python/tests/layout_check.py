# SPDX-License-Identifier: MIT
"""Compare ctypes mirrors of C structs with the C compiler's layout: a generated program prints
sizeof and every offsetof, and the test asserts they equal ctypes' figures, so a header change
cannot silently shift a field the package reads or writes."""
import ctypes
import os
import shutil
import subprocess

import pytest


def check_layouts(tmp_path, headers, whole, prefix=None):
    """whole: {C name: ctypes class} compared in size and every field; prefix: the same for
    structs mirrored only up to some field (offsets only). A field named `in_` is C's `in`, `global_` C's `global` (Python keywords)."""
    cc = shutil.which(os.environ.get("CC", "cc"))
    inc = os.environ.get("NPUKIT_INCLUDE")
    if not cc or not inc:
        pytest.skip("needs a C compiler and NPUKIT_INCLUDE (the headers) to compare layouts")
    lines = ["#include <stddef.h>", "#include <stdio.h>"]
    lines += [f'#include "{h}"' for h in headers] + ["int main(void) {"]
    want = []
    for table, sized in ((whole, True), (prefix or {}, False)):
        for cname, cls in table.items():
            if sized:
                lines.append(f'printf("%zu\\n", sizeof({cname}));')
                want.append(ctypes.sizeof(cls))
            for fname, _ in cls._fields_:
                cf = fname[:-1] if fname in ("in_", "global_") else fname
                lines.append(f'printf("%zu\\n", offsetof({cname}, {cf}));')
                want.append(getattr(cls, fname).offset)
    lines.append("return 0; }")
    src = tmp_path / "layout.c"
    src.write_text("\n".join(lines))
    extra = os.environ.get("NPUKIT_GEN_INCLUDE", "")
    subprocess.run([cc, "-I", inc] + (["-I", extra] if extra else []) +
                   [str(src), "-o", str(tmp_path / "layout")], check=True)
    got = [int(x) for x in subprocess.run([str(tmp_path / "layout")], check=True,
                                          capture_output=True, text=True).stdout.split()]
    assert got == want
