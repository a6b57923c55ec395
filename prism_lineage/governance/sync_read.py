"""What reading a statement for a sync keeps, built without the explain answer.

A sync stores, per statement, the columns of each read asset that feed each output column
(``sql_reading.ColumnLink``), the output names, and the assets its plan scans in walk order
(``StatementRead.reads``).  The explain answer holds all of that and more — ``uncertain``
entries with their reasons, ``reads`` sorted, a ``Modify``'s ``rows``, pydantic models — and
building it, then walking the plan once more for the scans, was about a sixth of reading one
statement of a generated warehouse.  This module shares the lowering and the rules with
``explain`` (the same ``LineageGraph`` and end-to-end resolution) and builds only what the sync
keeps:

* ``statement_fields``: for each statement, each output field with its sources as the explain
  answer lists them — ``(column, relationship, transformation, confidence)``, the very order
  and merging of ``explain.answer._render`` (a column reached whole and as an unknown part of it
  is one source; a part read whole elsewhere under the same kind is dropped; sorted by kind,
  then column) — without the path, which a sync does not keep;
* ``scanned_in_walk_order``: the tables the plans scan, in the order ``ir.walk_relations``
  visits their ``Scan`` operators (children and subqueries before their parent, each relation
  once), found without its nested generators.

``tests/governance/test_sync_read.py`` checks both against the explain answer and
``walk_relations`` on every statement of the generated benchmark project, of the tests'
projects and of the golden SQL corpus.  Nothing here imports pydantic or the explain models.
"""

from __future__ import annotations

from ..ir import Scan, Statement
from ..ir.expressions import _LEAVES, Call, Expr, SortKey, Subquery, children
from ..ir.modify import WriteClause
from ..ir.walk import _may_hold_expressions
from ..lineage.edges import column_name
from ..lineage.graph import LineageGraph
from ..lineage.kinds import Confidence, Relationship, Transformation
from ..lineage.paths import UNKNOWN_PART, split
from ..lineage.source_merge import merged_in_order
from ..lineage.through import ScriptSummaries

# (column as ``table.column``, relationship, transformation, confidence): a source of a field.
Source = tuple[str, str, str, str]
Fields = list[tuple[str, tuple[Source, ...]]]

_VALUE = Relationship.VALUE
# Each kind's ``.value`` (an enum member's ``value`` is a Python-level property: a dictionary
# lookup is several times cheaper, and every source of every field asks for three).
_TEXT: dict = {member: member.value for kind in (Relationship, Transformation, Confidence) for member in kind}


def statement_fields(statements: list[Statement], functions, subqueries: bool = True) -> list[Fields | None]:
    """Each statement's output fields and their sources (``None`` for a statement with no plan),
    as ``explain_statements(statements, functions)`` answers them (see the module).
    ``subqueries=False``: the plans hold no ``Subquery`` (``ir.subqueries_made`` did not change
    while they were built), so the rules need not look for one in every expression."""
    summaries = ScriptSummaries(functions)  # as explain_statements: one per run
    summaries.subqueries = subqueries
    rendered = _RENDERED
    if len(rendered) > 50_000:  # (a worker reads thousands of statements: keep it bounded)
        rendered.clear()
    out: list[Fields | None] = []
    for statement in statements:
        if statement.root is None:
            out.append(None)
            continue
        out.append(_fields(statement, LineageGraph.of(statement, functions, summaries), rendered))
    return out


# (relationship, column target, transformation, confidence) → the source as a sync keeps it: the
# same for every statement, and a warehouse's statements read the same columns again and again
# (a table read by several views), so it is kept across reads.
_RENDERED: dict[tuple, Source] = {}


