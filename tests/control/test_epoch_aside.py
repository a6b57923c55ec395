"""A large epoch's edges file is written by a forked child while the sync writes the epoch's
other files (``index/writer._ForkedFile``): every file must be byte for byte the one the sync
writes itself; a child that fails leaves nothing and the sync writes the file itself; an epoch
write that fails while the child runs stops it and leaves no temporary file, and the epoch is not
committed."""

from __future__ import annotations

import control_paths  # noqa: F401 - the governance tests' helpers on the path

import datetime as _dt
import sys

import pytest
from gov_helpers import ROOT

from prism_lineage.control import sync as sync_module
from prism_lineage.control.paths import environment_root
from prism_lineage.control.sync import sync
from prism_lineage.index import columnar, writer as writer_module

sys.path.insert(0, str(ROOT))
from benchmarks.governance_bench import generate, write_native  # noqa: E402

MOMENT = _dt.datetime(2026, 12, 2, tzinfo=_dt.timezone.utc)


class _Fixed:
    """``writer``'s ``datetime`` module with ``datetime.now()`` fixed (every file's ``ingested_at``)."""

    class datetime(_dt.datetime):
        @classmethod
        def now(cls, tz=None):
            return MOMENT

    timezone = _dt.timezone


@pytest.fixture
def forked(monkeypatch):
    """Every epoch's edges file forked out (the threshold lowered), ``ingested_at`` fixed, and the
    children started recorded (True: forked; None: declined)."""
    started = []
    start = writer_module._ForkedFile.start.__func__

    def starting(cls, *args, **kwargs):
        found = start(cls, *args, **kwargs)
        started.append(found is not None)
        return found

    monkeypatch.setattr(writer_module._ForkedFile, "start", classmethod(starting))
    monkeypatch.setattr(writer_module, "FORK_EDGE_ROWS", 1)
    monkeypatch.setattr(writer_module, "datetime", _Fixed)
    return started


def _files(index) -> dict[str, bytes]:
    root = environment_root(index, "t", "prod")
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.parquet"))}


def _leftovers(index) -> list[str]:
    root = environment_root(index, "t", "prod")
    return sorted(p.name for p in root.rglob("*") if p.name.startswith(".tmp") or p.parent.name == ".epochs")


def _project(tmp_path):
    root = tmp_path / "project"
    write_native(generate(300, 7), root)
    text = (root / "project.yaml").read_text()
    (root / "project.yaml").write_text(text.replace("name: warehouse", "name: t", 1))
    return root


def test_the_edges_file_written_aside_is_the_file_written_here(tmp_path, monkeypatch, forked):
    root = _project(tmp_path)
    aside = sync(root, tmp_path / "aside", jobs=1)
    assert forked == [True] and aside.epoch == 1
    monkeypatch.setattr(sync_module, "EPOCH_ASIDE", False)
    sync(root, tmp_path / "here", jobs=1)
    assert forked == [True]  # not asked: written here
    files = _files(tmp_path / "aside")
    assert any(name.startswith("parse/edges/") for name in files) and files == _files(tmp_path / "here")
    assert _leftovers(tmp_path / "aside") == []


def test_a_child_that_fails_leaves_the_edges_file_to_the_sync(tmp_path, monkeypatch, forked):
    root = _project(tmp_path)
    real = columnar.edges_tables
    parent = __import__("os").getpid()

    def failing(*args, **kwargs):
        if __import__("os").getpid() != parent:
            raise OSError("disk full (in the child)")
        return real(*args, **kwargs)

    monkeypatch.setattr(columnar, "edges_tables", failing)  # the child inherits it
    failed = sync(root, tmp_path / "failed", jobs=1)
    assert forked == [True] and failed.epoch == 1 and _leftovers(tmp_path / "failed") == []
    monkeypatch.setattr(columnar, "edges_tables", real)
    monkeypatch.setattr(sync_module, "EPOCH_ASIDE", False)
    sync(root, tmp_path / "here", jobs=1)
    assert _files(tmp_path / "failed") == _files(tmp_path / "here")


def test_an_epoch_that_fails_beside_the_child_stops_it_and_commits_nothing(tmp_path, monkeypatch, forked):
    root = _project(tmp_path)
    real = columnar.statements_tables

    def failing(*args, **kwargs):
        raise KeyboardInterrupt
        yield  # a generator, as the real one

    monkeypatch.setattr(columnar, "statements_tables", failing)
    with pytest.raises(KeyboardInterrupt):
        sync(root, tmp_path / "index", jobs=1)
    assert forked == [True]
    assert _leftovers(tmp_path / "index") == []
    assert not any(name.startswith("alive/") for name in _files(tmp_path / "index"))  # nothing committed
    monkeypatch.setattr(columnar, "statements_tables", real)
    assert sync(root, tmp_path / "index", jobs=1).epoch >= 1


def test_no_child_for_a_small_epoch_or_beside_other_threads(tmp_path, monkeypatch, forked):
    root = _project(tmp_path)
    monkeypatch.setattr(writer_module, "FORK_EDGE_ROWS", 10**9)
    sync(root, tmp_path / "small", jobs=1)
    assert forked == []
    monkeypatch.setattr(writer_module, "FORK_EDGE_ROWS", 1)
    monkeypatch.setattr(sync_module, "_alone", lambda: False)
    sync(root, tmp_path / "threads", jobs=1)
    assert forked == []
    assert _files(tmp_path / "small") == _files(tmp_path / "threads")
