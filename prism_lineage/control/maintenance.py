"""The control plane's side of ``prism-lineage index``: each environment under its write lock,
and the current store rebuilt from the index after a repair (``index/maintenance.py`` does the
files)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from ..index import maintenance
from .locking import WriterLock
from .store import STORE_FILE, StoreWriter, connect_read


def run(index: str | Path, action: str, *, project: str | None = None, environment: str | None = None,
        keep: int = 0, wait: bool = False) -> list[maintenance.EnvironmentReport]:
    """``check``, ``repair`` or ``compact`` every environment of ``index`` (or the one named)."""
    reports = []
    for root in maintenance.environments(Path(index)):
        if (project is not None and root.parent.name != project) or (environment is not None
                                                                      and root.name != environment):
            continue
        if action == "check":
            reports.append(_check(root))
            continue
        with WriterLock(root, wait=wait):
            report = maintenance.check(root, busy=False)
            if action == "repair":
                maintenance.repair(root, report)
                if report.actions or any(f.kind in ("stale_store", "no_store") for f in report.findings):
                    rebuild_store(root)
                    report.actions.append("rebuilt the current store from the index")
            else:
                target, removed = maintenance.compact(root, keep)
                if removed:
                    report.actions.append(f"compacted every epoch up to {target} into epoch {target} "
                                          f"({removed} files removed)")
                else:
                    report.actions.append("nothing to compact")
        reports.append(report)
    return reports


def _check(root: Path) -> maintenance.EnvironmentReport:
    """A check that does not wait for a writer: with one at work, its own files are not stale."""
    try:
        with WriterLock(root):
            return maintenance.check(root, busy=False)
    except Exception:  # noqa: BLE001 - busy: check what is committed, leaving the writer's files alone
        return maintenance.check(root, busy=True)


def rebuild_store(root: Path) -> None:
    """The current store from what the index holds now, keeping what only the store knew when
    the old one can still be read: who may see what (the access policy is read at sync time),
    the scopes' own reads and the refusals under a budget.  A visibility scope's overrides are
    not in the index: a restricted credential is told to sync again until the next sync works
    them out (never answered with the owner's reading).  Without a readable old store only the
    project owner can be answered until the next sync."""
    from ..governance.access import OWNER
    from ..index import EpochIndex
    from .sync import lineage_meta
    from .viewers import OWNER_KEY, compile_viewer

    project, environment = root.parent.name, root.name
    old_meta: dict = {}
    credentials: dict = {}
    ledgers: list = []
    refused: list = []
    path = root / STORE_FILE
    try:
        connection = connect_read(path)
        try:
            old_meta = dict(connection.execute("SELECT key, value FROM meta"))
            credentials = {name: json.loads(viewer) for name, viewer in connection.execute(
                "SELECT name, viewer FROM credentials")}
            ledgers = connection.execute("SELECT key, ledger FROM scope_ledgers").fetchall()
            refused = connection.execute("SELECT key, why, timeout, max_bytes FROM refused").fetchall()
        finally:
            connection.close()
    except Exception:  # noqa: BLE001 - an unreadable store is rebuilt from the index alone
        pass
    credentials.setdefault(OWNER_KEY, compile_viewer(OWNER, environment))
    index = EpochIndex(root)
    lineage = index.lineage(project, environment, with_ledger=False)
    passes = index.reader.latest(__import__("prism_lineage.index.tables", fromlist=["PASSES"]).PASSES)
    revision = passes[0]["revision"] if passes else old_meta.get("revision")
    committed = index.epochs()
    meta = lineage_meta(lineage, committed[-1] if committed else None, revision,
                        json.loads(old_meta["environments"]) if old_meta.get("environments") else None,
                        old_meta.get("default_environment"))
    meta["missing"] = json.dumps(maintenance.missing_epochs(root))
    StoreWriter(root).build(lineage, meta, credentials)
    connection = sqlite3.connect(path)
    try:
        with connection:
            connection.executemany("INSERT INTO scope_ledgers (key, ledger) VALUES (?, ?)", ledgers)
            connection.executemany("INSERT INTO refused (key, why, timeout, max_bytes) VALUES (?, ?, ?, ?)", refused)
    finally:
        connection.close()
