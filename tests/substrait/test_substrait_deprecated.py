"""Plans from older producers: the fields later Substrait releases removed are read, from JSON
and from binary protobuf alike — never silently dropped — and fields the reader does not know
at all are reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from google.protobuf import json_format

from prism_lineage.frontends.substrait import SubstraitPlan
from prism_lineage.frontends.substrait.compat import plan_schema
from prism_lineage.ir import Aggregate, Call, Filter, Limit, Literal, walk_relations

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "substrait"
OLDER = GOLDEN / "deprecated" / "older_producer.plan.json"


def as_binary(path: Path) -> bytes:
    """The plan of a JSON golden file as binary protobuf (through the reader's own schema,
    which still knows the deprecated fields, so they are written under their old numbers)."""
    plan = plan_schema().plan_class()
    json_format.Parse(path.read_text(encoding="utf-8"), plan, descriptor_pool=plan_schema().pool)
    return plan.SerializeToString()


def relation(statement, kind):
    return next(r for r in walk_relations(statement.root) if isinstance(r, kind))


@pytest.fixture(params=["json", "binary"])
def older(request):
    if request.param == "json":
        return SubstraitPlan.from_file(OLDER)
    return SubstraitPlan.from_bytes(as_binary(OLDER), name="older.bin")


def test_the_installed_schema_has_removed_these_fields() -> None:
    """What this file guards against: the package's generated classes no longer know them."""
    from substrait import algebra_pb2, plan_pb2

    assert "extension_uris" not in plan_pb2.Plan.DESCRIPTOR.fields_by_name
    assert "grouping_expressions" not in algebra_pb2.AggregateRel.Grouping.DESCRIPTOR.fields_by_name
    assert "count" not in algebra_pb2.FetchRel.DESCRIPTOR.fields_by_name
    # … so a binary plan parsed with them keeps the fields only as unknown bytes.
    from google.protobuf.unknown_fields import UnknownFieldSet

    generated = plan_pb2.Plan.FromString(as_binary(OLDER))
    assert {f.field_number for f in UnknownFieldSet(generated)} == {1}  # extension_uris
    fetch = generated.relations[0].root.input.fetch
    assert {f.field_number for f in UnknownFieldSet(fetch)} == {3, 4}  # offset, count


def test_fetch_offset_and_count_integers(older) -> None:
    limit = relation(older.to_statements()[0], Limit)
    assert isinstance(limit.count, Literal) and limit.count.value == "10"
    assert isinstance(limit.offset, Literal) and limit.offset.value == "5"


def test_fetch_count_minus_one_means_all() -> None:
    document = json.loads(OLDER.read_text(encoding="utf-8"))
    document["relations"][0]["root"]["input"]["fetch"]["count"] = "-1"
    limit = relation(SubstraitPlan.from_bytes(json.dumps(document)).to_statements()[0], Limit)
    assert limit.count is None and limit.offset.value == "5"


def test_grouping_expressions_inside_each_grouping(older) -> None:
    aggregate = relation(older.to_statements()[0], Aggregate)
    assert [f.name for f in aggregate.fields] == ["customer_id", "status", "sum", "grouping_set_index"]
    # Equal expressions of different sets are one key.
    assert aggregate.grouping_sets == ((0, 1), (0,))
    # The set index is GROUPING(every key).
    which = aggregate.measures[-1]
    assert which.function == "grouping" and [a.field for a in which.args] == [k.field for k in aggregate.keys]


def test_extension_uris_and_args(older) -> None:
    statement = older.to_statements()[0]
    condition = relation(statement, Filter).predicate
    assert isinstance(condition, Call) and condition.function == "eq" and condition.known
    assert len(condition.args) == 2  # read from the deprecated ``args``
    measure = relation(statement, Aggregate).measures[0]
    assert measure.function == "sum" and len(measure.args) == 1


def test_same_answer_from_json_and_binary() -> None:
    import prism_lineage

    from_json = prism_lineage.explain(SubstraitPlan.from_file(OLDER)).model_dump()
    from_binary = prism_lineage.explain(SubstraitPlan.from_bytes(as_binary(OLDER))).model_dump()
    assert from_json == from_binary


def test_datafusion_distinct_uses_only_the_deprecated_grouping_field() -> None:
    """DataFusion writes DISTINCT with ``Grouping.grouping_expressions`` alone."""
    datafusion = pytest.importorskip("datafusion")
    import pyarrow as pa
    from datafusion.substrait import Producer

    ctx = datafusion.SessionContext()
    ctx.register_record_batches("t", [[pa.RecordBatch.from_arrays([pa.array([1]), pa.array(["x"])], names=["a", "b"])]])
    data = Producer.to_substrait_plan(ctx.sql("SELECT DISTINCT a, b FROM t").logical_plan(), ctx).encode()
    plan = SubstraitPlan.from_bytes(data)
    aggregate_rel = plan.message.relations[0].root.input.aggregate
    assert not len(aggregate_rel.grouping_expressions) and len(aggregate_rel.groupings[0].grouping_expressions) == 2
    aggregate = relation(plan.to_statements()[0], Aggregate)
    assert [f.name for f in aggregate.fields] == ["a", "b"]


def test_fields_unknown_to_the_reader_are_reported() -> None:
    """A newer producer's field (here: number 99 on the read) is not dropped silently."""
    data = as_binary(GOLDEN / "read" / "projection_and_filters.plan.json")
    plan = plan_schema().plan_class.FromString(data)
    read = plan.relations[0].root.input.read
    read.named_table.ParseFromString(read.named_table.SerializeToString() + b"\xf8\x06\x01")  # field 111, varint 1
    statements = SubstraitPlan.from_bytes(plan.SerializeToString()).to_statements()
    reasons = [u.reason for u in statements[0].uncertain]
    assert any("relations[0].root.input.read.named_table#111" in r for r in reasons), reasons
