"""Keeping an index healthy: ``prism-lineage index check | repair | compact``.

* **check** verifies every file of every environment: each epoch file is read whole (a file
  that cannot be is *unreadable*); names that look like epoch files but do not parse into the
  documented range are *ignored* (never read, reported); temporary files of writers that
  stopped, reservations no writer holds, epochs that were never committed, a store that is not
  the newest epoch's, and epochs already quarantined are reported.
* **repair** (under the environment's write lock) moves every unreadable file — and every
  ignored one — into ``quarantine/`` beside the tables, recording what it moved in
  ``quarantine/manifest.json``; removes the temporary files and stale reservations; and rebuilds
  the current store from what the index still holds.  An answer then says which epoch of which
  table is missing (never silently), until a sync has written everything that differs again.
* **compact** (under the lock) rewrites every epoch up to a committed one as that one epoch —
  for each table the rows a reader picks as of it (LatestBy: each key's newest; LatestGroup:
  each group's newest epoch, tombstones kept), unpruned — then removes the older files.  Readers
  pick the same rows before and after, so no answer changes; the newest ``--keep`` epochs stay as
  they were.  A table is replaced file by file, the compacted file first: a compaction that
  stops half-way leaves every table readable, each either compacted or not.
"""

from __future__ import annotations

import datetime
import json
import os
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pyarrow.parquet as pq

from .epochs import RESERVATIONS, epoch_file, epoch_files, epochs, ignored_files, reserved, write_atomically
from .reader import IndexReader, conform
from .tables import ALIVE, TABLES

QUARANTINE = "quarantine"
MANIFEST = "manifest.json"
STORE_FILE = "current.sqlite3"


@dataclass
class Finding:
    kind: str  # unreadable, ignored, temporary, reservation, uncommitted, stale_store, quarantined, ...
    path: str  # relative to the environment's directory
    detail: str = ""


@dataclass
class EnvironmentReport:
    environment: str  # <project>/<environment>
    committed: list[int] = field(default_factory=list)
    files: int = 0
    findings: list[Finding] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        return not any(f.kind in PROBLEMS for f in self.findings)

    def as_dict(self) -> dict:
        return {**asdict(self), "healthy": self.healthy}


# What makes an index unhealthy; the rest is informational (an uncommitted epoch is a sync that
# stopped: harmless, never read).
PROBLEMS = {"unreadable", "ignored", "temporary", "reservation", "stale_store", "no_store", "quarantined"}


def environments(index: Path) -> list[Path]:
    """Every environment directory of an index (``<project>/<environment>`` holding tables)."""
    found = []
    if not index.is_dir():
        return found
    for project in sorted(p for p in index.iterdir() if p.is_dir() and not p.name.startswith(".")):
        for env in sorted(e for e in project.iterdir() if e.is_dir() and not e.name.startswith(".")):
            if (env / ALIVE.directory).is_dir() or (env / STORE_FILE).exists():
                found.append(env)
    return found


def check(root: Path, *, busy: bool = False) -> EnvironmentReport:
    """What is wrong with one environment's directory (``busy``: a writer holds its lock, so
    its temporary files and reservation are its own, not stale)."""
    report = EnvironmentReport(f"{root.parent.name}/{root.name}", epochs(root / ALIVE.directory))
    committed = set(report.committed)
    for table in TABLES:
        directory = root / table.directory
        for epoch, path in epoch_files(directory):
            report.files += 1
            problem = _unreadable(path, table)
            if problem is not None:
                report.findings.append(Finding("unreadable", _relative(root, path), problem))
            elif epoch not in committed and (not committed or epoch < max(committed) or not busy):
                report.findings.append(Finding("uncommitted", _relative(root, path),
                                               f"epoch {epoch} was never committed (a sync that stopped): not read"))
        for path in ignored_files(directory):
            report.findings.append(Finding("ignored", _relative(root, path),
                                           "not an epoch file: its name is outside the documented range "
                                           "(v1_N.parquet, N from 1 to 2^63-1, no leading zeros); never read"))
        if directory.is_dir() and not busy:
            for path in sorted(directory.glob(".tmp-*")):
                report.findings.append(Finding("temporary", _relative(root, path), "left by a writer that stopped"))
    if not busy:
        for path in sorted(root.glob(".tmp-*")):
            report.findings.append(Finding("temporary", _relative(root, path), "left by a writer that stopped"))
        for number in reserved(root):
            report.findings.append(Finding("reservation", f"{RESERVATIONS}/{number}",
                                           "an epoch number taken by a writer that stopped"))
    report.findings.extend(_store_findings(root, report.committed))
    for entry in quarantined(root):
        if not entry.get("healed"):
            report.findings.append(Finding("quarantined", entry["moved_to"],
                                           f"epoch {entry['epoch']} of {entry['table']} is missing: {entry['why']}"))
    return report


