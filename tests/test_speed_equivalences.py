"""Shortcuts taken for speed give what the longer way gives (issue 9's speed bound; see
docs/performance.md): each is checked here against the code it replaces."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from prism_lineage.ir.origin import Origin, SourceText

TEXT = SourceText("select a,\n  b + c\nfrom t\n" * 4, 0, "q.sql")


@st.composite
def origins(draw):
    kind = draw(st.sampled_from(["none", "text", "text", "text", "plain"]))
    if kind == "none":
        return None
    if kind == "plain":  # an origin with no text offsets (start = end = -1)
        return Origin(1, 1, 1, 3, 0)
    start = draw(st.integers(0, 80))
    end = draw(st.integers(start, 90))
    return TEXT.span(start, end, draw(st.sampled_from([0, 1])))


@given(origins(), st.lists(origins(), max_size=6))
def test_join_all_is_join_in_turn(first, others):
    """``SourceText.join_all`` (one pass, used for every call's span) is ``join`` in turn: the same
    object when it covers the rest, else a new span with the same fields."""
    expected = first
    for other in others:
        expected = TEXT.join(expected, other)
    got = TEXT.join_all(first, others)
    if any(expected is given_origin for given_origin in [first, *others]):
        assert got is expected
    else:
        assert type(got) is Origin and tuple(got) == tuple(expected)
        assert all(got is not given_origin for given_origin in [first, *others])


# --- answers: FieldAnswer / UncertainItem built without model_construct's lookups ----------

from prism_lineage.explain.models import (  # noqa: E402
    FieldAnswer, SourceColumn, StatementAnswer, UncertainItem, new_field_answer, new_uncertain_item,
    trusted_constructor,
)


def _same_instance(got, expected) -> None:
    for attribute in ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__"):
        assert getattr(got, attribute) == getattr(expected, attribute), attribute
    assert list(got.__dict__) == list(expected.__dict__)  # the field order too
    assert type(got) is type(expected)
    assert got == expected and repr(got) == repr(expected)
    assert got.model_dump_json() == expected.model_dump_json()


_sources = st.lists(st.builds(
    lambda column, path: SourceColumn.model_construct(column=column, relationship="value",
                                                      transformation="identity", confidence="exact", path=path),
    st.text(max_size=8), st.none() | st.text(max_size=5)), max_size=3)


@given(st.text(max_size=12), _sources)
def test_new_field_answer_is_model_construct(name, sources):
    _same_instance(new_field_answer(name, sources), FieldAnswer.model_construct(name=name, sources=sources))


@given(st.none() | st.text(max_size=12), st.text(max_size=20))
def test_new_uncertain_item_is_model_construct(field, reason):
    _same_instance(new_uncertain_item(field, reason), UncertainItem.model_construct(field=field, reason=reason))


def test_trusted_constructor_refuses_a_model_with_private_state():
    import pytest

    with pytest.raises(TypeError):
        trusted_constructor(StatementAnswer)  # ``_case_sensitive``


# --- a cast's type name, remembered per dialect and type ----------------------------------

import sqlglot  # noqa: E402
from sqlglot import exp  # noqa: E402

from prism_lineage.frontends.sql.dialects import get_dialect, known_dialects  # noqa: E402
from prism_lineage.frontends.sql.expressions import type_text  # noqa: E402

_TYPES = ["date", "int", "bigint", "text", "varchar", "varchar(10)", "decimal(7, 2)", "decimal", "timestamp",
          "double", "float", "boolean", "char(3)", "array<int>", "struct<a int>", "interval", "json", "uuid",
          "numeric", "string", "int64", "number(38, 0)", "time", "datetime", "tinyint", "nvarchar(max)"]


def test_type_text_is_the_types_sql_in_every_dialect():
    for name in known_dialects():
        dialect = get_dialect(name)
        nodes = [exp.DataType(this=member) for member in exp.DType]
        for written in _TYPES:
            try:
                parsed = sqlglot.parse_one(f"SELECT CAST(x AS {written})", read=dialect)
            except sqlglot.errors.SqlglotError:
                continue
            nodes += [cast.args["to"] for cast in parsed.find_all(exp.Cast)]
        for node in nodes:
            for _ in range(2):  # generated, then remembered
                try:
                    expected = node.sql(dialect=dialect)
                except Exception as error:  # noqa: BLE001 - a type the dialect cannot write
                    try:
                        type_text(node, dialect)
                    except Exception as again:  # noqa: BLE001
                        assert type(again) is type(error)
                        continue
                    raise AssertionError(f"{name}: {node!r} writes in type_text but not in sql()") from None
                assert type_text(node, dialect) == expected, (name, repr(node))
