"""``serve --project``: sync the environment whenever the checkout's revision changes.

A thread looks at the project directory's revision (``control.sync.git_revision``: the commit,
``+uncommitted`` when its files differ) every few seconds and runs ``prism-lineage sync`` (in a
process of its own) when
it differs from the revision the store was last synced at — or when the environment has no
store yet.  The sync is the control plane's own (one epoch, under the environment's lock); the
server keeps answering meanwhile from the store as of the last sync, which every answer names
(``as_of``), and the pages say that a sync is running.  Before the first sync the environment
is not computed, and answers say so in words: never an empty graph.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field


@dataclass
class SyncState:
    """What the watcher is doing, for ``/api/v1/status`` and the pages' banner."""

    enabled: bool = False
    running: bool = False
    revision: str | None = None  # the checkout's revision the running (or last) sync reads
    last_summary: str | None = None
    last_error: str | None = None
    syncs: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def to_dict(self) -> dict:
        with self.lock:
            return {"watching": self.enabled, "syncing": self.running, "revision": self.revision,
                    "last_sync": self.last_summary, "last_error": self.last_error}


class RevisionWatcher:
    """Syncs ``project_dir``'s environment into ``index`` when its revision changes."""

    def __init__(self, project_dir: str, index: str, environment: str | None, *, interval: float = 2.0,
                 on_synced=None):
        self.project_dir = project_dir
        self.index = index
        self.environment = environment
        self.interval = interval
        self.state = SyncState(enabled=True)
        self.on_synced = on_synced
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._failed_at: str | None = None  # a revision whose sync failed is not retried until it changes

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="prism-lineage-sync", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.check()
            except Exception as error:  # noqa: BLE001 - the watcher must outlive any one failure
                with self.state.lock:
                    self.state.last_error = f"{type(error).__name__}: {error}"
            self._stop.wait(self.interval)

    def stored_revision(self) -> tuple[bool, str | None]:
        """(whether the environment has a store, the revision it was synced at)."""
        from ..control.store import StoreError, read_meta

        from .answers import locate

        try:
            where = locate(self.index, self.project_dir, self.environment)
        except Exception:  # noqa: BLE001 - an unreadable project is reported by the sync itself
            return False, None
        if where.store is None:
            return False, None
        try:
            meta = read_meta(where.store)
            if meta.get("interim") == "1":
                # A sync's first write with no end (a sync that died): the revision is not synced.
                return True, None
            return True, meta.get("revision")
        except (StoreError, OSError, Exception):  # noqa: BLE001 - a store being replaced: look again later
            return True, None

    def check(self) -> bool:
        """Sync once when the revision changed; True when a sync ran."""
        from ..control.sync import git_revision

        revision = git_revision(self.project_dir)
        has_store, stored = self.stored_revision()
        if has_store and (revision is None or revision == stored):
            return False  # outside git, a store once synced stays as it is until restarted
        if revision is not None and revision == self._failed_at:
            return False
        self.sync(revision)
        return True

    def sync(self, revision: str | None) -> None:
        """``prism-lineage sync`` in a process of its own: reading SQL keeps a core busy (and
        compiled parsers hold the interpreter's lock), which must not stall the answers."""
        import subprocess
        import sys

        with self.state.lock:
            self.state.running, self.state.revision = True, revision
        command = [sys.executable, "-m", "prism_lineage", "sync", "--project", self.project_dir, "--index", self.index,
                   "--wait"]
        if self.environment is not None:
            command += ["--env", self.environment]
        try:
            done = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL)
        finally:
            with self.state.lock:
                self.state.running = False
        said = (done.stderr.strip().splitlines() or [""])[-1].removeprefix("prism-lineage: ")
        if done.returncode != 0:
            self._failed_at = revision
            with self.state.lock:
                self.state.last_error = f"the sync of revision {revision or '(not in git)'} failed: {said}"
            return
        self._failed_at = None
        with self.state.lock:
            self.state.syncs += 1
            self.state.last_error = None
            self.state.last_summary = said
        if self.on_synced is not None:
            self.on_synced()
