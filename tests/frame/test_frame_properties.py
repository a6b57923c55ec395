"""Property tests over randomly built dataframe plans (hypothesis).

* **twins**: a random plan (filters, projections, windows, grouping, sorts, limits, distinct,
  joins of every kind, set operations, struct fields, explode) is built together with the same
  query in SQL, one
  derived table per step; both must explain identically, and the plan must satisfy the
  invariants of ``frame_checks.py`` (stable ids, every field explained, origins at the
  user's call sites …).
* **bad calls**: random method calls with random arguments (valid or not) either build a plan
  that satisfies the invariants or raise a ``PrismError`` — never another exception.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import prism_lineage
import prism_lineage.frame.functions as F
from frame_checks import check_frame
from prism_lineage.errors import PrismError
from prism_lineage.frame import Column, DataFrame, col, lit, table

SCHEMA = {
    "t1": {"a": "int", "b": "int", "c": "varchar", "d": "decimal"},
    "t2": {"a": "int", "e": "int", "f": "varchar"},
    "t3": {"k": "int", "tags": "varchar[]", "s": "struct(x int, y varchar)"},
}
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# explain() raises the recursion limit on first use; do it before hypothesis watches it.
prism_lineage.explain("SELECT 1")


@dataclass
class Twin:
    """A plan, its SQL twin and the plan's column names; ``names`` hands out fresh names."""

    frame: DataFrame
    sql: str
    columns: list[str]
    names: list[int] = field(default_factory=lambda: [0])
    # The order the plan's rows are in (``x DESC``), if a sort is followed only by steps that
    # keep row order (filter, select …): the plan's result shows it, while SQL keeps no
    # derived table's order, so the SQL twin orders its result by it again.
    ordered: str | None = None

    def keeping_order(self, frame: DataFrame, sql: str, columns: list[str]) -> "Twin":
        if self.ordered is not None:
            sql = f"{sql} ORDER BY {self.ordered}"
        return Twin(frame, sql, columns, self.names, self.ordered)

    def fresh(self, prefix: str) -> str:
        self.names[0] += 1
        return f"{prefix}{self.names[0]}"

    def derived(self) -> str:
        return f"({self.sql}) AS q{self.fresh('')}"


def _filter(draw, t: Twin) -> Twin:
    x = draw(st.sampled_from(t.columns))
    return t.keeping_order(t.frame.filter(col(x) > 1), f"SELECT * FROM {t.derived()} WHERE {x} > 1", t.columns)


def _select(draw, t: Twin) -> Twin:
    kept = draw(st.lists(st.sampled_from(t.columns), min_size=1, max_size=len(t.columns), unique=True))
    if t.ordered is not None and t.ordered.split()[0] not in kept:
        # The SQL twin orders its result again by the sort's column, so a projection keeps it
        # (the plan's rows stay in that order either way).
        kept.append(t.ordered.split()[0])
    x, y = draw(st.sampled_from(t.columns)), draw(st.sampled_from(t.columns))
    new = t.fresh("n")
    frame = t.frame.select(*kept, (col(x) + col(y)).alias(new))
    return t.keeping_order(frame, f"SELECT {', '.join(kept)}, {x} + {y} AS {new} FROM {t.derived()}", kept + [new])


def _with_column(draw, t: Twin) -> Twin:
    x = draw(st.sampled_from(t.columns))
    new = t.fresh("w")
    frame = t.frame.with_columns(F.coalesce(col(x), lit(0)).alias(new))
    return t.keeping_order(frame, f"SELECT *, COALESCE({x}, 0) AS {new} FROM {t.derived()}", t.columns + [new])


