# SPDX-License-Identifier: MIT
"""The lifetime every handle-owning object shares: a context manager whose exit and collection
call its idempotent close()."""


class Closing:
    def close(self) -> None:  # pragma: no cover - each owner defines it
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
