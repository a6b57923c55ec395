"""The epoch-versioned Parquet index (specs/index.md): epochs compared as integers, LatestBy
and LatestGroup, pruning, one ingested_at per run, parse LEFT JOIN compile, NULL and empty
lists, an empty delta carrying compiled fields forward, atomic writes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gov_helpers import DBT, SHOP, edit_yaml, table, view, write_project

from prism_lineage.governance.access import OWNER
from prism_lineage.governance.declarations import Column, Environment, Project, Table, View
from prism_lineage.governance.explorer import explore
from prism_lineage.governance.impact import impact
from prism_lineage.governance.loading import load_project
from prism_lineage.governance.rollup import sync
from prism_lineage.index import EpochIndex
from prism_lineage.index import epochs as epoch_files
from prism_lineage.index.reader import IndexReader
from prism_lineage.index.tables import ALIVE, EDGES, MERGED_NODES, NODES, READS, STATEMENTS
from prism_lineage.index.writer import EpochWriter


def lineage_of(root, **options):
    project, _ = load_project(root)
    return sync(project, **options)


def names(index):
    return {row["full_name"]: row for row in index.nodes()}


def test_round_trip_gives_the_same_answers(tmp_path):
    for root, env in ((SHOP, "prod"), (DBT, None)):
        lineage = lineage_of(root) if env is None else sync(load_project(root)[0], env)
        index = EpochIndex(tmp_path / root.name)
        index.write(lineage)
        back = index.lineage(lineage.project, lineage.environment)
        for name in lineage.by_name:
            assert explore(back, OWNER, name, "both", 10).to_json() == explore(lineage, OWNER, name, "both", 10).to_json()
            assert impact(back, OWNER, name).to_json() == impact(lineage, OWNER, name).to_json()


def test_epoch_numbers_compare_as_integers(tmp_path):
    writer = EpochWriter(tmp_path)
    now = pa.scalar(0, pa.timestamp("us", tz="UTC")).as_py()
    for epoch, owner in ((9, "nine"), (10, "ten")):
        writer._write(NODES, [{"asset_id": "a", "full_name": "s.t", "aliases": [], "owner": owner}], epoch, now)
        writer._write(ALIVE, [{"asset_id": "a"}], epoch, now)
    assert epoch_files.epochs(tmp_path / "parse/nodes") == [9, 10]
    assert [r["owner"] for r in IndexReader(tmp_path).latest(NODES)] == ["ten"]  # v1_10 after v1_9
    assert writer.next_epoch() == 11


def test_one_epoch_per_sync_and_latest_by_wins(tmp_path):
    index = EpochIndex(tmp_path / "index")
    for owner in ("first", "second", "third"):
        root = write_project(tmp_path / owner, tables=[table("s.t", ["a"], owner=owner)])
        index.write(lineage_of(root))
    assert index.epochs() == [1, 2, 3]
    assert names(index)["s.t"]["owner"] == "third"
    assert len(IndexReader(index.root).latest(NODES)) == 1  # one row per key


def test_latest_group_replaces_a_targets_incoming_edges_whole(tmp_path):
    tables = [table("s.a", ["x"]), table("s.b", ["x"])]
    both = write_project(tmp_path / "both", tables=tables, views=[view("s.v", "SELECT x FROM s.a JOIN s.b USING (x)")])
    one = write_project(tmp_path / "one", tables=tables, views=[view("s.v", "SELECT x FROM s.a")])
    none = write_project(tmp_path / "none", tables=tables, views=[view("s.v", "SELECT 1 AS x")])
    index = EpochIndex(tmp_path / "index")
    index.write(lineage_of(both))
    assert len(index.edges()) == 2
    index.write(lineage_of(one))
    [edge] = index.edges()
    assert edge["source_id"] == lineage_of(one).by_name["s.a"]
    index.write(lineage_of(none))  # the group emptied: a tombstone, no edge
    assert index.edges() == []
    raw = IndexReader(index.root).latest(EDGES)
    assert [r["source_id"] for r in raw] == [None]


def test_nodes_no_longer_alive_are_pruned_with_their_edges(tmp_path):
    before = write_project(tmp_path / "a", tables=[table("s.a", ["x"]), table("s.gone", ["x"])],
                           views=[view("s.v", "SELECT x FROM s.a JOIN s.gone USING (x)")])
    after = write_project(tmp_path / "b", tables=[table("s.a", ["x"])], views=[view("s.v", "SELECT x FROM s.a")])
    index = EpochIndex(tmp_path / "index")
    index.write(lineage_of(before))
    index.write(lineage_of(after))
    assert sorted(names(index)) == ["s.a", "s.v"]
    assert {e["source_id"] for e in index.edges()} == {lineage_of(after).by_name["s.a"]}


def test_one_ingested_at_per_run(tmp_path):
    index = EpochIndex(tmp_path)
    index.write(lineage_of(SHOP))
    stamps = set()
    for table_ in (NODES, READS, EDGES, STATEMENTS, MERGED_NODES, ALIVE):
        stamps |= {r["ingested_at"] for r in IndexReader(tmp_path).latest(table_)}
    assert len(stamps) == 1


def test_parse_left_join_compile_a_read_never_creates_a_node(tmp_path):
    writer = EpochWriter(tmp_path)
    nodes = {"a": {"asset_id": "a", "full_name": "s.a", "aliases": []}}
    reads = {"a": {"asset_id": "a", "sql_status": "Not read yet"},
             "ghost": {"asset_id": "ghost", "sql_status": "Could not be parsed"}}
    rows = writer._merged({"a", "ghost"}, nodes, reads)
    assert [(r["asset_id"], r["sql_status"]) for r in rows] == [("a", "Not read yet")]
    assert writer._merged({"b"}, {"b": {"asset_id": "b", "aliases": []}}, {})[0]["sql_status"] is None


def test_missing_string_is_null_and_missing_list_is_empty(tmp_path):
    index = EpochIndex(tmp_path / "index")
    index.write(lineage_of(write_project(tmp_path / "p", tables=[table("s.t", ["a"])])))
    [row] = index.nodes()
    assert row["owner"] is None and row["steward"] is None and row["sql_status"] is None
    assert row["aliases"] == []


def test_an_empty_delta_still_writes_nodes_and_carries_compiled_fields_forward(tmp_path):
    root = write_project(tmp_path / "p", tables=[table("s.t", ["a"])], views=[view("s.v", "SELECT a FROM s.t")])
    project, _ = load_project(root)
    index = EpochIndex(tmp_path / "index")
    waiting = sync(project, budget=0)
    index.write(waiting)
    assert names(index)["s.v"]["sql_status"] == "Not read yet"
    read = sync(project, previous=waiting)
    index.write(read)  # no declaration changed: the parse delta is empty, the compile one is not
    assert not (tmp_path / "index/parse/nodes/v1_2.parquet").exists()
    assert (tmp_path / "index/lineage/nodes/v1_2.parquet").exists()
    assert names(index)["s.v"]["sql_status"] is None and len(index.edges()) == 1
    index.write(read)  # nothing changed at all: the merged nodes file is still written
    assert (tmp_path / "index/lineage/nodes/v1_3.parquet").exists()
    assert names(index)["s.v"]["sql_status"] is None


def test_a_failed_write_leaves_no_partial_epoch(tmp_path, monkeypatch):
    index = EpochIndex(tmp_path / "index")
    lineage = lineage_of(SHOP)
    index.write(lineage)
    import prism_lineage.index.epochs as epochs_module

    def crash(table, path):
        Path(path).write_bytes(b"PAR1 half")
        raise OSError("disk full")

    class Crashing:  # the streamed writer (``epochs.write_rows``): half a file, then the disk is full
        def __init__(self, path, schema):
            Path(path).write_bytes(b"PAR1 half")

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def write_table(self, table):
            raise OSError("disk full")

    monkeypatch.setattr(epochs_module.pq, "write_table", crash)
    monkeypatch.setattr(epochs_module.pq, "ParquetWriter", Crashing)
    with pytest.raises(OSError):
        index.write(lineage_of(write_project(tmp_path / "p", tables=[table("s.t", ["a"])])))
    monkeypatch.undo()
    assert index.epochs() == [1]
    leftovers = [p for p in (tmp_path / "index").rglob("*") if p.is_file() and not p.name.startswith("v1_")]
    assert leftovers == []
    assert sorted(names(index)) == sorted(lineage.by_name)  # the index reads as before


def test_an_uncommitted_epoch_is_never_read(tmp_path):
    index = EpochIndex(tmp_path / "index")
    index.write(lineage_of(SHOP))
    writer = EpochWriter(index.root)
    now = pa.scalar(0, pa.timestamp("us", tz="UTC")).as_py()
    # A sync that crashed after its nodes file and before its alive file (the commit).
    writer._write(NODES, [{"asset_id": "x", "full_name": "s.x", "aliases": []}], 2, now)
    assert index.epochs() == [1] and "s.x" not in names(index)
    index.write(lineage_of(SHOP))  # the next sync takes a new number; epoch 2 stays unread
    assert index.epochs() == [1, 3] and "s.x" not in names(index)


# --- the read ledger (compile/statements): an incremental sync from the index -----------------

def test_the_ledger_round_trips_exactly(tmp_path):
    for root, env in ((SHOP, "prod"), (SHOP, "dev"), (DBT, None)):
        lineage = sync(load_project(root)[0], env)
        index = EpochIndex(tmp_path / root.name / lineage.environment)
        index.write(lineage)
        back = index.lineage(lineage.project, lineage.environment)
        assert back.ledger == lineage.ledger and len(back.ledger) == lineage.reads_performed > 0
        assert back.ledger_by_asset == lineage.ledger_by_asset


def test_a_sync_from_the_index_re_reads_only_the_statement_that_changed(tmp_path):
    root = shutil.copytree(SHOP, tmp_path / "shop")
    index = EpochIndex(tmp_path / "index")
    first = lineage_of(root, environment="prod")
    index.write(first)
    assert first.reads_performed == 7
    # Nothing changed: nothing is read, and the epoch writes no statement group.
    again = sync(load_project(root)[0], "prod", previous=index.lineage("shop", "prod"))
    assert again.reads_performed == 0 and again.edges == first.edges
    index.write(again)
    assert epoch_files.epochs(tmp_path / "index/compile/statements") == [1]
    # One statement changed (its outputs did not): only it is read; the answer is a full sync's.
    edit_yaml(root, "views/daily_revenue.yaml", lambda d: d.update(sql=d["sql"] + "HAVING SUM(amount) > 0\n"))
    changed = sync(load_project(root)[0], "prod", previous=index.lineage("shop", "prod"))
    assert changed.reads_performed == 1
    fresh = lineage_of(root, environment="prod")
    assert changed.edges == fresh.edges and changed.assets == fresh.assets and changed.ledger == fresh.ledger
    index.write(changed)
    [row] = rows_of(index, STATEMENTS, 3)  # the one group that changed, whole
    assert row["asset_id"] == fresh.by_name["analytics.daily_revenue"]
    assert index.lineage("shop", "prod").ledger == fresh.ledger


def test_a_changed_output_re_reads_what_read_it(tmp_path):
    root = shutil.copytree(SHOP, tmp_path / "shop")
    index = EpochIndex(tmp_path / "index")
    index.write(lineage_of(root, environment="prod"))
    # daily_revenue's outputs change, so board_report, which read them, is read again too.
    edit_yaml(root, "views/daily_revenue.yaml", lambda d: d.update(sql=d["sql"].replace(
        "COUNT(*) AS orders", "COUNT(*) AS order_count")))
    changed = sync(load_project(root)[0], "prod", previous=index.lineage("shop", "prod"))
    assert changed.reads_performed == 2 and changed.edges == lineage_of(root, environment="prod").edges


def test_a_table_declared_where_a_statement_could_not_resolve_re_reads_it(tmp_path):
    tables = [table("s.a", ["x"])]
    views = [view("s.v", "SELECT x FROM s.a JOIN s.later USING (x)")]
    index = EpochIndex(tmp_path / "index")
    before = lineage_of(write_project(tmp_path / "before", tables=tables, views=views))
    index.write(before)
    assert len(before.edges) == 1
    project = load_project(write_project(tmp_path / "after", tables=[*tables, table("s.later", ["x"])],
                                         views=views))[0]
    after = sync(project, previous=index.lineage("t", "prod"))
    assert after.reads_performed == 1 and len(after.edges) == 2


def test_statement_groups_follow_the_index_rules(tmp_path):
    """LatestGroup by the asset written (a table two assets write is one group, replaced whole),
    a tombstone when the group empties, pruning with the asset, unknown kept apart from none."""
    tables = [table("s.a", ["x"]), table("s.t", ["x"]), table("s.u", ["x"])]

    def version(name, second_sql, *, in_files=False, with_u=True):
        sql = (lambda text, n: {"sql_file": f"{n}.sql"}) if in_files else (lambda text, n: {"sql": text})
        assets = [{"name": "one", "writes": "s.t", **sql("SELECT x FROM s.a", "one")},
                  {"name": "two", "writes": "s.t", **sql(second_sql, "two")}]
        if with_u:
            assets.append({"name": "u", "writes": "s.u", "sql": "SELECT * FROM elsewhere.raw"})
        return lineage_of(write_project(tmp_path / name, tables=tables if with_u else tables[:2],
                                        pipelines=[{"name": "p", "assets": assets}]))

    index = EpochIndex(tmp_path / "index")
    first = version("1", "SELECT x + 1 AS x FROM s.a")
    index.write(first)
    t, u = first.by_name["s.t"], first.by_name["s.u"]
    groups = index.statements()
    assert [len(groups[t]), len(groups[u])] == [2, 1]
    [unknown] = groups[u]  # a star over an undeclared table: its outputs and the columns it saw are unknown
    assert (unknown["outputs_known"], unknown["outputs"]) == (False, [])
    assert [(d["resolved"], d["columns_known"], d["columns"]) for d in unknown["dependencies"]] == [
        (None, False, [])]
    assert all(d["columns_known"] and d["columns"] == [{"name": "x", "type": "int"}]
               for row in groups[t] for d in row["dependencies"])
    index.write(version("2", "SELECT x + 2 AS x FROM s.a"))  # one of t's two statements changed
    assert [r["asset_id"] for r in rows_of(index, STATEMENTS, 2)] == [t, t]  # the group, whole
    index.write(version("3", "SELECT x + 2 AS x FROM s.a", in_files=True))  # nothing of t is read any more
    assert [(r["asset_id"], r["statement_key"]) for r in rows_of(index, STATEMENTS, 3)] == [(t, None)]
    assert t not in index.statements()  # a tombstone is no group
    index.write(version("4", "SELECT x + 2 AS x FROM s.a", in_files=True, with_u=False))  # s.u removed
    assert u not in index.statements() and index.statements() == {}  # pruned with its asset


def rows_of(index, table_, epoch):
    """The rows one epoch's file of a table holds, as written."""
    import pyarrow.parquet as pq

    return pq.read_table(epoch_files.epoch_file(index.root / table_.directory, epoch)).to_pylist()


