"""A Substrait plan's statements: one per ``RelRoot`` (and per top-level ``Rel`` no
``ReferenceRel`` uses), with the plan-level relations — ``WriteRel``, ``DdlRel``,
``UpdateRel`` — read as the statement kind and target they stand for.

===============================  ==============  ========================================
Substrait                         statement kind  fields explained
===============================  ==============  ========================================
RelRoot over a query              select          the root's fields, named by ``names``
WriteRel INSERT / CTAS            insert /        the written table's columns (its
                                  create_table    ``table_schema``), by position
WriteRel UPDATE                   update          every column of the after-image
WriteRel DELETE                   delete          none; ``rows`` says what picks the rows
DdlRel CREATE/ALTER VIEW          create_view …   the view's columns, from ``view_definition``
DdlRel CREATE/ALTER TABLE         create_table …  the columns, with no sources (a new table)
DdlRel DROP                       drop_table …    none
UpdateRel                         update          the transformed columns (and ``rows``)
===============================  ==============  ========================================
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace

from google.protobuf.message import Message

from ...catalog import Catalog
from ...ir import (
    Expr,
    Field,
    Filter,
    Matched,
    Modify,
    Relation,
    Statement,
    Values,
    WriteAction,
    WriteClause,
    WrittenColumn,
    walk_relations,
)
from ...ir.expressions import iter_tree
from ...ir.walk import expressions_of
from ..picked import read_picked_parts
from .context import LoweringContext, PlanContext
from .decoding import iter_messages, unknown_fields
from .errors import InvalidPlanError
from .relations import RelationLowerer
from .types import Shape, named_columns, top_level_names

_WRITE_KINDS = {1: "insert", 2: "delete", 3: "update", 4: "create_table"}
_DDL_OBJECTS = {1: "table", 2: "view"}
_DDL_VERBS = {1: "create", 2: "create", 3: "alter", 4: "drop", 5: "drop"}


# How a ProjectRel without an emit is read (specs/substrait.md, "ProjectRel without an emit").
_BY_PRODUCER = ("a ProjectRel without an emit is read as its producer {producer!r} means it: its output is "
                "only its expressions (the Substrait specification: its input's fields, then its expressions)")
_BY_NAMES = ("the plan names no producer, and its root names fit only if a ProjectRel without an emit yields "
             "only its expressions, as DuckDB writes it: read so (the Substrait specification: its input's "
             "fields, then its expressions)")
_EXPRESSIONS_ONLY_PRODUCERS = ("duckdb",)


def lower_plan(plan: Message, catalog: Catalog | None = None, file: str | None = None) -> list[Statement]:
    """Lower every statement of a decoded plan (see ``decoding``) into the IR.

    A ProjectRel without an emit yields its input's fields and then its expressions; DuckDB
    writes it meaning only the expressions.  Which reading applies is decided by the plan's
    producer, and — when the plan names none — by its root names: a plan whose root names fit
    only DuckDB's reading is read so.  Either way the reading is said in ``uncertain``.  A plan
    that fits neither stays a refusal naming the path.
    """
    if not len(plan.relations):
        raise InvalidPlanError("relations", "the plan has no relations")
    producer = plan.version.producer if plan.HasField("version") else ""
    if producer.strip().lower().startswith(_EXPRESSIONS_ONLY_PRODUCERS):
        return _lower_statements(PlanContext(plan, catalog, file, _BY_PRODUCER.format(producer=producer)))
    try:
        return _lower_statements(PlanContext(plan, catalog, file))
    except InvalidPlanError as error:
        if producer or not _root_names_misfit(error) or not _has_project_without_emit(plan):
            raise
        try:
            return _lower_statements(PlanContext(plan, catalog, file, _BY_NAMES))
        except InvalidPlanError as other:
            raise InvalidPlanError(error.path, f"{error.problem}; nor does the plan fit when a ProjectRel without "
                                               f"an emit yields only its expressions (as DuckDB writes it): "
                                               f"{other.path}: {other.problem}") from None


def _root_names_misfit(error: InvalidPlanError) -> bool:
    return error.path.startswith("relations[") and error.path.endswith(".root.names")


def _has_project_without_emit(plan: Message) -> bool:
    for message, _path in iter_messages(plan):
        if message.DESCRIPTOR.name == "ProjectRel" and not (
                message.HasField("common") and message.common.WhichOneof("emit_kind") == "emit"):
            return True
    return False


def _lower_statements(context: PlanContext) -> list[Statement]:
    plan = context.plan
    referenced = _referenced_ordinals(plan)
    ignored = unknown_fields(plan)
    statements: list[Statement] = []
    for position, entry in enumerate(plan.relations):
        which = entry.WhichOneof("rel_type")
        if which == "root":
            path, rel, names = f"relations[{position}].root", entry.root.input, list(entry.root.names)
            if not entry.root.HasField("input"):
                raise InvalidPlanError(path, "the root has no input relation")
            input_path = f"{path}.input"
        elif which == "rel" and position not in referenced:
            path, rel, names = f"relations[{position}]", entry.rel, []
            input_path = f"{path}.rel"
        else:
            continue
        ctx = LoweringContext(context, len(statements))
        if ignored:
            ctx.uncertain_about(
                "the plan holds fields this reader's Substrait schema does not know, which were not read: "
                + ", ".join(ignored[:8]) + (", …" if len(ignored) > 8 else "")
            )
        statements.append(_statement(ctx, rel, path, input_path, names))
    if not statements:
        raise InvalidPlanError("relations", "the plan has no root relation (every relation is a shared subtree)")
    return statements


def _statement(ctx: LoweringContext, rel: Message, path: str, input_path: str, names: list[str]) -> Statement:
    kind = rel.WhichOneof("rel_type")
    lowerer = RelationLowerer(ctx)
    if kind in ("write", "ddl", "update"):
        node = getattr(rel, kind)
        anchor = node.common.rel_anchor if node.HasField("common") else None
        ctx.enter(input_path, node.DESCRIPTOR.name, anchor)
        return _PLAN_LEVEL[kind](lowerer, node, input_path)
    root = lowerer.lower(rel, input_path, expected_width=len(names) or None)
    if names:
        ctx.enter(path, "RelRoot", None)
        root = _named(lowerer, root, names, path)
    return _finish(ctx, "select", root)


def _named(lowerer: RelationLowerer, root: Relation, names: list[str], path: str) -> Relation:
    """The root's fields under ``RelRoot.names`` (depth first: nested struct names follow)."""
    types = [lowerer.ctx.substrait_types.get(f.id) for f in root.fields]
    top = top_level_names(names, types)
    if top is None:
        raise InvalidPlanError(f"{path}.names", f"{len(names)} name(s) for {len(root.fields)} output field(s): the "
                                                "root names every field, nested ones included, depth first")
    if top == [f.name for f in root.fields]:
        return root
    return lowerer.project(root, [lowerer.ref(f, path) for f in root.fields], top, path, "root")


