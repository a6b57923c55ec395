"""Golden files per operator: ``tests/golden/<operator>/<case>.sql`` with the expected
``explain`` answer beside it (``<case>.json``, the answer's ``model_dump()``).

A case starts with header comment lines::

    -- dialect: duckdb
    -- schema: shop.yaml            (a file under tests/golden/schemas/, or inline JSON, or "none")
    -- description: what the case shows

On a mismatch the test fails with a diff and writes ``<case>_actual.json`` beside the case (git
ignores it): review it, and if the new answer is right, run ``pytest --update-goldens`` to
rewrite the expected files.  Every case is also an invariant test (``tests/invariants.py``).
Every expected answer was written from a reading of the SQL and specs/, not pasted from the
engine's output.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from invariants import check_invariants

GOLDEN = Path(__file__).resolve().parent / "golden"
SCHEMAS = GOLDEN / "schemas"
HEADER_KEYS = {"dialect", "schema", "description"}
# Optional: ``-- through-script: yes`` explains a script through the tables it writes (docs/scripts.md).
OPTIONAL_KEYS = {"through-script"}


@dataclass(frozen=True)
class GoldenCase:
    path: Path
    sql: str
    dialect: str | None
    schema: dict | None
    description: str
    through_script: bool = False

    @property
    def expected_path(self) -> Path:
        return self.path.with_suffix(".json")

    @property
    def actual_path(self) -> Path:
        return self.path.with_name(self.path.stem + "_actual.json")


def read_case(path: Path) -> GoldenCase:
    sql = path.read_text(encoding="utf-8")
    headers: dict[str, str] = {}
    for line in sql.splitlines():
        if not line.startswith("--"):
            break
        key, colon, value = line[2:].partition(":")
        key = key.strip().lower()
        if colon and key in HEADER_KEYS | OPTIONAL_KEYS:
            headers[key] = value.strip()
    missing = HEADER_KEYS - headers.keys()
    assert not missing, f"{path}: header lines missing: {', '.join(sorted(missing))}"
    return GoldenCase(path, sql, headers["dialect"] or None, _schema(headers["schema"], path),
                      headers["description"], headers.get("through-script", "no").lower() in ("yes", "true"))


def _schema(text: str, path: Path) -> dict | None:
    if text.lower() == "none":
        return None
    if text.startswith("{"):
        return yaml.safe_load(text)
    file = SCHEMAS / text
    assert file.is_file(), f"{path}: schema file {file} not found"
    return yaml.safe_load(file.read_text(encoding="utf-8"))


def render(answer: dict) -> str:
    """JSON with one line per source and per uncertain entry: small diffs, easy review."""
    return _render(answer, 0) + "\n"


def _render(value, depth: int) -> str:
    if isinstance(value, dict) and all(not isinstance(v, (dict, list)) for v in value.values()):
        return json.dumps(value, ensure_ascii=False)
    pad, inner = "  " * depth, "  " * (depth + 1)
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f"{inner}{json.dumps(k)}: {_render(v, depth + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(value, list):
        if not value:
            return "[]"
        items = [f"{inner}{_render(v, depth + 1)}" for v in value]
        return "[\n" + ",\n".join(items) + f"\n{pad}]"
    return json.dumps(value, ensure_ascii=False)


def all_cases() -> list[Path]:
    return sorted(p for p in GOLDEN.glob("*/*.sql") if p.parent.name != "schemas")


@pytest.mark.parametrize("path", all_cases(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_golden(path: Path, update_goldens: bool) -> None:
    check_case(path, update_goldens)


def check_case(path: Path, update_goldens: bool) -> None:
    case = read_case(path)
    answer = check_invariants(case.sql, case.schema, case.dialect, through_script=case.through_script)
    text = render(answer)
    if update_goldens:
        case.expected_path.write_text(text, encoding="utf-8")
        case.actual_path.unlink(missing_ok=True)
        return
    assert case.expected_path.is_file(), f"{case.expected_path} is missing: write the expected answer by hand"
    expected = json.loads(case.expected_path.read_text(encoding="utf-8"))
    if answer == expected:
        case.actual_path.unlink(missing_ok=True)
        return
    case.actual_path.write_text(text, encoding="utf-8")
    diff = "".join(difflib.unified_diff(
        render(expected).splitlines(keepends=True), text.splitlines(keepends=True),
        fromfile=case.expected_path.name, tofile=case.actual_path.name,
    ))
    pytest.fail(f"{case.description}\n{diff}", pytrace=False)


# --- the corpus itself --------------------------------------------------------------------

RULE_MODULES = {
    "scan", "values", "project", "filter", "join", "aggregate", "window", "sort", "limit", "distinct",
    "set_operation", "cte",
}


# Families that are not one operator: statements (writes, scripts) and expression families
# read by several rules (subqueries, nested and semi-structured access, format parsing, the
# function registry, declared policies and checks, what the engine cannot determine).
FAMILIES = {"subquery", "write", "script", "nested", "semi_structured", "format_parse", "function", "policy",
            "uncertain"}


def test_every_operator_has_golden_cases() -> None:
    folders = {p.parent.name for p in all_cases()}
    assert RULE_MODULES | {"subquery"} <= folders


def test_golden_folders_are_rule_modules() -> None:
    """A golden folder is named after the rule module it exercises (subqueries are expressions
    read by several rules, so they have their own folder)."""
    rules = Path(__file__).resolve().parent.parent / "prism_lineage" / "lineage" / "rules"
    modules = {p.stem for p in rules.glob("*.py")} - {"__init__", "context"}
    assert RULE_MODULES <= modules
    assert {p.parent.name for p in all_cases()} <= modules | FAMILIES


def test_enough_cases_and_dialects() -> None:
    cases = [read_case(p) for p in all_cases()]
    assert len(cases) >= 80
    assert {"duckdb", "postgres", "snowflake", "bigquery"} <= {c.dialect for c in cases}


def test_no_stray_expected_files() -> None:
    for expected in GOLDEN.glob("*/*.json"):
        if expected.stem.endswith("_actual"):
            continue
        assert expected.with_suffix(".sql").is_file(), f"{expected} has no SQL beside it"


def test_renderer_round_trips() -> None:
    answer = {"statements": [{"index": 0, "kind": "select", "target": None, "fields": [
        {"name": "a", "sources": [{"column": "t.a", "relationship": "value", "transformation": "identity",
                                   "confidence": "exact"}]}], "uncertain": []}]}
    assert json.loads(render(answer)) == answer


def test_mismatch_writes_actual_and_update_rewrites(tmp_path: Path) -> None:
    case = tmp_path / "filter" / "case.sql"
    case.parent.mkdir()
    case.write_text("-- dialect: duckdb\n-- schema: none\n-- description: d\nSELECT a FROM t WHERE b > 1\n")
    wrong = {"statements": [{"index": 0, "kind": "select", "target": None, "uncertain": [],
                             "fields": [{"name": "a", "sources": []}]}]}
    case.with_suffix(".json").write_text(render(wrong))
    with pytest.raises(pytest.fail.Exception, match=r"(?s)-.*\"sources\": \[\].*\+.*\"t\.a\""):
        check_case(case, update_goldens=False)
    actual = tmp_path / "filter" / "case_actual.json"
    assert json.loads(actual.read_text())["statements"][0]["fields"][0]["sources"][0]["column"] == "t.a"
    check_case(case, update_goldens=True)
    assert not actual.exists()
    rewritten = json.loads(case.with_suffix(".json").read_text())["statements"][0]["fields"][0]["sources"]
    assert [(s["column"], s["relationship"]) for s in rewritten] == [("t.a", "value"), ("t.b", "control")]
    check_case(case, update_goldens=False)
