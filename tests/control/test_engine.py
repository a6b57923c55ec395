"""A sync that works from the store when only SQL changed (control/engine.py) leaves the index
and the store exactly as a full sync does: random edits to views' and pipeline assets' SQL,
each synced both ways, every answer and the index compared."""

from __future__ import annotations

import control_paths  # noqa: F401 - the governance tests' helpers on the path

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gov_helpers import edit_yaml, table, view, write_project

from prism_lineage.control.paths import environment_root
from prism_lineage.control.reading import StoreReader
from prism_lineage.control.sync import sync
from prism_lineage.index import EpochIndex

ACCESS = {"owner": "o", "roles": {"pub": {"sees": ["s.*"]}}, "members": {"o": {"roles": ["pub"]},
                                                                        "m": {"roles": ["pub"]}}}
POOL = ["SELECT x FROM s.a", "SELECT x, y FROM s.a", "SELECT x AS q FROM s.b", "SELECT * FROM s.a",
        "SELECT x FROM s.v1", "SELECT nope FROM", "SELECT x FROM s.c", "SELECT x, y AS w FROM s.c",
        "SELECT a.x, b.z FROM s.a AS a JOIN s.b AS b USING (x)", "SELECT x FROM h.v4", "SELECT x + 1 AS x FROM s.v2"]
STATEMENTS = [("views", "s_v1.yaml", None), ("views", "s_v2.yaml", None), ("views", "s_v3.yaml", None),
              ("views", "h_v4.yaml", None), ("pipelines", "p.yaml", 0), ("pipelines", "p.yaml", 1)]


def project(root):
    return write_project(root, tables=[table("s.a", ["x", "y"]), table("s.b", ["x", "z"]), table("s.c"),
                                       table("s.t2")],
                         views=[view("s.v1", "SELECT x, y FROM s.a", ["s.a"]),
                                view("s.v2", "SELECT x FROM s.v1", ["s.v1"]),
                                view("s.v3", "SELECT b.z, v.y FROM s.b AS b JOIN s.v1 AS v USING (x)", ["s.b", "s.v1"]),
                                view("h.v4", "SELECT x FROM s.a", ["s.a"])],
                         pipelines=[{"name": "p", "assets": [
                             {"name": "w1", "writes": "s.c", "sql": "SELECT x, y FROM s.a"},
                             {"name": "w2", "writes": "s.t2", "sql": "SELECT x FROM s.c", "depends_on": ["w1"]}]}],
                         access=ACCESS)


def edit(root, which: int, sql: str) -> None:
    kind, name, position = STATEMENTS[which]

    def change(document):
        if position is None:
            document["sql"] = sql
        else:
            document["assets"][position]["sql"] = sql

    edit_yaml(root, f"{kind}/{name}", change)


def state(index):
    root = environment_root(index, "t", "prod")
    lineage = EpochIndex(root).lineage("t", "prod")
    answers = []
    with StoreReader(root) as store:
        for credential in (None, "m"):
            viewer = store.viewer(credential)
            for name in ("s.a", "s.b", "s.c", "s.t2", "s.v1", "s.v2", "s.v3", "h.v4"):
                for call in (lambda: store.explore(viewer, name, "both", 10), lambda: store.impact(viewer, name)):
                    try:
                        answers.append(call().to_json())
                    except Exception as error:  # noqa: BLE001
                        answers.append(f"{type(error).__name__}: {error}")
    return (lineage.assets, lineage.edges, lineage.ledger, lineage.ledger_by_asset, lineage.parser, answers)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(edits=st.lists(st.lists(st.tuples(st.integers(0, len(STATEMENTS) - 1), st.sampled_from(POOL)), min_size=1,
                               max_size=2), min_size=1, max_size=3))
def test_sql_only_syncs_leave_what_a_full_sync_leaves(tmp_path_factory, edits):
    base = tmp_path_factory.mktemp("engine")
    root = project(base / "project")
    fast, full = base / "fast", base / "full"
    sync(root, fast, jobs=1)
    sync(root, full, jobs=1)
    for step in edits:
        for which, sql in step:
            edit(root, which, sql)
        done = sync(root, fast, jobs=1)
        assert done.path in ("sql", "full", "unchanged")
        sync(root, full, jobs=1, full=True)
        assert state(fast) == state(full)


def test_an_sql_edit_is_worked_out_from_the_store(tmp_path, monkeypatch):
    from prism_lineage.governance import loading

    root = project(tmp_path / "project")
    index = tmp_path / "index"
    sync(root, index, jobs=1)
    edit(root, 0, "SELECT x, y, y AS y2 FROM s.a")  # s.v1's outputs change: s.v2, s.v3 are read again

    def not_read(*args, **kwargs):
        raise AssertionError("the project was read")

    monkeypatch.setattr(loading, "load_project", not_read)
    done = sync(root, index, jobs=1)
    assert (done.path, done.read) == ("sql", 3)  # s.v1, and s.v2, s.v3, which saw its columns
    monkeypatch.undo()
    full = tmp_path / "full"
    sync(root, full, jobs=1)
    assert state(index) == state(full)
    edit(root, 3, "SELECT y FROM s.a")  # a view the restricted member may not see: the rollup decides
    assert sync(root, index, jobs=1).path == "full"
    edit(root, 4, "SELECT x FROM s.b")  # the pipeline's first asset: s.t2, which reads s.c, is read again
    done = sync(root, index, jobs=1)
    assert done.path == "sql" and done.read == 2
    sync(root, full, jobs=1)
    assert state(index) == state(full)
    summary = json.loads(json.dumps(done.__dict__, default=str))
    assert summary["path"] == "sql"