def _finish(ctx: LoweringContext, kind: str, root: Relation | None, target: str | None = None,
            writes: Sequence[WrittenColumn] | None = None) -> Statement:
    if root is not None:
        # A part of a struct the plan builds and an aggregate/window then picks whole (field trial 43).
        root = read_picked_parts(root)
    present = set(_target_ids(root)) if root is not None else set()
    # Targets made while lowering but not kept in the plan (a condition moved onto a join,
    # expressions an emit drops) have no ingress origin: they are not targets at all.
    ingress = tuple(
        replace(origin, targets=kept) for origin in ctx.ingress()
        if (kept := tuple(t for t in origin.targets if t in present))
    )
    return Statement(ctx.statement, kind, root, ctx.origin, target, tuple(writes) if writes is not None else None,
                     tuple(ctx.uncertain), ingress)


def _target_ids(root: Relation) -> Iterator[str]:
    """Every target of the plan: relations, the fields they create, their expressions."""
    for relation in walk_relations(root):
        yield relation.id
        for created in getattr(relation, "columns", None) or ():
            yield created.id
        for expr in expressions_of(relation):
            for node in iter_tree(expr):
                yield node.id


# --- plan-level relations --------------------------------------------------------------------


def _write(lowerer: RelationLowerer, node: Message, path: str) -> Statement:
    """INSERT and CTAS write the input's fields into the table's columns, by position; DELETE
    removes the input's rows and UPDATE writes their after-image (a ``Modify`` of the table,
    as for the SQL statements)."""
    ctx = lowerer.ctx
    p = f"{path}.write"
    kind = _WRITE_KINDS.get(node.op)
    if kind is None:
        raise InvalidPlanError(f"{p}.op", "the write names no operation (insert, delete, update or CTAS)")
    target = _target_name(ctx, node, "named_table", "extension_table", p)
    rows = lowerer.input(node, p, ())
    if kind == "delete":
        root = Modify(ctx.new_id("modify", path), ctx.origin, target, rows, (WriteClause(WriteAction.DELETE),), ())
        return _finish(ctx, kind, root, target, ())
    names = _column_names(node, "table_schema", rows.fields, p, ctx.plan.catalog, target)
    if kind == "update":
        assignments = [lowerer.ref(f, path) for f in rows.fields]
        return _modify(lowerer, target, rows, names, assignments, path)
    return _finish(ctx, kind, rows, target, [WrittenColumn(n, f.id) for n, f in zip(names, rows.fields)])


def _modify(lowerer: RelationLowerer, target: str, rows: Relation, names: Sequence[str], values: Sequence[Expr],
            path: str) -> Statement:
    """``UPDATE target SET names = values`` over ``rows`` (the rows to change)."""
    ctx = lowerer.ctx
    modify_id = ctx.new_id("modify", path)
    columns = tuple(ctx.field(modify_id, i, name, value.type, path) for i, (name, value) in enumerate(zip(names, values)))
    clause = WriteClause(WriteAction.UPDATE, Matched.ALWAYS, None, tuple(enumerate(values)))
    root = Modify(modify_id, ctx.origin, target, rows, (clause,), columns)
    return _finish(ctx, "update", root, target, [WrittenColumn(f.name, f.id) for f in columns])


