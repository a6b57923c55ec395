"""Our answers as OpenLineage: the standard ColumnLineageDatasetFacet, the prismLineage facet
beside it, and a JobEvent per statement (specs/openlineage.md, "Export").

The standard facet holds every value and indirect dependency the OpenLineage vocabulary can
say; a dependency every output field shares (or, for UPDATE/DELETE/MERGE, one that decides which
rows change) is relation-wide and goes in the facet's dataset-level list, the others under
their field.  The prismLineage facet holds the whole answer in our words, so nothing is lost.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from typing import Any

from openlineage.client.event_v2 import InputDataset, Job, JobEvent, OutputDataset
from openlineage.client.generated.column_lineage_dataset import (
    ColumnLineageDatasetFacet,
    Fields,
    InputField,
    Transformation,
)
from openlineage.client.serde import Serde

from .. import __version__
from ..errors import UsageError
from ..explain.models import Explanation, SourceColumn, StatementAnswer
from ..ir import Statement
from .conditional import ConditionalSource
from .facets import FACET_KEY, PrismLineageDatasetFacet
from .mapping import CONDITIONAL, INDIRECT, to_standard

# A URI naming this producer and its version (OpenLineage asks for a URI; prism-lineage has no
# web address of its own, so a URN).
PRODUCER = f"urn:prism-lineage:{__version__}"
DEFAULT_NAMESPACE = "default"
DEFAULT_JOB_NAMESPACE = "prism-lineage"
COLUMN_LINEAGE_KEY = "columnLineage"

_VALUE = "value"


def split_column(column: str) -> tuple[str, str]:
    """``db.sales.orders.amount`` → (``db.sales.orders``, ``amount``): the dataset is the table
    as the schema names it, the field its column."""
    table, _, name = column.rpartition(".")
    return table, name


def _statement(answer: StatementAnswer | Explanation) -> StatementAnswer:
    if isinstance(answer, Explanation):
        if len(answer.statements) != 1:
            raise UsageError(
                f"the explanation holds {len(answer.statements)} statements and a column-lineage facet describes "
                "one: pass one of explanation.statements (or use job_events for all of them)")
        return answer.statements[0]
    if isinstance(answer, StatementAnswer):
        return answer
    raise UsageError(f"expected an explain answer (Explanation or StatementAnswer), not {type(answer).__name__}")


def _key(source: SourceColumn) -> tuple:
    return (source.column, source.relationship, source.transformation, source.confidence, source.path)


def relation_wide(statement: StatementAnswer) -> list[SourceColumn]:
    """The dependencies that concern the whole written relation rather than one field: for
    UPDATE/DELETE/MERGE what decides which rows change; otherwise the indirect dependencies every
    output field shares (a filter, a join, a grouping of the whole query), in the answer's order."""
    if statement.rows is not None:
        return list(statement.rows)
    if not statement.fields:
        return []
    others = [{_key(s) for s in field.sources} for field in statement.fields[1:]]
    return [s for s in statement.fields[0].sources
            if s.relationship != _VALUE and all(_key(s) in keys for keys in others)]


# How a value source reaches its field through CASE/IF conditions (conditional.py): only through
# them (CONDITIONAL instead of DIRECT), also through them (both), or not (None).
ONLY, ALSO = "only", "also"
Conditional = Sequence[Sequence[ConditionalSource]]


def _transformations(source: SourceColumn, condition: str | None = None) -> list[Transformation]:
    standard = to_standard(source.relationship, source.transformation)
    if standard is None:
        return []
    description = None
    if source.confidence != "exact":
        # The standard facet has no word for confidence; a reader that shows descriptions is told.
        description = f"confidence {source.confidence} (see the {FACET_KEY} facet)"
    out = []
    if condition != ONLY:
        out.append(Transformation(type=standard.type, subtype=standard.subtype, description=description,
                                  masking=standard.masking))
    if condition is not None:
        out.append(Transformation(type=INDIRECT, subtype=CONDITIONAL, description=description))
    return out


def _input_fields(sources: Iterable[SourceColumn | tuple[SourceColumn, str | None]],
                  namespace: str) -> list[InputField]:
    """One InputField per column, with the transformations of every dependency on it (each
    once), in the order the answer first names the column.  A source may come with how it
    reaches its field through conditions (ONLY, ALSO)."""
    grouped: dict[tuple[str, str], list[Transformation]] = {}
    for entry in sources:
        source, condition = entry if isinstance(entry, tuple) else (entry, None)
        transformations = _transformations(source, condition)
        if not transformations:
            continue
        found = grouped.setdefault(split_column(source.column), [])
        for transformation in transformations:
            if transformation not in found:
                found.append(transformation)
    return [InputField(namespace=namespace, name=name, field=field, transformations=transformations)
            for (name, field), transformations in grouped.items()]