def _aggregate(draw, t: Twin) -> Twin:
    keys = draw(st.lists(st.sampled_from(t.columns), min_size=1, max_size=2, unique=True))
    x = draw(st.sampled_from(t.columns))
    total, count = t.fresh("m"), t.fresh("n")
    frame = t.frame.group_by(*keys).agg(F.sum(x).alias(total), F.count().alias(count))
    sql = (f"SELECT {', '.join(keys)}, SUM({x}) AS {total}, COUNT(*) AS {count} FROM {t.derived()} "
           f"GROUP BY {', '.join(keys)}")
    return Twin(frame, sql, keys + [total, count], t.names)


def _having(draw, t: Twin) -> Twin:
    key, x = draw(st.sampled_from(t.columns)), draw(st.sampled_from(t.columns))
    total = t.fresh("h")
    frame = t.frame.group_by(key).agg(F.max(x).alias(total)).filter(col(total) > 0)
    sql = f"SELECT {key}, MAX({x}) AS {total} FROM {t.derived()} GROUP BY {key} HAVING MAX({x}) > 0"
    return Twin(frame, sql, [key, total], t.names)


def _sort_limit(draw, t: Twin) -> Twin:
    x = draw(st.sampled_from(t.columns))
    count = draw(st.integers(0, 20))
    frame = t.frame.sort(col(x).desc()).limit(count)
    return Twin(frame, f"SELECT * FROM {t.derived()} ORDER BY {x} DESC LIMIT {count}", t.columns, t.names, f"{x} DESC")


def _distinct(draw, t: Twin) -> Twin:
    return Twin(t.frame.distinct(), f"SELECT DISTINCT * FROM {t.derived()}", t.columns, t.names)


def _window(draw, t: Twin) -> Twin:
    x, y = draw(st.sampled_from(t.columns)), draw(st.sampled_from(t.columns))
    new = t.fresh("r")
    if draw(st.booleans()):
        frame = t.frame.with_columns(F.row_number().over(partition_by=x, order_by=col(y).desc()).alias(new))
        sql = f"SELECT *, ROW_NUMBER() OVER (PARTITION BY {x} ORDER BY {y} DESC) AS {new} FROM {t.derived()}"
    else:
        frame = t.frame.with_columns(F.sum(y).over(partition_by=x, order_by=y, frame=F.rows_between(-1, 1)).alias(new))
        sql = (f"SELECT *, SUM({y}) OVER (PARTITION BY {x} ORDER BY {y} ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) "
               f"AS {new} FROM {t.derived()}")
    return Twin(frame, sql, t.columns + [new], t.names)


def _qualify(draw, t: Twin) -> Twin:
    x, y = draw(st.sampled_from(t.columns)), draw(st.sampled_from(t.columns))
    frame = t.frame.filter(F.rank().over(partition_by=x, order_by=y) <= 2)
    sql = f"SELECT * FROM {t.derived()} QUALIFY RANK() OVER (PARTITION BY {x} ORDER BY {y}) <= 2"
    return Twin(frame, sql, t.columns, t.names)


def _join(draw, t: Twin) -> Twin:
    how = draw(st.sampled_from(["inner", "left", "right", "full", "semi", "anti", "cross"]))
    x = draw(st.sampled_from(t.columns))
    left_alias, right_alias, new = t.fresh("l"), t.fresh("r"), t.fresh("j")
    right = table("t2", catalog=SCHEMA).alias(right_alias)
    left = t.frame.alias(left_alias)
    listed = ", ".join(f"{left_alias}.{c}" for c in t.columns)
    source = f"({t.sql}) AS {left_alias}"
    if how == "cross":
        frame = left.cross_join(right).select(*[col(f"{left_alias}.{c}") for c in t.columns],
                                              col(f"{right_alias}.e").alias(new))
        sql = f"SELECT {listed}, {right_alias}.e AS {new} FROM {source} CROSS JOIN t2 AS {right_alias}"
        return Twin(frame, sql, t.columns + [new], t.names)
    joined = left.join(right, on=col(f"{left_alias}.{x}") == col(f"{right_alias}.a"), how=how)
    on = f"ON {left_alias}.{x} = {right_alias}.a"
    if how in ("semi", "anti"):
        sql = f"SELECT {listed} FROM {source} {how.upper()} JOIN t2 AS {right_alias} {on}"
        return Twin(joined, sql, t.columns, t.names)
    frame = joined.select(*[col(f"{left_alias}.{c}") for c in t.columns], col(f"{right_alias}.e").alias(new))
    sql = f"SELECT {listed}, {right_alias}.e AS {new} FROM {source} {how.upper()} JOIN t2 AS {right_alias} {on}"
    return Twin(frame, sql, t.columns + [new], t.names)


