"""One walk and one rewrite signature over the IR.

``walk_relations`` visits every relation of a plan once — inputs, CTE definitions and the
relations of subquery expressions — children before parents.  ``transform`` rewrites bottom-up:
the callback receives a node whose children are already rewritten and returns
``Transformed(node, changed)``; unchanged subtrees are kept as the same objects, and a node
shared by several parents (a CTE definition) is rewritten once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from .expressions import Expr, Subquery, SortKey, WindowFrame, FrameBound
from .modify import WriteClause
from .relations import Relation

T = TypeVar("T")
N = TypeVar("N", Relation, Expr)


@dataclass(frozen=True, slots=True)
class Transformed(Generic[T]):
    node: T
    changed: bool

    @staticmethod
    def no(node: T) -> "Transformed[T]":
        return Transformed(node, False)

    @staticmethod
    def yes(node: T) -> "Transformed[T]":
        return Transformed(node, True)


def expressions_of(relation: Relation) -> Iterator[Expr]:
    """The top-level expressions an operator holds (predicates, keys, projections …)."""
    for value in _node_values(relation):
        yield from _exprs_in(value)


def subqueries_of(expr: Expr) -> Iterator[Subquery]:
    """Subquery expressions under ``expr`` (not descending into their relations)."""
    from .expressions import iter_tree

    for node in iter_tree(expr):
        if isinstance(node, Subquery):
            yield node


def walk_relations(root: Relation) -> Iterator[Relation]:
    """Every relation of the plan once, children (and subqueries) before their parent."""
    seen: set[str] = set()
    # Iterative post-order: plans from generated SQL can nest thousands of levels deep.
    stack: list[tuple[Relation, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            yield node
            continue
        if node.id in seen:
            continue
        seen.add(node.id)
        stack.append((node, True))
        nested: list[Relation] = list(node.inputs)
        for expr in expressions_of(node):
            nested.extend(sub.relation for sub in subqueries_of(expr))
        for child in reversed(nested):
            if child.id not in seen:
                stack.append((child, False))


def scanned_tables(root: Relation, known=None) -> set[str]:
    """The tables a plan scans, in any clause; a FROM item that is not a table (a table
    function left unanalysed) is none.

    ``known(node)``, if given, is asked of every relation below ``root``: the tables scanned
    under it if they are known already (then it is not walked), else ``None``.

    The relations ``walk_relations`` visits, walked without its nested generators: every
    ``explain`` answer's ``reads`` comes from here, and the generator walk took a tenth of the
    time of explaining TPC-DS."""
    from .expressions import Call, FieldRef, Literal, children
    from .relations import Scan

    tables: set[str] = set()
    seen: set[str] = set()
    stack: list[Relation] = [root]
    exprs: list[Any] = []
    push, extend = exprs.append, exprs.extend
    while stack:
        node = stack.pop()
        if node.id in seen:
            continue
        seen.add(node.id)
        if known is not None and node is not root:
            found = known(node)
            if found is not None:
                tables.update(found)
                continue
        if isinstance(node, Scan):
            if node.opaque_reason is None:
                tables.add(node.table)
            if type(node) is Scan:  # a leaf holding no expression
                continue
        stack.extend(node.inputs)
        for name in _may_hold_expressions(node):
            push(getattr(node, name))
        while exprs:
            value = exprs.pop()
            kind = type(value)
            # The commonest values first, by exact class.
            if kind is FieldRef or kind is Literal or value is None:
                continue
            if kind is Call:
                extend(value.args)
            elif kind is tuple:
                extend(value)
            elif isinstance(value, Expr):
                if isinstance(value, Subquery):
                    stack.append(value.relation)
                extend(children(value))
            elif isinstance(value, SortKey):
                push(value.expr)
            elif isinstance(value, WriteClause):
                push((value.condition, value.assignments))
    return tables


def transform(
    root: N,
    on_relation: Callable[[Relation], Transformed[Relation]] | None = None,
    on_expr: Callable[[Expr], Transformed[Expr]] | None = None,
) -> Transformed[N]:
    """Rewrite a plan — or an expression, with the relations of its subqueries — bottom-up
    (see the module docstring).  A missing callback leaves its kind of node as it is."""
    memo: dict[str, Transformed[Relation]] = {}

    def rel(node: Relation) -> Transformed[Relation]:
        done = memo.get(node.id)
        if done is not None:
            return done
        rebuilt = _rebuild(node, rel, expr)
        if on_relation is None:
            memo[node.id] = rebuilt
            return rebuilt
        result = on_relation(rebuilt.node)
        out = Transformed(result.node, rebuilt.changed or result.changed)
        memo[node.id] = out
        return out

    def expr(node: Expr) -> Transformed[Expr]:
        rebuilt = _rebuild(node, rel, expr)
        if on_expr is None:
            return rebuilt
        result = on_expr(rebuilt.node)
        return Transformed(result.node, rebuilt.changed or result.changed)

    return expr(root) if isinstance(root, Expr) else rel(root)


# --- generic plumbing over the frozen dataclasses ----------------------------------------

# What a node *is* rather than what it holds: never descended into, kept by ``_rebuild``.
_IDENTITY = frozenset({"id", "origin", "type", "authored"})


_HELD: dict[type, tuple[str, ...]] = {}


def _held(node: Any) -> tuple[str, ...]:
    """The names of the attributes ``node`` holds (not ``_IDENTITY``), per class: walks call
    this for every node, and ``dataclasses.fields`` rebuilds its answer each time."""
    names = _HELD.get(type(node))
    if names is None:
        names = _HELD[type(node)] = tuple(f.name for f in dataclasses.fields(node) if f.name not in _IDENTITY)
    return names


# Attribute types that never hold an expression (relations are reached through ``inputs``):
# ``scanned_tables`` does not look into them (a relation's fields alone are most of its values).
_NO_EXPRESSIONS = frozenset({
    "str", "str | None", "bool", "Relation", "Relation | None", "tuple[Relation, ...]", "tuple[Field, ...]",
    "tuple[str, ...]", "tuple[MaskingPolicy, ...]", "tuple[tuple[int, ...], ...] | None", "JoinKind", "SetKind",
})
_MAY_HOLD: dict[type, tuple[str, ...]] = {}


def _may_hold_expressions(node: Any) -> tuple[str, ...]:
    """``_held(node)`` without the attributes whose declared type holds no expression."""
    names = _MAY_HOLD.get(type(node))
    if names is None:
        types = {f.name: f.type for f in dataclasses.fields(node)}
        names = _MAY_HOLD[type(node)] = tuple(n for n in _held(node) if types[n] not in _NO_EXPRESSIONS)
    return names


def _node_values(node: Any) -> Iterator[Any]:
    for name in _held(node):
        yield getattr(node, name)


def _exprs_in(value: Any) -> Iterator[Expr]:
    if isinstance(value, Expr):
        yield value
    elif isinstance(value, SortKey):
        yield value.expr
    elif isinstance(value, WriteClause):
        yield from _exprs_in((value.condition, value.assignments))
    elif isinstance(value, tuple):
        for item in value:
            yield from _exprs_in(item)


def _rebuild(node: Any, rel: Callable, expr: Callable) -> Transformed[Any]:
    changes: dict[str, Any] = {}
    for name in _held(node):
        value = getattr(node, name)
        new = _map_value(value, rel, expr)
        if new is not value:
            changes[name] = new
    if not changes:
        return Transformed.no(node)
    return Transformed.yes(dataclasses.replace(node, **changes))


def _map_value(value: Any, rel: Callable, expr: Callable) -> Any:
    """Return ``value`` itself when nothing under it changed, a rebuilt copy otherwise."""
    if isinstance(value, Relation):
        result = rel(value)
        return result.node if result.changed else value
    if isinstance(value, Expr):
        result = expr(value)
        return result.node if result.changed else value
    if isinstance(value, (SortKey, WindowFrame, FrameBound, WriteClause)):
        rebuilt = _rebuild(value, rel, expr)
        return rebuilt.node if rebuilt.changed else value
    if isinstance(value, tuple):
        items = [_map_value(item, rel, expr) for item in value]
        if any(new is not old for new, old in zip(items, value)):
            return tuple(items)
        return value
    return value
