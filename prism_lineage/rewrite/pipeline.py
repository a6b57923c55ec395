"""The rewrite pipeline: each rewrite is applied with the one walk of the IR
(``ir.walk.transform``, bottom-up, returning ``Transformed(node, changed)``), in this order:

1. ``inline_ctes`` — whole plan, once: the other rewrites then see through CTEs;
2. ``fold_constants``, ``decorrelate_subqueries``, ``push_filters_through_projections``,
   ``push_filters_into_joins``, ``merge_projections`` — together in one walk, each node getting
   each in turn, repeated until none changes the plan (at most ``MAX_ROUNDS`` walks);
3. ``prune_columns`` — whole plan, once, last: what the others left unread goes.

Every rewrite keeps the output fields of the statement (ids and names) and its end-to-end
lineage; ``check_interface`` enforces the first after each step (a violation is a bug).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from ..errors import PrismError
from ..functions import FunctionRegistry
from ..ir import Expr, Relation, Statement, Transformed, transform
from ..ir.walk import scanned_tables
from ..lineage.graph import LineageGraph, Target
from .context import RewriteContext
from .decorrelate_subqueries import decorrelate_subqueries
from .fold_constants import fold_constants, fold_constants_expr
from .inline_ctes import inline_ctes
from .merge_projections import merge_projections
from .provenance import carry_ingress, plan_targets
from .prune_columns import prune_columns
from .push_filters_into_joins import push_filters_into_joins
from .push_filters_through_projections import push_filters_through_projections

MAX_ROUNDS = 20

OnRelation = Callable[[Relation, RewriteContext], Transformed[Relation]]
OnExpr = Callable[[Expr, RewriteContext], Transformed[Expr]]


class RewriteError(PrismError):
    """A rewrite broke one of its own guarantees (a bug: please report it with the input)."""

    exit_code = 70


@dataclass(frozen=True, slots=True)
class Rewrite:
    """One rewrite: called on every node by the walk (``on_relation`` and/or ``on_expr``),
    or, for a rewrite that needs the whole plan at once, given the root (``on_plan``)."""

    name: str
    on_relation: OnRelation | None = None
    on_expr: OnExpr | None = None
    on_plan: OnRelation | None = None

    def apply(self, root: Relation, ctx: RewriteContext) -> Transformed[Relation]:
        if self.on_plan is not None:
            return self.on_plan(root, ctx)
        on_relation = self.on_relation
        on_expr = self.on_expr
        return transform(
            root,
            (lambda node: on_relation(node, ctx)) if on_relation is not None else None,
            (lambda node: on_expr(node, ctx)) if on_expr is not None else None,
        )


INLINE_CTES = Rewrite("inline_ctes", on_plan=inline_ctes)
FOLD_CONSTANTS = Rewrite("fold_constants", on_relation=fold_constants, on_expr=fold_constants_expr)
DECORRELATE_SUBQUERIES = Rewrite("decorrelate_subqueries", on_relation=decorrelate_subqueries)
PUSH_FILTERS_THROUGH_PROJECTIONS = Rewrite("push_filters_through_projections",
                                           on_relation=push_filters_through_projections)
PUSH_FILTERS_INTO_JOINS = Rewrite("push_filters_into_joins", on_relation=push_filters_into_joins)
MERGE_PROJECTIONS = Rewrite("merge_projections", on_relation=merge_projections)
PRUNE_COLUMNS = Rewrite("prune_columns", on_plan=prune_columns)

BEFORE: tuple[Rewrite, ...] = (INLINE_CTES,)
REPEATED: tuple[Rewrite, ...] = (
    FOLD_CONSTANTS, DECORRELATE_SUBQUERIES, PUSH_FILTERS_THROUGH_PROJECTIONS, PUSH_FILTERS_INTO_JOINS,
    MERGE_PROJECTIONS,
)
AFTER: tuple[Rewrite, ...] = (PRUNE_COLUMNS,)
REWRITES: tuple[Rewrite, ...] = BEFORE + REPEATED + AFTER


class RewrittenStatement:
    """A statement as authored and as rewritten, and the rewrites that changed it (each once,
    in the order they first did).

    ``authored_targets(id)`` answers, for any target of the rewritten plan, the authored
    targets it stands for — each with its kind, label and authored origin (``Target`` of the
    authored plan's lineage graph).
    """

    __slots__ = ("authored", "rewritten", "fired", "_index", "_authored_targets")

    def __init__(self, authored: Statement, rewritten: Statement, fired: tuple[str, ...]):
        self.authored = authored
        self.rewritten = rewritten
        self.fired = fired
        self._index: dict[str, tuple[str, ...]] | None = None
        self._authored_targets: dict[str, Target] | None = None

    def authored_ids(self, target: str) -> tuple[str, ...]:
        """The ids of the authored targets ``target`` (a rewritten plan's target) stands for."""
        if self._index is None:
            root = self.rewritten.root
            self._index = dict(plan_targets(root)) if root is not None else {}
        found = self._index.get(target)
        if found is None:
            raise KeyError(f"{target} is not a target of the rewritten plan")
        return found

    def authored_targets(self, target: str) -> list[Target]:
        if self._authored_targets is None:
            # The authored plan's targets, as its lineage graph lists them (no rules run).
            self._authored_targets = LineageGraph(self.authored, [], []).targets
        return [self._authored_targets[i] for i in self.authored_ids(target)]


def rewrite_statement(statement: Statement, functions: FunctionRegistry | None = None,
                      rewrites: tuple[Rewrite, ...] | None = None) -> RewrittenStatement:
    """Run the pipeline over one statement — or only ``rewrites``, repeated until none changes
    the plan (whole-plan ones first, then the others together in one walk, in the given
    order)."""
    root = statement.root
    if root is None:
        return RewrittenStatement(statement, statement, ())
    ctx = RewriteContext(functions)
    ctx.reserve_plan(root)
    fired: dict[str, None] = {}

    def once(phase: tuple[Rewrite, ...], node: Relation) -> Transformed[Relation]:
        changed = False
        for rewrite in _in_one_walk(phase, fired):
            result = rewrite.apply(node, ctx)
            if result.changed:
                check_interface(root, result.node, rewrite.name)
                node, changed = result.node, True
        return Transformed(node, changed)

    def until_fixed_point(phase: tuple[Rewrite, ...], node: Relation) -> Relation:
        for _ in range(MAX_ROUNDS):
            result = once(phase, node)
            node = result.node
            if not result.changed:
                break
        return node

    if rewrites is not None:
        root_now = until_fixed_point(rewrites, root)
    else:
        root_now = once(AFTER, until_fixed_point(REPEATED, once(BEFORE, root).node)).node
    reads = statement.reads if statement.reads is not None else tuple(sorted(scanned_tables(root)))
    rewritten = replace(statement, root=root_now, ingress=carry_ingress(statement.ingress, root_now),
                        reads=reads)
    return RewrittenStatement(statement, rewritten, tuple(fired))


def _in_one_walk(phase: tuple[Rewrite, ...], fired: dict[str, None]) -> tuple[Rewrite, ...]:
    """``phase`` as the walks that apply it: each whole-plan rewrite on its own, then the
    node-by-node ones together in a single walk, each node getting every one in turn — so the
    work one leaves for another is done on the way up (a filter pushed below a projection that
    has already merged with everything under it crosses one projection, not a stack of them).
    Each rewrite records its name in ``fired`` when it changes something."""

    def recorded(name: str, callback):
        def call(node, ctx: RewriteContext):
            result = callback(node, ctx)
            if result.changed:
                fired.setdefault(name)
            return result

        return call

    def in_turn(callbacks):
        if not callbacks:
            return None

        def call(node, ctx: RewriteContext):
            changed = False
            for callback in callbacks:
                result = callback(node, ctx)
                if result.changed:
                    node, changed = result.node, True
            return Transformed(node, changed)

        return call

    walks = [Rewrite(r.name, on_plan=recorded(r.name, r.on_plan)) for r in phase if r.on_plan is not None]
    walked = [r for r in phase if r.on_plan is None]
    if walked:
        walks.append(Rewrite(
            "+".join(r.name for r in walked),
            on_relation=in_turn([recorded(r.name, r.on_relation) for r in walked if r.on_relation is not None]),
            on_expr=in_turn([recorded(r.name, r.on_expr) for r in walked if r.on_expr is not None]),
        ))
    return tuple(walks)


def rewrite_statements(statements: list[Statement], functions: FunctionRegistry | None = None
                       ) -> list[RewrittenStatement]:
    return [rewrite_statement(s, functions) for s in statements]


def check_interface(authored: Relation, rewritten: Relation, rewrite: str) -> None:
    """The output fields (ids and names, in order) must be the authored ones."""
    before = [(f.id, f.name) for f in authored.fields]
    after = [(f.id, f.name) for f in rewritten.fields]
    if before != after:
        raise RewriteError(f"rewrite {rewrite} changed the statement's output fields: {before} → {after}")
