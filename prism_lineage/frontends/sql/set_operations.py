"""Set operations that pair columns by name (specs/set-operations.md rule 5).

``UNION [ALL] BY NAME`` (DuckDB, Snowflake, Spark/Databricks), ``INTERSECT``/``EXCEPT … BY
NAME`` and BigQuery's ``[FULL | LEFT] UNION ALL BY NAME [ON (…)]`` / ``[INNER] UNION ALL
CORRESPONDING`` pair the inputs' columns by name.  They are lowered into what they mean: each
input projected onto the result's columns, in the result's order — a column an input lacks is
NULL there (no source) — then the ordinary set operation, which pairs by position.

The result's columns: the listed ones (``ON (…)``); the columns both inputs have (INNER,
CORRESPONDING); the left input's (LEFT); else every column of either input, the left input's
first (FULL, and DuckDB's, Snowflake's and Spark's ``BY NAME``).  An input with columns nobody
declared (``SELECT *`` over a table without a schema) may hold any name: a name it does not
list is read out of its star (as a column named through a derived table's star: that column
of the table), and its remaining unknown columns pair with the other input's (``*``).
"""

from __future__ import annotations

from sqlglot import exp

from ...errors import InvalidStatementError
from ...ir import (
    AccessKind,
    CandidateRef,
    Expr,
    Field,
    FieldRef,
    Literal,
    NestedAccess,
    Project,
    Relation,
    field_id,
    stands_for_columns,
)
from .context import LoweringContext


class _Input:
    """One input of the set operation: its named columns and its stars."""

    def __init__(self, relation: Relation):
        self.relation = relation
        self.named: dict[str, Field] = {}
        self.stars: list[Field] = []
        for f in relation.fields:
            if stands_for_columns(f):
                self.stars.append(f)
            else:
                self.named.setdefault(f.name.lower(), f)

    def has(self, key: str) -> bool:
        return key in self.named

    def value(self, key: str, name: str, ctx: LoweringContext) -> Expr:
        """The input's value for the result column ``name``: its column, a column read out of
        its star(s), or NULL."""
        origin = self.relation.origin
        found = self.named.get(key)
        if found is not None:
            return FieldRef(ctx.ids.new("col", origin), origin, found.type, found.id)
        if not self.stars:
            return Literal(ctx.ids.new("lit", origin), origin, None, None)
        if len(self.stars) == 1:
            base: Expr = FieldRef(ctx.ids.new("col", origin), origin, None, self.stars[0].id)
        else:
            labels = " or ".join(s.name for s in self.stars)
            base = CandidateRef(ctx.ids.new("col", origin), origin, None, tuple(s.id for s in self.stars),
                                f"column '{name}' could be in any of {labels}: their columns are not in the schema")
        return NestedAccess(ctx.ids.new("access", origin), origin, None, base, (f".{name}",), AccessKind.COLUMN)

    def star(self, ctx: LoweringContext) -> Expr:
        origin = self.relation.origin
        if not self.stars:
            return Literal(ctx.ids.new("lit", origin), origin, None, None)
        star = self.stars[0]
        return FieldRef(ctx.ids.new("col", origin), origin, None, star.id)


def by_name(ctx: LoweringContext, node: exp.SetOperation, left: Relation, right: Relation) -> tuple[Relation, Relation]:
    """Both inputs projected onto the result's columns, in order (see the module docstring)."""
    a, b = _Input(left), _Input(right)
    side = str(node.args.get("side") or "").upper()
    mode = str(node.args.get("kind") or "").upper()
    operator = f"{node.key.upper()} BY NAME"
    names: list[tuple[str, str]] = []  # (key, name as the result spells it)
    on = node.args.get("on")
    star = False
    if on:
        for column in on:
            identifier = column.this if isinstance(column, exp.Column) else column
            name = ctx.normalizer.part(identifier)
            key = name.lower()
            for source, label in ((a, "left"), (b, "right")):
                if not source.has(key) and not source.stars:
                    raise InvalidStatementError(f"{operator} ON lists '{name}', which the {label} query does not have",
                                                origin=ctx.origin(identifier))
            names.append((key, _spelled(key, a, b, name)))
    elif mode == "INNER":
        for key, f in a.named.items():
            if b.has(key) or b.stars:
                names.append((key, f.name))
                if not b.has(key):
                    _maybe(ctx, f.name, operator, right)
        for key, f in b.named.items():
            if not a.has(key) and a.stars:
                names.append((key, f.name))
                _maybe(ctx, f.name, operator, left)
        star = bool(a.stars and b.stars)
    elif side == "LEFT":
        names = [(key, f.name) for key, f in a.named.items()]
        star = bool(a.stars)
    else:
        names = [(key, f.name) for key, f in a.named.items()]
        names += [(key, f.name) for key, f in b.named.items() if key not in a.named]
        star = bool(a.stars or b.stars)
    if not names and not star:
        raise InvalidStatementError(f"the two queries of {operator} have no column name in common",
                                    origin=ctx.join(left.origin, right.origin))
    return _project(ctx, a, names, star), _project(ctx, b, names, star)


def _spelled(key: str, a: _Input, b: _Input, default: str) -> str:
    found = a.named.get(key) or b.named.get(key)
    return found.name if found is not None else default


def _maybe(ctx: LoweringContext, name: str, operator: str, other: Relation) -> None:
    ctx.uncertain_about(
        f"{operator} keeps {name} only if the other query has a column of that name, and its columns are not in "
        "the schema", name, other.origin)


def _project(ctx: LoweringContext, source: _Input, names: list[tuple[str, str]], star: bool) -> Relation:
    relation = source.relation
    origin = relation.origin
    exprs = [source.value(key, name, ctx) for key, name in names]
    labels = [name for _, name in names]
    if star:
        exprs.append(source.star(ctx))
        labels.append("*")
    project_id = ctx.ids.new("project", origin)
    columns = tuple(Field(field_id(project_id, i), label, e.type, origin) for i, (label, e) in enumerate(zip(labels, exprs)))
    return Project(project_id, origin, relation, tuple(exprs), columns)
