"""Window: each window output field has window lineage from its partition, order, frame and
function inputs (an aggregate's own FILTER, ORDER BY and LIMIT included), and value lineage (window) from the function's value inputs.  The input's
fields pass through: a window output stays row-level."""

from __future__ import annotations

from ...ir import AggregateCall, Window
from ..kinds import Relationship, Transformation
from . import rule_for
from .context import RuleContext

RULE = "window"


@rule_for.register
def window_rule(node: Window, ctx: RuleContext) -> None:
    ctx.flow_inputs(node)
    for call, field in zip(node.calls, node.columns):
        target = field.id
        ctx.values(call, target, RULE, node)
        function = call.function
        shaping = list(call.partition_by) + [key.expr for key in call.order_by]
        if call.frame is not None:
            shaping += [b.offset for b in (call.frame.start, call.frame.end) if b is not None and b.offset is not None]
        shaping += list(getattr(function, "args", ()))
        if isinstance(function, AggregateCall):
            # The function's own ORDER BY / LIMIT (``ARRAY_AGG(x ORDER BY y) OVER (…)``,
            # ``MAX_BY(x, y) OVER (…)``) shape what each row's window gives, as its FILTER does.
            shaping += [key.expr for key in function.order_by]
            if function.filter is not None:
                shaping.append(function.filter)
            if function.limit is not None:
                shaping.append(function.limit)
        for expr in shaping:
            ctx.reads(expr, target, Relationship.WINDOW, Transformation.WINDOW, RULE, node)
