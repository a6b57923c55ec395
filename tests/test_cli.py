"""The command line, end to end: outputs in every format, and every error as one line on
stderr with its documented exit code (docs/cli.md), never a traceback.

Most tests call ``prism_lineage.cli.main`` in-process (fast); a few run the installed console
script to prove the real entry point works, stdin included."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from prism_lineage.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "orders"
SUMMARY = EXAMPLE / "summary.sql"
SCHEMA_YAML = EXAMPLE / "schema.yaml"

RFC_TOTAL = [
    {"column": "orders.amount", "relationship": "value", "transformation": "aggregate", "confidence": "exact"},
    {"column": "orders.customer_id", "relationship": "grouping", "transformation": "aggregate", "confidence": "exact"},
    {"column": "orders.status", "relationship": "control", "transformation": "filter", "confidence": "exact"},
]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got: {err!r}"
    assert "Traceback" not in err
    assert lines[0].startswith("prism-lineage: error: ")
    return lines[0]


@pytest.fixture
def sql_file(tmp_path):
    def write(text: str, name: str = "query.sql") -> Path:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    return write


# --- outputs ------------------------------------------------------------------------------


def test_explain_json_is_the_contract(capsys) -> None:
    code, out, err = run(capsys, "explain", SUMMARY, "--schema", SCHEMA_YAML, "--format", "json")
    assert (code, err) == (0, "")
    answer = json.loads(out)
    [statement] = answer["statements"]
    assert (statement["index"], statement["kind"], statement["target"], statement["uncertain"]) == (0, "select", None, [])
    assert [f["name"] for f in statement["fields"]] == ["customer_id", "total_amount"]
    assert statement["fields"][1]["sources"] == RFC_TOTAL


def test_explain_text_reads_like_explain_output(capsys) -> None:
    code, out, _ = run(capsys, "explain", SUMMARY, "--schema", SCHEMA_YAML)
    assert code == 0
    assert out == (
        "statement 1: select\n"
        "  reads: orders   writes: -\n"
        "  customer_id\n"
        "    value     orders.customer_id  identity     exact\n"
        "    grouping  orders.customer_id  aggregate    exact\n"
        "    control   orders.status       filter       exact\n"
        "  total_amount\n"
        "    value     orders.amount       aggregate    exact\n"
        "    grouping  orders.customer_id  aggregate    exact\n"
        "    control   orders.status       filter       exact\n"
    )


def test_text_says_when_a_field_has_no_sources_and_what_is_uncertain(capsys, sql_file) -> None:
    code, out, _ = run(capsys, "explain", sql_file("SELECT 1 AS one, * FROM events"), "-f", "text")
    assert code == 0
    assert "  one\n    (no column sources: a constant, or a count of rows)\n" in out
    assert "    value     events.*  identity     unknown\n" in out
    # The reasons come last, after every field, apart from the sources.
    assert out.index("  uncertain:\n    *: SELECT * over events, whose columns are not in the schema") > out.index("events.*")


def test_schema_as_json(capsys, tmp_path, sql_file) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"orders": {"customer_id": "int", "status": "varchar", "amount": "decimal"}}))
    code, out, _ = run(capsys, "explain", SUMMARY, "--schema", schema, "-f", "json")
    assert code == 0
    assert json.loads(out)["statements"][0]["fields"][1]["sources"] == RFC_TOTAL


def test_dialect_option(capsys, sql_file) -> None:
    code, out, _ = run(capsys, "explain", sql_file("SELECT amount AS Total FROM orders"), "--schema", SCHEMA_YAML,
                       "--dialect", "snowflake", "-f", "json")
    assert code == 0
    assert json.loads(out)["statements"][0]["fields"][0]["name"] == "TOTAL"


def test_graph_text(capsys) -> None:
    code, out, _ = run(capsys, "graph", SUMMARY, "--schema", SCHEMA_YAML)
    assert code == 0
    assert out.startswith("statement 1: select\nplan:\n  Project [s0.project@2:8]")
    assert "    Aggregate [s0.aggregate@5:10]" in out
    assert "Scan(orders) [s0.scan@3:6]" in out
    assert ("  status [s0.scan@3:6#status] → Filter [s0.filter@4:7]  control/filter/exact  rule=filter at "
            f"{SUMMARY}:4:7-4:21") in out


def test_graph_json(capsys) -> None:
    code, out, _ = run(capsys, "graph", SUMMARY, "--schema", SCHEMA_YAML, "--format", "json")
    assert code == 0
    [statement] = json.loads(out)["statements"]
    assert statement["root"] == "s0.project@2:8"
    targets = {t["id"]: t for t in statement["targets"]}
    control = [e for e in statement["edges"] if e["relationship"] == "control"]
    assert [(e["source"], e["target"], e["evidence"]["rule"]) for e in control] == [
        ("s0.scan@3:6#status", "s0.filter@4:7", "filter")]
    assert control[0]["evidence"]["origin"] == {"line": 4, "column": 7, "end_line": 4, "end_column": 21,
                                                "statement": 0, "file": str(SUMMARY)}
    assert targets["column:orders.amount"]["kind"] == "column"
    assert {"source": "s0.filter@4:7", "target": "s0.aggregate@5:10", "kind": "flow"} in statement["links"]


def test_graph_dot(capsys) -> None:
    code, out, _ = run(capsys, "graph", SUMMARY, "--schema", SCHEMA_YAML, "-f", "dot")
    assert code == 0
    assert out.startswith("digraph lineage {\n")
    assert out.rstrip().endswith("}")
    assert '"s0.scan@3:6#status" -> "s0.filter@4:7" [label="control/filter", color=red, style=solid];' in out


def test_several_statements(capsys, sql_file) -> None:
    code, out, _ = run(capsys, "explain", sql_file("SELECT 1 AS a;\nSELECT 2 AS b;"), "-f", "json")
    assert code == 0
    assert [s["index"] for s in json.loads(out)["statements"]] == [0, 1]


# --- the real console script --------------------------------------------------------------


def _script() -> list[str]:
    found = shutil.which("prism-lineage", path=str(Path(sys.executable).parent)) or shutil.which("prism-lineage")
    return [found] if found else [sys.executable, "-m", "prism_lineage.cli"]


def run_script(*argv: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PRISM_LINEAGE_DEBUG"}
    return subprocess.run(_script() + [str(a) for a in argv], input=stdin, capture_output=True, text=True,
                          env=env, timeout=60)


def test_console_script_reads_stdin_with_dash() -> None:
    done = run_script("explain", "-", "--schema", SCHEMA_YAML, "-f", "json", stdin=SUMMARY.read_text())
    assert (done.returncode, done.stderr) == (0, "")
    assert json.loads(done.stdout)["statements"][0]["fields"][1]["sources"] == RFC_TOTAL


def test_console_script_reads_stdin_without_file() -> None:
    done = run_script("graph", "--format", "json", stdin="SELECT a FROM t")
    assert done.returncode == 0
    assert json.loads(done.stdout)["statements"][0]["root"] == "s0.project@1:8"


def test_console_script_error_is_one_line() -> None:
    done = run_script("explain", "--schema", SCHEMA_YAML, stdin="SELECT nope FROM orders")
    assert done.returncode == 5
    assert done.stdout == ""
    assert one_error_line(done.stderr).startswith("prism-lineage: error: unknown column 'nope'")


# --- errors and exit codes ----------------------------------------------------------------


def test_parse_error_names_line_and_column(capsys, sql_file) -> None:
    code, _, err = run(capsys, "explain", sql_file("SELECT a\nFROM WHERE x"))
    assert code == 4
    line = one_error_line(err)
    assert line.startswith("prism-lineage: error: cannot parse the SQL: ")
    assert line.endswith("(at line 2, column 10)")


def test_ambiguous_column_names_it_and_its_candidates(capsys, sql_file) -> None:
    sql = sql_file("SELECT customer_id FROM orders o JOIN customers c ON o.customer_id = c.customer_id")
    code, _, err = run(capsys, "explain", sql, "--schema", SCHEMA_YAML)
    assert code == 5
    assert one_error_line(err) == ("prism-lineage: error: ambiguous column 'customer_id': could be o.customer_id or "
                                   "c.customer_id (at line 1, column 8)")


def test_unknown_column_of_a_known_table(capsys, sql_file) -> None:
    code, _, err = run(capsys, "explain", sql_file("SELECT o.nope FROM orders AS o"), "--schema", SCHEMA_YAML)
    assert code == 5
    assert one_error_line(err) == ("prism-lineage: error: unknown column 'nope' of orders; available: order_id, "
                                   "customer_id, status, amount, ordered_at (at line 1, column 10)")


def test_unknown_table_alias(capsys, sql_file) -> None:
    code, _, err = run(capsys, "explain", sql_file("SELECT x.a FROM t"))
    assert code == 5
    assert one_error_line(err) == ("prism-lineage: error: unknown table or alias 'x'; tables in scope: t "
                                   "(at line 1, column 10)")


def test_invalid_statement(capsys, sql_file) -> None:
    code, _, err = run(capsys, "explain", sql_file("SELECT 1 UNION SELECT 1, 2"))
    assert code == 6
    assert "each UNION query must have the same number of columns: 1 on the left, 2 on the right" in one_error_line(err)


def test_missing_schema_file(capsys, tmp_path) -> None:
    code, _, err = run(capsys, "explain", SUMMARY, "--schema", tmp_path / "nope.yaml")
    assert code == 3
    assert one_error_line(err) == f"prism-lineage: error: schema file not found: {tmp_path / 'nope.yaml'}"


def test_malformed_yaml_schema(capsys, tmp_path) -> None:
    schema = tmp_path / "bad.yaml"
    schema.write_text("orders: [a, b\n")
    code, _, err = run(capsys, "explain", SUMMARY, "--schema", schema)
    assert code == 3
    assert one_error_line(err).startswith(f"prism-lineage: error: {schema} is not valid YAML or JSON at line 2, column 1")


def test_malformed_json_schema(capsys, tmp_path) -> None:
    schema = tmp_path / "bad.json"
    schema.write_text('{"orders": {"a": 1')
    code, _, err = run(capsys, "explain", SUMMARY, "--schema", schema)
    assert code == 3
    assert one_error_line(err).startswith(f"prism-lineage: error: {schema} is not valid JSON")


def test_schema_of_the_wrong_shape(capsys, tmp_path) -> None:
    schema = tmp_path / "list.json"
    schema.write_text("[1, 2]")
    code, _, err = run(capsys, "explain", SUMMARY, "--schema", schema)
    assert code == 3
    assert one_error_line(err) == (f"prism-lineage: error: schema file {schema}: expected a mapping of table names "
                                   "to columns, got list")


def test_schema_table_that_is_not_a_mapping(capsys, tmp_path) -> None:
    schema = tmp_path / "scalar.yaml"
    schema.write_text("orders: 3\n")
    code, _, err = run(capsys, "explain", SUMMARY, "--schema", schema)
    assert code == 3
    assert one_error_line(err) == (f"prism-lineage: error: schema file {schema}: 'orders' must map column names to "
                                   "types, got int")


def test_unreadable_schema_file(capsys, tmp_path) -> None:
    schema = tmp_path / "binary.yaml"
    schema.write_bytes(b"\xff\xfe\x00orders")
    code, _, err = run(capsys, "explain", SUMMARY, "--schema", schema)
    assert code == 3
    assert one_error_line(err).startswith(f"prism-lineage: error: cannot read schema file {schema}")


def test_unknown_dialect(capsys) -> None:
    code, _, err = run(capsys, "explain", SUMMARY, "--dialect", "klingon")
    assert code == 2
    line = one_error_line(err)
    assert line.startswith("prism-lineage: error: unknown dialect 'klingon'; known dialects: ")
    assert "duckdb" in line and "snowflake" in line


def test_missing_sql_file(capsys, tmp_path) -> None:
    code, _, err = run(capsys, "graph", tmp_path / "nope.sql")
    assert code == 3
    assert one_error_line(err) == f"prism-lineage: error: SQL file not found: {tmp_path / 'nope.sql'}"


def test_sql_path_is_a_directory(capsys, tmp_path) -> None:
    # explain reads a directory's .sql files (tests/test_cli_batch.py); graph reads one file.
    code, _, err = run(capsys, "explain", tmp_path)
    assert code == 3
    assert one_error_line(err) == f"prism-lineage: error: no .sql files in the directory {tmp_path}"
    code, _, err = run(capsys, "graph", tmp_path)
    assert code == 3
    assert one_error_line(err) == f"prism-lineage: error: {tmp_path} is a directory, not a SQL file"


@pytest.mark.parametrize("argv, message", [
    (["explain", "q.sql", "--format", "xml"],
     "argument --format/-f/--output/-o: invalid choice: 'xml' (choose from 'text', 'json', 'dot', 'mermaid', 'openlineage') (see 'prism-lineage explain --help')"),
    (["graph", "q.sql", "--format", "svg"],
     "argument --format/-f/--output/-o: invalid choice: 'svg' (choose from 'text', 'json', 'dot') "
     "(see 'prism-lineage graph --help')"),
    (["explain", "--bogus"], "unrecognized arguments: --bogus (see 'prism-lineage --help')"),
    ([], "the following arguments are required: COMMAND (see 'prism-lineage --help')"),
    (["frobnicate"], None),
])
def test_bad_arguments(capsys, argv, message) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 2
    line = one_error_line(err)
    if message is not None:
        assert line == f"prism-lineage: error: {message}"


def test_internal_error_is_one_line_with_code_70(capsys, monkeypatch) -> None:
    import prism_lineage.cli.explain as command

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.delenv("PRISM_LINEAGE_DEBUG", raising=False)
    monkeypatch.setattr(command, "run_explain", broken)
    code, _, err = run(capsys, "explain", SUMMARY)
    assert code == 70
    lines = err.splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    assert lines[0].startswith("prism-lineage: internal error: RuntimeError: boom (a bug: please report it")


def test_version(capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.startswith("prism-lineage ")


def test_incomplete_expression_is_named_without_parser_internals(capsys, sql_file) -> None:
    code, _, err = run(capsys, "explain", sql_file("SELECT amount FROM orders WHERE amount >"))
    line = one_error_line(err)
    assert code == 4
    assert "incomplete GT expression: its right-hand side is missing" in line
    assert "sqlglot" not in line and "<class" not in line


def test_empty_input_is_an_error(capsys, sql_file) -> None:
    code, _, err = run(capsys, "explain", sql_file("  \n\n"))
    assert code == 3
    assert "it is empty" in one_error_line(err)


def test_a_plan_nested_too_deeply_is_a_clear_error(capsys, sql_file) -> None:
    ctes = ["c0 AS (SELECT a FROM t)"] + [f"c{i} AS (SELECT a FROM c{i - 1})" for i in range(1, 4000)]
    code, _, err = run(capsys, "explain", sql_file("WITH " + ", ".join(ctes) + " SELECT a FROM c3999"))
    assert code == 6
    assert "nests more deeply than prism_lineage can follow" in one_error_line(err)
