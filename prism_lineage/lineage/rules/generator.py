"""Generator: each generated column is its own target, with value lineage (transformation
``generator``) from the argument it is produced from.

An element (``UNNEST(o.items)``) or a map/object value keeps the path it is read at, below
the argument's own path: ``o.items`` read as ``items[]``, so a field of the element read later
is ``items[].sku``.  Positions, keys, paths and the argument repeated (``FLATTEN``'s INDEX,
KEY, PATH, THIS) depend on the argument's shape: value lineage from the whole argument.
A counter made up by the engine (``FLATTEN``'s SEQ) reads no data.  The input's fields pass
through (``flow``), so the input's dependencies reach the generated rows.
"""

from __future__ import annotations

from ...ir import Call, Expr, GeneratedRole, Generator
from ..expression_inputs import read_fields, value_inputs
from ..kinds import Confidence, Relationship, Transformation, strongest, weakest
from . import rule_for
from .context import RuleContext

RULE = "generator"
# Paths are kept through these: the argument's value reaches the generator unchanged in shape.
_SHAPE_KEEPING = {Transformation.IDENTITY, Transformation.NESTED_ACCESS, Transformation.SEMI_STRUCTURED_ACCESS}
_READS_PARTS = {GeneratedRole.ELEMENT, GeneratedRole.VALUE}
# Generators whose number of rows does not depend on their arguments (STACK(n, …): n rows, the
# count not being an argument of the node).  Nor does a generator whose columns spread over its
# arguments (STACK, ``INLINE(ARRAY(STRUCT(…), STRUCT(…)))``: a row per group of arguments).
_CONSTANT_ROWS = frozenset({"stack"})
# A list the query builds has as many elements as it spells; a recursive unnest that flattens
# the lists it holds makes as many rows as they have elements (their lengths count).
_CONSTRUCTORS = frozenset({"array", "list_value", "array_construct", "make_array"})
_UNKNOWN_DEPTH = ("how deep the unnest flattens the list the query builds is not known (the type of its "
                  "elements is not declared): the lengths of the lists it holds may decide the rows")


@rule_for.register
def generator_rule(node: Generator, ctx: RuleContext) -> None:
    ctx.flow_inputs(node)
    if node.function not in _CONSTANT_ROWS and not any(isinstance(o.arg, tuple) for o in node.outputs):
        # How many rows each input row yields depends on what the generator reads (an empty or
        # NULL list yields none, dropping the row unless the generator is outer; a list of n
        # elements repeats it n times), as a join's keys decide a join's rows: control lineage
        # to the rows, every field passing through included (field trial 69, found by changing
        # t.l under ``SELECT a, unnest(l) FROM t`` in DuckDB).
        # A generator whose columns are not known (a script, an undeclared element type) is
        # not known to make its rows exactly so either: conservative, with its reason.
        for position, arg in enumerate(node.args):
            reason = node.reason
            if type(arg) is Call and arg.function in _CONSTRUCTORS:
                levels = _flattened_levels(node, position)
                if levels == 1:
                    continue  # ``unnest([a, b])``: as many rows as elements, whatever their values
                if levels is not None:
                    # ``unnest([l, [a]], recursive := true)``: the rows are l's elements and a:
                    # what decides them is the length of every list flattened (field trial 73).
                    for counted in _counted(arg, levels):
                        _control(ctx, node, counted, node.reason)
                    continue
                reason = node.reason or _UNKNOWN_DEPTH
            _control(ctx, node, arg, reason)
    own = Confidence.EXACT if node.exact else Confidence.CONSERVATIVE
    for output, field in zip(node.outputs, node.columns):
        if output.role is GeneratedRole.SEQUENCE:
            continue
        # A column named ``*`` stands for columns whose number and names are not known (BigQuery's
        # UNNEST of elements of an undeclared type): what it reads is known, what it is is not.
        confidence, unsure = (own, node.reason) if field.name != "*" else (Confidence.CONSERVATIVE, node.reason or (
            f"{node.function} makes columns that are not known (the type of what it reads is not declared)"))
        arg_at = output.arg
        if arg_at is None:
            args = node.args
        elif isinstance(arg_at, tuple):  # STACK, INLINE(ARRAY(STRUCT …)): some of the arguments
            args = tuple(node.args[i] for i in arg_at)
        else:
            args = node.args[arg_at:arg_at + 1]
        for arg in args:
            for i in value_inputs(arg, ctx.functions):
                path = i.path
                if output.role in _READS_PARTS and output.path and i.transformation in _SHAPE_KEEPING:
                    path = (path or "") + output.path
                ctx.edge(i.field, field.id, Relationship.VALUE, strongest(i.transformation, Transformation.GENERATOR),
                         weakest(i.confidence, confidence), arg, RULE, node, i.reason or unsure, path)
            ctx.subqueries(arg, field.id)


def _control(ctx: RuleContext, node: Generator, arg: Expr, reason: str | None) -> None:
    """Control lineage from every field ``arg`` reads to the generator's rows: exact when the
    generator is and nothing else is unsure, else conservative with the reason."""
    if node.exact and reason is None:
        ctx.reads(arg, node.id, Relationship.CONTROL, Transformation.GENERATOR, RULE, node)
        return
    for i in read_fields(arg):
        ctx.edge(i.field, node.id, Relationship.CONTROL, Transformation.GENERATOR,
                 weakest(i.confidence, Confidence.CONSERVATIVE), arg, RULE, node, i.reason or reason, i.path)
    ctx.subqueries(arg, node.id)


def _flattened_levels(node: Generator, position: int) -> int | None:
    """How many list levels the generator flattens out of argument ``position``: the ``[]``
    steps of the paths its elements are read at (``[]``: 1; a recursive unnest of a list of
    lists, ``[][]``: 2).  ``None`` when no column says (a type not known)."""
    levels = None
    for output in node.outputs:
        if output.role not in _READS_PARTS or (output.arg is not None and output.arg != position):
            continue
        if not output.path or not output.path.startswith("[]"):
            return None
        depth = _leading_elements(output.path)
        levels = depth if levels is None else max(levels, depth)
    return levels


def _leading_elements(path: str) -> int:
    count = 0
    while path.startswith("[]", 2 * count):
        count += 1
    return count


def _counted(constructed: Call, levels: int) -> list[Expr]:
    """The values inside a list the query builds whose lengths decide how many rows flattening
    it ``levels`` levels makes: none at one level (its own elements, as many as spelled); at
    more, each element that is not itself a list the query builds (those are looked into)."""
    if levels <= 1:
        return []
    out: list[Expr] = []
    for element in constructed.args:
        if type(element) is Call and element.function in _CONSTRUCTORS:
            out.extend(_counted(element, levels - 1))
        else:
            out.append(element)
    return out