def column_lineage_facet(answer: StatementAnswer | Explanation, *, namespace: str = DEFAULT_NAMESPACE,
                         producer: str = PRODUCER, conditional: Conditional | None = None) -> ColumnLineageDatasetFacet:
    """The OpenLineage ColumnLineageDatasetFacet (1-2-0) of one statement's answer (an
    ``Explanation`` of one statement is accepted too).  Input datasets are named as the answer
    names tables, in ``namespace``.  Output fields that share a name share one entry (the
    facet's fields are a map); the prismLineage facet keeps them apart.  ``conditional`` (per
    field, from ``conditional_sources``: ``job_events`` works it out from the plans) says which
    value sources reach their field through a CASE/IF condition: they are INDIRECT/CONDITIONAL."""
    statement = _statement(answer)
    wide = relation_wide(statement)
    wide_keys = {_key(s) for s in wide}
    conditions = _conditions(statement, conditional)
    fields: dict[str, list[tuple[SourceColumn, str | None]]] = {}
    for number, field in enumerate(statement.fields):
        entry = fields.setdefault(field.name, [])
        by_column = conditions[number]
        for source in field.sources:
            if _key(source) in wide_keys:
                continue
            condition = by_column.get(source.column) if source.relationship == _VALUE else None
            if (source, condition) not in entry:
                entry.append((source, condition))
    return ColumnLineageDatasetFacet(
        fields={name: Fields(inputFields=_input_fields(sources, namespace)) for name, sources in fields.items()},
        dataset=_input_fields(wide, namespace),
        producer=producer,
    )


def _conditions(statement: StatementAnswer, conditional: Conditional | None) -> list[dict[str, str]]:
    """Per field: column → ONLY or ALSO, for the value sources of the field that reach it through
    conditions (a column ``conditional`` names that is no value source of the field is left out)."""
    if conditional is None or len(conditional) != len(statement.fields):
        return [{} for _ in statement.fields]
    out = []
    for field, found in zip(statement.fields, conditional):
        values = {s.column for s in field.sources if s.relationship == _VALUE}
        out.append({c.column: ONLY if c.only else ALSO for c in found if c.column in values})
    return out


def _source_dict(source: SourceColumn) -> dict[str, Any]:
    return source.model_dump()


def _field_origins(plan: Statement | None) -> list[dict[str, Any] | None]:
    """Where each output field was written, in the order of the answer's fields."""
    if plan is None or plan.root is None:
        return []
    fields = {f.id: f for f in plan.root.fields}
    if plan.writes is not None:
        chosen = [fields.get(w.field) for w in plan.writes]
    else:
        chosen = list(plan.root.fields)
    return [f.origin.to_dict() if f is not None and f.origin is not None else None for f in chosen]


def prism_lineage_facet(answer: StatementAnswer | Explanation, *, plan: Statement | None = None,
                        producer: str = PRODUCER, conditional: Conditional | None = None) -> PrismLineageDatasetFacet:
    """The prismLineage facet of one statement's answer: everything the answer says, in our
    vocabulary, and with ``plan`` (the statement's IR, from ``prism_lineage.explain.lower``)
    where the statement and each output field were written; with ``conditional``, which value
    sources of each field reach it through CASE/IF conditions (what the standard facet's
    CONDITIONAL entries were made from)."""
    statement = _statement(answer)
    conditions = _conditions(statement, conditional)
    head: dict[str, Any] = {"index": statement.index, "kind": statement.kind}
    if statement.target is not None:
        head["target"] = statement.target
    head["reads"] = list(statement.reads)
    head["writes"] = list(statement.writes)
    if statement.procedure is not None:  # a statement of a routine's body (sql-correctness, issue 9 item 15)
        head["procedure"] = statement.procedure
    if plan is not None and plan.origin is not None:
        head["origin"] = plan.origin.to_dict()
    origins = _field_origins(plan)
    fields = []
    for number, field in enumerate(statement.fields):
        entry: dict[str, Any] = {"name": field.name, "sources": [_source_dict(s) for s in field.sources]}
        if number < len(origins) and origins[number] is not None:
            entry["origin"] = origins[number]
        if conditions[number]:
            entry["conditional"] = [{"column": column, "only": how == ONLY}
                                    for column, how in sorted(conditions[number].items())]
        fields.append(entry)
    uncertain = [{"reason": u.reason} if u.field is None else {"field": u.field, "reason": u.reason}
                 for u in statement.uncertain]
    rows = None if statement.rows is None else [_source_dict(s) for s in statement.rows]
    return PrismLineageDatasetFacet(statement=head, fields=fields, uncertain=uncertain, rows=rows, producer=producer)


