"""JSON Schema validation of OpenLineage documents, exported and ingested.

The schemas are in ``schemas/``: the core event model 2-0-2 and ColumnLineageDatasetFacet 1-2-0
(transcribed, because openlineage-python ships its classes but not the .json files, and no PyPI
package ships them; tests/openlineage/test_schemas.py checks them against the client's classes),
and our own prismLineage facet.  An event is checked against the core schema; each facet we know
(columnLineage, prismLineage) against its own schema; any other facet against the generic facet
definition of the core (``_producer`` and ``_schemaURL``), as OpenLineage consumers do.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from importlib import resources
from typing import Any

CORE = "https://openlineage.io/spec/2-0-2/OpenLineage.json"
COLUMN_LINEAGE = "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json"
PRISM = "urn:prism-lineage:spec:facets:1-0-0:PrismLineageDatasetFacet.json"

_FILES = {
    CORE: "OpenLineage-2-0-2.json",
    COLUMN_LINEAGE: "ColumnLineageDatasetFacet-1-2-0.json",
    PRISM: "PrismLineageDatasetFacet-1-0-0.json",
}

# Facets we read or write, checked against their own schema (the key is the facet's name in a
# dataset's ``facets``).
_FACETS = {
    "columnLineage": (COLUMN_LINEAGE, "ColumnLineageDatasetFacet"),
    "prismLineage": (PRISM, "PrismLineageDatasetFacet"),
}

# At most this many problems are reported for one document: the first ones name the cause.
_MAX_PROBLEMS = 5


def schema(uri: str) -> dict[str, Any]:
    """One of the shipped schemas, by its ``$id``."""
    return _schemas()[uri]


@functools.cache
def _schemas() -> dict[str, dict[str, Any]]:
    folder = resources.files(__package__) / "schemas"
    return {uri: json.loads((folder / name).read_text(encoding="utf-8")) for uri, name in _FILES.items()}


@functools.cache
def _validator(uri: str, definition: str):
    # jsonschema and referencing are imported here: only the commands that read or write
    # OpenLineage pay for them.
    from jsonschema import Draft202012Validator, FormatChecker
    from referencing import Registry, Resource

    registry = Registry().with_resources(
        (key, Resource.from_contents(contents)) for key, contents in _schemas().items()
    )
    return Draft202012Validator({"$ref": f"{uri}#/$defs/{definition}"}, registry=registry,
                                format_checker=FormatChecker())


def event_kind(document: dict[str, Any]) -> str:
    """RunEvent, DatasetEvent or JobEvent, by the keys the document has (as the spec tells them
    apart): a run makes a run event, a dataset without a job a dataset event."""
    if "run" in document:
        return "RunEvent"
    if "dataset" in document and "job" not in document:
        return "DatasetEvent"
    return "JobEvent"


def problems(document: Any, kind: str | None = None) -> list[str]:
    """What is wrong with an OpenLineage event, each as ``<where>: <what>``; empty when valid.
    ``kind`` (RunEvent, JobEvent, DatasetEvent) is the event kind expected; by default the kind
    the document's keys say."""
    if not isinstance(document, dict):
        return [f"$: an OpenLineage event is a JSON object, not {_json_type(document)}"]
    found = list(_errors(_validator(CORE, kind or event_kind(document)), document, "$"))
    for where, facets in _dataset_facets(document):
        for key, (uri, definition) in _FACETS.items():
            facet = facets.get(key)
            if isinstance(facet, dict):
                found.extend(_errors(_validator(uri, definition), facet, f"{where}.facets.{key}"))
        if len(found) >= _MAX_PROBLEMS:
            break
    return found[:_MAX_PROBLEMS]


# Ingestion checks every event: fastjsonschema (the schemas compiled to Python, ~70× faster)
# gives the verdict, and jsonschema, the reference, explains a document it refuses (and has the
# last word: a document jsonschema finds nothing wrong with is accepted).
_UUID = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"


@functools.cache
def _fast(uri: str, definition: str):
    import fastjsonschema

    def resolve(reference: str) -> dict[str, Any]:
        return _schemas()[reference.split("#", 1)[0]]

    return fastjsonschema.compile(
        {"$schema": "http://json-schema.org/draft-07/schema#", "$ref": f"{uri}#/$defs/{definition}"},
        handlers={"https": resolve, "urn": resolve}, formats={"uuid": _UUID})


def _checked(uri: str, definition: str, instance: Any, root: str) -> list[str]:
    from fastjsonschema import JsonSchemaException

    try:
        _fast(uri, definition)(instance)
        return []
    except JsonSchemaException:
        return list(_errors(_validator(uri, definition), instance, root))[:_MAX_PROBLEMS]


def core_problems(document: Any, kind: str) -> list[str]:
    """What is wrong with an event against the core schema alone (its facets' own schemas are
    not applied: an ingested event with a malformed optional facet still says what ran)."""
    if not isinstance(document, dict):
        return [f"$: an OpenLineage event is a JSON object, not {_json_type(document)}"]
    return _checked(CORE, kind, document, "$")


def facet_problems(key: str, facet: Any) -> list[str]:
    """What is wrong with one facet we know (``columnLineage``, ``prismLineage``)."""
    uri, definition = _FACETS[key]
    return _checked(uri, definition, facet, f"$.{key}")


class InvalidDocument(ValueError):
    def __init__(self, found: list[str]):
        super().__init__("; ".join(found))
        self.problems = found


def validate(document: Any, kind: str | None = None) -> None:
    """Raise ``InvalidDocument`` naming what is wrong, unless ``document`` is a valid event."""
    found = problems(document, kind)
    if found:
        raise InvalidDocument(found)


def _errors(validator, instance: Any, root: str) -> Iterator[str]:
    from jsonschema.exceptions import relevance

    for error in sorted(validator.iter_errors(instance), key=relevance):
        # An error under allOf/anyOf says little by itself: its most relevant cause says more.
        cause = min(error.context, key=relevance) if error.context else error
        path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in cause.absolute_path)
        yield f"{root}{path}: {cause.message}"


def _dataset_facets(document: dict[str, Any]) -> Iterator[tuple[str, dict]]:
    for key in ("inputs", "outputs"):
        datasets = document.get(key)
        if isinstance(datasets, list):
            for number, dataset in enumerate(datasets):
                if isinstance(dataset, dict) and isinstance(dataset.get("facets"), dict):
                    yield f"$.{key}[{number}]", dataset["facets"]
    dataset = document.get("dataset")
    if isinstance(dataset, dict) and isinstance(dataset.get("facets"), dict):
        yield "$.dataset", dataset["facets"]


def _json_type(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return "a number"
