"""``index/arrow_rows.py`` builds the index's Arrow tables from buffers (no pandas import): for
every table's schema, on generated rows (NULLs, empty and non-ASCII strings, empty and nested
lists, structs), the table it builds is the one ``Table.from_pylist`` builds, valid to the last
buffer — and the parquet file written row group by row group reads back as the rows."""

from __future__ import annotations

import datetime
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import given, settings
from hypothesis import strategies as st

from prism_lineage.index import arrow_rows
from prism_lineage.index.epochs import epoch_file, write_rows
from prism_lineage.index.tables import TABLES

NOW = datetime.datetime(2026, 12, 1, 12, 0, 0, 123456, tzinfo=datetime.timezone.utc)


def values(kind: pa.DataType, nullable: bool):
    if pa.types.is_string(kind):
        base = st.text(alphabet=st.characters(codec="utf-8"), max_size=6)
    elif pa.types.is_boolean(kind):
        base = st.booleans()
    elif pa.types.is_int32(kind):
        base = st.integers(-2**31, 2**31 - 1)
    elif pa.types.is_timestamp(kind):
        base = st.datetimes(min_value=datetime.datetime(1971, 1, 1), max_value=datetime.datetime(2100, 1, 1),
                            timezones=st.just(datetime.timezone.utc))
    elif pa.types.is_list(kind):
        base = st.lists(values(kind.value_type, kind.value_field.nullable), max_size=3)
    else:
        base = st.fixed_dictionaries({f.name: values(f.type, f.nullable) for f in kind})
    return st.one_of(st.none(), base) if nullable else base


@st.composite
def table_and_rows(draw):
    table = draw(st.sampled_from(TABLES))
    rows = draw(st.lists(st.fixed_dictionaries({f.name: values(f.type, f.nullable) for f in table.schema}),
                         max_size=8))
    return table, rows


@settings(max_examples=60, deadline=None)
@given(table_and_rows())
def test_a_table_from_buffers_is_the_one_from_pylist(case):
    table, rows = case
    built = arrow_rows.table(table.schema, rows)
    built.validate(full=True)
    assert built.equals(pa.Table.from_pylist(rows, schema=table.schema))
    stamped = arrow_rows.table(table.schema, rows, stamp=NOW)
    assert stamped.column("ingested_at").to_pylist() == [NOW] * len(rows)
    # A full sync's large row groups go through pyarrow's own converter: the same table.
    assert arrow_rows.bulk_table(table.schema, rows, stamp=NOW).equals(stamped)


def test_rows_are_written_row_group_by_row_group(tmp_path, monkeypatch):
    import prism_lineage.index.epochs as epochs

    monkeypatch.setattr(epochs, "CHUNK_ROWS", 3)
    alive = next(t for t in TABLES if t.directory == "alive")
    rows = ({"asset_id": f"a{i}"} for i in range(10))  # consumed as the file is written
    write_rows(alive, rows, tmp_path, 7, NOW)
    written = pq.ParquetFile(epoch_file(tmp_path, 7))
    assert written.metadata.num_row_groups == 4
    assert written.read().to_pylist() == [{"asset_id": f"a{i}", "ingested_at": NOW} for i in range(10)]
    assert write_rows(alive, iter(()), tmp_path, 8, NOW) is None and not epoch_file(tmp_path, 8).exists()
    write_rows(alive, iter(()), tmp_path, 9, NOW, always=True)  # an empty delta still writes its file
    assert pq.read_table(epoch_file(tmp_path, 9)).schema.equals(alive.schema)


