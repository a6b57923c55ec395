"""Parts of values a plan computes and then picks whole (field trial 43).

Dataframe plans build nested values and carry them through aggregations, windows and explode:
``pl.struct("a", "x").first()`` (Polars), ``F.first(F.struct("a", "x"))`` (Spark), a list of
structs collected per group and exploded again.  A part read later (``s.a``, ``unnest``) comes
from *some* input of the struct, and which one the rules cannot tell: an aggregate's, a window's
or a generator's transformation is what they record for its sources, and it hides the
computation below it, so the part was answered as a part of every input, exactly — a superset
marked exact.  (A part of a value computed in the same projection is the rules' own case:
"expression" breaks the path, conservatively.)

``read_picked_parts(root)`` is run by the Polars and Spark Connect frontends after lowering.  It
finds the fields holding such a value — an aggregate measure, a window column or a generated
element whose argument is computed, and any reference to one passed on (projections, set
operations; filters, sorts, limits and joins keep their inputs' field ids) — and rewrites every
``NestedAccess`` of one: no steps (the part names no part of the inputs, which are read whole),
not exact, with the reason (one already read conservatively is left as it is).  A part of a column's own struct (``F.first("addr").city``) is
untouched: exact.
"""

from __future__ import annotations

from dataclasses import replace

from ..ir import (
    Aggregate,
    AggregateCall,
    Call,
    Expr,
    FieldRef,
    Generator,
    Literal,
    NestedAccess,
    Project,
    Relation,
    SetOperation,
    Window,
    WindowCall,
    transform,
)
from ..ir.walk import Transformed, walk_relations

# Row-wise functions that, applied over a window, give one of their input's values as it is
# (``shift``, ``lag`` …; ``over`` is the Polars frontend's wrapper of a column in ``.over``).
_PICKING = frozenset({"over", "shift", "lag", "lead", "first_value", "last_value", "nth_value", "sort", "reverse",
                      "shuffle", "gather", "gather_every", "head", "tail", "slice", "forward_fill", "backward_fill",
                      "sort_by", "filter", "polars.sort_by", "polars.filter", "polars.top_k_by", "first", "last"})


class _Marks:
    def __init__(self) -> None:
        self.computed: set[str] = set()  # fields holding a value computed in the plan
        self.picked: set[str] = set()  # … and picked whole by an aggregate, a window or a generator

    def is_computed(self, expr: Expr) -> bool:
        if isinstance(expr, FieldRef):
            return expr.field in self.computed
        if isinstance(expr, NestedAccess):
            return self.is_computed(expr.base)
        if isinstance(expr, Call) and expr.function == "over":
            return any(self.is_computed(a) for a in expr.args)
        return not isinstance(expr, Literal)

    def is_picked(self, expr: Expr) -> bool:
        if isinstance(expr, FieldRef):
            return expr.field in self.picked
        return isinstance(expr, NestedAccess) and self.is_picked(expr.base)

    def picks_computed(self, call: AggregateCall | WindowCall) -> bool:
        function = call.function if isinstance(call, WindowCall) else call
        if isinstance(function, Call) and function.function not in _PICKING:
            return True  # a row-wise computation over a window
        return any(self.is_computed(a) for a in getattr(function, "args", ()))

    def mark(self, field_id: str, computed: bool, picked: bool = False) -> None:
        if computed or picked:
            self.computed.add(field_id)
        if picked:
            self.picked.add(field_id)

    def relation(self, r: Relation) -> None:
        if isinstance(r, Project):
            for expr, column in zip(r.exprs, r.columns):
                self.mark(column.id, self.is_computed(expr), self.is_picked(expr))
        elif isinstance(r, Aggregate):
            for expr, column in zip(r.keys, r.columns):
                self.mark(column.id, self.is_computed(expr), self.is_picked(expr))
            for call, column in zip(r.measures, r.columns[len(r.keys):]):
                picks = self.picks_computed(call)
                self.mark(column.id, picks, picks)
        elif isinstance(r, Window):
            for call, column in zip(r.calls, r.columns):
                picks = self.picks_computed(call)
                self.mark(column.id, picks, picks)
        elif isinstance(r, Generator):
            for output, column in zip(r.outputs, r.columns):
                at = output.arg
                args = r.args if at is None else tuple(r.args[i] for i in at) if isinstance(at, tuple) \
                    else r.args[at:at + 1]
                computed = any(self.is_computed(a) for a in args)
                self.mark(column.id, computed, computed)
        elif isinstance(r, SetOperation):
            for column, a, b in zip(r.columns, r.left.fields, r.right.fields):
                self.mark(column.id, a.id in self.computed or b.id in self.computed,
                          a.id in self.picked or b.id in self.picked)


def read_picked_parts(root: Relation) -> Relation:
    marks = _Marks()
    for relation in walk_relations(root):
        marks.relation(relation)
    if not marks.picked:
        return root

    def on_expr(node: Expr) -> Transformed[Expr]:
        # An access already read conservatively (a SQL relation's: its type not declared) is its
        # frontend's answer, left as it is.
        if isinstance(node, NestedAccess) and node.exact and node.steps and isinstance(node.base, FieldRef) \
                and node.base.field in marks.picked:
            reason = (f"the part {''.join(node.steps)} is read from a value computed in the plan and picked whole by "
                      "an aggregation, a window or explode: every input of that value is listed")
            return Transformed(replace(node, steps=(), exact=False, reason=reason), True)
        return Transformed(node, False)

    return transform(root, on_expr=on_expr).node