def _using_join(draw, t: Twin) -> Twin:
    key = draw(st.sampled_from(t.columns))
    how = draw(st.sampled_from(["inner", "left", "right", "full"]))
    new = t.fresh("u")
    right = table("t2", catalog=SCHEMA).select(col("a").alias(key), col("f").alias(new))
    frame = t.frame.join(right, on=[key], how=how)
    # The frame lists the merged key first (the standard's order); DuckDB's own ``*`` keeps the
    # left side's order (field trial 26), so the DuckDB twin names the key first.
    sql = (f"SELECT {key}, * EXCLUDE ({key}) FROM {t.derived()} {how.upper()} JOIN (SELECT a AS {key}, f AS {new} "
           f"FROM t2) AS q{t.fresh('')} USING ({key})")
    return Twin(frame, sql, [key] + [c for c in t.columns if c != key] + [new], t.names)


def _set_operation(draw, t: Twin) -> Twin:
    kind = draw(st.sampled_from(["union", "intersect", "except_"]))
    all_ = draw(st.booleans())
    other = t.frame.filter(col(t.columns[0]).is_not_null())
    frame = getattr(t.frame, kind)(other, all=all_)
    other_sql = f"SELECT * FROM {t.derived()} WHERE {t.columns[0]} IS NOT NULL"
    word = kind.rstrip("_").upper() + (" ALL" if all_ else "")
    return Twin(frame, f"SELECT * FROM {t.derived()} {word} {other_sql}", t.columns, t.names)


def _nested(draw, t: Twin) -> Twin:
    """A struct field (when the frame still has ``s``) or one row per element of ``tags``."""
    new = t.fresh("e")
    types = dict(t.frame.dtypes)  # a step may have put another column under the name
    if (types.get("tags") or "").endswith("[]") and draw(st.booleans()):
        listed = ", ".join(f"q.{c}" for c in t.columns)
        frame = t.frame.explode("tags", name=new)
        sql = f"SELECT {listed}, u.{new} FROM ({t.sql}) AS q CROSS JOIN UNNEST(q.tags) AS u({new})"
        return Twin(frame, sql, t.columns + [new], t.names)
    if (types.get("s") or "").lower().startswith("struct"):
        frame = t.frame.select(*t.columns, col("s")["y"].alias(new))
        sql = f"SELECT {', '.join(t.columns)}, s.y AS {new} FROM {t.derived()}"
        return t.keeping_order(frame, sql, t.columns + [new])
    return t


STEPS = [_filter, _select, _with_column, _aggregate, _having, _sort_limit, _distinct, _window, _qualify, _join,
         _using_join, _set_operation, _nested]


@st.composite
def twins(draw) -> Twin:
    name = draw(st.sampled_from(["t1", "t2", "t3"]))
    t = Twin(table(name, catalog=SCHEMA), f"SELECT * FROM {name}", list(SCHEMA[name]))
    if name == "t3" and draw(st.booleans()):
        t = _nested(draw, t)
    for _ in range(draw(st.integers(0, 4))):
        t = draw(st.sampled_from(STEPS))(draw, t)
    return t


