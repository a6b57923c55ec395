"""Hierarchical queries — ``[START WITH s] CONNECT BY c`` (Snowflake, Oracle) — read as their
recursive-CTE twin (specs/cte.md, "Hierarchical queries"; field trial 22).

A hierarchical query over one FROM item ``t`` outputs the rows reachable from a root (a row
meeting ``START WITH``; every row without it) along ``CONNECT BY`` (``PRIOR`` naming the
parent row), then filtered by its WHERE.  That is, by the engines' own documentation, the
recursive CTE

    WITH RECURSIVE connect_by_t AS (
      SELECT * FROM t WHERE s                                   -- the roots
      UNION ALL
      SELECT t.* FROM t JOIN connect_by_t AS prior_t ON c'      -- c' = c, PRIOR x → prior_t.x
    )
    SELECT … FROM connect_by_t AS t WHERE …

so it is lowered as that query: the answer has the roots' condition as control lineage and the
parent-child condition as join lineage of every output, as the twin written by hand has.  The
pseudo-columns ``LEVEL``, ``CONNECT_BY_ISLEAF`` and ``CONNECT_BY_ISCYCLE`` have no column
source (a depth, a flag of the hierarchy: a constant where they stand); ``CONNECT_BY_ROOT x`` is
the root row's ``x`` (the column ``x``, as is).  Every other clause of the SELECT stays where it
is.  A FROM clause with joins (whose ON/WHERE split the engines define apart) is still refused.
"""

from __future__ import annotations

from sqlglot import exp

from ...errors import InvalidStatementError

_PSEUDO = ("LEVEL", "CONNECT_BY_ISLEAF", "CONNECT_BY_ISCYCLE")


def as_recursive_cte(node: exp.Select, ctx) -> exp.Select:
    """The recursive-CTE twin of the hierarchical SELECT ``node`` (see the module docstring)."""
    connect = node.args["connect"]
    from_ = node.args.get("from_")
    item = from_.this if from_ is not None else None
    if node.args.get("joins") or node.args.get("laterals") or not isinstance(item, (exp.Table, exp.Subquery)) \
            or (isinstance(item, exp.Table) and not isinstance(item.this, exp.Identifier)):
        clause = "START WITH … CONNECT BY" if connect.args.get("start") is not None else "CONNECT BY"
        raise InvalidStatementError(
            f"{clause} (a hierarchical query) over a FROM clause with joins is not read by prism_lineage: which "
            "rows it outputs depend on its START WITH and CONNECT BY conditions, which would be lost; write it as "
            "a recursive CTE (WITH RECURSIVE), which is read", origin=ctx.first_origin(connect, node))
    alias = item.alias_or_name
    hierarchy = f"connect_by_{alias}"
    parent = f"prior_{alias}"

    def source() -> exp.Expression:
        copy = item.copy()
        if not item.alias:
            copy.set("alias", exp.TableAlias(this=exp.to_identifier(alias)))
        return copy

    # The stars the twin selects stand where the FROM item is written (ids and origins name it).
    placed = next((n.meta for n in item.walk() if n._meta and "start" in n._meta), None)

    linked = next((n.meta for n in connect.args["connect"].walk() if n._meta and "start" in n._meta), placed)

    def at(made: exp.Expression, meta) -> exp.Expression:
        if meta:
            made.meta.update({k: v for k, v in meta.items() if k in ("line", "col", "start", "end")})
        return made

    def star() -> exp.Star:
        return at(exp.Star(), placed)

    # The roots: the rows meeting START WITH (every row without it).
    roots = exp.Select(expressions=[star()]).from_(source(), copy=False)
    start = connect.args.get("start")
    if start is not None:
        roots = roots.where(_pseudo_free(start.copy()), copy=False)
    # The children: a row whose CONNECT BY condition holds with a row already reached as PRIOR.
    condition = _parent_child(connect.args["connect"].copy(), alias, parent)
    children = exp.Select(expressions=[exp.Column(this=star(), table=exp.to_identifier(alias))]) \
        .from_(source(), copy=False) \
        .join(exp.Table(this=at(exp.to_identifier(hierarchy), linked),  # the rows reached, where CONNECT BY is
                        alias=exp.TableAlias(this=exp.to_identifier(parent))), on=condition, copy=False)
    body = exp.Union(this=roots, expression=children, distinct=False)
    cte = exp.CTE(this=body, alias=exp.TableAlias(this=exp.to_identifier(hierarchy)))
    outer = node.copy()
    outer.set("connect", None)
    outer.set("with_", exp.With(expressions=[cte], recursive=True))
    outer.set("from_", exp.From(this=exp.Table(this=at(exp.to_identifier(hierarchy), placed),
                                               alias=exp.TableAlias(this=exp.to_identifier(alias)))))
    for part in ("expressions", "where", "group", "having", "qualify", "order"):
        value = outer.args.get(part)
        for expression in value if isinstance(value, list) else [value]:
            if isinstance(expression, exp.Expression):
                _read_pseudo_columns(expression)
    if ctx.is_result(node):  # its ORDER BY orders the statement's result, as the original's did
        ctx.top_queries += (outer,)
    return outer


def _is_pseudo(node: exp.Expression) -> bool:
    return isinstance(node, exp.Column) and not node.table and isinstance(node.this, exp.Identifier) \
        and not node.this.quoted and node.name.upper() in _PSEUDO


def _constant(node: exp.Expression) -> exp.Expression:
    """A pseudo-column's stand-in: a constant at its position (it reads no column)."""
    literal = exp.Literal.number(1)
    if node.this._meta:
        literal.meta.update({k: v for k, v in node.this.meta.items() if k in ("line", "col", "start", "end")})
    return literal


def _pseudo_free(expression: exp.Expression) -> exp.Expression:
    for found in list(expression.find_all(exp.Column)):
        if _is_pseudo(found):
            if found is expression and found.parent is None:
                return _constant(found)
            # A select item keeps its name (``SELECT LEVEL`` outputs LEVEL).
            named = isinstance(found.parent, exp.Select) and found.arg_key == "expressions"
            found.replace(exp.alias_(_constant(found), found.this.copy()) if named else _constant(found))
    return expression


def _read_pseudo_columns(expression: exp.Expression) -> None:
    """LEVEL and the flags are constants; ``CONNECT_BY_ROOT x`` is the column ``x``."""
    for found in list(expression.find_all(exp.ConnectByRoot)):
        found.replace(found.this)
    _pseudo_free(expression)


def _parent_child(condition: exp.Expression, alias: str, parent: str) -> exp.Expression:
    """CONNECT BY's condition between a child row (``alias``) and its parent (``parent``):
    ``PRIOR x`` is the parent's ``x``; any other column of the row is the child's."""
    condition = _pseudo_free(condition)
    for prior in list(condition.find_all(exp.Prior)):
        for column in list(prior.find_all(exp.Column)):
            if not column.table or column.table.lower() == alias.lower():
                column.set("table", exp.to_identifier(parent))
                column.set("db", None)
                column.set("catalog", None)
        prior.replace(prior.this)
    for column in condition.find_all(exp.Column):
        if not column.table:
            column.set("table", exp.to_identifier(alias))
    return condition
