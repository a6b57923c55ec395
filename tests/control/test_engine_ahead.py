"""A full sync that rebuilds the store writes the engine's state in a forked child while the
rollup runs (``sync._EngineAhead``), and the store's child copies it: the store must be exactly
the one written without it; a ledger the rollup changed, a child that fails or a sync that fails
leave nothing behind and the store as it would have been."""

from __future__ import annotations

import control_paths  # noqa: F401 - the governance tests' helpers on the path

import copy
import os
import sqlite3
import sys

import pytest
from gov_helpers import ROOT
from test_store_aside import _leftovers

from prism_lineage.control import sync as sync_module
from prism_lineage.control.sync import sync
from prism_lineage.governance import rollup

sys.path.insert(0, str(ROOT))
from benchmarks.governance_bench import generate, write_native  # noqa: E402


def stored(index) -> dict:
    connection = sqlite3.connect(next(index.rglob("current.sqlite3")))
    try:
        found = {}
        for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"):
            rows = connection.execute(f"SELECT * FROM {name}").fetchall()  # noqa: S608 - the store's tables
            found[name] = sorted((r for r in rows if name != "meta" or r[0] != "synced_at"), key=repr)
        return found
    finally:
        connection.close()


@pytest.fixture
def warehouse(tmp_path):
    root = tmp_path / "project"
    write_native(generate(300, 7), root)
    return root


def _watch(monkeypatch) -> list:
    used: list = []
    finish = sync_module._EngineAhead.finish

    def watched(self, ledger):
        found = finish(self, ledger)
        used.append(found is not None)
        return found

    monkeypatch.setattr(sync_module._EngineAhead, "finish", watched)
    return used


def test_the_engine_state_written_ahead_is_the_one_written_after(warehouse, tmp_path, monkeypatch):
    used = _watch(monkeypatch)
    sync(warehouse, tmp_path / "ahead", jobs=2)
    assert used == [True]
    monkeypatch.setattr(sync_module, "ENGINE_AHEAD", False)
    sync(warehouse, tmp_path / "after", jobs=2)
    assert used == [True]  # no child asked for
    ahead, after = stored(tmp_path / "ahead"), stored(tmp_path / "after")
    assert ahead["ledger"] and ahead["documents"] and ahead["statements"]
    assert ahead == after
    assert _leftovers(tmp_path / "ahead") == []
    # The SQL-only syncs to come work from it: nothing changed is told from the store.
    monkeypatch.setattr(sync_module, "ENGINE_AHEAD", True)
    assert sync(warehouse, tmp_path / "ahead", jobs=2).path == "unchanged"


def test_a_ledger_the_rollup_changed_is_not_copied(warehouse, tmp_path, monkeypatch):
    """The rollup read a statement again in process (here: one read made new): the state written
    ahead holds the pass's reads, so the store's child writes the state itself."""
    used = _watch(monkeypatch)
    build = rollup._Builder.build

    def changed(self):
        lineage = build(self)
        key = next(iter(lineage.ledger))
        lineage.ledger[key] = copy.copy(lineage.ledger[key])  # the same read, another object
        return lineage

    monkeypatch.setattr(rollup._Builder, "build", changed)
    sync(warehouse, tmp_path / "ahead", jobs=2)
    assert used == [False]
    assert _leftovers(tmp_path / "ahead") == []


def test_a_failed_child_or_sync_leaves_nothing(warehouse, tmp_path, monkeypatch):
    used = _watch(monkeypatch)
    monkeypatch.setattr(sync_module, "_engine_in_child", lambda *args: os._exit(1))
    sync(warehouse, tmp_path / "failed-child", jobs=2)
    assert used == [False]
    assert _leftovers(tmp_path / "failed-child") == []
    monkeypatch.setattr(sync_module, "ENGINE_AHEAD", False)
    sync(warehouse, tmp_path / "reference", jobs=2)
    assert stored(tmp_path / "failed-child") == stored(tmp_path / "reference")

    monkeypatch.setattr(sync_module, "ENGINE_AHEAD", True)
    monkeypatch.undo()
    _watch(monkeypatch)

    def broken(*args, **kwargs):
        raise RuntimeError("the rollup failed")

    monkeypatch.setattr(sync_module, "_collecting", broken)
    with pytest.raises(RuntimeError):
        sync(warehouse, tmp_path / "failed-sync", jobs=2)
    assert _leftovers(tmp_path / "failed-sync") == []
