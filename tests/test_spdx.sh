#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every source file names its licence (SPDX) in its first lines, as LICENSE (MIT) covers it.
set -u
src=$2
cd "$src" || exit 2
missing=$(find src include tools tests bench fuzz examples rv64 cmake scripts -type f \
    \( -name '*.c' -o -name '*.h' -o -name '*.def' -o -name '*.S' -o -name '*.ld' -o -name '*.sh' \
       -o -name '*.cmake' -o -name 'CMakeLists.txt' \) 2>/dev/null |
  while read -r f; do head -3 "$f" | grep -q 'SPDX-License-Identifier: MIT' || echo "$f"; done)
[ -f LICENSE ] && grep -q '^MIT License' LICENSE || { echo "LICENSE is not the MIT licence" >&2; exit 1; }
if [ -n "$missing" ]; then
  echo "files without an SPDX-License-Identifier line:" >&2
  echo "$missing" >&2
  exit 1
fi
echo "every source file carries its SPDX identifier"
