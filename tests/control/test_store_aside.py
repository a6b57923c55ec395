"""A sync that rebuilds the store whole writes it in a forked child while it writes the epoch
(``sync._StoreAside``): the store (with the engine's state and the files' fingerprint written
into it) must be exactly the one the sync writes itself after the epoch; a child that fails
leaves nothing and the sync writes the store itself; an epoch write that fails leaves no
temporary store and frees the reserved epoch number."""

from __future__ import annotations

import control_paths  # noqa: F401 - the governance tests' helpers on the path

import sys

import pytest
from gov_helpers import ROOT
from test_early_pool import _stored
from test_parser_states import project

from prism_lineage.control import store as store_module
from prism_lineage.control import sync as sync_module
from prism_lineage.control.paths import environment_root
from prism_lineage.control.sync import sync
from prism_lineage.index import epoch_index

sys.path.insert(0, str(ROOT))
from benchmarks.governance_bench import generate, write_native  # noqa: E402


def _leftovers(index) -> list[str]:
    root = environment_root(index, "t", "prod")
    return sorted(p.name for p in root.rglob("*") if p.name.startswith(".tmp") or p.name.endswith("-journal")
                  or (p.parent.name == ".epochs"))


def test_the_store_written_aside_is_the_store_written_after_the_epoch(tmp_path, monkeypatch):
    root = project(tmp_path)
    forked = []
    start = sync_module._StoreAside.start.__func__

    def starting(cls, *args, **kwargs):
        found = start(cls, *args, **kwargs)
        forked.append(found is not None)
        return found

    monkeypatch.setattr(sync_module._StoreAside, "start", classmethod(starting))
    aside = sync(root, tmp_path / "aside", jobs=1)
    assert forked == [True] and aside.store_rebuilt
    monkeypatch.setattr(sync_module, "STORE_ASIDE", False)
    here = sync(root, tmp_path / "here", jobs=1)
    assert forked == [True, False] and here.store_rebuilt  # asked, and declined: written here
    assert _stored(tmp_path / "aside") == _stored(tmp_path / "here")
    assert _leftovers(tmp_path / "aside") == []
    # The next syncs (nothing changed; the store current: a delta) work from the store written aside.
    monkeypatch.setattr(sync_module, "STORE_ASIDE", True)
    again = sync(root, tmp_path / "aside", jobs=1, full=True)
    assert forked == [True, False] and not again.store_rebuilt  # a current store: a delta, no child
    assert sync(root, tmp_path / "aside", jobs=1).path == "unchanged"


def test_a_generated_warehouse_stores_the_same_rows_either_way(tmp_path, monkeypatch):
    root = tmp_path / "project"
    write_native(generate(300, 7), root)
    sync(root, tmp_path / "aside", jobs=2)
    monkeypatch.setattr(sync_module, "STORE_ASIDE", False)
    sync(root, tmp_path / "here", jobs=2)

    def stored(index):
        import sqlite3

        connection = sqlite3.connect(next(index.rglob("current.sqlite3")))
        found = {}
        for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
            rows = connection.execute(f"SELECT * FROM {name}").fetchall()  # noqa: S608 - the store's tables
            found[name] = [r for r in rows if name != "meta" or r[0] != "synced_at"]
        return found

    assert stored(tmp_path / "aside") == stored(tmp_path / "here")


def test_a_store_built_whole_has_the_schema_its_module_declares(tmp_path):
    """``build_aside`` creates the tables, fills them, then creates the indexes (sorted once):
    the schema is ``store.SCHEMA``'s, statement for statement, and its queries use the indexes."""
    import sqlite3

    root = tmp_path / "project"
    write_native(generate(60, 7), root)
    sync(root, tmp_path / "index", jobs=1)
    built = sqlite3.connect(next((tmp_path / "index").rglob("current.sqlite3")))
    declared = sqlite3.connect(":memory:")
    declared.executescript(store_module.SCHEMA)

    def schema(connection, engine=frozenset()):
        return sorted(row for row in connection.execute("SELECT type, name, tbl_name, sql FROM sqlite_master")
                      if not row[1].startswith("sqlite_") and row[2] not in engine)

    engine = {"document_trees"}  # the engine's own table (control/engine.py), created after the store
    assert schema(built, engine) == schema(declared)
    assert {row[1] for row in schema(built) if row[0] == "index"} >= {"edges_down", "edges_up", "assets_by_name"}
    plan = " ".join(str(r) for r in built.execute("EXPLAIN QUERY PLAN SELECT dst FROM edges WHERE src = 1"))
    assert "edges_down" in plan
    assert built.execute("SELECT count(*) FROM sqlite_stat1 WHERE idx = 'edges_up'").fetchone()[0] == 1  # analysed