def test_read_notes_from_an_sql_edit_are_the_full_syncs(tmp_path):
    """A view's SQL that reads what its declarations do not (and a column its table does not
    declare) gets the rollup's read notes on the SQL-only path too, and loses them again."""
    root = project(tmp_path / "project")
    fast, full = tmp_path / "fast", tmp_path / "full"
    sync(root, fast, jobs=1)
    for sql in ("SELECT x AS q FROM s.b", "SELECT x, nope FROM s.a", "SELECT x, y FROM s.a"):
        edit(root, 0, sql)
        done = sync(root, fast, jobs=1)
        assert done.path == "sql"
        sync(root, full, jobs=1, full=True)
        assert state(fast) == state(full)
        lineage = EpochIndex(environment_root(fast, "t", "prod")).lineage("t", "prod")
        notes = lineage.assets[lineage.by_name["s.v1"]].read_notes
        if sql == "SELECT x, y FROM s.a":
            assert notes == ()
        else:
            assert notes, sql  # said, on the fast path as on the full one


def test_a_file_that_changed_while_the_sync_read_is_never_worked_out_from_the_store(tmp_path, monkeypatch):
    """The store keeps a file's text only when its size, times and inode are still the ones
    fingerprinted before the sync read the project: an edit made while the sync read is not
    taken for the text it read, and the next change to that file is read in full."""
    from prism_lineage.control import fingerprint as fingerprint_module
    from prism_lineage.control import sync as sync_module

    root = project(tmp_path / "project")
    index = tmp_path / "index"
    taken = fingerprint_module.fingerprint

    def stale(directory):
        found = taken(directory)
        size, mtime, ctime, inode = found["views/s_v1.yaml"]
        found["views/s_v1.yaml"] = (size, mtime, ctime - 1, inode)  # as if written after it was taken
        return found

    monkeypatch.setattr(fingerprint_module, "fingerprint", stale)
    sync(root, index, jobs=1)
    monkeypatch.undo()
    with StoreReader(environment_root(index, "t", "prod")) as store:
        kept = {p for (p,) in store.connection.execute("SELECT path FROM documents")}
    assert "views/s_v2.yaml" in kept and "views/s_v1.yaml" not in kept
    edit(root, 0, "SELECT x, y, y AS y2 FROM s.a")
    assert sync(root, index, jobs=1).path == "full"
    full = tmp_path / "full"
    sync(root, full, jobs=1)
    assert state(index) == state(full)


def test_a_step_reading_its_own_target_is_read_alike_whatever_came_before(tmp_path):
    """Hypothesis found it (seed 263274422531145730808770277788773570697): s.c is declared
    without columns and written by a pipeline step that reads it.  The step reads its own target
    schema-less; a view with the same SQL text (one ledger key) used to be read against the
    step's earlier outputs and its read kept under that key, so an SQL-only sync kept a ledger a
    full sync does not.  Now s.c has no derived shape for anyone (its writer reads it): one text,
    one read, however the project got there."""
    root = project(tmp_path / "project")
    fast, full = tmp_path / "fast", tmp_path / "full"
    sync(root, fast, jobs=1)
    sync(root, full, jobs=1)
    for step in ([(0, "SELECT x, y AS w FROM s.c"), (4, "SELECT x, y AS w FROM s.c")], [(0, "SELECT x FROM s.a")]):
        for which, sql in step:
            edit(root, which, sql)
        sync(root, fast, jobs=1)
        sync(root, full, jobs=1, full=True)
        assert state(fast) == state(full)
    fresh = tmp_path / "fresh"
    sync(root, fresh, jobs=1)
    assert state(fresh) == state(full)  # and no history at all gives the same
    lineage = EpochIndex(environment_root(full, "t", "prod")).lineage("t", "prod")
    (step,) = [lineage.ledger[k] for k in lineage.ledger_by_asset[lineage.by_name["s.c"]]]
    assert step.outputs == ("x", "w")
    # Read with s.c schema-less: y is traced by name, never checked against the step's outputs.
    assert [d.columns for d in step.dependencies if d.resolved == "s.c"] == [None]
    assert ("y", "w") in {(link.source, link.target) for link in step.columns_from("s.c")}


def test_readers_of_a_table_whose_writer_reads_it_see_it_schema_less(tmp_path):
    """The view reads s.c as its writer does (no shape derived from the writer's outputs),
    whether the view or the step is read first, on the SQL-only path and a full sync alike."""
    root = project(tmp_path / "project")
    index = tmp_path / "index"
    sync(root, index, jobs=1)
    edit(root, 4, "SELECT x, y AS w FROM s.c")
    sync(root, index, jobs=1)
    edit(root, 0, "SELECT x, y AS w FROM s.c")
    done = sync(root, index, jobs=1)
    full = tmp_path / "full"
    sync(root, full, jobs=1)
    assert state(index) == state(full)
    lineage = EpochIndex(environment_root(full, "t", "prod")).lineage("t", "prod")
    (key,) = lineage.ledger_by_asset[lineage.by_name["s.v1"]]
    assert key in lineage.ledger_by_asset[lineage.by_name["s.c"]]  # the same text, one read for both
    assert [d.columns for d in lineage.ledger[key].dependencies if d.resolved == "s.c"] == [None]
    edges = {(e.source, e.target): e for e in lineage.edges if e.mark.value == "parsed"}
    into_view = edges[(lineage.by_name["s.c"], lineage.by_name["s.v1"])].columns
    assert into_view == lineage.ledger[key].columns_from("s.c")
    assert done.path in ("sql", "full")
