"""Golden files for the dataframe API, per operator: ``tests/golden/frame/<operator>/<case>.py``
builds a plan named ``plan`` (its docstring says what the case shows) and ``<case>.json``
beside it holds the expected ``explain`` answer, written by hand from the plan and specs/.

Same workflow as the SQL goldens (``tests/test_golden.py``, whose renderer this reuses): on a
mismatch the test fails with a diff and writes ``<case>_actual.json`` (git ignores it); review
it, and if the new answer is right run ``pytest --update-goldens``.  Every case is also
checked against the invariants of ``frame_checks.py`` (stable ids, closed graph, every field
explained, origins at the user's call sites).
"""

from __future__ import annotations

import difflib
import json
import runpy
import sys
from pathlib import Path

import pytest

from frame_checks import check_frame
from test_golden import GOLDEN, render

FRAME_GOLDEN = GOLDEN / "frame"
# The operator folders: rule modules, plus expressions read by several rules.
FOLDERS = {"scan", "project", "filter", "join", "aggregate", "window", "sort", "limit", "distinct", "set_operation",
           "generator", "nested", "functions"}


def frame_cases() -> list[Path]:
    return sorted(p for p in FRAME_GOLDEN.glob("*/*.py"))


def load_plan(path: Path):
    """Run a case file (it imports its tables from ``frame_tables.py`` beside the folders)."""
    if str(FRAME_GOLDEN) not in sys.path:
        sys.path.insert(0, str(FRAME_GOLDEN))
    namespace = runpy.run_path(str(path), run_name=f"golden_{path.parent.name}_{path.stem}")
    assert "plan" in namespace, f"{path} defines no `plan`"
    assert (namespace.get("__doc__") or "").strip(), f"{path} has no docstring saying what it shows"
    return namespace["plan"]


@pytest.mark.parametrize("path", frame_cases(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_frame_golden(path: Path, update_goldens: bool) -> None:
    answer = check_frame(load_plan(path))
    text = render(answer)
    expected_path = path.with_suffix(".json")
    actual_path = path.with_name(path.stem + "_actual.json")
    if update_goldens:
        expected_path.write_text(text, encoding="utf-8")
        actual_path.unlink(missing_ok=True)
        return
    assert expected_path.is_file(), f"{expected_path} is missing: write the expected answer by hand"
    expected = json.loads(expected_path.read_text(encoding="utf-8"))
    if answer == expected:
        actual_path.unlink(missing_ok=True)
        return
    actual_path.write_text(text, encoding="utf-8")
    diff = "".join(difflib.unified_diff(
        render(expected).splitlines(keepends=True), text.splitlines(keepends=True),
        fromfile=str(expected_path.relative_to(GOLDEN)), tofile=str(actual_path.relative_to(GOLDEN)),
    ))
    pytest.fail(diff, pytrace=False)


def test_every_operator_has_frame_cases() -> None:
    assert {p.parent.name for p in frame_cases()} == FOLDERS


def test_no_stray_expected_files() -> None:
    for expected in FRAME_GOLDEN.glob("*/*.json"):
        if not expected.stem.endswith("_actual"):
            assert expected.with_suffix(".py").is_file(), f"{expected} has no plan beside it"
