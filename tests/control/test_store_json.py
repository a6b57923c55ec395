"""The store's JSON texts written with shared parts encoded once (``engine.read_to_json`` and
``store.links_json`` with a ``memo``) are the texts written without: the same bytes, whatever
the strings, however the reads share their links and dependencies."""

from __future__ import annotations

import control_paths  # noqa: F401 - the governance tests' helpers on the path

from hypothesis import given, settings
from hypothesis import strategies as st

from prism_lineage.control.engine import read_from_json, read_to_json
from prism_lineage.control.store import links_json
from prism_lineage.governance.sql_reading import ColumnLink, Dependency, StatementRead
from prism_lineage.governance.statuses import SqlStatus

_TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6)
_LINKS = st.lists(st.builds(ColumnLink, _TEXT, _TEXT, _TEXT, _TEXT, _TEXT), min_size=1, max_size=5)
_COLUMNS = st.none() | st.lists(st.tuples(_TEXT, st.none() | _TEXT), max_size=4).map(tuple)
_DEPENDENCIES = st.lists(st.builds(Dependency, st.lists(_TEXT, min_size=1, max_size=3).map(tuple),
                                   st.none() | _TEXT, _COLUMNS), min_size=1, max_size=4)


@st.composite
def _reads(draw):
    """Reads drawing their links and dependencies from shared pools (the same objects, as the
    reading pass shares them), with every optional part present or not."""
    links, dependencies = draw(_LINKS), draw(_DEPENDENCIES)
    found = []
    for n in range(draw(st.integers(1, 4))):
        picked = st.lists(st.sampled_from(links), max_size=4).map(tuple)
        columns = tuple(draw(st.lists(st.tuples(_TEXT, picked), max_size=3)))
        found.append(StatementRead(
            f"k{n}", draw(st.none() | st.sampled_from(list(SqlStatus))), tuple(draw(st.lists(_TEXT, max_size=3))),
            columns, draw(st.none() | st.lists(_TEXT, max_size=3).map(tuple)),
            tuple(draw(st.lists(st.sampled_from(dependencies), max_size=3)))))
    return found


@given(_reads())
def test_reads_encoded_with_shared_parts_once_are_the_same_text(reads):
    memo: dict = {}
    for read in reads:
        text = read_to_json(read, memo)
        assert text == read_to_json(read)
        assert read_from_json(text) == read


@given(_LINKS, st.lists(st.lists(st.integers(0, 4), max_size=5), max_size=5))
def test_edge_details_encoded_with_shared_links_once_are_the_same_text(links, picks):
    memo: dict = {}
    for pick in picks:
        columns = tuple(links[i % len(links)] for i in pick)
        assert links_json(columns, memo) == links_json(columns)
    assert links_json(None, memo) is None


@settings(deadline=None)  # the first example imports the rollup
@given(_LINKS, st.lists(st.one_of(st.none(), st.lists(st.integers(0, 4), max_size=5)), max_size=6))
def test_the_store_keeps_each_edges_detail_as_its_own_text(links, picks):
    """``StoreWriter._insert_edges`` finds an edge's detail by the identity of its links (the
    same list of the same links: the text made once): every edge keeps its own detail."""
    import sqlite3

    from prism_lineage.control.store import SCHEMA, StoreWriter
    from prism_lineage.governance.rollup import LineageEdge
    from prism_lineage.governance.statuses import Mark, Via

    shared = tuple(links)
    edges = []
    for n, pick in enumerate(picks):
        columns = None if pick is None else (shared if not pick else tuple(links[i % len(links)] for i in pick))
        edges.append(LineageEdge(f"s{n}", "t", Mark.PARSED, Via.VIEW, "f.yaml", columns))
    edges += edges[::-1]  # the same edges (and link lists) met again
    connection = sqlite3.connect(":memory:")
    connection.executescript(SCHEMA)
    ids = {f"s{n}": n + 1 for n in range(len(picks))} | {"t": 0}
    StoreWriter(":memory:")._insert_edges(connection, edges, ids)
    stored = connection.execute("SELECT e.src, l.links FROM edges e LEFT JOIN links l ON l.id = e.links "
                                "ORDER BY e.id").fetchall()
    assert stored == [(ids[e.source], links_json(e.columns)) for e in edges]
