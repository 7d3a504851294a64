# SPDX-License-Identifier: MIT
import os
import sys
from pathlib import Path

# Run against the checkout's package unless an installed one is asked for.
if not os.environ.get("NPUKIT_PY_INSTALLED"):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