def test_cli_index_syncs_read_only_what_changed(capsys, tmp_path):
    from prism_lineage.cli import main

    root = shutil.copytree(SHOP, tmp_path / "shop")
    index = str(tmp_path / "index")
    answer_argv = ["lineage", "impact", "analytics.orders", "--project", str(root), "-o", "json", "--index", index]

    def run():
        """A sync (its summary: what it read), then the answer from the index."""
        assert main(["sync", "--project", str(root), "--index", index, "-o", "json"]) == 0
        summary = json.loads(capsys.readouterr().out)
        assert main(answer_argv) == 0
        return summary, json.loads(capsys.readouterr().out)

    summary, answer = run()
    # The 7 statements, and again for each credential's visibility scope the statements whose read
    # depended on an asset hidden from it.
    assert answer["count"] == 3 and summary["read"] == 7 and summary["scope_reads"] > 0
    summary, answer = run()
    assert answer["count"] == 3 and (summary["read"], summary["scope_reads"]) == (0, 0)  # the scopes' reads kept
    edit_yaml(root, "views/daily_revenue.yaml", lambda d: d.update(sql=d["sql"] + "HAVING SUM(amount) > 0\n"))
    summary, answer = run()
    assert summary["read"] == 1 and summary["unchanged"] == 6
    answer.pop("as_of")
    assert main(answer_argv[:-2]) == 0 and json.loads(capsys.readouterr().out) == answer  # as a full sync says


