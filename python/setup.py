# SPDX-License-Identifier: MIT
"""What pyproject.toml cannot say: the installed copy remembers the checkout it was installed
from, so `make` then `pip install ./python` finds that checkout's build/libnpukit.so (the
library search in npukit/_lib.py), and the build leaves nothing in the checkout (setuptools'
egg-info and build directories go to a scratch directory).

NPUKIT_RECORD_CHECKOUT=0 at install time records nothing (a package built for other machines,
where the build directory does not exist)."""
import atexit
import os
import shutil
import tempfile
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

_scratch = tempfile.mkdtemp(prefix="npukit-pybuild-")
atexit.register(shutil.rmtree, _scratch, True)


class BuildRecordingCheckout(build_py):
    def run(self):
        super().run()
        checkout = Path(__file__).resolve().parent.parent
        record = os.environ.get("NPUKIT_RECORD_CHECKOUT", "1") != "0" and \
            (checkout / "CMakeLists.txt").is_file()
        target = Path(self.build_lib) / "npukit" / "_checkout.py"
        target.write_text("# Written at install time (setup.py): the checkout this copy was "
                          "installed from.\n"
                          f"CHECKOUT = {str(checkout) if record else None!r}\n")


setup(cmdclass={"build_py": BuildRecordingCheckout},
      options={"egg_info": {"egg_base": _scratch},
               "build": {"build_base": os.path.join(_scratch, "build")}})
