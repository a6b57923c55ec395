"""The incremental syncs' shortcuts (specs/control-plane.md §1c): the nothing-changed sync told by
the files' digest, the SQL-only sync finding the changed files from the rows of those changed
since, and the address book built from the names a statement asks.  Each is checked against what
the slow way gives, and a sync that stops half-way loses nothing stored before."""

from __future__ import annotations

import control_paths  # noqa: F401 - the governance tests' helpers on the path

import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from test_engine import edit, project, state

from prism_lineage.control import store as store_module
from prism_lineage.control.paths import environment_root
from prism_lineage.control.store import FILES_DIGEST, STORE_FILE, read_meta
from prism_lineage.control.sync import sync


def _forbid(monkeypatch, *names):
    def refused(*args, **kwargs):
        raise AssertionError("read a row per file")

    for name in names:
        monkeypatch.setattr(store_module, name, refused)


def test_nothing_changed_is_told_by_the_digest_without_reading_a_row_per_file(tmp_path, monkeypatch):
    root = project(tmp_path / "project")
    index = tmp_path / "index"
    sync(root, index, jobs=1)
    first = read_meta(environment_root(index, "t", "prod") / STORE_FILE)[FILES_DIGEST]
    assert first.startswith("1@")  # tied to the epoch the files were synced at
    _forbid(monkeypatch, "read_fingerprint", "_file_rows")
    done = sync(root, index, jobs=1)
    assert (done.path, done.epoch, done.read) == ("unchanged", 2, 0)
    again = read_meta(environment_root(index, "t", "prod") / STORE_FILE)[FILES_DIGEST]
    assert again.startswith("2@") and again.split("@")[1:] == first.split("@")[1:]


def test_an_edit_is_found_from_the_rows_of_the_files_changed_since(tmp_path, monkeypatch):
    root = project(tmp_path / "project")
    index, full = tmp_path / "index", tmp_path / "full"
    sync(root, index, jobs=1)
    edit(root, 0, "SELECT x, y, y AS y2 FROM s.a")
    _forbid(monkeypatch, "read_fingerprint")  # only the changed file's row is read
    done = sync(root, index, jobs=1)
    assert done.path == "sql"
    monkeypatch.undo()
    sync(root, full, jobs=1)
    assert state(index) == state(full)
    _forbid(monkeypatch, "read_fingerprint", "_file_rows")
    assert sync(root, index, jobs=1).path == "unchanged"  # the SQL-only sync recorded the new digest


def test_a_clock_set_back_is_caught_by_the_digest(tmp_path, monkeypatch):
    """An edit whose change time is not after the newest one recorded (the clock went back) is not
    guessed; the digest says the guess is not the whole change, and every row is compared."""
    root = project(tmp_path / "project")
    index, full = tmp_path / "index", tmp_path / "full"
    sync(root, index, jobs=1)
    path = environment_root(index, "t", "prod") / STORE_FILE
    epoch, _, digest = read_meta(path)[FILES_DIGEST].split("@")
    with sqlite3.connect(path) as connection:  # as if the last sync had seen a clock far ahead
        connection.execute("UPDATE meta SET value = ? WHERE key = ?", (f"{epoch}@{2**62}@{digest}", FILES_DIGEST))
    edit(root, 0, "SELECT x, y, y AS y2 FROM s.a")
    compared = []
    taken = store_module.read_fingerprint
    monkeypatch.setattr(store_module, "read_fingerprint", lambda p: compared.append(p) or taken(p))
    assert sync(root, index, jobs=1).path == "sql"
    assert compared  # the rows were compared one by one
    sync(root, full, jobs=1)
    assert state(index) == state(full)


def test_a_store_from_before_the_digest_compares_the_rows_and_records_it(tmp_path):
    root = project(tmp_path / "project")
    index = tmp_path / "index"
    sync(root, index, jobs=1)
    path = environment_root(index, "t", "prod") / STORE_FILE
    with sqlite3.connect(path) as connection:
        connection.execute("DELETE FROM meta WHERE key = ?", (FILES_DIGEST,))
    assert sync(root, index, jobs=1).path == "unchanged"
    assert read_meta(path)[FILES_DIGEST].startswith("2@")


@pytest.mark.parametrize("stop_in", ["update_files", "StoreWriter.apply"])
def test_an_sql_only_sync_that_stops_half_way_loses_nothing(tmp_path, monkeypatch, stop_in):
    """Stopped after its epoch was written (while recording the files, in the store's
    transaction, or before the store's delta): the store keeps the last sync's state whole and
    the next sync still leaves what a full sync leaves."""
    root = project(tmp_path / "project")
    index, full = tmp_path / "index", tmp_path / "full"
    sync(root, index, jobs=1)
    edit(root, 0, "SELECT x, y, y AS y2 FROM s.a")

    def stopped(*args, **kwargs):
        raise OSError("the disk is full")

    path = environment_root(index, "t", "prod") / STORE_FILE
    with sqlite3.connect(path) as connection:
        before = {table: connection.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()
                  for table in ("edges", "ledger", "statements", "documents", "files", "meta")}
    if stop_in == "update_files":
        monkeypatch.setattr(store_module, "update_files", stopped)
    else:
        monkeypatch.setattr(store_module.StoreWriter, "apply", stopped)
    with pytest.raises(OSError):
        sync(root, index, jobs=1)
    monkeypatch.undo()
    with sqlite3.connect(path) as connection:  # one transaction: nothing of it was kept
        assert before == {table: connection.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()
                          for table in before}
    done = sync(root, index, jobs=1)
    assert done.path in ("sql", "full")
    sync(root, full, jobs=1)
    assert state(index) == state(full)
    edit(root, 0, "SELECT x FROM s.a")  # and the next edit is worked out as ever
    sync(root, index, jobs=1)
    sync(root, full, jobs=1, full=True)
    assert state(index) == state(full)