def dataset_facets(answer: StatementAnswer | Explanation, *, namespace: str = DEFAULT_NAMESPACE,
                   plan: Statement | None = None, producer: str = PRODUCER,
                   conditional: Conditional | None = None) -> dict[str, Any]:
    """``{"columnLineage": …, "prismLineage": …}``: the facets of the dataset a statement writes."""
    return {
        COLUMN_LINEAGE_KEY: column_lineage_facet(answer, namespace=namespace, producer=producer,
                                                 conditional=conditional),
        FACET_KEY: prism_lineage_facet(answer, plan=plan, producer=producer, conditional=conditional),
    }


def plan_conditions(plan: Statement, functions=None) -> list[tuple[ConditionalSource, ...]]:
    """``conditional_sources`` of a statement's plan, its lineage edges built with ``functions``
    (the default registry when None), on the deep-stack worker (a plan of many hops)."""
    from ..functions import FunctionRegistry
    from ..guarded import run_guarded
    from ..lineage.graph import LineageGraph
    from .conditional import conditional_sources

    registry = functions if functions is not None else FunctionRegistry.default()
    return run_guarded(lambda: conditional_sources(plan, LineageGraph.of(plan, registry).edges))


def event_time() -> str:
    """Now, or the time ``SOURCE_DATE_EPOCH`` says (the reproducible-builds convention), so a
    document can be made byte for byte again."""
    fixed = os.environ.get("SOURCE_DATE_EPOCH")
    if fixed is not None and fixed.strip().isdigit():
        moment = datetime.fromtimestamp(int(fixed), tz=timezone.utc)
    else:
        moment = datetime.now(tz=timezone.utc)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def job_name_for(source: str, index: int, count: int) -> str:
    """A statement's job: the file (or ``stdin``) it came from, numbered when it holds several."""
    return source if count == 1 else f"{source}#{index + 1}"


def job_events(explanation: Explanation, *, source: str = "query", namespace: str = DEFAULT_NAMESPACE,
               job_namespace: str = DEFAULT_JOB_NAMESPACE, plans: Sequence[Statement] | None = None,
               producer: str = PRODUCER, time: str | None = None, functions=None) -> list[JobEvent]:
    """One OpenLineage JobEvent (static lineage: no run) per statement.

    The job is named after ``source`` (and the statement's number when there are several); its
    inputs are the tables the statement reads; its one output is the table or view it writes,
    in ``namespace``, or, for a query, its result, named as the job in ``job_namespace``.  The
    output carries the columnLineage and prismLineage facets.  With ``plans`` (the statements'
    IR, lowered with the same ``functions`` registry), the facets say where each statement and
    field was written and which value sources are CASE/IF conditions (CONDITIONAL).
    """
    when = time or event_time()
    count = len(explanation.statements)
    by_index = {p.index: p for p in plans} if plans is not None else {}
    events = []
    for statement in explanation.statements:
        name = job_name_for(source, statement.index, count)
        # The tables the plan scans, and any a source names (a policy's lookup table).
        read = sorted(set(statement.reads) | {split_column(s.column)[0] for s in _all_sources(statement)})
        plan = by_index.get(statement.index)
        conditional = plan_conditions(plan, functions) if plan is not None else None
        facets = dataset_facets(statement, namespace=namespace, plan=plan, producer=producer, conditional=conditional)
        if statement.target is not None:
            output = OutputDataset(namespace=namespace, name=statement.target, facets=facets)
        else:
            output = OutputDataset(namespace=job_namespace, name=name, facets=facets)
        events.append(JobEvent(
            eventTime=when, producer=producer, job=Job(namespace=job_namespace, name=name),
            inputs=[InputDataset(namespace=namespace, name=table) for table in read], outputs=[output],
        ))
    return events


def _all_sources(statement: StatementAnswer) -> Iterable[SourceColumn]:
    for field in statement.fields:
        yield from field.sources
    if statement.rows is not None:
        yield from statement.rows


def to_document(event_or_facet: Any) -> dict[str, Any]:
    """The JSON object of a client event or facet, as the client serialises it."""
    return Serde.to_dict(event_or_facet)