def _fields(statement: Statement, graph: LineageGraph, rendered: dict[tuple, Source]) -> Fields:
    """``explain.answer.answer_statement``'s ``fields``, as plain tuples."""
    root = statement.root
    if statement.writes is not None:
        outputs = [(w.name, w.field) for w in statement.writes]
    else:
        outputs = [(f.name, f.id) for f in root.fields]
    answers = graph.end_to_end.answer([target for _, target in outputs], root.id)
    # Fields of one relation share their indirect sources (often the very same mapping).
    ordered_indirect: dict[int, tuple[Source, ...]] = {}
    fields: Fields = []
    for (name, _), (values, indirect) in zip(outputs, answers):
        if len(values) == 1:
            # One value source (most fields): ``_ordered`` of it, without the list and the call.
            # An unknown part of a column goes through ``_ordered`` (``merged_in_order``): it is
            # never found in ``rendered``, whose columns are all merged (``_ordered`` unseals
            # every column of a list that has an unknown part).
            for column, (transformation, confidence, _) in values.items():
                key = (_VALUE, column, transformation, confidence)
                source = rendered.get(key)
                if source is None:
                    if column.endswith(UNKNOWN_PART):
                        value_part = _ordered([(_VALUE, column, values[column])], rendered)
                        break
                    source = rendered[key] = (column_name(split(column)[0]), _TEXT[_VALUE], _TEXT[transformation],
                                              _TEXT[confidence])
                value_part = (source,)
        else:
            value_part = _ordered([(_VALUE, column, found) for column, found in values.items()], rendered) \
                if values else ()
        indirect_part = ordered_indirect.get(id(indirect))
        if indirect_part is None:
            indirect_part = ordered_indirect[id(indirect)] = _ordered(
                [(relationship, column, found) for (column, relationship), found in indirect.items()], rendered)
        fields.append((name, value_part + indirect_part))
    return fields


def _ordered(sources: list, rendered: dict[tuple, Source]) -> tuple[Source, ...]:
    """``explain.answer._render`` without the models and the reasons: the sources merged,
    without covered paths, sorted by kind then column."""
    if not sources:
        return ()
    if len(sources) > 1 or sources[0][1].endswith(UNKNOWN_PART):
        # (One source is merged_in_order's answer as it is, unless it is an unknown part.)
        sources = merged_in_order(sources)
    out = []
    for relationship, column, (transformation, confidence, _) in sources:
        key = (relationship, column, transformation, confidence)
        source = rendered.get(key)
        if source is None:
            source = rendered[key] = (column_name(split(column)[0]), _TEXT[relationship], _TEXT[transformation],
                                      _TEXT[confidence])
        out.append(source)
    return tuple(out)



def scanned_in_walk_order(statements: list[Statement], subqueries: bool = True) -> list[str]:
    """The tables the statements' plans scan (``Scan`` with no ``opaque_reason``), each once, in
    the order ``walk_relations`` visits them, statement after statement.

    ``walk_relations`` is a post-order walk: a relation's children are its inputs, then the
    relations of the subqueries in its expressions (its attributes in declared order, each
    expression's nodes parents first, left to right); a relation already visited is skipped.
    This is the same walk with the expressions searched by a loop instead of nested generators
    (as ``ir.walk.scanned_tables`` does).  ``subqueries=False``: the plans hold no ``Subquery``
    (see ``statement_fields``), so no expression is searched for one."""
    found: dict[str, None] = {}
    for statement in statements:
        if statement.root is not None:
            _scans(statement.root, found, subqueries)
    return list(found)


def _scans(root, found: dict[str, None], subqueries: bool = True) -> None:
    seen: set[str] = set()
    # (relation, expanded): expanded means its children were pushed, so it is visited next.
    stack: list = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            if isinstance(node, Scan) and node.opaque_reason is None:
                found.setdefault(node.table, None)
            continue
        if node.id in seen:
            continue
        seen.add(node.id)
        stack.append((node, True))
        nested = list(node.inputs)
        if subqueries and type(node) is not Scan:  # a Scan holds no expression
            _subqueries(node, nested)
        nested.reverse()  # (in place: no iterator object per relation)
        for child in nested:
            if child.id not in seen:
                stack.append((child, False))


def _subqueries(node, out: list) -> None:
    """Append the relations of the subqueries in ``node``'s expressions, in the order
    ``subqueries_of`` over ``expressions_of`` finds them (a pre-order, left to right)."""
    values = [getattr(node, name) for name in _may_hold_expressions(node)]
    values.reverse()
    pop, extend = values.pop, values.extend
    while values:
        value = pop()
        kind = type(value)
        # The commonest first, by exact class: a leaf (a column read, a constant) holds no
        # subquery, a call's children are its arguments (``children``), a tuple its items.
        if kind in _LEAVES or value is None:
            continue
        if kind is Call or kind is tuple:
            if value:
                extend(reversed(value.args if kind is Call else value))
            continue
        if isinstance(value, Expr):
            if isinstance(value, Subquery):
                out.append(value.relation)
            below = children(value)
            if below:
                extend(reversed(below))
        elif isinstance(value, tuple):
            if value:
                extend(reversed(value))
        elif isinstance(value, SortKey):
            values.append(value.expr)
        elif isinstance(value, WriteClause):
            values.append((value.condition, value.assignments))
