"""One writer at a time per environment's index directory: an exclusive ``fcntl`` lock.

A sync (and ``index repair``/``compact``) holds ``.lock`` in the environment's index directory
for the whole write — allocating the epoch number, writing its files, committing it, updating
the store.  A second writer fails at once with a clear message, or with ``--wait`` waits for the
first to finish.  The lock is the kernel's (``flock``): a writer that dies releases it, so a
killed sync never leaves the index locked.  Readers take no lock: they read committed epochs and
the store's last committed transaction.
"""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

from ..errors import InputError

LOCK_FILE = ".lock"


class IndexBusyError(InputError):
    """Another process writes this environment's index (exit code 3)."""

    code = "index_busy"


class WriterLock:
    """``with WriterLock(root, wait=False): …`` — the environment's write lock."""

    def __init__(self, root: str | Path, *, wait: bool = False, timeout: float | None = None):
        self.root = Path(root)
        self.wait = wait
        self.timeout = timeout
        self._handle: int | None = None

    def __enter__(self) -> "WriterLock":
        self.root.mkdir(parents=True, exist_ok=True)
        path = self.root / LOCK_FILE
        handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            self._acquire(handle, path)
        except BaseException:
            os.close(handle)
            raise
        # Who holds it, for the message a second writer prints (informative only).
        os.ftruncate(handle, 0)
        os.write(handle, f"{os.getpid()}\n".encode())
        self._handle = handle
        return self

    def _acquire(self, handle: int, path: Path) -> None:
        if not self.wait:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise IndexBusyError(f"another sync writes the index in {self.root} ({_holder(path)}): "
                                     "wait for it to finish, or pass --wait") from None
            return
        if self.timeout is None:
            fcntl.flock(handle, fcntl.LOCK_EX)
            return
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise IndexBusyError(f"another sync still writes the index in {self.root} after "
                                         f"{self.timeout:g} s ({_holder(path)})") from None
                time.sleep(0.05)

    def __exit__(self, *exc) -> None:
        if self._handle is not None:
            fcntl.flock(self._handle, fcntl.LOCK_UN)
            os.close(self._handle)
            self._handle = None


def _holder(path: Path) -> str:
    try:
        pid = path.read_text().strip()
    except OSError:
        pid = ""
    return f"process {pid}" if pid.isdigit() else "another process"
