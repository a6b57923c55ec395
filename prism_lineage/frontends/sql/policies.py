"""Declared policies and checks applied where a table is read (``prism_lineage.policies``).

A row-access policy is a filter the database applies to every read: ``Filter(clause="policy")``
over the scan, so the columns its predicate reads give ``policy`` lineage to everything the
read rows reach.  A quality check is a predicate the data was checked against:
``Filter(clause="quality")``, ``quality`` lineage.  A masked column is read through its mask
(``Scan.masks``): the scan rule gives it transformation ``mask`` and ``policy`` lineage from the
other columns the mask reads.  Predicates and masks are parsed in the query's dialect; their
expressions point at the table's name in the query (where the policy applies).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import sqlglot.errors as sqlglot_errors
from sqlglot import exp

from ...catalog import Table
from ...errors import PrismError, SchemaError
from ...ir import Filter, MaskingPolicy, Relation
from ...policies import ColumnMask, policies_for
from .dialects import get_dialect

if TYPE_CHECKING:
    from .context import ScanBuilder
    from .queries import QueryLowerer
    from .scope import Source


def apply_policies(queries: "QueryLowerer", builder: "ScanBuilder", source: "Source", table: Table,
                   table_node: exp.Table) -> Callable[[], Relation]:
    """The build function of a read of ``table``, under its declared policies and checks."""
    ctx = queries.ctx
    declared = policies_for(ctx.catalog, table)
    if declared is None:
        return builder.build
    builder.masks = tuple(_mask(m, table, table_node, queries) for m in declared.masks.values())
    filters: list[tuple[str, object, str]] = []  # (clause, predicate, policy name)
    for policy in declared.row_access:
        filters.append(("policy", _predicate(policy.predicate, policy.dialect, policy.name, table, table_node,
                                             source, queries), policy.name))
    for check in declared.checks:
        filters.append(("quality", _predicate(check.predicate, check.dialect, check.name, table, table_node,
                                              source, queries), check.name))
    if not filters:
        return builder.build
    origin = builder.origin

    def build() -> Relation:
        relation: Relation = builder.build()
        for clause, predicate, _ in filters:
            relation = Filter(ctx.ids.new("filter", origin), origin, relation, predicate, clause)
        return relation

    return build


def _parse(text: str, dialect: str | None, what: str, table: Table, queries: "QueryLowerer") -> exp.Expression:
    reader = get_dialect(dialect) if dialect else queries.ctx.dialect
    try:
        parsed = reader.parse(text)
        node = parsed[0] if parsed else None
    except (sqlglot_errors.ParseError, sqlglot_errors.TokenError) as error:
        raise SchemaError(f"schema: {what} on {table.name}: cannot parse {text!r}: "
                          f"{str(error).splitlines()[0]}") from None
    if node is None:
        raise SchemaError(f"schema: {what} on {table.name}: {text!r} is empty")
    return node


def _at(node: exp.Expression, table_node: exp.Table) -> exp.Expression:
    """Every part of a declared expression points at the table's name in the query."""
    meta = {k: v for k, v in (table_node.this.meta or {}).items() if k in ("line", "col", "start", "end")}
    for child in node.walk():
        child.meta.clear()
        child.meta.update(meta)
    return node


def _predicate(text: str, dialect: str | None, name: str, table: Table, table_node: exp.Table,
               source: "Source", queries: "QueryLowerer"):
    from .expressions import ExpressionLowerer
    from .queries import CteEnv
    from .scope import Scope
    from .select import SelectState

    ctx = queries.ctx
    node = _at(_parse(text, dialect, name, table, queries), table_node)
    scope = Scope(ctx, None)
    scope.add(source)
    try:
        return ExpressionLowerer(SelectState(ctx, scope, queries, CteEnv())).lower(node)
    except SchemaError:
        raise
    except PrismError as error:
        raise SchemaError(f"schema: {name} on {table.name}: {error.message}") from None


def _mask(mask: ColumnMask, table: Table, table_node: exp.Table, queries: "QueryLowerer") -> MaskingPolicy:
    """The columns a mask reads besides the masked one: ``(table, column)`` pairs."""
    if mask.expression is None:
        return MaskingPolicy(mask.column, mask.name)
    ctx = queries.ctx
    node = _parse(mask.expression, mask.dialect, mask.name, table, queries)
    reads: list[tuple[str, str]] = []
    for column in node.find_all(exp.Column):
        owner, name = _owner(column, table, queries)
        if owner is table:
            found = table.column(ctx.normalizer.part(column.this))
            if found is None:
                raise SchemaError(f"schema: masking policy {mask.name!r} on {table.name} reads column "
                                  f"{column.name!r}, which {table.name} does not have")
            name = found.name
            if name.lower() == mask.column.lower():
                continue
            reads.append((table.name, name))
        else:
            reads.append((owner, name))
    return MaskingPolicy(mask.column, mask.name, tuple(dict.fromkeys(reads)))


def _owner(column: exp.Column, table: Table, queries: "QueryLowerer"):
    """The table a column of a mask belongs to: the masked table, or a table a subquery reads."""
    ctx = queries.ctx
    name = ctx.normalizer.part(column.this)
    select = column.find_ancestor(exp.Select)
    if select is None:
        return table, name
    tables = [t for t in select.find_all(exp.Table) if t.find_ancestor(exp.Select) is select]
    qualifier = ctx.normalizer.part(column.args["table"]) if column.args.get("table") else None
    for candidate in tables:
        alias = candidate.alias_or_name
        if qualifier is None and len(tables) == 1 or qualifier is not None and \
                ctx.normalizer.name(alias).lower() == qualifier.lower():
            parts = tuple(ctx.normalizer.part(p) for p in candidate.parts)
            declared = ctx.catalog.lookup(parts)
            return (declared.name if declared is not None else ".".join(parts)), name
    return table, name

