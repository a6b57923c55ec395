"""DuckDB's ``GROUPING()`` with no arguments is ``GROUPING`` of every grouping column (DuckDB's
test/sql/aggregate/grouping_sets/grouping.test).  sqlglot refused it ("'expressions' is missing"),
so the statement was refused.  The answer is that of ``GROUPING(<every key>)``, and DuckDB's
values agree."""

from __future__ import annotations

import duckdb
import pytest

import prism_lineage

SCHEMA = {"t": {"a": "int", "b": "varchar", "c": "int"}}


@pytest.mark.parametrize("bare, spelled", [
    ("SELECT GROUPING() AS g, SUM(a) AS s FROM t GROUP BY b",
     "SELECT GROUPING(b) AS g, SUM(a) AS s FROM t GROUP BY b"),
    ("SELECT b, GROUPING() AS g, SUM(a) AS s FROM t GROUP BY ROLLUP(b, c)",
     "SELECT b, GROUPING(b, c) AS g, SUM(a) AS s FROM t GROUP BY ROLLUP(b, c)"),
    ("SELECT GROUPING() AS g, c FROM t GROUP BY CUBE(b, c) HAVING GROUPING() < 3",
     "SELECT GROUPING(b, c) AS g, c FROM t GROUP BY CUBE(b, c) HAVING GROUPING(b, c) < 3"),
])
def test_grouping_without_arguments_is_grouping_of_every_key(bare: str, spelled: str) -> None:
    connection = duckdb.connect()
    connection.execute("CREATE TABLE t (a INT, b VARCHAR, c INT); "
                       "INSERT INTO t VALUES (1, 'x', 1), (2, 'x', 2), (3, 'y', 2)")
    assert sorted(map(repr, connection.execute(bare).fetchall())) == \
        sorted(map(repr, connection.execute(spelled).fetchall()))
    [by_bare] = prism_lineage.explain(bare, SCHEMA, dialect="duckdb").statements
    [by_spelled] = prism_lineage.explain(spelled, SCHEMA, dialect="duckdb").statements
    assert [f.name for f in by_bare.fields] == [d[0] for d in connection.execute(bare).description]
    assert [f.sources for f in by_bare.fields] == [f.sources for f in by_spelled.fields]
    assert by_bare.uncertain == []


def test_a_star_argument_is_still_refused() -> None:
    # DuckDB: "STAR expression is only allowed as the root element of an expression".
    with pytest.raises(prism_lineage.errors.PrismError):
        prism_lineage.explain("SELECT GROUPING(*), GROUPING() FROM t GROUP BY b", SCHEMA, dialect="duckdb")
