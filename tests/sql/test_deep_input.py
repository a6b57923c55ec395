"""Deep and long input (issue 15 item 11, issue 9 item 16): SQL nested thousands of levels
deep is refused with a clear error naming the statement — never SIGSEGV — and long *flat*
chains (``a OR b OR …``, ``c0 + c1 + …``, huge IN lists) are answered.

The inputs that used to kill the process run in a subprocess, so a regression fails the
test instead of taking the test run down with it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import prism_lineage
from prism_lineage import NestingTooDeepError
from prism_lineage.cli import main
from prism_lineage.frontends.sql.parsing import MAX_CONSTRUCTOR_NESTING, MAX_NESTING

ROOT = Path(__file__).resolve().parents[2]
CRASHERS = {
    "parentheses": "SELECT " + "(" * 4_500 + "1" + ")" * 4_500,
    "calls": "SELECT " + "abs(" * 4_000 + "x" + ")" * 4_000 + " FROM t",
    "case": "SELECT " + "CASE WHEN a THEN " * 5_000 + "1" + " END" * 5_000 + " FROM t",
    "not": "SELECT " + "NOT " * 5_000 + "a FROM t",
    "brackets": "SELECT " + "[" * 5_000 + "1" + "]" * 5_000,
    "subqueries": "SELECT a FROM t WHERE " + "EXISTS (SELECT 1 FROM t WHERE " * 3_000 + "a = 1" + ")" * 3_000,
}


def cli(*args: str, stdin: str | None = None, timeout: int = 120) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", "import sys; from prism_lineage.cli import main; sys.exit(main())", *args]
    return subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def test_deep_nesting_is_a_clear_error_not_a_crash(tmp_path) -> None:
    file = tmp_path / "deep.sql"
    file.write_text("SELECT 1;\n" + CRASHERS["parentheses"])
    done = cli("explain", str(file))
    assert done.returncode == NestingTooDeepError.exit_code, (done.returncode, done.stderr[-500:])
    [line] = done.stderr.splitlines()
    assert line.startswith("prism-lineage: error: statement 2 nests more than 1,000 levels deep")
    assert "(at statement 2, line 2, column 1008)" in line
    assert done.stdout == ""


def test_every_deep_form_is_refused_in_a_batch_and_the_rest_answered(tmp_path) -> None:
    """One subprocess for every form (a crash of any would fail it), on two worker processes."""
    folder = tmp_path / "queries"
    folder.mkdir()
    for name, sql in CRASHERS.items():
        (folder / f"{name}.sql").write_text(f"SELECT a FROM t;\n{sql};\nSELECT b FROM t")
    done = cli("explain", str(folder), "--jobs", "2", "--format", "json")
    assert done.returncode == 1, done.stderr[-500:]
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(records) == 3 * len(CRASHERS)
    for name, (first, deep, last) in zip(sorted(CRASHERS), zip(*[iter(records)] * 3)):
        assert (first["fields"][0]["name"], last["fields"][0]["name"]) == ("a", "b")
        assert deep["file"].endswith(f"{name}.sql") and deep["line"] == 2
        assert deep["error"]["exit_code"] == NestingTooDeepError.exit_code
        assert deep["error"]["type"] == "NestingTooDeepError"


def test_the_nesting_bound_is_exact() -> None:
    inside = "SELECT " + "(" * MAX_NESTING + "a" + ")" * MAX_NESTING + " AS x FROM t"
    [field] = prism_lineage.explain(inside).statements[0].fields
    assert [(s.column, s.confidence) for s in field.sources] == [("t.a", "exact")]
    with pytest.raises(NestingTooDeepError) as refused:
        prism_lineage.explain("SELECT " + "(" * (MAX_NESTING + 1) + "a" + ")" * (MAX_NESTING + 1) + " FROM t")
    assert (refused.value.line, refused.value.column) == (1, 8 + MAX_NESTING)


def test_constructors_nest_a_bounded_depth_in_bounded_time() -> None:
    """sqlglot reads ``ARRAY[`` twice per level (as a type, then as a value): 25 levels would
    take hours.  Up to the bound they are read; past it, refused at once."""
    deepest = "SELECT " + "ARRAY[" * MAX_CONSTRUCTOR_NESTING + "a" + "]" * MAX_CONSTRUCTOR_NESTING + " AS x FROM t"
    [field] = prism_lineage.explain(deepest, dialect="spark").statements[0].fields
    assert [s.column for s in field.sources] == ["t.a"]
    with pytest.raises(NestingTooDeepError, match="ARRAY/STRUCT/MAP constructors more than 8 deep"):
        prism_lineage.explain("SELECT " + "ARRAY[" * 25 + "1" + "]" * 25, dialect="spark")
    with pytest.raises(NestingTooDeepError):
        prism_lineage.explain("SELECT " + "STRUCT(" * 25 + "1" + ")" * 25, dialect="postgres")


def test_deep_input_is_refused_on_any_thread() -> None:
    """The guard does not depend on the caller's stack: a thread with a small stack is safe."""
    results: list[object] = []

    def work() -> None:
        try:
            prism_lineage.explain(CRASHERS["calls"])
        except NestingTooDeepError as error:
            results.append(error)
        ok = prism_lineage.explain("SELECT " + "abs(" * 900 + "x" + ")" * 900 + " AS y FROM t")
        results.append(ok.statements[0].fields[0].sources[0].column)

    previous = threading.stack_size(256 * 1024)
    try:
        thread = threading.Thread(target=work)
        thread.start()
    finally:
        threading.stack_size(previous)
    thread.join(60)
    assert isinstance(results[0], NestingTooDeepError) and results[1] == "t.x"


def test_the_recursion_limit_is_not_left_raised() -> None:
    before = sys.getrecursionlimit()
    prism_lineage.explain("WITH " + ", ".join(f"c{i} AS (SELECT a FROM {'c' + str(i - 1) if i else 't'})"
                                             for i in range(300)) + " SELECT a FROM c299")
    assert sys.getrecursionlimit() == before


def _length_delimited(field: int, payload: bytes) -> bytes:
    """One protobuf field of wire type 2 (a nested message)."""
    size, header = len(payload), bytearray([(field << 3) | 2])
    while True:
        header.append((size & 0x7F) | (0x80 if size > 0x7F else 0))
        size >>= 7
        if not size:
            return bytes(header) + payload


def deep_substrait_plan(filters: int) -> bytes:
    """A binary plan of ``filters`` nested FilterRels over a read, written on the wire by hand
    (building it through protobuf's Python API would itself recurse per level)."""
    from substrait import algebra_pb2

    from prism_lineage.frontends.substrait import SubstraitPlan

    plan = SubstraitPlan.from_file(ROOT / "tests" / "golden" / "substrait" / "read" /
                                   "projection_and_filters.plan.json").message
    root = plan.relations[0].root
    relation = root.input.SerializeToString()
    condition = algebra_pb2.Expression(literal=algebra_pb2.Expression.Literal(boolean=True)).SerializeToString()
    for _ in range(filters):  # Rel.filter = 2; FilterRel.input = 2, .condition = 3
        relation = _length_delimited(2, _length_delimited(2, relation) + _length_delimited(3, condition))
    names = b"".join(_length_delimited(2, name.encode()) for name in root.names)
    del plan.relations[:]  # Plan.relations = 3; PlanRel.root = 2; RelRoot.input = 1, .names = 2
    return plan.SerializeToString() + _length_delimited(3, _length_delimited(2, _length_delimited(1, relation) + names))


def test_a_deep_binary_substrait_plan_is_a_clear_error(tmp_path) -> None:
    from prism_lineage.frontends.substrait import SubstraitPlan

    plan = tmp_path / "deep.bin"
    plan.write_bytes(deep_substrait_plan(10_000))
    done = cli("explain", "--substrait", str(plan))
    assert done.returncode == NestingTooDeepError.exit_code, (done.returncode, done.stderr[-300:])
    assert "nests more deeply than prism_lineage can follow" in done.stderr
    shallow = tmp_path / "shallow.bin"
    shallow.write_bytes(deep_substrait_plan(300))
    assert prism_lineage.explain(SubstraitPlan.from_file(shallow)).statements[0].fields


def test_a_deep_view_could_not_be_parsed_and_the_rest_is_answered(tmp_path) -> None:
    from prism_lineage.governance.loading import load_project
    from prism_lineage.governance.rollup import sync
    from prism_lineage.governance.statuses import SqlStatus

    (tmp_path / "tables").mkdir()
    (tmp_path / "views").mkdir()
    (tmp_path / "project.yaml").write_text("name: t\ndialect: duckdb\nenvironments: [prod]\n")
    (tmp_path / "tables" / "t.yaml").write_text("namespace: s\nname: t\ncolumns: [{name: a, type: int}]\n")
    (tmp_path / "views" / "ok.yaml").write_text("namespace: s\nname: ok\nsql: SELECT a FROM s.t\n")
    deep = "SELECT " + "(" * 5_000 + "a" + ")" * 5_000 + " AS a FROM s.t"
    (tmp_path / "views" / "deep.yaml").write_text(f"namespace: s\nname: deep\nsql: '{deep}'\n")
    project, _ = load_project(tmp_path)
    lineage = sync(project)
    assert lineage.assets[lineage.by_name["s.deep"]].sql_status is SqlStatus.NOT_PARSED
    assert lineage.assets[lineage.by_name["s.ok"]].sql_status is None
    assert [(lineage.assets[e.source].full_name, lineage.assets[e.target].full_name) for e in lineage.edges] == [
        ("s.t", "s.ok")]


# --- long flat chains (issue 9 item 16) ----------------------------------------------------------

TERMS = 10_000
SHORTER = 2_000


def test_long_flat_chains_are_answered(tmp_path, capsys) -> None:
    statements = [  # a 10,000-term chain takes about a second: the others are shorter, the same code
        "SELECT id FROM t WHERE " + " OR ".join(f"c{i} = {i}" for i in range(TERMS)),
        "SELECT " + " + ".join(f"c{i}" for i in range(TERMS)) + " AS total FROM t",
        "SELECT " + " || ".join(f"c{i}" for i in range(SHORTER)) + " AS joined FROM t",
        "SELECT id FROM t WHERE id IN (" + ", ".join(str(i) for i in range(TERMS)) + ")",
        "SELECT " + " AND ".join(f"c{i} > 0" for i in range(SHORTER)) + " AS every FROM t",
    ]
    file = tmp_path / "generated.sql"
    file.write_text(";\n".join(statements))
    assert main(["explain", str(file), "--format", "json"]) == 0
    ors, plus, pipes, in_list, ands = json.loads(capsys.readouterr().out)["statements"]
    columns = {f"t.c{i}" for i in range(TERMS)}
    assert {s["column"] for s in ors["fields"][0]["sources"] if s["relationship"] == "control"} == columns
    for answer, terms in ((plus, TERMS), (pipes, SHORTER), (ands, SHORTER)):
        [field] = answer["fields"]
        assert {s["column"] for s in field["sources"]} == {f"t.c{i}" for i in range(terms)}
        assert {(s["relationship"], s["transformation"], s["confidence"]) for s in field["sources"]} == {
            ("value", "expression", "exact")}
    assert [(s["column"], s["relationship"]) for s in in_list["fields"][0]["sources"]] == [
        ("t.id", "value"), ("t.id", "control")]


def test_a_long_chain_renders_as_text_and_graph(tmp_path, capsys) -> None:
    file = tmp_path / "generated.sql"
    file.write_text("SELECT a FROM t WHERE " + " OR ".join(f"c{i} = {i}" for i in range(3_000)))
    assert main(["explain", str(file)]) == 0
    assert capsys.readouterr().out.count("control  ") == 3_000
    assert main(["graph", str(file), "--format", "dot"]) == 0
    assert capsys.readouterr().out.count('[label="control/filter"') == 3_000


def test_a_run_is_one_call_of_every_operand_in_order() -> None:
    from prism_lineage.explain import lower
    from prism_lineage.ir import Call, FieldRef, Project

    [statement] = lower("SELECT a - b - c - d AS x FROM t", {"t": {"a": "int", "b": "int", "c": "int", "d": "int"}})
    project = statement.root
    assert isinstance(project, Project)
    [call] = project.exprs
    assert isinstance(call, Call) and call.function == "sub" and all(isinstance(a, FieldRef) for a in call.args)
    scan = project.input
    assert [next(f.name for f in scan.fields if f.id == a.field) for a in call.args] == ["a", "b", "c", "d"]
    assert call.type == "INT"


def test_a_group_key_inside_a_run_stays_a_key() -> None:
    schema = {"t": {"a": "int", "b": "int", "c": "int"}}
    for sql in ("SELECT a + b + c AS x FROM t GROUP BY a + b, c", "SELECT (a + b) + c AS x FROM t GROUP BY a + b, c"):
        [field] = prism_lineage.explain(sql, schema).statements[0].fields
        assert [(s.column, s.relationship) for s in field.sources] == [
            ("t.a", "value"), ("t.b", "value"), ("t.c", "value"), ("t.a", "grouping"), ("t.b", "grouping"),
            ("t.c", "grouping")]


def test_constant_runs_fold_left_to_right() -> None:
    from prism_lineage.rewrite.fold_constants import _fold
    from prism_lineage.ir import Literal

    def lit(value, type_="INT"):
        return Literal("l", None, type_, value)

    assert _fold("sub", (lit("10"), lit("3"), lit("2"))) == ("INT", "5")
    assert _fold("add", (lit("1"), lit("2"), lit("3"), lit("4"))) == ("INT", "10")
    assert _fold("or", (lit("FALSE", "BOOLEAN"), lit(None, "BOOLEAN"), lit("TRUE", "BOOLEAN"))) == ("BOOLEAN", "TRUE")
    assert _fold("and", (lit("TRUE", "BOOLEAN"), lit(None, "BOOLEAN"), lit("TRUE", "BOOLEAN"))) == ("BOOLEAN", None)
