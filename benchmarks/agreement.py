"""Value-lineage agreement with sqlglot, field by field (not timed).

For every output field: prism's **value** sources (the base columns its value is computed
from; the indirect kinds are left out, sqlglot has none) against the leaves of sqlglot's
``lineage(None, sql, schema, trim_selects=False)`` tree for that field.

What sqlglot's leaves are (sqlglot 30.30, ``sqlglot/lineage.py``): for a field, every
``exp.Column`` inside its select expression (``find_all_in_scope``: the expression itself,
not WHERE/GROUP BY/JOIN of its scope), followed through derived tables and CTEs by name,
through set operations by position, and into every subquery inside the expression (scalar,
``EXISTS``, ``IN``), where it follows *the subquery's select list* only.  A star leaf is
``table.*``.  Leaves are matched as ``table.column`` with the table as the schema names it.

Fields are matched by position when both sides list the same number of fields, else by name.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .workloads import Workload


def prism_sources(sql: str, catalog, dialect) -> list[tuple[str, dict[str, list[str]]]]:
    """Every field's sources: column (lower-cased) → the relationship kinds prism gives it."""
    import prism_lineage

    answer = prism_lineage.explain(sql, catalog, dialect)
    statement = answer.statements[-1]
    out = []
    for field in statement.fields:
        kinds: dict[str, list[str]] = {}
        for source in field.sources:
            kinds.setdefault(source.column.lower(), []).append(source.relationship)
        out.append((field.name, kinds))
    return out


def sqlglot_value_leaves(sql: str, schema, dialect) -> list[tuple[str, set[str]]]:
    from sqlglot import exp
    from sqlglot.lineage import lineage

    nodes = lineage(None, sql, schema, dialect=dialect, trim_selects=False)
    out = []
    for name, root in nodes.items():
        leaves = set()
        for node in root.walk():
            if node.downstream or not isinstance(node.expression, exp.Table):
                continue
            table = ".".join(part.name for part in node.expression.parts)
            leaves.add(f"{table}.{node.name.rsplit('.', 1)[-1]}".lower())
        out.append((name, leaves))
    return out


def compare(workload: Workload, dialect=None) -> dict[str, Any]:
    """Every field's agreement; the disagreements listed in full."""
    import prism_lineage
    from sqlglot.schema import MappingSchema

    catalog = prism_lineage.Catalog.from_mapping(workload.schema)
    mapping = MappingSchema(workload.schema, dialect=dialect)
    fields = agreed = 0
    disagreements: list[dict[str, Any]] = []
    failures: dict[str, str] = {}
    for query, sql in workload.queries:
        try:
            sources = prism_sources(sql, catalog, dialect)
            ours = [(name, {c for c, kinds in found.items() if "value" in kinds}) for name, found in sources]
        except Exception as error:  # noqa: BLE001
            failures[query] = f"prism: {type(error).__name__}: {error}"
            continue
        try:
            theirs = sqlglot_value_leaves(sql, mapping, dialect)
        except Exception as error:  # noqa: BLE001
            failures[query] = f"sqlglot: {type(error).__name__}: {error}"
            continue
        for position, (name, prism_set, sqlglot_set) in enumerate(_pair(ours, theirs)):
            fields += 1
            if prism_set == sqlglot_set:
                agreed += 1
                continue
            entry = {"query": query, "field": name,
                     "prism_only": sorted((prism_set or set()) - (sqlglot_set or set())),
                     "sqlglot_only": sorted((sqlglot_set or set()) - (prism_set or set()))}
            if prism_set is not None:
                # What prism calls the columns only sqlglot counts as value lineage.
                found = sources[position][1]
                entry["prism_kinds"] = {c: found.get(c, []) for c in entry["sqlglot_only"]}
            if prism_set is None or sqlglot_set is None:
                entry["unmatched"] = "prism has no such field" if prism_set is None else "sqlglot has no such field"
            disagreements.append(entry)
    return {"fields": fields, "agreed": agreed, "disagreements": disagreements, "failures": failures}


def _pair(ours, theirs) -> Iterable[tuple[str, set[str] | None, set[str] | None]]:
    if len(ours) == len(theirs):
        for (name, a), (_, b) in zip(ours, theirs):
            yield name, a, b
        return
    by_name = {name.lower(): leaves for name, leaves in theirs}
    seen = set()
    for name, a in ours:
        seen.add(name.lower())
        yield name, a, by_name.get(name.lower())
    for name, b in theirs:
        if name.lower() not in seen:
            yield name, None, b
