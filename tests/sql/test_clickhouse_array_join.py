"""ClickHouse ``[LEFT] ARRAY JOIN`` (field trial 78).  It was "not analysed", yet every field
passing through it stayed exact with no lineage from the arrays, though the rows depend on them
(a row with empty arrays is dropped, the rest repeat per element).  Now a generator over the
clause's arrays, zipped: each element column from its array (path ``[]``), control lineage from
every array to every output.  Names as ClickHouse documents them (test 02374_analyzer_array_join,
issue 533): an alias names the element (the array keeps its name; ``*`` does not list it); without
one the element replaces the array column, qualified or not, in ``*`` too."""

from __future__ import annotations

import pytest

import prism_lineage

SCHEMA = {"t": {"id": "UInt64", "s": "String", "arr": "Array(UInt8)", "a2": "Array(String)",
                "m": "Map(String, UInt8)", "value": "String"}}


def _fields(sql: str, schema=SCHEMA):
    [answer] = prism_lineage.explain(sql, schema, dialect="clickhouse").statements
    return answer, {f.name: {(s.column, s.relationship, s.transformation, s.confidence, s.path or "")
                             for s in f.sources} for f in answer.fields}


def test_fields_passing_through_depend_on_every_array() -> None:
    answer, fields = _fields("SELECT s, x, y FROM t ARRAY JOIN arr AS x, a2 AS y")
    assert fields["s"] == {("t.s", "value", "identity", "exact", ""),
                           ("t.arr", "control", "generator", "exact", ""),
                           ("t.a2", "control", "generator", "exact", "")}
    assert ("t.arr", "value", "generator", "exact", "arr[]") in fields["x"]
    assert ("t.a2", "value", "generator", "exact", "a2[]") in fields["y"]
    assert ("t.a2", "control", "generator", "exact", "") in fields["x"]
    assert not answer.uncertain


@pytest.mark.parametrize("schema", [SCHEMA, None])
def test_an_unaliased_array_is_replaced_by_its_elements(schema) -> None:
    answer, fields = _fields("SELECT s, arr, t.arr FROM t ARRAY JOIN arr", schema)
    assert [f.name for f in answer.fields] == ["s", "arr", "arr"]
    for f in answer.fields[1:]:
        assert {(s.column, s.path) for s in f.sources if s.relationship == "value"} == {("t.arr", "arr[]")}


def test_an_alias_names_the_element_and_the_array_keeps_its_name() -> None:
    answer, fields = _fields("SELECT arr, value FROM t ARRAY JOIN arr AS value")
    assert ("t.arr", "value", "identity", "exact", "") in fields["arr"]
    assert ("t.arr", "value", "generator", "exact", "arr[]") in fields["value"]
    assert not any(column == "t.value" for column, *_ in fields["value"])


def test_star_lists_the_element_in_the_arrays_place_and_not_an_alias() -> None:
    answer, fields = _fields("SELECT * FROM t ARRAY JOIN arr")
    assert [f.name for f in answer.fields] == ["id", "s", "arr", "a2", "m", "value"]
    assert ("t.arr", "value", "generator", "exact", "arr[]") in fields["arr"]
    answer, fields = _fields("SELECT * FROM t ARRAY JOIN arr AS x")
    assert [f.name for f in answer.fields] == ["id", "s", "arr", "a2", "m", "value"]
    assert ("t.arr", "value", "identity", "exact", "") in fields["arr"]


def test_left_array_join_keeps_rows_and_still_depends_on_the_array() -> None:
    answer, fields = _fields("SELECT s, x FROM t LEFT ARRAY JOIN arr AS x")
    assert ("t.arr", "join", "join", "exact", "") in fields["s"]


def test_a_built_array_makes_as_many_rows_as_it_spells() -> None:
    answer, fields = _fields("SELECT s, z FROM t ARRAY JOIN [1, 2] AS z")
    assert fields["s"] == {("t.s", "value", "identity", "exact", "")}


def test_chained_array_joins_read_the_earlier_elements() -> None:
    answer, fields = _fields("SELECT s, v FROM t ARRAY JOIN arr AS e ARRAY JOIN [e, 1] AS v")
    assert ("t.arr", "value", "generator", "exact", "arr[]") in fields["v"]
    assert ("t.arr", "control", "generator", "exact", "") in fields["s"]


def test_over_a_derived_table() -> None:
    answer, fields = _fields("SELECT s, x FROM (SELECT s, arr FROM t) AS d ARRAY JOIN arr AS x")
    assert ("t.arr", "control", "generator", "exact", "") in fields["s"]
    assert ("t.arr", "value", "generator", "exact", "arr[]") in fields["x"]


@pytest.mark.parametrize("sql", [
    # a select-list alias: read as what it aliases; what it shows afterwards differs between analyzers
    "SELECT arr AS q, s FROM t ARRAY JOIN q",
    # an alias of the same clause
    "SELECT s, b FROM t ARRAY JOIN arr AS a, arrayMap(x -> x + 1, a) AS b",
    # a Map is not an array: its elements are (key, value) tuples, not read here
    "SELECT s, kv FROM t ARRAY JOIN m AS kv",
])
def test_what_is_not_known_exactly_is_conservative_and_said(sql: str) -> None:
    answer, fields = _fields(sql)
    controls = [c for c in fields["s"] if c[1] == "control"]
    assert controls and all(c[3] == "conservative" for c in controls)
    assert answer.uncertain
