"""Queries of DuckDB's own test suite (tests/fixtures/field_s6/duckdb_suite.yaml: excerpts of
duckdb/duckdb's test/sql, MIT licence) replayed on DuckDB, each answer checked against what
DuckDB computed (tests/corpora/engine_oracle.py).  Every statement of a script runs in order;
each ``check`` is a query whose answer is judged; each ``write`` is answered (it must not fail
with anything but a typed refusal) and then run.  A typed refusal passes (it is honest); a wrong
field list or an ``identity``/``exact`` source that did not hold the values fails.  Queries whose
answer is known wrong carry the trial that describes them (xfail until the trial is fixed)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
import yaml

from engine_oracle import check, check_write

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "field_s6" / "duckdb_suite.yaml"
CASES = yaml.safe_load(FIXTURE.read_text(encoding="utf-8"))["cases"]

# Known wrong answers, by a fragment of the query: the trial in /work/coord/trials that holds them.
KNOWN: dict[str, str] = {
}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["source"].split(" ", 1)[1])
def test_answers_agree_with_duckdb(case: dict) -> None:
    con = duckdb.connect()
    problems, known = [], []
    for step in case["steps"]:
        if "run" in step:
            con.execute(step["run"])
            continue
        sql = step.get("check") or step["write"]
        verdict = check(con, sql) if "check" in step else check_write(con, sql)
        if not verdict.problems:
            continue
        reason = next((why for fragment, why in KNOWN.items() if fragment in sql), None)
        (known if reason else problems).append((sql, verdict.problems, reason))
    assert not problems, "\n".join(f"{sql}\n    {found}" for sql, found, _ in problems)
    if known:
        pytest.xfail("; ".join(sorted({why for _, _, why in known})))