def test_keys_are_written_as_rows_of_their_key(tmp_path, monkeypatch):
    """``write_keys`` (the alive ids, no dict per row) writes the file ``write_rows`` writes."""
    import prism_lineage.index.epochs as epochs

    monkeypatch.setattr(epochs, "CHUNK_ROWS", 3)
    alive = next(t for t in TABLES if t.directory == "alive")
    keys = [f"a{i}" for i in range(10)]
    epochs.write_keys(alive, keys, tmp_path, 7, NOW)
    write_rows(alive, ({"asset_id": k} for k in keys), tmp_path, 8, NOW)
    by_keys, by_rows = pq.ParquetFile(epoch_file(tmp_path, 7)), pq.ParquetFile(epoch_file(tmp_path, 8))
    assert by_keys.metadata.num_row_groups == by_rows.metadata.num_row_groups == 4
    assert by_keys.read().equals(by_rows.read())
    epochs.write_keys(alive, [], tmp_path, 9, NOW)  # no asset alive: the file still commits the epoch
    write_rows(alive, iter(()), tmp_path, 10, NOW, always=True)
    assert pq.read_table(epoch_file(tmp_path, 9)).equals(pq.read_table(epoch_file(tmp_path, 10)))


def test_building_tables_imports_no_pandas():
    code = ("import sys\nfrom prism_lineage.index import arrow_rows\nfrom prism_lineage.index.tables import TABLES\n"
            "for t in TABLES:\n    arrow_rows.table(t.schema, [{}])\nprint('pandas' in sys.modules)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


# --- the full sync's two large tables, built column by column (index/columnar.py) --------------------

TEXT = st.one_of(st.none(), st.text(alphabet=st.characters(codec="utf-8"), max_size=4))
NAME = st.text(alphabet=st.characters(codec="utf-8"), max_size=4)


def _links():
    from prism_lineage.governance.sql_reading import ColumnLink

    return st.builds(ColumnLink, NAME, NAME, NAME, NAME, NAME)


def _reads():
    from prism_lineage.governance.sql_reading import Dependency, StatementRead
    from prism_lineage.governance.statuses import SqlStatus

    dependency = st.builds(Dependency, st.lists(NAME, max_size=3).map(tuple), TEXT,
                           st.one_of(st.none(), st.lists(st.tuples(NAME, NAME), max_size=3).map(tuple)))
    return st.builds(StatementRead, NAME, st.one_of(st.none(), st.sampled_from(list(SqlStatus))),
                     st.lists(NAME, max_size=3).map(tuple),
                     st.lists(st.tuples(NAME, st.lists(_links(), max_size=3).map(tuple)), max_size=3).map(tuple),
                     st.one_of(st.none(), st.lists(NAME, max_size=3).map(tuple)),
                     st.lists(dependency, max_size=3).map(tuple))


def _edges():
    from prism_lineage.governance.rollup import LineageEdge
    from prism_lineage.governance.statuses import Mark, Via

    return st.builds(LineageEdge, NAME, NAME, st.sampled_from(list(Mark)), st.sampled_from(list(Via)), NAME,
                     st.one_of(st.none(), st.lists(_links(), max_size=3).map(tuple)), TEXT, TEXT)


@settings(max_examples=60, deadline=None)
@given(reads=st.lists(st.tuples(NAME, st.one_of(st.none(), _reads())), max_size=6),
       edges=st.lists(st.one_of(st.tuples(NAME, st.none()), _edges().map(lambda e: (e.target, e))), max_size=6),
       bulk_values=st.sampled_from([1, 20_000]), compiled=st.booleans(), group_rows=st.integers(1, 5))
def test_the_large_tables_built_by_column_are_those_of_dict_rows(reads, edges, bulk_values, compiled, group_rows):
    from unittest import mock

    from prism_lineage.index import columnar
    from prism_lineage.index.ledger import statement_rows, tombstone
    from prism_lineage.index.tables import EDGES, STATEMENTS
    from prism_lineage.index.writer import _edge_row, _tombstone

    # The same objects met again (the rollup shares links, dependencies, reads and edges): each
    # distinct one is numbered once and its rows taken from one array (``columnar._Distinct``);
    # ``compiled``: taken by Arrow, or gathered in Python (a small table before pyarrow.compute).
    reads, edges = reads + reads[::-1], edges + edges[::-1]
    with mock.patch.object(columnar, "BULK_VALUES", bulk_values), \
            mock.patch.object(columnar, "_compiled", lambda n: compiled):
        built = columnar.statements_table(STATEMENTS.schema, reads, stamp=NOW)
        built_edges = columnar.edges_table(EDGES.schema, edges, stamp=NOW)
        groups = list(columnar.statements_tables(STATEMENTS.schema, reads, stamp=NOW, group_rows=group_rows))
        edge_groups = list(columnar.edges_tables(EDGES.schema, edges, stamp=NOW, group_rows=group_rows))
    rows = [statement_rows(asset, [read])[0] if read is not None else tombstone(asset) for asset, read in reads]
    built.validate(full=True)
    expected = arrow_rows.table(STATEMENTS.schema, rows, stamp=NOW)
    assert built.equals(expected)
    # Row groups of ``group_rows`` rows (none for no rows), the table's rows in order.
    assert [len(g) for g in groups] == [min(group_rows, len(rows) - i) for i in range(0, len(rows), group_rows)]
    for i, group in enumerate(groups):
        group.validate(full=True)
        assert group.equals(expected.slice(i * group_rows, group_rows))
    rows = [_edge_row(edge) if edge is not None else _tombstone(target) for target, edge in edges]
    built_edges.validate(full=True)
    expected = arrow_rows.table(EDGES.schema, rows, stamp=NOW)
    assert built_edges.equals(expected)
    assert [len(g) for g in edge_groups] == [min(group_rows, len(rows) - i) for i in range(0, len(rows), group_rows)]
    for i, group in enumerate(edge_groups):
        group.validate(full=True)
        assert group.equals(expected.slice(i * group_rows, group_rows))


def _assets():
    from prism_lineage.governance.rollup import Asset, ReadNote
    from prism_lineage.governance.statuses import SqlStatus

    names = st.lists(NAME, max_size=3).map(tuple)
    return st.builds(Asset, NAME, NAME, NAME, NAME, st.sampled_from(["table", "view"]), TEXT, TEXT, st.booleans(),
                     NAME, names, st.one_of(st.none(), st.sampled_from(list(SqlStatus))), TEXT,
                     st.lists(st.integers(-2**31, 2**31 - 1), max_size=3).map(tuple), names,
                     st.lists(st.builds(ReadNote, NAME, names), max_size=2).map(tuple))


@settings(max_examples=40, deadline=None)
@given(assets=st.lists(_assets(), max_size=6), bulk_rows=st.sampled_from([1, 1_000]), group_rows=st.integers(1, 5))
def test_the_asset_tables_built_by_column_are_those_of_dict_rows(assets, bulk_rows, group_rows):
    from unittest import mock

    from prism_lineage.index import columnar, epochs
    from prism_lineage.index.tables import COMPILED_COLUMNS, MERGED_NODES, NODES, READS
    from prism_lineage.index.writer import _node_row, _read_row

    merged = [{**_node_row(a), **{c: _read_row(a)[c] for c in COMPILED_COLUMNS}} for a in assets]
    for table, rows in ((NODES, [_node_row(a) for a in assets]), (READS, [_read_row(a) for a in assets]),
                        (MERGED_NODES, merged)):
        with mock.patch.object(epochs, "BULK_ROWS", bulk_rows):  # both converters
            groups = list(columnar.assets_tables(table.schema, assets, stamp=NOW, group_rows=group_rows,
                                                 empty=True))
        expected = arrow_rows.table(table.schema, rows, stamp=NOW)
        assert [len(g) for g in groups] == ([min(group_rows, len(rows) - i) for i in range(0, len(rows), group_rows)]
                                            or [0])
        for i, group in enumerate(groups):
            group.validate(full=True)
            assert group.equals(expected.slice(i * group_rows, group_rows)), table.directory