def _unreadable(path: Path, table) -> str | None:
    try:
        data = pq.read_table(path)
        if table.key not in data.column_names:
            return f"no {table.key} column"
        conform(data, table.schema)
    except Exception as error:  # noqa: BLE001 - any file that cannot be read is reported, never raised
        return f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else 'unreadable'}"
    return None


def _store_findings(root: Path, committed: list[int]) -> list[Finding]:
    path = root / STORE_FILE
    if not committed:
        return []
    if not path.exists():
        return [Finding("no_store", STORE_FILE, "the environment has epochs but no current store")]
    try:
        import sqlite3

        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            meta = dict(connection.execute("SELECT key, value FROM meta"))
            connection.execute("PRAGMA quick_check").fetchall()
        finally:
            connection.close()
    except Exception as error:  # noqa: BLE001
        return [Finding("stale_store", STORE_FILE, f"cannot be read: {error}")]
    if meta.get("epoch") != str(committed[-1]):
        return [Finding("stale_store", STORE_FILE,
                        f"holds epoch {meta.get('epoch')}, the index's newest committed epoch is {committed[-1]}")]
    return []


def quarantined(root: Path) -> list[dict]:
    try:
        return json.loads((root / QUARANTINE / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []


def missing_epochs(root: Path) -> list[str]:
    """What the answers must say is missing: each quarantined epoch not yet healed by a sync."""
    return [f"epoch {e['epoch']} of {e['table']}" for e in quarantined(root) if not e.get("healed")
            and e.get("epoch") is not None]


def heal(root: Path) -> None:
    """A sync wrote every row that differed from what the index held: what was quarantined
    no longer shapes any answer (the files stay in quarantine/ to look at)."""
    entries = quarantined(root)
    if any(not e.get("healed") for e in entries):
        now = _now()
        _write_manifest(root, [{**e, "healed": e.get("healed") or now} for e in entries])


def repair(root: Path, report: EnvironmentReport) -> EnvironmentReport:
    """Act on a ``check`` report taken under the lock (see the module)."""
    entries = quarantined(root)
    for finding in report.findings:
        path = root / finding.path
        if finding.kind in ("unreadable", "ignored"):
            target = root / QUARANTINE / finding.path
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(path), str(target))
            table, epoch = _table_and_epoch(finding.path)
            entries.append({"table": table, "epoch": epoch, "file": finding.path,
                            "moved_to": _relative(root, target), "why": finding.detail, "when": _now(),
                            "healed": None if finding.kind == "unreadable" else _now()})
            report.actions.append(f"quarantined {finding.path} ({finding.detail})")
        elif finding.kind in ("temporary", "reservation"):
            path.unlink(missing_ok=True)
            report.actions.append(f"removed {finding.path}")
    if entries != quarantined(root):
        _write_manifest(root, entries)
    return report


def compact(root: Path, keep: int = 0) -> tuple[int | None, int]:
    """Rewrite every epoch up to the ``keep``-th newest committed one as that epoch; returns
    (the epoch compacted into, files removed)."""
    committed = epochs(root / ALIVE.directory)
    if len(committed) <= keep:
        return None, 0
    target = committed[-1 - keep]
    if all(len([e for e, _ in epoch_files(root / t.directory) if e <= target]) <= 1 for t in TABLES):
        return target, 0  # nothing older to fold in
    reader = IndexReader(root)
    removed = 0
    for table in TABLES:
        directory = root / table.directory
        older = [(e, p) for e, p in epoch_files(directory) if e <= target]
        if not older or (len(older) == 1 and older[0][0] == target):
            continue
        if table is not ALIVE:  # alive is read at the newest epoch only: its file of the target stays
            rows = reader.latest_table(table, up_to=target)
            write_atomically(rows, directory, target)  # the compacted file first: readers see the same rows
        for epoch, path in older:
            if epoch < target:
                path.unlink()
                removed += 1
    return target, removed


def _table_and_epoch(relative: str) -> tuple[str, int | None]:
    from .epochs import epoch_of

    path = Path(relative)
    return path.parent.as_posix(), epoch_of(path)


def _write_manifest(root: Path, entries: list[dict]) -> None:
    directory = root / QUARANTINE
    directory.mkdir(parents=True, exist_ok=True)
    temporary = directory / f".tmp-{os.getpid()}-{MANIFEST}"
    temporary.write_text(json.dumps(entries, indent=2) + "\n", encoding="utf-8")
    os.replace(temporary, directory / MANIFEST)


def _relative(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


__all__ = ["check", "repair", "compact", "environments", "missing_epochs", "heal", "EnvironmentReport", "Finding",
           "epoch_file"]
