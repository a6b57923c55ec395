"""The function registry: built-in facts, extension from Python and from a YAML file."""

from __future__ import annotations

import pytest

import prism_lineage
from prism_lineage.cli import main
from prism_lineage.errors import InputError
from prism_lineage.functions import FunctionInfo, FunctionRegistry
from prism_lineage.lineage.kinds import Confidence, Transformation

SCHEMA = {"t": {"a": "int", "b": "int", "k": "varchar", "j": "varchar"}}


def sources(sql: str, registry: FunctionRegistry | None = None, field: int = 0) -> list[tuple]:
    answer = prism_lineage.explain(sql, schema=SCHEMA, dialect="duckdb", functions=registry)
    return [(s.column, s.relationship, s.transformation, s.confidence)
            for s in answer.statements[0].fields[field].sources]


def registry(*infos: FunctionInfo) -> FunctionRegistry:
    found = FunctionRegistry.default()
    for info in infos:
        found.register(info)
    return found


def test_builtin_facts() -> None:
    functions = FunctionRegistry.default()
    assert functions.get("sha2").transformation is Transformation.MASK
    assert functions.kind_of("percentile_approx") == "aggregate"
    assert functions.kind_of("explode") == "generator"
    assert functions.kind_of("row_number") == "window"
    assert functions.get("random").deterministic is False
    assert functions.get("parse_json").transformation is Transformation.FORMAT_PARSE
    assert functions.get("date_trunc").control_args == ("unit",)


def test_unknown_function_is_opaque_with_a_reason() -> None:
    assert sources("SELECT risky(a) FROM t") == [("t.a", "value", "opaque", "conservative")]


def test_registered_function_is_exact() -> None:
    assert sources("SELECT risky(a) FROM t", registry(FunctionInfo("risky"))) == [("t.a", "value", "expression", "exact")]


def test_value_args_make_the_others_control() -> None:
    info = FunctionInfo("lookup", value_args=(0,))
    assert sources("SELECT lookup(a, b) FROM t", registry(info)) == [
        ("t.a", "value", "expression", "exact"), ("t.b", "control", "expression", "exact")]


def test_control_args_by_position() -> None:
    info = FunctionInfo("fmt", control_args=(1,))
    assert sources("SELECT fmt(a, k) FROM t", registry(info)) == [
        ("t.a", "value", "expression", "exact"), ("t.k", "control", "expression", "exact")]


def test_user_aggregate_is_an_aggregate() -> None:
    info = FunctionInfo("my_sum", kind="aggregate")
    assert sources("SELECT k, my_sum(a) FROM t GROUP BY k", registry(info), field=1) == [
        ("t.a", "value", "aggregate", "exact"), ("t.k", "grouping", "aggregate", "exact")]


def test_user_mask() -> None:
    assert sources("SELECT tokenize(k) FROM t", registry(FunctionInfo("tokenize", Transformation.MASK))) == [
        ("t.k", "value", "mask", "exact")]


def test_user_generator_with_declared_outputs() -> None:
    info = FunctionInfo("split_pairs", Transformation.GENERATOR, kind="generator", outputs=("left_part", "right_part"))
    answer = prism_lineage.explain("SELECT p.right_part FROM t, split_pairs(t.k) AS p", schema=SCHEMA,
                                   dialect="postgres", functions=registry(info))
    [field] = answer.statements[0].fields
    # value, and control: k decides how many rows split_pairs makes (trial 69)
    assert [(s.column, s.relationship, s.transformation) for s in field.sources] == [
        ("t.k", "value", "generator"), ("t.k", "control", "generator")]


def test_keeps_paths() -> None:
    info = FunctionInfo("decode_doc", Transformation.FORMAT_PARSE, keeps_paths=True)
    answer = prism_lineage.explain("SELECT decode_doc(j) -> 'a' AS a FROM t", schema=SCHEMA, dialect="duckdb",
                                   functions=registry(info))
    [source] = answer.statements[0].fields[0].sources
    assert (source.column, source.path, source.transformation) == ("t.j", "j.a", "format_parse")


def test_yaml_document() -> None:
    functions = FunctionRegistry.default().load({"functions": {
        "mask_email": {"transformation": "mask"},
        "risky": {"confidence": "conservative", "doc": "calls a web service"},
        "pick": {"value_args": [0]},
    }})
    assert functions.get("mask_email").transformation is Transformation.MASK
    assert functions.get("risky").confidence is Confidence.CONSERVATIVE
    assert sources("SELECT risky(a) FROM t", functions) == [("t.a", "value", "expression", "conservative")]
    answer = prism_lineage.explain("SELECT risky(a) FROM t", schema=SCHEMA, functions=functions)
    assert answer.statements[0].uncertain[0].reason == "function risky calls a web service"


@pytest.mark.parametrize("document, message", [
    ({"f": {"transformation": "masked"}}, "transformation 'masked' is not one of"),
    ({"f": {"kind": "table"}}, "kind 'table' is not one of"),
    ({"f": {"value_args": [-1]}}, "value_args lists argument positions"),
    ({"f": {"colour": "red"}}, "unknown key 'colour'"),
    ({"f": "mask"}, "must map to its facts"),
    (["f"], "expected a mapping of function names"),
])
def test_bad_documents(document, message: str) -> None:
    with pytest.raises(InputError, match=message):
        FunctionRegistry.default().load(document)


def test_cli_functions_file(tmp_path, capsys) -> None:
    functions = tmp_path / "functions.yaml"
    functions.write_text("functions:\n  tokenize:\n    transformation: mask\n")
    query = tmp_path / "q.sql"
    query.write_text("SELECT tokenize(k) AS k FROM t")
    assert main(["explain", str(query), "--functions", str(functions), "--format", "json"]) == 0
    assert '"transformation": "mask"' in capsys.readouterr().out
    functions.write_text("functions:\n  tokenize:\n    transformation: scramble\n")
    assert main(["explain", str(query), "--functions", str(functions)]) == 3
    err = capsys.readouterr().err.strip()
    assert err.startswith("prism-lineage: error: functions file") and "scramble" in err and "\n" not in err
