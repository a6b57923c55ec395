"""The table or view a writing statement writes, and what every write shares: its column
list, its CTEs, where the statement starts, and the errors naming a bad column list."""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from ...catalog import Table
from ...errors import InvalidStatementError, UnknownColumnError
from ...ir import Origin, Statement, WrittenColumn
from .context import LoweringContext
from .names import table_parts
from .scripts import ScriptCatalog
from .queries import CteEnv, QueryLowerer





# --- the written table ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Target:
    """The table (or view) a statement writes."""

    name: str  # as the schema spells it, or as written
    table: Table | None  # the declared table, if any
    origin: Origin | None

    def column(self, name: str, origin: Origin | None) -> str:
        """A written column as the schema spells it; an unknown one is an error."""
        if self.table is None:
            return name
        column = self.table.column(name)
        if column is None:
            raise UnknownColumnError(name, table=self.name, available=[c.name for c in self.table.columns],
                                     origin=origin)
        return column.name

    def type_of(self, name: str) -> str | None:
        column = self.table.column(name) if self.table is not None else None
        return column.type if column is not None else None


def resolve_target(node: exp.Table, ctx: LoweringContext) -> Target:
    origin = ctx.join(ctx.origin(node.parts[0]), ctx.origin(node.this))
    return named_target(table_parts(node, ctx), origin, ctx)


def named_target(parts: tuple[str, ...], origin: Origin | None, ctx: LoweringContext) -> Target:
    catalog = ctx.catalog
    # A script's catalog tells a written name from a read one: writing (or creating) a table the
    # script dropped is not reading it.
    table = catalog.target(parts, origin) if isinstance(catalog, ScriptCatalog) else catalog.lookup(parts, origin)
    return Target(table.name if table is not None else ".".join(parts), table, origin)


def table_of(node: exp.Expression | None) -> exp.Table | None:
    """The table a write names (``INSERT INTO t (cols)`` wraps it in a Schema)."""
    if isinstance(node, exp.Schema):
        node = node.this
    if isinstance(node, exp.Table) and isinstance(node.this, exp.Identifier):
        return node
    return None


def listed_names(node: exp.Expression | None, ctx: LoweringContext) -> list[tuple[str, Origin | None]] | None:
    """The column list of ``INSERT INTO t (a, b)`` / ``CREATE TABLE t (a INT, …)``, if any."""
    if not isinstance(node, exp.Schema):
        return None
    out = []
    for item in node.expressions:
        identifier = item.this if isinstance(item, (exp.ColumnDef, exp.Column)) else item
        if isinstance(identifier, exp.Identifier):
            out.append((ctx.normalizer.part(identifier), ctx.origin(identifier)))
    return out


def no_duplicates(names: list[str], target: Target, origin: Origin | None) -> None:
    seen: set[str] = set()
    for name in names:
        if name.lower() in seen:
            raise InvalidStatementError(f"column '{name}' of {target.name} is written twice", origin=origin)
        seen.add(name.lower())


def written_columns(names: list[str], fields) -> tuple[WrittenColumn, ...]:
    return tuple(WrittenColumn(name, f.id) for name, f in zip(names, fields))


def statement_ctes(node: exp.Expression, queries: QueryLowerer) -> CteEnv:
    """``WITH … INSERT …``: the CTEs some dialects write before the statement."""
    with_ = node.args.get("with_") or node.args.get("with")
    return queries._define_ctes(with_, CteEnv()) if with_ is not None else CteEnv()


def statement_origin(node: exp.Expression, ctx: LoweringContext) -> Origin | None:
    """Where a statement starts (its own token, or its first positioned one)."""
    origin = ctx.origin(node)
    if origin is None:
        for child in node.walk():
            origin = ctx.origin(child)
            if origin is not None:
                break
    return origin


def column_count_mismatch(statement: str, target: Target, names: list[str], width: int, origin: Origin | None):
    shown = ", ".join(names[:8]) + (", …" if len(names) > 8 else "")
    return InvalidStatementError(
        f"{statement} {target.name} writes {len(names)} column{'s' if len(names) != 1 else ''} ({shown}) "
        f"but its query returns {width}",
        origin=origin,
    )


def unanalysed(node: exp.Expression, ctx: LoweringContext, kind: str, reason: str,
               target: str | None = None) -> Statement:
    """A statement whose lineage is unknown: ``reason`` says why (it ends the sentence
    "…, so its lineage is unknown")."""
    origin = statement_origin(node, ctx)
    ctx.uncertain_about(f"{reason}, so its lineage is unknown", None, origin)
    return Statement(ctx.statement, kind, None, origin, target, uncertain=tuple(ctx.uncertain))
