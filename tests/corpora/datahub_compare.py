"""Comparing our answers with DataHub's on its SQL-parser corpus (../shared/corpora/datahub).

DataHub names tables with its default database and schema prepended and lower-cases them; a
struct field as ``table.column.field``.  Here both sides are reduced to comparable forms: table
names lower-cased and matched by their trailing parts, a source column as ``table.column`` (or
``table.path`` when only a nested path of the column is read), fields by lower-cased name.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import prism_lineage
from prism_lineage.explain import lower
from prism_lineage.ir import Scan, walk_relations

# DataHub's platform names where sqlglot's dialect is called otherwise.
DIALECTS = {"mssql": "tsql", "postgresql": "postgres", "awsathena": "athena"}
_WRITE_KINDS = ("insert", "insert_overwrite", "create_table", "create_view", "create_materialized_view", "merge",
                "update", "delete", "drop", "alter", "truncate")


@dataclass
class Ours:
    error: str | None = None  # the typed error's class and message, if the engine refused the case
    reads: set[str] = field(default_factory=set)
    writes: set[str] = field(default_factory=set)
    columns: dict[str, set[str]] = field(default_factory=dict)  # output field → value sources
    order: list[str] = field(default_factory=list)  # the output fields, in order
    writes_no_rows: bool = False  # DDL only (CREATE TABLE t (…)): no field is written


def dialect_of(case: dict) -> str:
    return DIALECTS.get(case["dialect"], case["dialect"])


def run(case: dict) -> Ours:
    """Our answer, or the typed error; any other exception propagates (a failure)."""
    sql, schema, dialect = case["sql"], case["schema"] or None, dialect_of(case)
    try:
        statements = lower(sql, schema, dialect)
        answer = prism_lineage.explain(sql, schema=schema, dialect=dialect)
    except prism_lineage.PrismError as error:
        return Ours(error=f"{type(error).__name__}: {error}")
    ours = Ours()
    for statement, stated in zip(statements, answer.statements):
        if statement.root is not None:
            for relation in walk_relations(statement.root):
                if isinstance(relation, Scan) and relation.opaque_reason is None:
                    ours.reads.add(relation.table.lower())
        if statement.target is not None and statement.kind in _WRITE_KINDS:
            ours.writes.add(statement.target.lower())
        if statement.kind == "create_table" and statement.writes == ():
            ours.writes_no_rows = True
        for f in stated.fields:
            if f.name.lower() in ours.columns:
                continue  # a second column of the same name (``SELECT *`` over a join): DataHub keeps the first
            found = ours.columns.setdefault(f.name.lower(), set())
            ours.order.append(f.name.lower())
            for source in f.sources:
                if source.relationship != "value":
                    continue
                table = source.column.rpartition(".")[0]
                found.add((f"{table}.{source.path}" if source.path else source.column).lower())
    return ours


def same_table(ours: str, theirs: str) -> bool:
    """``orders`` and ``db.schema.orders`` name the same table (DataHub adds its defaults)."""
    a, b = ours.lower().split("."), theirs.lower().split(".")
    n = min(len(a), len(b))
    return a[-n:] == b[-n:]


def same_tables(ours: set[str], theirs: list[str]) -> bool:
    return all(any(same_table(o, t) for t in theirs) for o in ours) and \
        all(any(same_table(o, t) for o in ours) for t in theirs)


def same_column(ours: str, theirs: str) -> bool:
    """``t.a`` and ``db.schema.t.a``; a struct path ``t.s.x`` and ``db.t.s.x``."""
    return same_table(ours, theirs) and ours.rpartition(".")[2] == theirs.lower().rpartition(".")[2]


def same_sources(ours: set[str], theirs: list[str]) -> bool:
    return all(any(same_column(o, t) for t in theirs) for o in ours) and \
        all(any(same_column(o, t) for o in ours) for t in theirs)


def their_fields(case: dict) -> dict[str, list[str]]:
    """DataHub's output columns (``target.col`` for writes) by lower-cased column name."""
    return {name.lower().rpartition(".")[2] if "." in name and case.get("expected_out_tables") else name.lower(): ups
            for name, ups in (case.get("expected_columns") or {}).items()}


def compare(case: dict, ours: Ours) -> dict:
    """What disagrees: ``tables`` (reads or writes) and the fields whose value sources differ."""
    out: dict = {"tables": [], "fields": []}
    if "expected_in_tables" not in case:
        return out  # no answer of DataHub's to compare with
    if ours.error is not None:
        out["error"] = ours.error
        return out
    if not same_tables(ours.reads, case["expected_in_tables"]):
        out["tables"].append("reads")
    if not same_tables(ours.writes, case["expected_out_tables"]):
        out["tables"].append("writes")
    theirs = their_fields(case)
    for position, (name, ups) in enumerate(theirs.items()):
        mine = ours.columns.get(name)
        if mine is None and len(theirs) == len(ours.order):
            # An unaliased expression: engines (and DataHub) name it each their own way.
            mine = ours.columns[ours.order[position]]
        if mine is None and ours.writes_no_rows:
            mine = set()  # a column created without rows has no sources, as DataHub's empty list says
        if mine is None or not same_sources(mine, ups):
            out["fields"].append(name)
    return out
