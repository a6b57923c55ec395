"""DuckDB ``date_trunc(s, d)`` / ``time_bucket(w, d, origin)`` where ``s`` / ``origin`` are columns
(field trial 83, found replaying DuckDB's test/sql/function/date/test_date_trunc.test and
test_time_bucket_date.test): sqlglot turns a name and a string in the unit's place alike into a
unit (``S``), so the column was dropped — the field exact without it, though changing ``s``
changes it.  Where a column of that name is in scope it is now listed, conservative, said."""

from __future__ import annotations

import duckdb

import prism_lineage

SCHEMA = {"dates": {"s": "varchar", "d": "date", "w": "interval", "origin": "date"}}


def _sources(sql: str, dialect: str = "duckdb"):
    [answer] = prism_lineage.explain(sql, SCHEMA, dialect=dialect).statements
    return answer, {(s.column, s.confidence) for s in answer.fields[0].sources}


def test_the_unit_column_is_listed_conservatively() -> None:
    con = duckdb.connect()
    con.execute("CREATE TABLE dates (s VARCHAR, d DATE, w INTERVAL, origin DATE);"
                "INSERT INTO dates VALUES ('month', DATE '2024-05-17', INTERVAL 7 DAY, DATE '2024-01-03')")
    before = con.execute("SELECT date_trunc(s, d) FROM dates").fetchall()
    con.execute("UPDATE dates SET s = 'year'")
    assert con.execute("SELECT date_trunc(s, d) FROM dates").fetchall() != before  # s is read
    answer, sources = _sources("SELECT date_trunc(s, d) FROM dates")
    assert ("dates.s", "conservative") in sources and ("dates.d", "exact") in sources
    assert answer.uncertain
    answer, sources = _sources("SELECT time_bucket(w, d, origin) FROM dates")
    assert ("dates.origin", "conservative") in sources


def test_a_unit_no_column_is_named_after_stays_exact() -> None:
    answer, sources = _sources("SELECT date_trunc('month', d) FROM dates")
    assert sources == {("dates.d", "exact")} and not answer.uncertain
    answer, sources = _sources("SELECT d + INTERVAL 1 DAY, EXTRACT(year FROM d) FROM dates")
    assert sources == {("dates.d", "exact")} and not answer.uncertain
