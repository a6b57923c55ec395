"""A full sync forks its reading workers before it loads the project (``reading_pass.EarlyPool``),
so that they hold the reader and the names and columns they read against, not the project: the
workers read their configuration from a file once each (in the environment's directory, where a
killed sync's copy is written over by the next sync), the file is removed, and what the sync
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
    assert list(scratch.iterdir()) == []  # the workers' configuration is written in the index, not here
    assert not (environment_root(tmp_path / "index", "t", "prod") / reading_pass.READING_FILE).exists()  # removed
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


_KILLED_SYNC = """
import sys, time
from prism_lineage.governance.sql_reading import SqlReader
from prism_lineage.control.sync import sync

original = SqlReader.read_as

def read(self, sql, dialect, build):
    if "slow_marker" in sql:
        time.sleep(600)  # the sync is killed while a worker reads this
    return original(self, sql, dialect, build)

SqlReader.read_as = read  # the early workers fork with it
sync(sys.argv[1], sys.argv[2], jobs=2)
"""


def test_a_killed_sync_leaves_its_workers_configuration_in_the_index_where_the_next_sync_replaces_it(tmp_path):
    import subprocess
    import sys
    import time

    from prism_lineage.index.maintenance import check, repair

    root = project(tmp_path, hidden_sql="SELECT x AS slow_marker FROM p.a")
    index = tmp_path / "index"
    environment = environment_root(index, "t", "prod")
    configuration = environment / reading_pass.READING_FILE
    scratch = tmp_path / "tmp"  # the system's temporary directory, for the killed sync
    scratch.mkdir()
    child = subprocess.Popen([sys.executable, "-c", _KILLED_SYNC, str(root), str(index)],
                             env={**os.environ, "TMPDIR": str(scratch)}, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not configuration.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)  # the workers are reading (one of them sleeps on the slow statement)
    finally:
        os.killpg(child.pid, signal.SIGKILL)  # the sync and its workers, as a power cut would
        child.wait()
    assert configuration.exists()  # left where the environment's writer works, not in /tmp
    assert [p.name for p in scratch.iterdir() if p.name.startswith("prism-lineage-reading-")] == []
    report = check(environment)
    assert any(f.kind == "temporary" and f.path.endswith(reading_pass.READING_FILE) for f in report.findings)
    summary = sync(root, index, jobs=2)  # the next sync writes over it, then removes it
    assert summary.read == 3 and summary.workers == 2 and not configuration.exists()
    answers_agree(tmp_path, summary, root)
    assert repair(environment, check(environment)).healthy
