"""A full sync forks its reading workers before it loads the project (``reading_pass.EarlyPool``),
so that they hold the reader and the names and columns they read against, not the project: the
workers read their configuration from a file once each, the file is removed, and what the sync
stores is exactly what a sync whose workers fork after the load (sharing the project) stores."""

from __future__ import annotations

import control_paths  # noqa: F401 - the governance tests' helpers on the path

import os
import signal
import tempfile

from test_parser_states import answers_agree, project, statuses

from prism_lineage.control import reading_pass
from prism_lineage.control import sync as sync_module
from prism_lineage.control.paths import environment_root
from prism_lineage.control.sync import sync
from prism_lineage.governance import loading
from prism_lineage.governance.sql_reading import SqlReader


def _stored(index) -> dict:
    import sqlite3

    root = environment_root(index, "t", "prod")
    connection = sqlite3.connect(root / "current.sqlite3")
    tables = [name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    found = {}
    for name in tables:
        rows = connection.execute(f"SELECT * FROM {name}").fetchall()  # noqa: S608 - the store's own tables
        if name == "meta":
            rows = [r for r in rows if r[0] not in ("synced_at", "seconds", "started_at", "written_at")]
        found[name] = sorted(map(repr, rows))
    return found


def test_the_workers_fork_before_the_project_is_loaded_and_store_what_late_workers_store(
        tmp_path, monkeypatch):
    events = []
    spawn, load = reading_pass._Pool.spawn, loading.load_project

    def spawned(self):
        events.append("forked")
        return spawn(self)

    def loaded(root, *args, **kwargs):
        events.append("loaded")
        return load(root, *args, **kwargs)

    monkeypatch.setattr(reading_pass._Pool, "spawn", spawned)
    monkeypatch.setattr(loading, "load_project", loaded)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    root = project(tmp_path)
    early = sync(root, tmp_path / "index", jobs=2)
    assert events[:2] == ["forked", "loaded"] and early.read == 3 and early.workers == 2
    assert list(scratch.iterdir()) == []  # the workers' configuration file is removed
    answers_agree(tmp_path, early, root)
    late = sync(root, tmp_path / "late", jobs=2, start_pool=reading_pass._Pool)  # forked at the pass
    assert _stored(tmp_path / "index") == _stored(tmp_path / "late")
    assert early.lineage.ledger == late.lineage.ledger


def test_a_sync_with_nothing_to_read_or_that_fails_ends_its_early_workers(tmp_path, monkeypatch):
    closed = []
    close = reading_pass.EarlyPool.close

    def closing(self):
        closed.append(self.pool is not None)  # True: the pool was never handed to a pass
        return close(self)

    monkeypatch.setattr(reading_pass.EarlyPool, "close", closing)
    root = project(tmp_path)
    sync(root, tmp_path / "index", jobs=1)
    assert closed == [False]  # handed over, and closed by the pass
    sync(root, tmp_path / "index", jobs=1, full=True)  # the project read again, nothing new to read
    assert closed == [False, True]

    def broken(root, *args, **kwargs):
        raise OSError("the disk went away")

    monkeypatch.setattr(loading, "load_project", broken)
    try:
        sync(root, tmp_path / "index", jobs=1, full=True)
    except OSError:
        pass
    assert closed == [False, True, True]


def test_an_early_worker_that_crashes_takes_down_one_statement(tmp_path, monkeypatch):
    original = SqlReader.read_as  # what the workers call (``SqlReader.read`` calls it too)

    def read(self, sql, dialect, build):
        if "crash_marker" in sql:
            os.kill(os.getpid(), signal.SIGSEGV)
        return original(self, sql, dialect, build)

    monkeypatch.setattr(SqlReader, "read_as", read)  # the workers fork with it, before the load
    root = project(tmp_path, hidden_sql="SELECT x AS crash_marker FROM p.a")
    summary = sync(root, tmp_path / "index", jobs=2)
    assert statuses(summary) == {"p.a": None, "p.v": None, "h.w": "Could not be parsed", "p.u": None}
    answers_agree(tmp_path, summary, root)


def test_a_pool_that_cannot_fork_early_says_the_parser_could_not_start(tmp_path, monkeypatch):
    def no_fork(self):
        raise OSError("cannot fork")

    monkeypatch.setattr(reading_pass._Pool, "spawn", no_fork)
    summary = sync(project(tmp_path), tmp_path / "index", jobs=1)
    assert summary.parser == "no_parser" and summary.read == 0
    assert set(statuses(summary).values()) == {None, "Not read yet"}
    assert sync_module  # the module the sync runs in
