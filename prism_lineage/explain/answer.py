"""Turning a statement's plan-level lineage into the end-to-end answer of ``explain``."""

from __future__ import annotations

from ..ir import Statement
from ..lineage.edges import column_name
from ..lineage.graph import LineageGraph
from ..lineage.kinds import RELATIONSHIP_ORDER, Confidence, Relationship
from .models import FieldAnswer, SourceColumn, StatementAnswer, UncertainItem


# Answers repeat the same sources across fields and statements (every field of a query shares
# its relation's join and control sources): frozen models can be shared, so build each once.
_SOURCES: dict[tuple, SourceColumn] = {}
_SOURCES_LIMIT = 100_000


def _source(column: str, relationship: str, transformation: str, confidence: str) -> SourceColumn:
    key = (column, relationship, transformation, confidence)
    found = _SOURCES.get(key)
    if found is None:
        if len(_SOURCES) >= _SOURCES_LIMIT:
            _SOURCES.clear()
        found = SourceColumn.model_construct(
            column=column, relationship=relationship, transformation=transformation, confidence=confidence
        )
        _SOURCES[key] = found
    return found


def answer_statement(statement: Statement, graph: LineageGraph) -> StatementAnswer:
    fields: list[FieldAnswer] = []
    uncertain: list[UncertainItem] = []
    seen_uncertain: set[tuple[str | None, str]] = set()

    def note(field: str | None, reason: str) -> None:
        if (field, reason) not in seen_uncertain:
            seen_uncertain.add((field, reason))
            uncertain.append(UncertainItem.model_construct(field=field, reason=reason))

    for item in statement.uncertain:
        note(item.field, item.reason)

    root = statement.root
    if root is not None:
        if statement.writes is not None:
            outputs = [(w.name, w.field) for w in statement.writes]
        else:
            outputs = [(f.name, f.id) for f in root.fields]
        answers = graph.end_to_end.answer([target for _, target in outputs], root.id)
        for (name, _), (values, indirect) in zip(outputs, answers):
            sources = [
                (Relationship.VALUE, column, found) for column, found in values.items()
            ] + [(relationship, column, found) for (column, relationship), found in indirect.items()]
            sources.sort(key=lambda s: (RELATIONSHIP_ORDER[s[0]], s[1]))
            rendered = []
            for relationship, column, (transformation, confidence, reason) in sources:
                rendered.append(_source(column_name(column), relationship.value, transformation.value,
                                        confidence.value))
                if confidence is not Confidence.EXACT:
                    note(name, reason or f"lineage from {column_name(column)} is {confidence.value}")
            fields.append(FieldAnswer.model_construct(name=name, sources=rendered))
    return StatementAnswer.model_construct(
        index=statement.index, kind=statement.kind, target=statement.target, fields=fields, uncertain=uncertain
    )