@SETTINGS
@given(twins())
def test_random_plans_explain_like_their_sql_twins(t: Twin) -> None:
    ours = check_frame(t.frame)
    theirs = prism_lineage.explain(t.sql, SCHEMA, "duckdb").model_dump()
    assert [f["name"] for f in ours["statements"][0]["fields"]] == t.columns
    assert ours == theirs, t.sql


# --- random calls, valid or not ---------------------------------------------------------------

NAMES = ("a", "b", "c", "d", "k", "tags", "s", "nope", "t1.a", "x.y", "")
VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(NAMES), st.just(object()),
                   st.floats(allow_nan=False, allow_infinity=False), st.just([]))


@st.composite
def columns(draw, depth: int = 0):
    """A Column (any kind, valid in some places only) or a raw value."""
    kind = draw(st.integers(0, 9 if depth < 2 else 2))
    if kind == 0:
        return col(draw(st.sampled_from(NAMES[:-1])))
    if kind == 1:
        return draw(VALUES)
    if kind == 2:
        return lit(draw(st.one_of(st.integers(), st.text(max_size=3))))
    inner = draw(columns(depth + 1))
    if not isinstance(inner, Column):  # Python's own operators need a Column on one side
        inner = col(draw(st.sampled_from(NAMES[:-1])))
    other = draw(columns(depth + 1))
    match kind:
        case 3:
            return _try(lambda: inner + other)
        case 4:
            return _try(lambda: F.sum(inner))
        case 5:
            return _try(lambda: F.row_number().over(partition_by=inner, order_by=other))
        case 6:
            return _try(lambda: inner.alias(draw(st.sampled_from(NAMES))))
        case 7:
            return _try(lambda: inner[draw(st.one_of(st.sampled_from(NAMES), st.integers(-1, 2)))])
        case 8:
            return _try(lambda: inner == other)
        case _:
            return _try(lambda: F.count() if draw(st.booleans()) else inner.desc())


def _try(build):
    """Building an expression may itself be a bad call: then use its error as the value."""
    try:
        return build()
    except PrismError as error:
        return error


CALLS = {
    "select": lambda f, a, b, o: f.select(a, b),
    "with_columns": lambda f, a, b, o: f.with_columns(a),
    "filter": lambda f, a, b, o: f.filter(a),
    "sort": lambda f, a, b, o: f.sort(a, b),
    "limit": lambda f, a, b, o: f.limit(a, b),
    "distinct": lambda f, a, b, o: f.distinct(a),
    "group_by": lambda f, a, b, o: f.group_by(a).agg(b),
    "rollup": lambda f, a, b, o: f.rollup(a).agg(b),
    "agg": lambda f, a, b, o: f.agg(a),
    "join": lambda f, a, b, o: f.join(o, on=a, how=b if isinstance(b, str) else "inner"),
    "cross_join": lambda f, a, b, o: f.cross_join(o),
    "union": lambda f, a, b, o: f.union(o, all=bool(a)),
    "explode": lambda f, a, b, o: f.explode(a, name=b if isinstance(b, str) else None),
    "drop": lambda f, a, b, o: f.drop(a),
    "rename": lambda f, a, b, o: f.rename({a: b} if isinstance(a, str) else a),
    "alias": lambda f, a, b, o: f.alias(a),
}


@SETTINGS
@given(st.data())
def test_random_calls_raise_only_prism_errors(data) -> None:
    frame = table(data.draw(st.sampled_from(list(SCHEMA))), catalog=SCHEMA)
    for _ in range(data.draw(st.integers(1, 5))):
        call = data.draw(st.sampled_from(sorted(CALLS)))
        a, b = data.draw(columns()), data.draw(columns())
        other = table(data.draw(st.sampled_from(list(SCHEMA))), catalog=SCHEMA)
        if isinstance(a, PrismError) or isinstance(b, PrismError):
            continue
        try:
            frame = CALLS[call](frame, a, b, other)
        except PrismError as error:
            assert str(error) and error.exit_code in (2, 3, 5, 6)
    check_frame(frame)
