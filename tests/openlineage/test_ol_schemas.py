"""The shipped OpenLineage schemas are the ones the client's classes are generated from.

openlineage-python ships its generated classes but not the JSON Schema files, and no PyPI
package ships them, so prism_lineage/openlineage/schemas/ holds a transcription.  These tests
hold it to the installed client: same schema versions, the same properties, the same required
ones, the same basic types and enums, and open objects exactly where the client's class takes
additional properties.  A client upgrade that moves a version fails here first.
"""

from __future__ import annotations

import enum
import types
import typing

import attr
import pytest
from openlineage.client.generated import base, column_lineage_dataset

from prism_lineage.openlineage import validation

CORE = validation.CORE
COLUMN = validation.COLUMN_LINEAGE

CASES = [
    (CORE, name, getattr(base, name)) for name in (
        "BaseEvent", "RunEvent", "JobEvent", "DatasetEvent", "Run", "Job", "Dataset", "StaticDataset",
        "InputDataset", "OutputDataset", "BaseFacet", "RunFacet", "JobFacet", "DatasetFacet", "InputDatasetFacet",
        "OutputDatasetFacet",
    )
] + [
    (COLUMN, "ColumnLineageDatasetFacet", column_lineage_dataset.ColumnLineageDatasetFacet),
    (COLUMN, "InputField", column_lineage_dataset.InputField),
]


def resolve(uri: str, pointer: str) -> dict:
    node = validation.schema(uri)
    for part in pointer.strip("/").split("/"):
        node = node[part]
    return node


def flatten(uri: str, node: dict) -> tuple[dict, set, object]:
    """(properties, required, additionalProperties) of a definition, through allOf and $ref."""
    properties: dict = {}
    required: set = set()
    additional = node.get("additionalProperties")
    ref = node.get("$ref")
    if ref:
        target_uri, _, pointer = ref.partition("#")
        target_uri = target_uri or uri
        p, r, a = flatten(target_uri, resolve(target_uri, pointer))
        properties.update(p)
        required |= r
        additional = a if additional is None else additional
    for part in node.get("allOf", []):
        p, r, a = flatten(uri, part)
        properties.update(p)
        required |= r
        if a is not None:
            additional = a
    properties.update(node.get("properties", {}))
    required |= set(node.get("required", []))
    return properties, required, additional


# The client always fills these (``__attrs_post_init__`` sets the producer and schema URL), so
# they are optional arguments of the class and required keys of the schema.
ALWAYS_SET = {"producer", "_producer", "schemaURL", "_schemaURL"}


def client_fields(cls) -> tuple[dict, set]:
    hints = typing.get_type_hints(cls, vars(base) | vars(column_lineage_dataset))
    fields = {}
    required = set()
    for field in attr.fields(cls):
        fields[field.name] = hints[field.name]
        if field.default is attr.NOTHING or field.name in ALWAYS_SET:
            required.add(field.name)
    return fields, required


def json_type(hint) -> set[str]:
    args = [a for a in typing.get_args(hint) if a is not type(None)] if typing.get_origin(hint) in (
        typing.Union, types.UnionType) else [hint]
    found = set()
    for arg in args:
        origin = typing.get_origin(arg) or arg
        if isinstance(origin, type) and issubclass(origin, enum.Enum):
            found.add("string")  # the client's enums are of strings (EventType)
        else:
            found.add({str: "string", bool: "boolean", int: "integer", list: "array", dict: "object"}.get(origin, "object"))
    return found


@pytest.mark.parametrize("uri, name, cls", CASES, ids=[c[1] for c in CASES])
def test_definition_matches_the_client_class(uri: str, name: str, cls) -> None:
    assert cls._get_schema() == f"{uri}#/$defs/{name}", "the client moved to another schema version"
    properties, required, additional = flatten(uri, resolve(uri, f"$defs/{name}"))
    fields, client_required = client_fields(cls)
    assert set(properties) == set(fields)
    assert required == client_required
    for key, hint in fields.items():
        declared = properties[key].get("type")
        if declared is not None:
            assert {declared} == json_type(hint), key
    takes_more = hasattr(cls, "with_additional_properties")
    assert (additional is True) == takes_more