def test_a_nothing_changed_sync_that_stops_half_way_loses_nothing(tmp_path, monkeypatch):
    root = project(tmp_path / "project")
    index, full = tmp_path / "index", tmp_path / "full"
    sync(root, index, jobs=1)

    def stopped(*args, **kwargs):
        raise OSError("the disk is full")

    monkeypatch.setattr(store_module.StoreWriter, "set_meta", stopped)
    with pytest.raises(OSError):
        sync(root, index, jobs=1)
    monkeypatch.undo()
    edit(root, 0, "SELECT x, y, y AS y2 FROM s.a")
    sync(root, index, jobs=1)
    sync(root, full, jobs=1)
    assert state(index) == state(full)


PARTS = st.sampled_from(["a", "A", "b", "orders", "Orders", "ORDERS", "x.y", "sales"])


@settings(max_examples=60, deadline=None)
@given(names=st.lists(st.lists(PARTS, min_size=2, max_size=3).map(".".join), min_size=1, max_size=12, unique=True),
       addresses=st.lists(st.lists(st.sampled_from(["a", "A", "b", "orders", "ORDERS", "x", "y", "sales", "db"]),
                                   min_size=1, max_size=4).map(tuple), min_size=1, max_size=8))
def test_the_address_book_from_the_store_resolves_as_the_whole_one(names, addresses):
    """The SQL-only sync's address book builds a catalog for each last part an address asks,
    from the store's names: every address resolves as with the book of every name (one asset,
    several, or none), names differing by case or holding dots included."""
    from prism_lineage.control.engine import _StoreNames
    from prism_lineage.governance.sql_reading import AddressBook

    connection = sqlite3.connect(":memory:")
    connection.execute("CREATE TABLE assets (full_name TEXT NOT NULL UNIQUE)")
    connection.executemany("INSERT INTO assets VALUES (?)", [(n,) for n in names])
    whole, lazy = AddressBook(names), AddressBook((), names=_StoreNames(connection))
    for parts in addresses:
        assert lazy.candidates(parts) == whole.candidates(parts), parts


def test_a_large_files_document_is_kept_parsed_for_its_next_edit(tmp_path, monkeypatch):
    """A pipeline file of thousands of assets is parsed once per edit, not twice: the document
    the last sync read is kept beside its text (tied to the text's digest) and loaded as JSON."""
    from prism_lineage.control import engine

    monkeypatch.setattr(engine, "TREE_BYTES", 1)  # every file counts as large
    root = project(tmp_path / "project")
    index, full = tmp_path / "index", tmp_path / "full"
    sync(root, index, jobs=1)
    parsed = []
    taken = engine._parsed
    monkeypatch.setattr(engine, "_parsed", lambda text: parsed.append(text) or taken(text))
    for which, sql in ((4, "SELECT x FROM s.b"), (4, "SELECT x, y FROM s.a"), (0, "SELECT x FROM s.a")):
        edit(root, which, sql)
        parsed.clear()
        assert sync(root, index, jobs=1).path == "sql"
        assert len(parsed) == 1  # the edited file as it is now; the stored one came from its tree
        sync(root, full, jobs=1, full=True)
        assert state(index) == state(full)
    # A text replaced by a writer that does not know the trees: the stale tree is not used.
    path = environment_root(index, "t", "prod") / STORE_FILE
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE document_trees SET tree = '{}' WHERE path = 'pipelines/p.yaml'")
        (text,) = connection.execute("SELECT document FROM documents WHERE path = 'pipelines/p.yaml'").fetchone()
        connection.execute("UPDATE documents SET document = ? WHERE path = 'pipelines/p.yaml'", (text + "\n",))
    edit(root, 4, "SELECT y FROM s.a")
    parsed.clear()
    assert sync(root, index, jobs=1).path == "sql"
    assert len(parsed) == 2
    sync(root, full, jobs=1, full=True)
    assert state(index) == state(full)


def test_a_text_read_two_ways_in_a_cycle_is_left_to_the_full_sync(tmp_path):
    """Hypothesis found it (dev profile): s.v1 and s.v2 read each other, so s.v2's text
    ``SELECT x FROM s.v1`` was read with s.v1 schema-less (the cycle broken there); the same text
    as a pipeline step outside the cycle reads s.v1 with its columns.  The SQL-only sync wrote
    the step's group with the new read and left s.v2's group with the old one under one key;
    it now declines, and the full sync's reading order decides."""
    root = project(tmp_path / "project")
    fast, full = tmp_path / "fast", tmp_path / "full"
    sync(root, fast, jobs=1)
    sync(root, full, jobs=1)
    for which, sql in ((0, "SELECT x + 1 AS x FROM s.v2"), (5, "SELECT x FROM s.v1")):
        edit(root, which, sql)
        sync(root, fast, jobs=1)
        sync(root, full, jobs=1, full=True)
        assert state(fast) == state(full)