def test_cli_an_index_that_cannot_be_read_is_refused(capsys, tmp_path):
    from prism_lineage.cli import main

    index = tmp_path / "index"
    root = shutil.copytree(SHOP, tmp_path / "shop")
    argv = ["lineage", "analytics.orders", "--project", str(root), "--index", str(index), "--sync"]
    assert main(argv) == 0
    capsys.readouterr()
    (index / "shop/prod/compile/statements/v1_1.parquet").write_bytes(b"not parquet")
    # A change the store cannot work out alone (a table's owner): the sync reads the index.
    edit_yaml(root, "tables/raw/orders.yaml" if (root / "tables/raw/orders.yaml").exists() else
              str(next(root.glob("tables/**/*.yaml")).relative_to(root)), lambda d: d.update(owner="x@example.com"))
    assert main(argv) == 3
    assert capsys.readouterr().err.startswith(f"prism-lineage: error: cannot read the index in {index / 'shop/prod'}: ")


@st.composite
def project_versions(draw):
    """Three versions of a small project: tables whose declared columns come and go, and views
    reading tables or earlier views, their SQL changing from one version to the next."""
    versions = []
    for _ in range(3):
        tables = tuple(Table(namespace="s", name=f"t{i}", file=f"t{i}.yaml",
                             columns=tuple(Column(name=c, type="int") for c in ("a", "b")
                                           if draw(st.booleans()) or c == "a"))
                       for i in range(3))
        views = []
        for i in range(4):
            source = draw(st.sampled_from([f"s.t{j}" for j in range(3)] + [f"s.v{j}" for j in range(i)]))
            column = draw(st.sampled_from(("a", "b", "a + 1 AS a")))
            other = draw(st.sampled_from([None, "s.t0", "s.t2"]))
            sql = f"SELECT {column} FROM {source}" + (f" AS x JOIN {other} AS y USING (a)" if other else "")
            views.append(View(namespace="s", name=f"v{i}", sql=sql, reads=(source,), file=f"v{i}.yaml"))
        env = Environment(name="prod", dialect="duckdb", tables=tables, views=tuple(views))
        versions.append(Project(name="p", environments=(env,)))
    return versions


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(versions=project_versions())
def test_property_a_sync_from_the_index_answers_as_a_full_sync(tmp_path_factory, versions):
    index = EpochIndex(tmp_path_factory.mktemp("index"))
    for project in versions:
        fresh = sync(project)
        incremental = sync(project, previous=index.lineage("p", "prod"))
        assert (incremental.edges, incremental.assets, incremental.ledger) == (fresh.edges, fresh.assets, fresh.ledger)
        assert incremental.reads_performed <= fresh.reads_performed
        index.write(incremental)
        assert index.lineage("p", "prod").ledger == fresh.ledger