def _ddl(lowerer: RelationLowerer, node: Message, path: str) -> Statement:
    ctx = lowerer.ctx
    p = f"{path}.ddl"
    if node.object not in _DDL_OBJECTS or node.op not in _DDL_VERBS:
        raise InvalidPlanError(p, "the DDL names no object (table, view) or no operation")
    kind = f"{_DDL_VERBS[node.op]}_{_DDL_OBJECTS[node.object]}"
    target = _target_name(ctx, node, "named_object", "extension_object", p)
    if _DDL_VERBS[node.op] == "drop":
        return _finish(ctx, kind, None, target)
    if node.HasField("view_definition"):
        root = lowerer.lower(node.view_definition, f"{p}.view_definition")
    else:
        # A table created (or altered) without a query: its columns come from nowhere.
        values_id = ctx.new_id("values", path)
        columns = _base_schema_of(node, p)
        fields = tuple(ctx.field(values_id, i, name, lowerer.type_of(t), path, t, shape)
                       for i, (name, t, shape) in enumerate(columns))
        root = Values(values_id, ctx.origin, fields, ())
    names = _column_names(node, "table_schema", root.fields, p, ctx.plan.catalog, target)
    return _finish(ctx, kind, root, target, [WrittenColumn(n, f.id) for n, f in zip(names, root.fields)])


def _update(lowerer: RelationLowerer, node: Message, path: str) -> Statement:
    """``UPDATE t SET c = expr WHERE condition``: the transformed columns, computed from the
    table's row, for the rows where the condition holds."""
    ctx = lowerer.ctx
    p = f"{path}.update"
    target = _target_name(ctx, node, "named_table", None, p)
    columns = _base_schema_of(node, p)
    rows: Relation = lowerer.scan(target, columns, None, path)
    record = rows.fields
    expressions = lowerer.expressions(path, record, node.common.rel_anchor if node.HasField("common") else None, ())
    if node.HasField("condition"):
        condition = expressions.lower(node.condition, f"{p}.condition")
        rows = Filter(ctx.new_id("filter", path), ctx.origin, rows, condition, "where")
    values: list[Expr] = []
    names: list[str] = []
    for i, transform in enumerate(node.transformations):
        where = f"{p}.transformations[{i}]"
        if not 0 <= transform.column_target < len(record):
            raise InvalidPlanError(f"{where}.column_target",
                                   f"column {transform.column_target} is out of range: the table has {len(record)}")
        name = record[transform.column_target].name
        if name in names:
            raise InvalidPlanError(f"{where}.column_target", f"column {name} is transformed twice")
        values.append(expressions.lower(transform.transformation, f"{where}.transformation"))
        names.append(name)
    if not values:
        raise InvalidPlanError(f"{p}.transformations", "the update transforms no column")
    return _modify(lowerer, target, rows, names, values, path)


_PLAN_LEVEL = {"write": _write, "ddl": _ddl, "update": _update}


def _target_name(ctx: LoweringContext, node: Message, named: str, extension: str | None, path: str) -> str:
    which = node.WhichOneof("write_type") if extension is not None else (named if node.HasField(named) else None)
    if which == named:
        names = tuple(getattr(node, named).names)
        if names:
            catalog = ctx.plan.catalog
            declared = catalog.lookup(names) if catalog is not None else None
            return declared.name if declared is not None else ".".join(names)
    if extension is not None and which == extension:
        detail = getattr(node, extension).detail.type_url.rpartition("/")[2] or "no detail"
        ctx.uncertain_about(f"the written object at {path} is an extension object ({detail}): its name is unknown")
        return f"{extension}({detail})"
    raise InvalidPlanError(path, "the relation names no table or view to write")


def _base_schema_of(node: Message, path: str) -> list[tuple[str, Message | None, Shape | None]]:
    """A written object's ``table_schema`` as (name, type) pairs."""
    return named_columns(node.table_schema, f"{path}.table_schema")


def _column_names(node: Message, schema_field: str, fields: Sequence[Field], path: str, catalog: Catalog | None,
                  target: str) -> list[str]:
    if not node.HasField(schema_field) or not len(getattr(node, schema_field).names):
        return [f.name for f in fields]
    columns = _base_schema_of(node, path)
    if len(columns) != len(fields):
        raise InvalidPlanError(f"{path}.{schema_field}", f"the table has {len(columns)} column(s) but the input "
                                                         f"{len(fields)} field(s)")
    declared = catalog.lookup(tuple(target.split("."))) if catalog is not None else None
    out = []
    for name, _, _ in columns:
        column = declared.column(name) if declared is not None else None
        out.append(column.name if column is not None else name)
    return out


def _referenced_ordinals(plan: Message) -> set[int]:
    """Ordinals of ``Plan.relations`` some ``ReferenceRel`` points at."""
    return {message.subtree_ordinal for message, _ in iter_messages(plan)
            if message.DESCRIPTOR.full_name == "substrait.ReferenceRel"}
