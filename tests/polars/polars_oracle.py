"""The engine as the oracle: run a LazyFrame and check its explained answer against the values.

Every input column holds values no other column holds (``t.a:3``, ``u.y:0`` …; join keys ``k1`` …
overlap between tables only where rows must match), so a value in a result column that is a copy of
an input value names the input column it came from.  ``problems(frame)`` collects the result, explains
the frame and lists every disagreement:

* the result's column names are not the answer's fields, in order;
* a column holds copies of an input column's values, but that input column is not among the field's
  value sources (a source missing — whatever the confidence);
* a field whose value sources are all ``identity`` (a column passed on as is) holds copies of a
  column that is not one of them (the wrong column marked exact);
* with ``supersets=True`` (programs whose data is known to reach every source): a field whose exact
  value sources all pass a value on (identity, aggregate, window, generator, nested access) holds
  only copies, yet one of its exact sources gave none of them (a superset marked exact). Random programs leave it off: a head, a filter or the nulls of an
  outer join can keep a true source from giving any value.

Computed values (upper-cased strings, sums, counts) are not copies: they name no column and are not
checked.  Keys present in several tables (``k4`` …) name no column either.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable

import polars as pl

import prism_lineage
from prism_lineage.frontends.polars import named

ROWS = 6


def data() -> dict[str, pl.DataFrame]:
    return {
        "t": pl.DataFrame({
            "k": [f"k{i}" for i in range(1, 7)],
            "a": [f"t.a:{i}" for i in range(ROWS)],
            "b": [1000 + i for i in range(ROWS)],
            "g": [f"t.g:{i % 2}" for i in range(ROWS)],
            "x": [f"t.x:{i}" if i != 4 else None for i in range(ROWS)],
        }),
        "u": pl.DataFrame({
            "k": [f"k{i}" for i in range(4, 10)],
            "a": [f"u.a:{i}" for i in range(ROWS)],
            "c": [2000 + i for i in range(ROWS)],
            "y": [f"u.y:{i}" for i in range(ROWS)],
        }),
        "v": pl.DataFrame({
            "k": ["k5", "k6", "k10", "k11", "k12", "k13"],
            "b": [3000 + i for i in range(ROWS)],
            "z": [f"v.z:{i}" for i in range(ROWS)],
        }),
    }


def frames() -> dict[str, pl.LazyFrame]:
    return {name: named(name, frame) for name, frame in data().items()}


def _index(tables: dict[str, pl.DataFrame]) -> dict[object, str]:
    """Each copied value → the one input column holding it (values held by several: none)."""
    seen: dict[object, set[str]] = {}
    for table, frame in tables.items():
        for column in frame.columns:
            if frame.schema[column] != pl.String:
                continue
            for value in frame[column].to_list():
                if value is not None:
                    seen.setdefault(value, set()).add(f"{table}.{column}")
    return {value: next(iter(columns)) for value, columns in seen.items() if len(columns) == 1}


INDEX = _index(data())
# Transformations that pass a value on as it is (a copy shows where it came from).
_PICKS = {"identity", "aggregate", "window", "generator", "nested_access"}


def _leaves(value: object) -> Iterable[object]:
    if isinstance(value, dict):
        for inner in value.values():
            yield from _leaves(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _leaves(inner)
    elif value is not None:
        yield value


def problems(frame: pl.LazyFrame, supersets: bool = True) -> list[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = frame.collect()
        statement = prism_lineage.explain(frame).statements[0]
    found = []
    names = [f.name for f in statement.fields]
    if names != result.columns:
        return [f"fields {names} but the result's columns are {result.columns}"]
    for field in statement.fields:
        leaves = [leaf for value in result[field.name].to_list() for leaf in _leaves(value)]
        copied = {INDEX[leaf] for leaf in leaves if isinstance(leaf, str) and leaf in INDEX}
        only_copies = bool(leaves) and all(isinstance(leaf, str) and leaf in INDEX for leaf in leaves)
        values = [s for s in field.sources if s.relationship == "value"]
        columns = {s.column for s in values}
        if copied - columns:
            found.append(f"{field.name}: holds values of {sorted(copied - columns)}, "
                         f"not among its value sources {sorted(columns)}")
        if values and all(s.transformation == "identity" for s in values) and copied - columns:
            found.append(f"{field.name}: passed on as is from {sorted(columns)} but holds values of {sorted(copied)}")
        exact_identity = {s.column for s in values if s.confidence == "exact" and s.transformation in _PICKS}
        if (supersets and only_copies and exact_identity and exact_identity == {s.column for s in values if s.confidence == "exact"}
                and exact_identity - copied):
            found.append(f"{field.name}: exact source(s) {sorted(exact_identity - copied)} gave none of its values "
                         f"(all copies of {sorted(copied)})")
    return found


Build = Callable[[dict[str, pl.LazyFrame]], pl.LazyFrame]
