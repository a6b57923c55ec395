"""Random Polars pipelines and their SQL twins give the same answer, field by field.

Hypothesis builds a pipeline of LazyFrame operations (filter, with_columns, select, group_by/agg,
join, unique, then sort/head) over two named tables, and beside it the SQL that means the same,
one derived table per operation.  Both are explained; every field must have the same sources.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pl = pytest.importorskip("polars")

import prism_lineage  # noqa: E402
from prism_lineage.frontends.polars import named  # noqa: E402

# explain() raises the recursion limit on first use; do it before hypothesis watches it.
prism_lineage.explain("SELECT 1")

SCHEMA = {"t": {"a": "bigint", "b": "bigint", "s": "varchar"}, "u": {"k": "bigint", "x": "bigint"}}


def _tables() -> dict:
    return {"t": named("t", pl.DataFrame({"a": [1], "b": [2], "s": ["x"]})),
            "u": named("u", pl.DataFrame({"k": [1], "x": [2]}))}


@dataclass
class Pipeline:
    frame: object
    sql: str
    columns: list[str]
    numeric: list[str]
    joined: bool = False
    step: int = 0

    def derived(self, select: str, rest: str = "") -> str:
        self.step += 1
        return f"SELECT {select} FROM ({self.sql}) AS q{self.step}{rest}"


def _cols(columns: list[str]) -> str:
    return ", ".join(columns)


@st.composite
def pipelines(draw) -> Pipeline:
    tables = _tables()
    p = Pipeline(tables["t"], "SELECT a, b, s FROM t", ["a", "b", "s"], ["a", "b"])
    for number in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["filter", "with_columns", "select", "group_by", "join", "unique"]))
        if op == "filter" and p.numeric:
            c = draw(st.sampled_from(p.numeric))
            p.frame = p.frame.filter(pl.col(c) > 1)
            p.sql = p.derived(_cols(p.columns), f" WHERE {c} > 1")
        elif op == "with_columns" and p.numeric:
            c1, c2 = draw(st.sampled_from(p.numeric)), draw(st.sampled_from(p.numeric))
            target = draw(st.sampled_from([f"n{number}", c1]))
            p.frame = p.frame.with_columns((pl.col(c1) + pl.col(c2)).alias(target))
            items = [f"{c1} + {c2} AS {target}" if col == target else col for col in p.columns]
            if target not in p.columns:
                items.append(f"{c1} + {c2} AS {target}")
                p.columns.append(target)
                p.numeric.append(target)
            p.sql = p.derived(", ".join(items))
        elif op == "select" and len(p.columns) > 1:
            kept = draw(st.lists(st.sampled_from(p.columns), min_size=1, max_size=len(p.columns), unique=True))
            p.frame = p.frame.select(kept)
            p.sql = p.derived(_cols(kept))
            p.columns, p.numeric = kept, [c for c in p.numeric if c in kept]
        elif op == "group_by" and p.numeric:
            key = draw(st.sampled_from(p.columns))
            measure = draw(st.sampled_from([c for c in p.numeric if c != key] or [key]))
            function = draw(st.sampled_from(["sum", "max", "min"]))
            name = f"m{number}"
            p.frame = p.frame.group_by(key).agg(getattr(pl.col(measure), function)().alias(name))
            p.sql = p.derived(f"{key}, {function.upper()}({measure}) AS {name}", f" GROUP BY {key}")
            p.numeric = ([key] if key in p.numeric else []) + [name]
            p.columns = [key, name]
        elif op == "join" and not p.joined and p.numeric:
            c = draw(st.sampled_from(p.numeric))
            how = draw(st.sampled_from(["inner", "left"]))
            p.frame = p.frame.join(tables["u"], left_on=c, right_on="k", how=how)
            p.step += 1
            added = [] if "x" in p.columns else ["x"]
            p.sql = (f"SELECT {', '.join(f'q{p.step}.{col}' for col in p.columns)}"
                     f"{''.join(f', u.{col}' for col in added)} FROM ({p.sql}) AS q{p.step} "
                     f"{how.upper()} JOIN u ON q{p.step}.{c} = u.k")
            if not added:
                return p  # a second x would be x_right: stop here
            p.columns = p.columns + added
            p.numeric = p.numeric + added
            p.joined = True
        elif op == "unique":
            p.frame = p.frame.unique()
            p.sql = p.derived(f"DISTINCT {_cols(p.columns)}")
    if draw(st.booleans()):
        c = draw(st.sampled_from(p.columns))
        p.frame = p.frame.sort(c).head(3)
        p.sql = p.derived(_cols(p.columns), f" ORDER BY {c} LIMIT 3")
    return p


def _sources(field) -> set:
    return {(s.column, s.relationship, s.transformation, s.confidence) for s in field.sources}


@settings(max_examples=int(__import__("os").environ.get("PRISM_EXAMPLES", "40")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(pipelines())
def test_random_pipelines_explain_like_their_sql(p: Pipeline) -> None:
    from_plan = prism_lineage.explain(p.frame).statements[0]
    from_sql = prism_lineage.explain(p.sql, schema=SCHEMA, dialect="duckdb").statements[0]
    assert [f.name for f in from_plan.fields] == [f.name for f in from_sql.fields] == p.columns
    for a, b in zip(from_plan.fields, from_sql.fields):
        assert _sources(a) == _sources(b), (a.name, p.sql)