def test_a_child_that_fails_leaves_the_store_to_the_sync(tmp_path, monkeypatch):
    root = project(tmp_path)

    def failing(self, *args, **kwargs):
        raise OSError("disk full (in the child)")

    monkeypatch.setattr(store_module.StoreWriter, "build_aside", failing)  # the child inherits it
    monkeypatch.setattr(store_module.StoreWriter, "build",
                        lambda self, lineage, meta, credentials: self.publish(
                            _real_build_aside(self, lineage, meta, credentials)))
    failed = sync(root, tmp_path / "failed", jobs=1)
    assert failed.store_rebuilt and _leftovers(tmp_path / "failed") == []
    monkeypatch.setattr(store_module.StoreWriter, "build_aside", _real_build_aside)
    monkeypatch.setattr(sync_module, "STORE_ASIDE", False)
    sync(root, tmp_path / "here", jobs=1)
    assert _stored(tmp_path / "failed") == _stored(tmp_path / "here")


_real_build_aside = store_module.StoreWriter.build_aside


def test_an_epoch_that_cannot_be_written_leaves_no_store_and_frees_its_number(tmp_path, monkeypatch):
    root = project(tmp_path)

    def failing(self, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(epoch_index.EpochIndex, "write", failing)
    with pytest.raises(KeyboardInterrupt):
        sync(root, tmp_path / "index", jobs=1)
    assert _leftovers(tmp_path / "index") == []
    assert not (environment_root(tmp_path / "index", "t", "prod") / "current.sqlite3").exists()
    monkeypatch.undo()
    assert sync(root, tmp_path / "index", jobs=1).epoch == 1  # the number reserved was freed


def test_a_sync_run_beside_other_threads_writes_the_store_itself(tmp_path, monkeypatch):
    """A host program's threads may hold locks a forked child would wait for: no child then."""
    import threading

    root = project(tmp_path)
    started = []
    start = sync_module._StoreAside.start.__func__
    monkeypatch.setattr(sync_module._StoreAside, "start",
                        classmethod(lambda cls, *a, **k: started.append(start(cls, *a, **k)) or started[-1]))
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, name="host-thread")
    other.start()
    try:
        beside = sync(root, tmp_path / "beside", jobs=1)
    finally:
        stop.set()
        other.join()
    assert started == [None] and beside.store_rebuilt
    sync(root, tmp_path / "alone", jobs=1)
    assert started[-1] is not None
    assert _stored(tmp_path / "beside") == _stored(tmp_path / "alone")


def _interrupt_while_waiting_for_the_child(tmp_path, monkeypatch, before=lambda: None) -> None:
    """A sync whose Ctrl-C arrives while it waits for the store child (after ``before``); the
    child must be reaped and nothing of its store left in the index."""
    import os

    root = project(tmp_path)
    children = []
    start = sync_module._StoreAside.start.__func__
    monkeypatch.setattr(sync_module._StoreAside, "start",
                        classmethod(lambda cls, *a, **k: children.append(start(cls, *a, **k)) or children[-1]))
    real = os.waitpid

    def waitpid(pid, options):
        if children and children[-1] is not None and pid == children[-1].pid and not getattr(waitpid, "done", 0):
            waitpid.done = 1
            before()
            raise KeyboardInterrupt
        return real(pid, options)

    monkeypatch.setattr(os, "waitpid", waitpid)
    with pytest.raises(KeyboardInterrupt):
        sync(root, tmp_path / "index", jobs=1)
    monkeypatch.undo()
    assert children[-1] is not None and _leftovers(tmp_path / "index") == []
    with pytest.raises(ChildProcessError):
        os.waitpid(children[-1].pid, os.WNOHANG)  # the child was reaped, not left behind


def test_ctrl_c_while_the_sync_waits_for_the_child_leaves_no_file(tmp_path, monkeypatch):
    _interrupt_while_waiting_for_the_child(tmp_path, monkeypatch)


def test_ctrl_c_while_the_child_is_in_a_transaction_leaves_no_journal(tmp_path, monkeypatch):
    """Killed in the middle of writing, the child leaves SQLite's rollback journal beside its
    file (a fresh CI machine showed it: a slower child was still writing when the parent was
    interrupted); the parent removes both.  The child here stands still inside its transaction."""
    import time

    def writing_forever(self, lineage, meta, credentials, temporary):
        with open(temporary + "-journal", "wb") as journal:
            journal.write(b"\0" * 512)
        time.sleep(60)

    def once_the_journal_is_there():
        deadline = time.monotonic() + 30
        while not any(p.name.endswith("-journal") for p in (tmp_path / "index").rglob("*")):
            assert time.monotonic() < deadline, "the child never started its transaction"
            time.sleep(0.01)

    monkeypatch.setattr(store_module.StoreWriter, "build_aside", writing_forever)
    _interrupt_while_waiting_for_the_child(tmp_path, monkeypatch, once_the_journal_is_there)
