"""``prism-lineage explain|graph --substrait FILE``: binary or JSON plans, from a file or stdin,
and every error as one line on stderr with its exit code."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from google.protobuf import json_format

from prism_lineage.cli import main
from prism_lineage.frontends.substrait.compat import plan_schema

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "orders"
PLAN = EXAMPLE / "summary.substrait.json"
SCHEMA = EXAMPLE / "schema.yaml"
GOLDEN = ROOT / "tests" / "golden" / "substrait"

RFC_TOTAL = [
    {"column": "orders.amount", "relationship": "value", "transformation": "aggregate", "confidence": "exact"},
    {"column": "orders.customer_id", "relationship": "grouping", "transformation": "aggregate", "confidence": "exact"},
    {"column": "orders.status", "relationship": "control", "transformation": "filter", "confidence": "exact"},
]


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("prism-lineage: error: ")
    return lines[0]


@pytest.fixture
def binary_plan(tmp_path: Path) -> Path:
    plan = plan_schema().plan_class()
    json_format.Parse(PLAN.read_text(encoding="utf-8"), plan, descriptor_pool=plan_schema().pool)
    path = tmp_path / "summary.bin"
    path.write_bytes(plan.SerializeToString())
    return path


def test_explain_json_plan_like_the_sql(capsys) -> None:
    code, out, err = run(capsys, "explain", "--substrait", PLAN, "--format", "json")
    assert (code, err) == (0, "")
    total = json.loads(out)["statements"][0]["fields"][1]
    assert total == {"name": "total_amount", "sources": RFC_TOTAL}
    code, sql_out, _ = run(capsys, "explain", EXAMPLE / "summary.sql", "--schema", SCHEMA, "--format", "json")
    code, plan_out, _ = run(capsys, "explain", "--substrait", PLAN, "--schema", SCHEMA, "--format", "json")
    assert json.loads(plan_out) == json.loads(sql_out)


def test_explain_binary_plan_text(capsys, binary_plan: Path) -> None:
    code, out, err = run(capsys, "explain", "--substrait", binary_plan)
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == "statement 1: select"
    assert "    value     orders.amount       aggregate    exact" in out


def test_graph_formats(capsys) -> None:
    code, out, _ = run(capsys, "graph", "--substrait", PLAN)
    assert code == 0 and "ingress (provenance from the client plan, not lineage):" in out
    assert "AggregateRel relations[0].root.input.project.input → Aggregate" in out
    code, out, _ = run(capsys, "graph", "--substrait", PLAN, "--format", "json")
    links = json.loads(out)["statements"][0]["links"]
    assert {"flow", "ingress"} == {link["kind"] for link in links}
    code, out, _ = run(capsys, "graph", "--substrait", PLAN, "--format", "dot")
    assert code == 0 and out.startswith("digraph lineage {") and "shape=note" in out


def test_plan_and_sql_file_together_is_a_usage_error(capsys) -> None:
    code, _, err = run(capsys, "explain", EXAMPLE / "summary.sql", "--substrait", PLAN)
    assert code == 2
    assert "give either a SQL FILE" in one_error_line(err)


@pytest.mark.parametrize("content, code, message", [
    (None, 3, "Substrait plan file not found"),
    (b"\x08\xff\xff\xff", 4, "is not a Substrait plan"),
    (b"{\"relations\": [{\"root\": {\"input\": {\"fetch\": {}}}}]}", 6,
     "invalid Substrait plan at relations[0].root.input.fetch: the FetchRel has no input relation"),
])
def test_errors_have_their_exit_codes(capsys, tmp_path: Path, content, code: int, message: str) -> None:
    path = tmp_path / "plan.bin"
    if content is not None:
        path.write_bytes(content)
    status, out, err = run(capsys, "graph", "--substrait", path)
    assert status == code and out == ""
    assert message in one_error_line(err)


@pytest.mark.skipif(shutil.which("prism-lineage") is None and not (ROOT / ".venv" / "bin" / "prism-lineage").exists(),
                    reason="the console script is not installed")
def test_console_script_reads_a_binary_plan_from_stdin(binary_plan: Path) -> None:
    script = shutil.which("prism-lineage") or str(ROOT / ".venv" / "bin" / "prism-lineage")
    result = subprocess.run([script, "explain", "--substrait", "-", "--format", "json"],
                            input=binary_plan.read_bytes(), capture_output=True, check=False,
                            env={**os.environ, "PRISM_LINEAGE_DEBUG": ""})
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["statements"][0]["fields"][1]["sources"] == RFC_TOTAL


def test_plan_and_frame_together_is_a_usage_error(capsys) -> None:
    code, _, err = run(capsys, "graph", "--substrait", PLAN, "--frame", "anything.py")
    assert code == 2
    assert "give either --frame or --substrait" in one_error_line(err)
