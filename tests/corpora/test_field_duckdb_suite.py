"""Queries of DuckDB's own test suite (tests/fixtures/field_s6/duckdb_suite.yaml: excerpts of
duckdb/duckdb's test/sql, MIT licence) replayed on DuckDB, each answer checked against what
DuckDB computed (tests/corpora/engine_oracle.py).  Every statement of a script runs in order;
each ``check`` is a query whose answer is judged.  A typed refusal passes (it is honest); a wrong
field list or an ``identity``/``exact`` source that did not hold the values fails.  Queries whose
answer is known wrong carry the trial that describes them (xfail until the trial is fixed)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
import yaml

from engine_oracle import check

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "field_s6" / "duckdb_suite.yaml"
CASES = yaml.safe_load(FIXTURE.read_text(encoding="utf-8"))["cases"]

# Known wrong answers, by a fragment of the query: the trial in /work/coord/trials that holds them.
KNOWN = {
    "IN unique_months": "trial 54: PIVOT … IN <enum type> read as an empty IN list",
    "IN (SELECT": "trial 54: PIVOT … IN (subquery) read as an empty IN list",
    "SUM(amount+1)": "trial 55: a column inside the PIVOT aggregate's expression kept as a group key",
    "SUM(amount + year)": "trial 55: a column inside the PIVOT aggregate's expression kept as a group key",
    "col1::VARCHAR, col2))": "trial 56: UNPIVOT IN (col::type, …) keeps the cast column",
}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["source"].split(" ", 1)[1])
def test_answers_agree_with_duckdb(case: dict) -> None:
    con = duckdb.connect()
    problems, known = [], []
    for step in case["steps"]:
        if "run" in step:
            con.execute(step["run"])
            continue
        verdict = check(con, step["check"])
        if not verdict.problems:
            continue
        reason = next((why for fragment, why in KNOWN.items() if fragment in step["check"]), None)
        (known if reason else problems).append((step["check"], verdict.problems, reason))
    assert not problems, "\n".join(f"{sql}\n    {found}" for sql, found, _ in problems)
    if known:
        pytest.xfail("; ".join(sorted({why for _, _, why in known})))
