"""Reading our export back: the facets of a written dataset → the statement's answer.

The prismLineage facet holds the answer; the columnLineage facet beside it must be its
projection onto the standard vocabulary (a document whose two facets disagree was edited or
made by something else, and is refused rather than half-believed).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ..errors import UsageError
from ..explain.models import Explanation, FieldAnswer, SourceColumn, StatementAnswer, UncertainItem
from .conditional import ConditionalSource
from .export import COLUMN_LINEAGE_KEY, column_lineage_facet, to_document
from .facets import FACET_KEY
from .validation import facet_problems, problems


class NotOurExport(UsageError):
    """A document that is not (or no longer) what ``explain --format openlineage`` wrote."""


def _source(entry: dict[str, Any]) -> SourceColumn:
    return SourceColumn(**entry)


def answer_from_facets(facets: dict[str, Any]) -> StatementAnswer:
    """The answer a dataset's ``facets`` (JSON, as exported) were made from."""
    ours = facets.get(FACET_KEY)
    if not isinstance(ours, dict):
        raise NotOurExport(f"the dataset has no {FACET_KEY} facet: it was not exported by prism-lineage "
                           "(its columnLineage facet alone does not say confidence, kinds or what is unknown)")
    found = facet_problems(FACET_KEY, ours)
    if found:
        raise NotOurExport(f"the {FACET_KEY} facet is not valid: {found[0]}")
    head = ours["statement"]
    answer = StatementAnswer(
        index=head["index"], kind=head["kind"], target=head.get("target"),
        reads=head.get("reads", []), writes=head.get("writes", []),
        fields=[FieldAnswer(name=f["name"], sources=[_source(s) for s in f["sources"]]) for f in ours["fields"]],
        uncertain=[UncertainItem(field=u.get("field"), reason=u["reason"]) for u in ours.get("uncertain", [])],
        rows=None if ours.get("rows") is None else [_source(s) for s in ours["rows"]],
        procedure=head.get("procedure"),
    )
    standard = facets.get(COLUMN_LINEAGE_KEY)
    if not isinstance(standard, dict):
        raise NotOurExport(f"the dataset has a {FACET_KEY} facet but no {COLUMN_LINEAGE_KEY} facet beside it")
    _check_agrees(answer, standard, _conditional(answer, ours["fields"]))
    return answer


def conditional_from_facets(facets: dict[str, Any]) -> list[tuple[ConditionalSource, ...]]:
    """Per output field of an exported answer: the value sources that reach it through a CASE/IF
    condition (what the standard facet's CONDITIONAL entries say), as the export recorded them."""
    answer = answer_from_facets(facets)
    return _conditional(answer, facets[FACET_KEY]["fields"])


def _conditional(answer: StatementAnswer, fields: list[dict[str, Any]]) -> list[tuple[ConditionalSource, ...]]:
    out = []
    for field, entry in zip(answer.fields, fields):
        values = {s.column for s in field.sources if s.relationship == "value"}
        found = tuple(ConditionalSource(c["column"], c["only"]) for c in entry.get("conditional", []))
        for condition in found:
            if condition.column not in values:
                raise NotOurExport(f"the {FACET_KEY} facet says {condition.column} is a condition of {field.name}, "
                                   "which it is not a value source of")
        out.append(found)
    return out


def _normal(facet: dict[str, Any]) -> dict[str, Any]:
    """A column-lineage facet without its envelope, input fields and transformations as sets:
    the order of a JSON list says nothing here."""

    def inputs(entries: Iterable[dict[str, Any]]) -> frozenset:
        return frozenset(
            (e["namespace"], e["name"], e["field"],
             frozenset(json.dumps(t, sort_keys=True) for t in e.get("transformations", [])))
            for e in entries
        )

    return {
        "fields": {name: inputs(entry.get("inputFields", [])) for name, entry in facet.get("fields", {}).items()},
        "dataset": inputs(facet.get("dataset", [])),
    }


def _check_agrees(answer: StatementAnswer, standard: dict[str, Any],
                  conditional: list[tuple[ConditionalSource, ...]]) -> None:
    namespaces = {e["namespace"] for entry in standard.get("fields", {}).values() for e in entry.get("inputFields", [])}
    namespaces |= {e["namespace"] for e in standard.get("dataset", [])}
    namespace = next(iter(namespaces)) if len(namespaces) == 1 else "default"
    expected = _normal(to_document(column_lineage_facet(answer, namespace=namespace, conditional=conditional)))
    if _normal(standard) != expected:
        raise NotOurExport(f"the {COLUMN_LINEAGE_KEY} facet does not agree with the {FACET_KEY} facet beside it: "
                           "one of them was changed after export")


def explanation_from_events(documents: Iterable[dict[str, Any]]) -> Explanation:
    """The explanation that ``explain --format openlineage`` exported as these events."""
    statements = []
    for number, document in enumerate(documents, 1):
        found = problems(document)
        if found:
            raise NotOurExport(f"event {number} is not a valid OpenLineage event: {found[0]}")
        outputs = document.get("outputs") or []
        if len(outputs) != 1:
            raise NotOurExport(f"event {number} has {len(outputs)} outputs; an exported statement writes one")
        statements.append(answer_from_facets(outputs[0].get("facets") or {}))
    return Explanation(statements=statements)
