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

from ...ir import Call, GeneratedRole, Generator
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
# A list the query builds has as many elements as it spells (nested lists flattened by a
# recursive unnest are not followed: their elements' lengths would count).
_CONSTRUCTORS = frozenset({"array", "list_value", "array_construct", "make_array"})


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
        for arg in node.args:
            if type(arg) is Call and arg.function in _CONSTRUCTORS:
                continue  # ``unnest([a, b])``: as many rows as elements, whatever their values
            if node.exact:
                ctx.reads(arg, node.id, Relationship.CONTROL, Transformation.GENERATOR, RULE, node)
                continue
            for i in read_fields(arg):
                ctx.edge(i.field, node.id, Relationship.CONTROL, Transformation.GENERATOR,
                         weakest(i.confidence, Confidence.CONSERVATIVE), arg, RULE, node, i.reason or node.reason,
                         i.path)
            ctx.subqueries(arg, node.id)
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
