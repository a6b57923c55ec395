"""Random PySpark pipelines and their SQL twins give the same answer, field by field.

Hypothesis builds a pipeline of DataFrame operations (filter, withColumn, select, groupBy/agg,
join, distinct, then orderBy/limit) with PySpark's Connect API — no server — and beside it the
Spark SQL that means the same, one derived table per operation.  The plan PySpark would send is
explained and compared with the SQL.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("pyspark.sql.connect.proto")

from spark_session import plan_of, session  # noqa: E402

import prism_lineage  # noqa: E402
from prism_lineage.frontends.spark_connect import SparkConnectPlan  # noqa: E402

# explain() raises the recursion limit on first use; do it before hypothesis watches it.
prism_lineage.explain("SELECT 1")

SCHEMA = {"t": {"a": "bigint", "b": "bigint", "s": "string"}, "u": {"k": "bigint", "x": "bigint"}}


@dataclass
class Pipeline:
    frame: object = field(repr=False)  # a DataFrame's own repr asks the server for its rows
    sql: str
    columns: list[str]
    numeric: list[str]
    joined: bool = False
    step: int = 0

    def _repr_pretty_(self, printer, cycle) -> None:  # hypothesis' printer: the dataclass repr, no frame
        printer.text(repr(self))

    def derived(self, select: str, rest: str = "") -> str:
        self.step += 1
        return f"SELECT {select} FROM ({self.sql}) AS q{self.step}{rest}"


@st.composite
def pipelines(draw) -> Pipeline:
    from pyspark.sql.connect import functions as F

    spark = session()
    p = Pipeline(spark.read.table("t"), "SELECT a, b, s FROM t", ["a", "b", "s"], ["a", "b"])
    for number in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["filter", "with_column", "select", "group_by", "join", "distinct", "explode",
                                   "using_join"]))
        if op == "filter" and p.numeric:
            c = draw(st.sampled_from(p.numeric))
            p.frame = p.frame.filter(F.col(c) > 1)
            p.sql = p.derived(", ".join(p.columns), f" WHERE {c} > 1")
        elif op == "with_column" and p.numeric:
            c1, c2 = draw(st.sampled_from(p.numeric)), draw(st.sampled_from(p.numeric))
            target = draw(st.sampled_from([f"n{number}", c1]))
            p.frame = p.frame.withColumn(target, F.col(c1) + F.col(c2))
            items = [f"{c1} + {c2} AS {target}" if col == target else col for col in p.columns]
            if target not in p.columns:
                items.append(f"{c1} + {c2} AS {target}")
                p.columns.append(target)
                p.numeric.append(target)
            p.sql = p.derived(", ".join(items))
        elif op == "select" and len(p.columns) > 1:
            kept = draw(st.lists(st.sampled_from(p.columns), min_size=1, max_size=len(p.columns), unique=True))
            p.frame = p.frame.select(*kept)
            p.sql = p.derived(", ".join(kept))
            p.columns, p.numeric = kept, [c for c in p.numeric if c in kept]
        elif op == "group_by" and p.numeric:
            key = draw(st.sampled_from(p.columns))
            measure = draw(st.sampled_from([c for c in p.numeric if c != key] or [key]))
            function = draw(st.sampled_from(["sum", "max", "min", "count", "count_if"]))
            name = f"m{number}"
            if function == "count_if":  # the condition is a filter (trial 45)
                p.frame = p.frame.groupBy(key).agg(F.count_if(F.col(measure) > 1).alias(name))
                p.sql = p.derived(f"{key}, COUNT_IF({measure} > 1) AS {name}", f" GROUP BY {key}")
            else:
                p.frame = p.frame.groupBy(key).agg(getattr(F, function)(measure).alias(name))
                p.sql = p.derived(f"{key}, {function.upper()}({measure}) AS {name}", f" GROUP BY {key}")
            p.numeric = ([key] if key in p.numeric else []) + [name]
            p.columns = [key, name]
        elif op == "join" and not p.joined and p.numeric:
            c = draw(st.sampled_from(p.numeric))
            how = draw(st.sampled_from(["inner", "left"]))
            right = spark.read.table("u")
            p.frame = p.frame.join(right, F.col(c) == right.k, how)
            p.step += 1
            p.sql = (f"SELECT {', '.join(f'q{p.step}.{col}' for col in p.columns)}, u.k, u.x FROM ({p.sql}) AS "
                     f"q{p.step} {how.upper()} JOIN u ON q{p.step}.{c} = u.k")
            if "k" in p.columns or "x" in p.columns:
                return p  # a second k or x would be ambiguous: stop here
            p.columns = p.columns + ["k", "x"]
            p.numeric = p.numeric + ["k", "x"]
            p.joined = True
        elif op == "explode" and p.numeric:
            # a list per group, made rows again: explode's element / posexplode's pos and col (trial 44)
            key = draw(st.sampled_from(p.columns))
            measure = draw(st.sampled_from(p.numeric))
            name = f"l{number}"
            grouped = p.frame.groupBy(key).agg(F.collect_list(measure).alias(name))
            inner = p.derived(f"{key}, COLLECT_LIST({measure}) AS {name}", f" GROUP BY {key}")
            p.sql = inner
            if key in ("pos", "col") or draw(st.booleans()):  # (posexplode's pos, col: no second of a name)
                p.frame = grouped.select(key, F.explode(name).alias(name))
                p.sql = p.derived(f"{key}, EXPLODE({name}) AS {name}")
                p.columns, p.numeric = [key, name], [name]
            else:
                p.frame = grouped.select(key, F.posexplode(name))
                p.sql = p.derived(f"{key}, POSEXPLODE({name})")
                p.columns, p.numeric = [key, "pos", "col"], ["pos", "col"]
        elif op == "using_join" and not p.joined and p.numeric and not {"k", "uk", "x"} & set(p.columns):
            # a column renamed k, joined USING (k); the right key taken by its DataFrame (trial 52)
            c = draw(st.sampled_from(p.numeric))
            how = draw(st.sampled_from(["inner", "left", "full"]))
            right = spark.read.table("u")
            rest = [col for col in p.columns if col != c]
            p.frame = p.frame.withColumnRenamed(c, "k").join(right, "k", how).select(
                *rest, "k", right["k"].alias("uk"), "x")
            inner = p.derived(", ".join(f"{col} AS k" if col == c else col for col in p.columns))
            p.step += 1
            p.sql = (f"SELECT {''.join(f'q{p.step}.{col}, ' for col in rest)}k, u.k AS uk, u.x FROM ({inner}) AS "
                     f"q{p.step} {how.upper()} JOIN u USING (k)")
            p.columns = rest + ["k", "uk", "x"]
            p.numeric = [col for col in p.numeric if col != c] + ["k", "uk", "x"]
            p.joined = True
        elif op == "distinct":
            p.frame = p.frame.distinct()
            p.sql = p.derived(f"DISTINCT {', '.join(p.columns)}")
    if draw(st.booleans()):
        c = draw(st.sampled_from(p.columns))
        p.frame = p.frame.orderBy(c).limit(3)
        p.sql = p.derived(", ".join(p.columns), f" ORDER BY {c} LIMIT 3")
    return p


def _sources(field) -> set:
    return {(s.column, s.relationship, s.transformation, s.confidence) for s in field.sources}


@settings(max_examples=int(os.environ.get("PRISM_EXAMPLES", "40")), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pipelines())
def test_random_pipelines_explain_like_their_sql(p: Pipeline) -> None:
    plan = SparkConnectPlan.from_message(plan_of(p.frame), schema=SCHEMA)
    from_plan = prism_lineage.explain(plan).statements[0]
    from_sql = prism_lineage.explain(p.sql, schema=SCHEMA, dialect="spark").statements[0]
    assert [f.name for f in from_plan.fields] == [f.name for f in from_sql.fields] == p.columns
    for a, b in zip(from_plan.fields, from_sql.fields):
        assert _sources(a) == _sources(b), (a.name, p.sql)