# --- schema drift: files written by an older build ------------------------------------------

OLDER = {"parse/edges": ("revision", "note"), "parse/nodes": ("aliases", "steward"),
         "lineage/nodes": ("aliases", "steward", "sql_read_from"), "compile/statements": ("outputs", "links")}


def older_writer(root, epoch):
    """Rewrite ``epoch``'s files as a build that did not have the columns of ``OLDER`` wrote them."""
    import pyarrow.parquet as pq

    for directory, dropped in OLDER.items():
        path = epoch_files.epoch_file(root / directory, epoch)
        if path.exists():
            table = pq.read_table(path)
            pq.write_table(table.drop_columns([c for c in dropped if c in table.column_names]), path)


def test_an_older_files_missing_columns_read_as_null_or_empty_lists(tmp_path):
    lineage = lineage_of(SHOP, environment="prod")
    index = EpochIndex(tmp_path / "index")
    index.write(lineage)
    older_writer(index.root, 1)
    # No file has the columns: strings read NULL, lists empty — never an error.
    [row] = [r for r in index.nodes() if r["full_name"] == "analytics.orders"]
    assert (row["aliases"], row["steward"], row["sql_read_from"]) == ([], None, None)
    edges = index.edges()
    assert edges and all(e["revision"] is None and e["note"] is None for e in edges)
    back = index.lineage("shop", "prod")
    assert len(back.edges) == len(lineage.edges) and all(e.note is None for e in back.edges)
    assert all(read.outputs in (None, ()) for read in back.ledger.values())
    explore(back, OWNER, "analytics.orders", "both", 10)  # answers
    # Some files have them, some do not: the same rule, row by row.
    root = write_project(tmp_path / "p", tables=[table("s.t", ["a"], steward="ann")],
                         views=[view("s.v", "SELECT a FROM s.t", ["s.t"])])
    mixed = EpochIndex(tmp_path / "mixed")
    mixed.write(lineage_of(root))
    older_writer(mixed.root, 1)
    edit_yaml(root, "tables/s_t.yaml", lambda d: d.update(owner="bo"))
    mixed.write(lineage_of(root))
    rows = {r["full_name"]: r for r in mixed.nodes()}
    assert rows["s.t"]["steward"] == "ann" and rows["s.v"]["steward"] is None  # s.v's row is epoch 1's
    assert rows["s.v"]["aliases"] == [] and rows["s.t"]["aliases"] == []
