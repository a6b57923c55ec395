"""Turning a statement's plan-level lineage into the end-to-end answer of ``explain``."""

from __future__ import annotations

from ..ir import Modify, Statement
from ..ir.walk import scanned_tables
from ..lineage.edges import column_name
from ..lineage.graph import LineageGraph
from ..lineage.kinds import Confidence, Relationship
from ..lineage.paths import split
from ..lineage.source_merge import merged_in_order
from ..lineage.through import ScriptSummaries
from .models import FieldAnswer, SourceColumn, StatementAnswer, UncertainItem, new_field_answer, new_uncertain_item


# Answers repeat the same sources across fields and statements (every field of a query shares
# its relation's join and control sources): frozen models can be shared, so build each once.
_SOURCES: dict[tuple, SourceColumn] = {}
_SOURCES_LIMIT = 100_000


def _source(column: str, relationship: str, transformation: str, confidence: str,
            path: str | None = None) -> SourceColumn:
    key = (column, relationship, transformation, confidence, path)
    found = _SOURCES.get(key)
    if found is None:
        if len(_SOURCES) >= _SOURCES_LIMIT:
            _SOURCES.clear()
        found = SourceColumn.model_construct(
            column=column, relationship=relationship, transformation=transformation, confidence=confidence,
            path=path,
        )
        _SOURCES[key] = found
    return found


_VALUE = Relationship.VALUE
_EXACT = Confidence.EXACT


def answer_statement(statement: Statement, graph: LineageGraph) -> StatementAnswer:
    fields: list[FieldAnswer] = []
    uncertain: list[UncertainItem] = []
    seen_uncertain: set[tuple[str | None, str]] = set()

    # A field the frontend already explained (``SELECT *`` over an unknown table) gets no
    # second, derived entry for the same unknown.
    explained = {item.field for item in statement.uncertain if item.field is not None}

    def note(field: str | None, reason: str, derived: bool = True) -> None:
        if derived and field in explained:
            return
        if (field, reason) not in seen_uncertain:
            seen_uncertain.add((field, reason))
            uncertain.append(new_uncertain_item(field, reason))

    root = statement.root
    # What the frontend found uncertain about a field that is not an output (a ``*`` inside a
    # derived table whose named columns were resolved) does not concern the answer: an output
    # that depends on it carries a non-exact source and its own entry.
    outputs_named = _output_names(statement) if statement.uncertain else None
    unless_said = []
    for item in statement.uncertain:
        if item.unless_said:
            unless_said.append(item.reason)
        elif item.field is None or outputs_named is None or item.field in outputs_named:
            note(item.field, item.reason, derived=False)

    if root is not None:
        if statement.writes is not None:
            outputs = [(w.name, w.field) for w in statement.writes]
        else:
            outputs = [(f.name, f.id) for f in root.fields]
        answers = graph.end_to_end.answer([target for _, target in outputs], root.id)
        # Fields of one relation share their indirect sources (often the very same mapping):
        # render each mapping once.  Value sources sort before every indirect kind, so a
        # field's answer is its rendered value part followed by its indirect part.
        rendered_indirect: dict[int, tuple[list[SourceColumn], list[str]]] = {}
        for (name, _), (values, indirect) in zip(outputs, answers):
            value_part, value_notes = _render([(_VALUE, column, found) for column, found in values.items()])
            cached = rendered_indirect.get(id(indirect))
            if cached is None:
                cached = _render([(relationship, column, found) for (column, relationship), found in indirect.items()])
                rendered_indirect[id(indirect)] = cached
            indirect_part, indirect_notes = cached
            for reason in value_notes + indirect_notes:
                note(name, reason)
            fields.append(new_field_answer(name, value_part + indirect_part))
    rows = None
    if isinstance(root, Modify):
        indirect = graph.end_to_end.indirect_sources(root.rows_id)
        rows, notes = _render([(relationship, column, found) for (column, relationship), found in indirect.items()])
        for reason in notes:
            note(None, reason)
    if unless_said:
        said = {reason for _, reason in seen_uncertain}
        for reason in unless_said:
            if reason not in said:
                note(None, reason, derived=False)
    return StatementAnswer.model_construct(
        index=statement.index, kind=statement.kind, target=statement.target, reads=tables_read(statement, graph.summaries),
        writes=[statement.target] if statement.target is not None else [], fields=fields, uncertain=uncertain,
        rows=rows, procedure=statement.procedure,
    )


def tables_read(statement: Statement, summaries: "ScriptSummaries | None" = None) -> list[str]:
    """The tables a statement reads, sorted: every table its plan scans, in any clause (FROM,
    joins, subqueries, a MERGE's target …), as the schema spells it (as written when the
    schema does not declare it).  A FROM item that is not a table (a table function the
    engine does not analyse) is no table; its ``uncertain`` entry says so.  ``summaries``:
    the tables under a script's rows are taken from their summaries (lineage/through.py)."""
    if statement.reads is not None:
        return list(statement.reads)
    if statement.root is None:
        return []
    if summaries is not None:
        return sorted(summaries.tables(statement.root))
    return sorted(scanned_tables(statement.root))


def _output_names(statement: Statement) -> set[str] | None:
    if statement.root is None:
        return None
    if statement.writes is not None:
        return {w.name for w in statement.writes}
    return {f.name for f in statement.root.fields}


# Rendered sources by (relationship, column key, transformation, confidence): the same
# dependency recurs across fields and statements.
_RENDERED: dict[tuple, SourceColumn] = {}


def _render(sources: list) -> tuple[list[SourceColumn], list[str]]:
    """The answer's sources, sorted by kind then column, and the reasons of non-exact ones."""
    sources = merged_in_order(sources)
    rendered = []
    notes = []
    for relationship, column, (transformation, confidence, reason) in sources:
        key = (relationship, column, transformation, confidence)
        source = _RENDERED.get(key)
        if source is None:
            if len(_RENDERED) >= _SOURCES_LIMIT:
                _RENDERED.clear()
            target, path = split(column)
            source = _source(column_name(target), relationship.value, transformation.value, confidence.value, path)
            _RENDERED[key] = source
        rendered.append(source)
        if confidence is not _EXACT:
            notes.append(reason or f"lineage from {source.column} is {confidence.value}")
    return rendered, notes