def test_nested_column_lineage_definitions_match_the_client() -> None:
    facet = resolve(COLUMN, "$defs/ColumnLineageDatasetFacet")
    fields_schema = facet["allOf"][1]["properties"]["fields"]["additionalProperties"]
    fields, required = client_fields(column_lineage_dataset.Fields)
    assert set(fields_schema["properties"]) == set(fields) and set(fields_schema["required"]) == required
    assert fields_schema["additionalProperties"] is True
    transformation = resolve(COLUMN, "$defs/InputField")["properties"]["transformations"]["items"]
    fields, required = client_fields(column_lineage_dataset.Transformation)
    assert set(transformation["properties"]) == set(fields) and set(transformation["required"]) == required
    assert transformation["additionalProperties"] is True


def test_event_types_match_the_client() -> None:
    properties, _, _ = flatten(CORE, resolve(CORE, "$defs/RunEvent"))
    assert properties["eventType"]["enum"] == [t.value for t in base.EventType]


def test_the_schemas_refuse_what_the_spec_refuses() -> None:
    good = {
        "eventTime": "2026-01-01T00:00:00Z", "producer": "urn:x", "schemaURL": f"{CORE}#/$defs/RunEvent",
        "eventType": "COMPLETE", "run": {"runId": "0195e4b4-9a0f-7b5e-8e2f-1f2a3b4c5d6e"},
        "job": {"namespace": "n", "name": "j"},
    }
    assert validation.problems(good) == []
    cases = {
        "run.runId": {**good, "run": {"runId": "not-a-uuid"}},
        "eventTime": {**good, "eventTime": "yesterday"},
        "eventType": {**good, "eventType": "DONE"},
        "job": {key: value for key, value in good.items() if key != "job"},
        "producer": {**good, "producer": "not a uri"},
        "inputs[0]": {**good, "inputs": [{"namespace": "n"}]},
    }
    for where, document in cases.items():
        found = validation.problems(document)
        assert found and where in found[0], (where, found)


def test_a_bad_column_lineage_facet_is_named() -> None:
    facet = {"_producer": "urn:x", "_schemaURL": f"{COLUMN}#/$defs/ColumnLineageDatasetFacet",
             "fields": {"a": {"inputFields": [{"namespace": "n", "name": "t"}]}}}
    document = {
        "eventTime": "2026-01-01T00:00:00Z", "producer": "urn:x", "schemaURL": f"{CORE}#/$defs/JobEvent",
        "job": {"namespace": "n", "name": "j"}, "outputs": [{"namespace": "n", "name": "o", "facets": {"columnLineage": facet}}],
    }
    found = validation.problems(document)
    assert found and found[0].startswith("$.outputs[0].facets.columnLineage.fields.a.inputFields[0]")
    assert "'field' is a required property" in found[0]


def test_the_fast_check_and_the_reference_agree() -> None:
    """Ingestion's verdict (fastjsonschema) and the reference (jsonschema) on good and bad events."""
    from fastjsonschema import JsonSchemaException

    good = {
        "eventTime": "2026-01-01T00:00:00.5+01:00", "producer": "urn:prism-lineage:0.1.0",
        "schemaURL": f"{CORE}#/$defs/RunEvent", "eventType": "COMPLETE",
        "run": {"runId": "0195e4b4-9a0f-7b5e-8e2f-1f2a3b4c5d6e", "facets": {"x": {"_producer": "https://p", "_schemaURL": "https://s"}}},
        "job": {"namespace": "n", "name": "j"}, "inputs": [{"namespace": "n", "name": "a", "facets": {}}],
        "outputs": [{"namespace": "n", "name": "b", "outputFacets": {}}],
    }
    variants = [good, {**good, "run": {"runId": "nope"}}, {**good, "eventTime": "2026-01-01"},
                {**good, "producer": "no uri here"}, {**good, "eventType": "DONE"}, {**good, "inputs": [{"name": "a"}]},
                {**good, "run": {"runId": good["run"]["runId"], "facets": {"x": {"_producer": "https://p"}}}},
                {**good, "job": {"namespace": 1, "name": "j"}}, {**good, "outputs": "b"}]
    for document in variants:
        try:
            validation._fast(CORE, "RunEvent")(document)
            fast = True
        except JsonSchemaException:
            fast = False
        reference = not list(validation._validator(CORE, "RunEvent").iter_errors(document))
        assert fast == reference, document
