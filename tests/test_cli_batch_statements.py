"""Cutting a query log for ``--jobs`` where sqlglot's parser ends each statement, and numbering
the answers in input order (issue 9 leftovers, item 2).

A ``;`` inside a routine body (``CREATE PROCEDURE … AS BEGIN … END``, ``$$ … $$``, BigQuery's
``BEGIN … END``) never cuts; a statement that gives several answers (a routine and its body, an
``INSERT ALL``) takes as many numbers, and the statements after it go on from there: ``--jobs 1``
and ``--jobs 2`` write the same bytes.  Checked on every golden case and script, one log per
dialect, and with blocks small enough to cut inside every statement."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prism_lineage.cli import batch, main
from prism_lineage.frontends.sql.dialects import get_dialect

GOLDEN = Path(__file__).resolve().parent / "golden"


def _dialect(path: Path) -> str:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("-- dialect:"):
            return line.split(":", 1)[1].strip() or "default"
    return "default"


def _logs() -> dict[str, str]:
    """Every golden case's SQL, one log per dialect, the cases in order, each ended by a ``;``."""
    by_dialect: dict[str, list[str]] = defaultdict(list)
    for path in sorted(GOLDEN.glob("*/*.sql")):
        if path.parent.name in ("frame", "polars", "spark_connect", "substrait"):
            continue
        by_dialect[_dialect(path)].append(path.read_text(encoding="utf-8").rstrip().rstrip(";"))
    return {d: ";\n".join(texts) + ";\n" for d, texts in by_dialect.items()}


LOGS = _logs()


def run(capsys, *argv) -> tuple[int, str]:
    code = main([str(a) for a in argv])
    out, _ = capsys.readouterr()
    return code, out


@pytest.mark.parametrize("dialect", sorted(LOGS))
def test_jobs_1_and_2_write_the_same_bytes(capsys, tmp_path, dialect) -> None:
    log = tmp_path / "log.sql"
    log.write_text(LOGS[dialect], encoding="utf-8")
    options = [] if dialect == "default" else ["--dialect", dialect]
    outputs = {}
    for jobs in ("1", "2"):
        outputs[jobs] = run(capsys, "explain", log, *options, "--format", "json", "--jobs", jobs)
    assert outputs["1"] == outputs["2"]
    records = [json.loads(line) for line in outputs["1"][1].splitlines()]
    # One number per answer, in order, none given twice (a statement with several answers takes
    # as many numbers, and the next statement goes on after them).
    assert [r["index"] for r in records] == list(range(len(records)))


def test_text_numbers_go_on_after_a_statement_with_several_answers(capsys, tmp_path) -> None:
    log = tmp_path / "log.sql"
    log.write_text("INSERT ALL INTO a (x) VALUES (c) INTO b (y) VALUES (c) SELECT c FROM t;\n"
                   "SELECT c FROM t;\nSELECT d FROM t", encoding="utf-8")
    texts = {jobs: run(capsys, "explain", log, "-d", "snowflake", "--jobs", jobs) for jobs in ("1", "2")}
    assert texts["1"] == texts["2"]
    headers = [line for line in texts["1"][1].splitlines() if line.startswith("statement")]
    assert headers == ["statement 1: insert → A", "statement 2: insert → B", "statement 3: select",
                       "statement 4: select"]
    code, out = run(capsys, "explain", log, "-d", "snowflake", "--jobs", "2", "--column", "d")
    assert [line for line in out.splitlines() if line.startswith("statement")] == ["statement 4: select"]


PROCEDURES = {
    "tsql": "CREATE PROCEDURE dbo.p AS\nBEGIN\n  SET NOCOUNT ON;\n  INSERT INTO a (x) SELECT x FROM t;\n"
            "  UPDATE b SET y = 1 WHERE y = 2;\nEND",
    "bigquery": "CREATE OR REPLACE PROCEDURE p(n INT64)\nBEGIN\n  DELETE FROM a WHERE x = n;\n"
                "  INSERT INTO a (x) SELECT x FROM t;\nEND;\nSELECT x FROM a",
    "snowflake": "CREATE OR REPLACE PROCEDURE p() RETURNS VARCHAR LANGUAGE SQL AS $$\nBEGIN\n"
                 "  DELETE FROM a WHERE x = 0;\n  INSERT INTO a (x) SELECT x FROM t;\n  RETURN 'done';\nEND;\n$$",
    "postgres": "CREATE PROCEDURE p() LANGUAGE plpgsql AS $$\nBEGIN\n  DELETE FROM a WHERE x = 0;\n"
                "  INSERT INTO a (x) SELECT x FROM t;\nEND;\n$$;\nSELECT x FROM a",
}


@pytest.mark.parametrize("dialect", sorted(PROCEDURES))
def test_a_routine_body_is_never_cut_at_its_semicolons(dialect) -> None:
    text = "SELECT 1 AS one;\n" + PROCEDURES[dialect]
    units = list(batch.split_statements(text, "f.sql", get_dialect(dialect)))
    assert units[0].text.strip() == "SELECT 1 AS one"
    assert units[1].text.lstrip().startswith("CREATE") and "INSERT INTO a" in units[1].text
    assert units[1].line == 2
    if dialect in ("bigquery", "postgres"):  # the statement after the routine is one of its own
        assert [u.text.strip() for u in units[2:]] == ["SELECT x FROM a"]
    else:
        assert len(units) == 2


