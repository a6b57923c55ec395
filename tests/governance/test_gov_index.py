"""The epoch-versioned Parquet index (specs/index.md): epochs compared as integers, LatestBy
and LatestGroup, pruning, one ingested_at per run, parse LEFT JOIN compile, NULL and empty
lists, an empty delta carrying compiled fields forward, atomic writes."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from gov_helpers import DBT, SHOP, table, view, write_project

from prism_lineage.governance.access import OWNER
from prism_lineage.governance.explorer import explore
from prism_lineage.governance.impact import impact
from prism_lineage.governance.loading import load_project
from prism_lineage.governance.rollup import sync
from prism_lineage.index import EpochIndex
from prism_lineage.index import epochs as epoch_files
from prism_lineage.index.reader import IndexReader
from prism_lineage.index.tables import ALIVE, EDGES, MERGED_NODES, NODES, READS
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
    for table_ in (NODES, READS, EDGES, MERGED_NODES, ALIVE):
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

    monkeypatch.setattr(epochs_module.pq, "write_table", crash)
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
