"""TPC-H as Polars programs (``tests/fixtures/polars_tpch``, from pola-rs/polars-benchmark) over
Parquet files with the TPC-H schema: every query's LazyFrame is explained and compared with the
SQL of ``tests/fixtures/workloads/tpch``, field by field.  The programs are written the Polars
way — subqueries as joins, ``IN`` as semi joins, some keys taken from the other side of a join —
so many fields differ in the kinds of their indirect dependencies; value lineage is checked to
differ only where the program computes the field from other columns.  The figures are in
docs/agreement.md (``test_documented_tpch_figures``).
"""

from __future__ import annotations

import json
import re
import runpy
import warnings
from pathlib import Path

import pytest

pl = pytest.importorskip("polars")

import prism_lineage  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TPCH = ROOT / "tests" / "fixtures" / "workloads" / "tpch"
PROGRAMS = sorted((ROOT / "tests" / "fixtures" / "polars_tpch").glob("q*.py"))
_TYPES = {"int": pl.Int32, "bigint": pl.Int64, "double": pl.Float64, "string": pl.String}

# Fields whose value lineage differs from the SQL's, and why (the program computes them so).
VALUE_DIFFERENCES = {
    ("q03", "l_orderkey"): "the program groups by o_orderkey (equal to l_orderkey through the join) and renames it",
    ("q03", "o_orderdate"): "the SQL casts o_orderdate to a string, the program keeps the date",
    ("q18", "c_custkey"): "the program groups by o_custkey (equal to c_custkey through the join)",
    ("q22", "numcust"): "the program counts c_acctbal's values (count()), the SQL counts rows (COUNT(*))",
}


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tpch")
    schema = json.loads((TPCH / "schema.json").read_text(encoding="utf-8"))
    for table, columns in schema.items():
        # The programs compare dates with dates: the date columns are dates here.
        frame = pl.DataFrame(schema={c: pl.Date if c.endswith("date") else _TYPES[t] for c, t in columns.items()})
        frame.write_parquet(folder / f"{table}.parquet")
    return lambda name: pl.scan_parquet(folder / f"{name}.parquet")


_ANSWERS: dict[str, tuple] = {}


def answers(tables, path: Path):
    if path.stem not in _ANSWERS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            frame = runpy.run_path(str(path))["q"](tables)
        schema = json.loads((TPCH / "schema.json").read_text(encoding="utf-8"))
        from_plan = prism_lineage.explain(frame).statements[0]
        from_sql = prism_lineage.explain((TPCH / f"{path.stem}.sql").read_text(encoding="utf-8"),
                                         schema=schema).statements[0]
        _ANSWERS[path.stem] = (from_sql, from_plan)
    return _ANSWERS[path.stem]


def _sources(field) -> set[tuple[str, str, str, str]]:
    return {(s.column, s.relationship, s.transformation, s.confidence) for s in field.sources}


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_tpch_program_explains(tables, path: Path) -> None:
    from_sql, from_plan = answers(tables, path)
    assert len(from_plan.fields) == len(from_sql.fields)
    assert not from_plan.uncertain, "every TPC-H program is read without uncertainty"
    for sql_field, plan_field in zip(from_sql.fields, from_plan.fields):
        values = ({s for s in _sources(sql_field) if s[1] == "value"},
                  {s for s in _sources(plan_field) if s[1] == "value"})
        if (path.stem, sql_field.name) in VALUE_DIFFERENCES:
            assert values[0] != values[1]
        else:
            assert values[0] == values[1], sql_field.name


def tpch_figures(tables) -> tuple[int, int, int, int]:
    equal = compared = 0
    for path in PROGRAMS:
        from_sql, from_plan = answers(tables, path)
        for sql_field, plan_field in zip(from_sql.fields, from_plan.fields):
            compared += 1
            equal += _sources(sql_field) == _sources(plan_field)
    return len(PROGRAMS), len(list(TPCH.glob("q*.sql"))), equal, compared


def test_documented_tpch_figures(tables) -> None:
    text = (ROOT / "docs" / "agreement.md").read_text(encoding="utf-8")
    row = re.search(r"^\| Polars 2\.1 \(LazyFrame\) \| (\d+) of (\d+) \| (\d+) of (\d+) \|", text, re.MULTILINE)
    assert row, "docs/agreement.md has no row for Polars"
    assert tpch_figures(tables) == tuple(int(g) for g in row.groups())