def test_a_statement_the_parser_refuses_is_cut_where_it_stopped() -> None:
    units = list(batch.split_statements("select 1;\nselect a + from t;\nselect 2", "f.sql", get_dialect(None)))
    assert [u.text.strip() for u in units] == ["select 1", "select a + from t", "select 2"]


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(sorted(LOGS)), st.integers(min_value=1, max_value=4000))
def test_cutting_a_block_at_a_time_cuts_where_the_whole_text_does(dialect, block) -> None:
    """Blocks cut inside strings, comments and routine bodies: the statements must not change."""
    text = LOGS[dialect]
    name = None if dialect == "default" else dialect
    whole = [(u.index, u.line, u.text) for u in batch.split_statements(text, "f", get_dialect(name))]
    small = [(u.index, u.line, u.text) for u in batch.split_statements(text, "f", get_dialect(name),
                                                                       block_chars=block)]
    assert small == whole


NOISE = [";", "(", ")", " BEGIN ", " END ", " END;", "'", "$$", " IF ", " WHILE ", " CREATE PROCEDURE p AS ", "--",
         "/*", "*/", "\n", " SELECT ", " ELSE "]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(LOGS)), st.integers(min_value=0, max_value=10**9),
       st.lists(st.tuples(st.integers(min_value=0, max_value=10**9), st.sampled_from(NOISE + [""])), max_size=6),
       st.integers(min_value=1, max_value=300))
def test_broken_logs_are_cut_the_same_at_any_block_size(dialect, start, edits, block) -> None:
    """Statements the parser refuses, stray ENDs and unclosed blocks: never an exception, and the
    same statements whatever the block size (a stray END is its own statement)."""
    text = LOGS[dialect]
    at = start % max(1, len(text) - 3000)
    text = text[at:at + 3000]
    for position, noise in edits:
        where = position % (len(text) + 1)
        text = text[:where] + noise + text[where + (0 if noise else 7):]
    name = None if dialect == "default" else dialect
    whole = [(u.index, getattr(u, "text", None)) for u in batch.split_statements(text, "f", get_dialect(name))]
    small = [(u.index, getattr(u, "text", None)) for u in batch.split_statements(text, "f", get_dialect(name),
                                                                                block_chars=block)]
    assert small == whole


def test_a_stray_end_before_a_refused_statement_is_kept() -> None:
    """After other statements sqlglot takes END as a statement of its own without its statement
    method; when a later statement is refused, that END must still be cut (found by the test above)."""
    text = "select 1;\nEND;\nselect a + from t;\nselect 2"
    for block in (1 << 16, 5, 12):
        units = list(batch.split_statements(text, "f.sql", get_dialect("tsql"), block_chars=block))
        assert [u.text.strip() for u in units] == ["select 1", "END", "select a + from t", "select 2"], block



@pytest.mark.parametrize("dialect", ["bigquery", "duckdb", "tsql"])
def test_a_trailing_semicolon_and_comment_after_a_refused_statement_is_no_statement(dialect) -> None:
    """After a refused ``ELSE`` sqlglot reads the last ``;`` with a comment after it as an END of
    its own; the text holds two statements at any block size (found by the test above)."""
    text = " ELSE x;\nSELECT 1;\n-- the end"
    for block in (1 << 16, 1, 9):
        units = list(batch.split_statements(text, "f.sql", get_dialect(dialect), block_chars=block))
        assert [u.text.strip() for u in units] == ["ELSE x", "SELECT 1"], block


ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("folder", ["examples", "tests/fixtures/workloads/tpch"])
def test_a_directory_of_scripts_and_queries_is_the_same_on_any_number_of_processes(capsys, folder) -> None:
    """The example scripts and the TPC-H queries as a directory: the same bytes with 1 and 2
    processes, each file's answers numbered 0, 1, … in order."""
    outputs = {jobs: run(capsys, "explain", ROOT / folder, "--format", "json", "--jobs", jobs) for jobs in ("1", "2")}
    assert outputs["1"] == outputs["2"]
    by_file: dict[str, list[int]] = defaultdict(list)
    for line in outputs["1"][1].splitlines():
        record = json.loads(line)
        if record["index"] is not None:
            by_file[record["file"]].append(record["index"])
    assert by_file and all(indexes == list(range(len(indexes))) for indexes in by_file.values())


def test_a_commented_semicolon_after_an_unread_part_is_no_statement() -> None:
    """``ELSE ;ms;--``: the last ``;`` carries the comment, so sqlglot makes it a part of its own;
    it is no statement (it was a third unit ``;--`` when the text was cut whole, none when cut a
    block at a time: found by test_broken_logs_are_cut_the_same_at_any_block_size)."""
    for block in (1, 4000):
        units = [u.text for u in batch.split_statements("ELSE ;ms;--", "f", get_dialect("bigquery"), block_chars=block)]
        assert units == ["ELSE ", "ms"]
