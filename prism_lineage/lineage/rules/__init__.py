"""Lineage rules: one rule per IR operator, found by the operator's class.

``rule_for(node)`` dispatches on the operator's class (``functools.singledispatch``); each
operator family has its own module named after it.  ``plan_edges`` runs the rules over every
relation of a plan — inputs, CTE definitions and subqueries — once each.
"""

from __future__ import annotations

from functools import singledispatch

from ...errors import PrismError
from ...ir import Relation
from .context import RuleContext


class UnsupportedOperator(PrismError):
    exit_code = 70


@singledispatch
def rule_for(node: Relation, ctx: RuleContext) -> None:
    raise UnsupportedOperator(f"no lineage rule for operator {type(node).__name__}")


_RULES: dict[type, object] = {}
_RULES_FOR: dict[type, object] = {}  # the registered rules _RULES was filled from


def plan_edges(root: Relation, ctx: RuleContext, stop=None) -> RuleContext:
    """Apply the rule of every relation reachable from ``root`` (once per relation id).

    ``stop(node)``, if given, is asked of every relation below ``root`` before its rule: true,
    and neither it nor what is below it is visited (its lineage is known already: the rows of
    a script's table, lineage/through.py)."""
    seen: set[str] = set()
    stack = [root]
    # Each class's rule from a plain dict (singledispatch's own cache is a weak-keyed
    # dictionary, slower to ask for every relation), forgotten when a rule is registered.
    if rule_for.registry != _RULES_FOR:
        _RULES.clear()
        _RULES_FOR.clear()
        _RULES_FOR.update(rule_for.registry)
    rules = _RULES
    while stack:
        node = stack.pop()
        if node.id in seen:
            continue
        seen.add(node.id)
        if stop is not None and node is not root and stop(node):
            continue
        kind = type(node)
        rule = rules.get(kind)
        if rule is None:
            rule = rules[kind] = rule_for.dispatch(kind)
        rule(node, ctx)
        stack.extend(node.inputs)
        if ctx.pending:
            stack.extend(ctx.pending)
            ctx.pending.clear()
    return ctx


# Importing the rule modules registers them.
from . import (  # noqa: E402,F401
    aggregate,
    cte,
    distinct,
    filter,
    generator,
    join,
    limit,
    modify,
    opaque,
    project,
    scan,
    set_operation,
    sort,
    values,
    window,
)

__all__ = ["RuleContext", "UnsupportedOperator", "plan_edges", "rule_for"]
