"""DataHub's SQL-parser corpus (../shared/corpora/datahub/cases.jsonl): every case is answered or
refused with a typed error; tables read and written, and value lineage field by field, agree with
DataHub's answers except where tests/corpora/datahub_decisions.yaml records, after reading the
SQL, why they differ.  Skips when ../shared is absent (a user's clone has none)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import yaml

from conftest import SHARED
from datahub_compare import compare, run, their_fields

CASES = SHARED / "corpora" / "datahub" / "cases.jsonl"
DECISIONS_FILE = Path(__file__).with_name("datahub_decisions.yaml")
KINDS = {"datahub_wrong", "convention", "refused", "gap"}

pytestmark = pytest.mark.skipif(not CASES.is_file(), reason="../shared/corpora/datahub is not here")


def cases() -> list[dict]:
    if not CASES.is_file():
        return []
    return [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines() if line.strip()]


DECISIONS: dict = yaml.safe_load(DECISIONS_FILE.read_text(encoding="utf-8")) or {}


@pytest.mark.parametrize("case", cases(), ids=lambda c: c["name"])
def test_case_agrees_or_the_difference_is_decided(case: dict) -> None:
    ours = run(case)  # raises anything but a typed error: a failure
    diff = compare(case, ours)
    decision = DECISIONS.get(case["name"])
    if not (diff.get("error") or diff["tables"] or diff["fields"]):
        assert decision is None, f"{case['name']}: we now agree with DataHub; remove its decision"
        return
    assert decision is not None, f"{case['name']}: differs from DataHub ({diff}) and no decision says why"
    assert decision["kind"] in KINDS and decision.get("reason"), f"{case['name']}: a decision needs a kind and a reason"
    if diff.get("error"):
        assert decision["kind"] in ("refused", "gap") and diff["error"].startswith(decision["error"] + ":"), \
            f"{case['name']}: refused with {diff['error']}"
        return
    assert sorted(diff["tables"]) == sorted(decision.get("tables", [])), f"{case['name']}: tables {diff['tables']}"
    assert sorted(diff["fields"]) == sorted(decision.get("fields", [])), f"{case['name']}: fields {diff['fields']}"


def test_every_decision_names_a_case() -> None:
    names = {c["name"] for c in cases()}
    assert set(DECISIONS) <= names


def agreement() -> dict:
    """The figures quoted in the issue's closing note (python -m … in tests/corpora)."""
    figures: Counter = Counter()
    for case in cases():
        ours = run(case)
        diff = compare(case, ours)
        figures["cases"] += 1
        if "expected_in_tables" not in case:
            figures["cases without DataHub answers"] += 1
            continue
        figures["compared"] += 1
        figures["refused (typed error)"] += bool(diff.get("error"))
        fields = len(their_fields(case))
        figures["fields"] += fields
        if diff.get("error"):
            continue
        figures["table sets agree"] += not diff["tables"]
        figures["fields agree"] += fields - len(diff["fields"])
        figures["cases agree fully"] += not (diff["tables"] or diff["fields"])
    for decision in DECISIONS.values():
        figures[f"decision: {decision['kind']}"] += 1
    return dict(figures)


if __name__ == "__main__":  # pragma: no cover
    for key, value in agreement().items():
        print(f"{key}: {value}")
