"""``prism-lineage explain`` over many statements (a directory or a query log, ``--jobs``):
statements cut where sqlglot's tokenizer sees a semicolon, answers equal to the single-file
answers, output in input order on any number of processes, one failed statement reported in
its place without stopping the others (exit code 1), positions given in the file."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import prism_lineage
from prism_lineage.cli import batch, main
from prism_lineage.frontends.sql.dialects import get_dialect

SCHEMA = {"t": {"a": "int", "b": "int", "c": "varchar"}}
LOG = (
    "select a from t;\n"
    "-- a comment; with a semicolon\n"
    "select 'x;y' as s, b from t;\n"
    "\n"
    "select nope from t;\n"
    "select a +  from t;\n"
    " select sum(b) as total from t where c = 'p' /* ; */"
)


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def schema_file(tmp_path):
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(SCHEMA), encoding="utf-8")
    return path


def cut(text: str, dialect=None, **options) -> list:
    return list(batch.split_statements(text, "f.sql", get_dialect(dialect), **options))


# --- cutting statements ----------------------------------------------------------------------


def test_semicolons_in_strings_and_comments_do_not_cut() -> None:
    units = cut(LOG)
    assert [u.index for u in units] == [0, 1, 2, 3, 4]
    assert [u.line for u in units] == [1, 3, 5, 6, 7]
    assert "'x;y'" in units[1].text and "a comment; with" in units[1].text
    assert units[4].text.strip().startswith("select sum(b)") and units[4].text.endswith("/* ; */")


def test_empty_statements_are_dropped() -> None:
    assert [u.text.strip() for u in cut(";;\n select 1 ;  ; select 2;\n;")] == ["select 1", "select 2"]


def test_dialect_quoting_is_respected() -> None:
    # Postgres dollar quoting: the semicolon inside is text, not a cut.
    units = cut("select $$a;b$$ as x; select 2", "postgres")
    assert len(units) == 2 and "$$a;b$$" in units[0].text


def test_unterminated_string_keeps_the_rest_as_one_failing_statement() -> None:
    units = cut("select 1;\nselect 'oops; select 2;\nselect 3")
    assert len(units) == 2
    assert units[1].line == 2 and units[1].text.startswith("\nselect 'oops")


STATEMENT = st.sampled_from([
    "select a from t", "select 'a;b' as s from t", "select a -- x;y\n from t", "select /* ; */ b from t",
    'select "a" from t', "select a from t where c = ';'",
])


@settings(max_examples=60, deadline=None)
@given(st.lists(STATEMENT, min_size=1, max_size=30), st.integers(min_value=1, max_value=40))
def test_cutting_a_block_at_a_time_finds_the_same_statements(statements, block) -> None:
    """Small blocks cut inside strings and comments: the result must not change."""
    text = ";\n".join(statements)
    small = [(u.index, u.line, u.text) for u in cut(text, block_chars=block)]
    whole = [(u.index, u.line, u.text) for u in cut(text, block_chars=1 << 20)]
    assert small == whole
    assert [t.strip() for _, _, t in whole] == [s.strip() for s in statements]


# --- the command -----------------------------------------------------------------------------


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_log_json_lines_in_order_with_failures_in_place(capsys, tmp_path, schema_file, jobs) -> None:
    log = tmp_path / "log.sql"
    log.write_text(LOG, encoding="utf-8")
    code, out, err = run(capsys, "explain", log, "--schema", schema_file, "--format", "json", "--jobs", jobs)
    assert code == batch.SOME_FAILED
    records = [json.loads(line) for line in out.splitlines()]
    assert [(r["index"], r["line"]) for r in records] == [(0, 1), (1, 3), (2, 5), (3, 6), (4, 7)]
    assert records[2]["error"] == {
        "exit_code": 5, "type": "UnknownColumnError", "line": 5, "column": 8,
        "message": "unknown column 'nope' of t; available: a, b, c",
    }
    assert records[3]["error"]["exit_code"] == 4 and records[3]["error"]["line"] == 6
    # The statements that were explained answer exactly as a single-file run does.
    whole = prism_lineage.explain(LOG.replace("select nope from t;\nselect a +  from t;\n", ""), SCHEMA)
    expected = [s.model_dump(mode="json") for s in whole.statements]
    got = [{k: v for k, v in r.items() if k not in ("file", "line", "index")} for r in records if "error" not in r]
    assert got == [{k: v for k, v in s.items() if k != "index"} for s in expected]
    assert records[4]["fields"][0]["sources"][-1]["relationship"] == "control"  # where c = 'p'
    assert err.count("\n") == 1 and "5 statements (2 failed)" in err and "statements/s" in err


def test_directory_text_names_each_file(capsys, tmp_path, schema_file) -> None:
    folder = tmp_path / "queries"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.sql").write_text("select a from t; select b from t", encoding="utf-8")
    (folder / "sub" / "b.sql").write_text("select c from t", encoding="utf-8")
    (folder / "empty.sql").write_text("  \n", encoding="utf-8")
    (folder / "notes.txt").write_text("not sql", encoding="utf-8")
    code, out, err = run(capsys, "explain", folder, "--schema", schema_file)
    assert code == batch.SOME_FAILED  # the empty file
    heads = [line for line in out.splitlines() if not line.startswith(" ")]
    assert heads == [
        f"{folder / 'a.sql'} statement 1: select",
        f"{folder / 'a.sql'} statement 2: select",
        f"{folder / 'empty.sql'} file: error 3: no SQL in {folder / 'empty.sql'}: it is empty",
        f"{folder / 'sub' / 'b.sql'} statement 1: select",
    ]
    assert "value     t.c  identity     exact" in out


def test_all_explained_exits_zero(capsys, tmp_path, schema_file) -> None:
    log = tmp_path / "ok.sql"
    log.write_text("select a from t; select b from t;", encoding="utf-8")
    code, out, _ = run(capsys, "explain", log, "--schema", schema_file, "-f", "json", "--jobs", "auto")
    assert code == 0 and len(out.splitlines()) == 2


@pytest.mark.parametrize("value", ["0", "-2", "many"])
def test_bad_jobs_is_a_usage_error(capsys, tmp_path, value) -> None:
    code, out, err = run(capsys, "explain", tmp_path, "--jobs", value)
    assert code == 2 and out == ""
    assert err.startswith("prism-lineage: error: argument --jobs/-j: expected a positive number or 'auto'")


def test_directory_without_sql_files(capsys, tmp_path) -> None:
    code, _, err = run(capsys, "explain", tmp_path)
    assert code == 3 and err.strip() == f"prism-lineage: error: no .sql files in the directory {tmp_path}"


@pytest.mark.parametrize("option", ["--substrait", "--spark-connect", "--frame"])
def test_jobs_and_scripts_do_not_apply_to_a_plan(capsys, tmp_path, option) -> None:
    """Refused before the plan is read (it does not exist): never ignored silently."""
    code, out, err = run(capsys, "explain", option, tmp_path / "plan.bin", "--jobs", "2")
    assert (code, out) == (2, "")
    assert err.strip() == (f"prism-lineage: error: --jobs and directories are for SQL statements; "
                           f"a {option} plan is explained whole: drop --jobs")
    for command in ("explain", "graph"):
        code, out, err = run(capsys, command, option, tmp_path / "plan.bin", "--through-script")
        assert (code, out) == (2, "")
        assert err.strip() == (f"prism-lineage: error: --through-script follows the statements of a SQL script; "
                               f"a {option} plan is one statement: drop --through-script")
    folder = tmp_path / "queries"
    folder.mkdir()
    (folder / "a.sql").write_text("SELECT a FROM t")
    code, _, err = run(capsys, "explain", folder, option, tmp_path / "plan.bin")
    assert code == 2 and "not both" in err


# --- a directory of scripts (--through-script) -------------------------------------------------

NIGHTLY = (
    "CREATE TEMP TABLE paid AS\n"
    "SELECT a, b FROM t WHERE c = 'paid';\n"
    "SELECT\n"
    "  a,\n"
    "  SUM(b) AS total\n"
    "FROM paid GROUP BY a;\n"
)
BROKEN = "CREATE TEMP TABLE x AS SELECT a FROM t;\nSELECT nope FROM x;\nSELECT a FROM x;\nSELECT a FROM x;\n"


@pytest.fixture
def scripts(tmp_path):
    folder = tmp_path / "jobs"
    folder.mkdir()
    (folder / "a_nightly.sql").write_text(NIGHTLY, encoding="utf-8")
    (folder / "b_broken.sql").write_text(BROKEN, encoding="utf-8")
    (folder / "c_unparsable.sql").write_text("SELECT 1;\nSELECT a + FROM t;\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_directory_through_script_explains_each_file_as_a_script(capsys, scripts, schema_file, jobs) -> None:
    code, out, err = run(capsys, "explain", scripts, "--schema", schema_file, "--through-script", "-f", "json",
                         "--jobs", jobs)
    assert code == batch.SOME_FAILED
    records = [json.loads(line) for line in out.splitlines()]
    nightly = [r for r in records if r["file"].endswith("a_nightly.sql")]
    # Each statement's line is its first token's (the SELECT keyword on a line of its own).
    assert [(r["index"], r["line"]) for r in nightly] == [(0, 1), (1, 3)]
    whole = prism_lineage.explain(NIGHTLY, SCHEMA, through_script=True)
    assert [{k: v for k, v in r.items() if k not in ("file", "line")} for r in nightly] == \
        [s.model_dump(mode="json") for s in whole.statements]
    # Through the script: the temp table's rows are t's.
    assert nightly[1]["fields"][1]["sources"][0]["column"] == "t.b"
    assert "5 statements (2 failed, 2 not explained after a failure in their script)" in err


def test_the_first_failure_of_a_script_ends_its_file(capsys, scripts, schema_file) -> None:
    code, out, _ = run(capsys, "explain", scripts, "--schema", schema_file, "--through-script", "-f", "json")
    records = [json.loads(line) for line in out.splitlines()]
    broken = [r for r in records if r["file"].endswith("b_broken.sql")]
    assert [r["index"] for r in broken] == [0, 1] and "error" not in broken[0]
    assert broken[1]["line"] == 2
    assert broken[1]["error"] == {
        "exit_code": 5, "type": "UnknownColumnError", "line": 2, "column": 8,
        "message": "unknown column 'nope' of x; available: a; the 2 statements after it in this script are not explained",
    }
    unparsable = [r for r in records if r["file"].endswith("c_unparsable.sql")]
    assert len(unparsable) == 1 and (unparsable[0]["index"], unparsable[0]["line"]) == (None, None)
    # The position of a parse error is the one a single-file run gives.
    with pytest.raises(prism_lineage.ParseError) as alone:
        prism_lineage.explain((scripts / "c_unparsable.sql").read_text(encoding="utf-8"), SCHEMA, through_script=True)
    assert unparsable[0]["error"]["exit_code"] == 4 and unparsable[0]["error"]["message"] == alone.value.message
    assert (unparsable[0]["error"]["line"], unparsable[0]["error"]["column"]) == (alone.value.line, 15) == (2, 15)


def test_directory_through_script_text_names_each_file(capsys, scripts, schema_file) -> None:
    code, out, _ = run(capsys, "explain", scripts, "--schema", schema_file, "--through-script")
    heads = [line for line in out.splitlines() if not line.startswith(" ")]
    folder = scripts
    assert heads[:4] == [
        f"{folder / 'a_nightly.sql'} statement 1: create_table → paid",
        f"{folder / 'a_nightly.sql'} statement 2: select",
        f"{folder / 'b_broken.sql'} statement 1: create_table → x",
        f"{folder / 'b_broken.sql'} statement 2: error 5: unknown column 'nope' of x; available: a; the 2 statements "
        "after it in this script are not explained (at line 2, column 8)",
    ]
    assert heads[4].startswith(f"{folder / 'c_unparsable.sql'} file: error 4: cannot parse the SQL")


def test_without_through_script_a_directory_stays_a_log_of_independent_statements(capsys, scripts,
                                                                                  schema_file) -> None:
    _, out, _ = run(capsys, "explain", scripts, "--schema", schema_file, "-f", "json", "--jobs", "1")
    records = [json.loads(line) for line in out.splitlines()]
    nightly = [r for r in records if r["file"].endswith("a_nightly.sql")]
    # The temp table is read as a table of its own (a log's statements do not see each other).
    assert nightly[1]["fields"][1]["sources"][0]["column"] == "paid.b"
    # … so a name it lacks is read as a column of a table not in the schema, not an error.
    broken = [r for r in records if r["file"].endswith("b_broken.sql")]
    assert [("error" in r) for r in broken] == [False, False, False, False]
    assert broken[1]["fields"][0]["sources"][0]["column"] == "x.nope"


@pytest.mark.parametrize("given", ["file", "-"])
def test_through_script_with_jobs_on_a_log_is_refused(capsys, scripts, given) -> None:
    path = scripts / "a_nightly.sql" if given == "file" else "-"
    code, out, err = run(capsys, "explain", path, "--through-script", "--jobs", "2")
    assert code == 2 and out == ""
    assert err == ("prism-lineage: error: --through-script reads a file as one script, whose statements depend on "
                   "each other in order, but --jobs reads it as a query log of independent statements: drop --jobs "
                   "to explain the file as a script, or give a directory to explain each of its files as a script, "
                   "in parallel\n")


# --- a worker process that dies (issue 15 item 12) ----------------------------------------------


@pytest.fixture
def deadly(monkeypatch):
    """Workers (forked: they inherit this patch) die on a statement that says so — the way a
    crash in native code, the OOM killer or a stray kill ends one."""
    import os
    import signal

    real = batch.explain_unit

    def explain_unit(unit):
        text = getattr(unit, "text", "")
        if isinstance(text, str) and "die_by_signal" in text:
            os.kill(os.getpid(), signal.SIGKILL)
        if isinstance(text, str) and "die_by_exit" in text:
            os._exit(3)
        return real(unit)

    monkeypatch.setattr(batch, "explain_unit", explain_unit)


@pytest.fixture
def alarm():
    """Fail instead of hanging forever (the bug was a wait that never ended)."""
    import signal

    def timeout(*_):
        raise TimeoutError("the batch run did not finish within 120 s")

    previous = signal.signal(signal.SIGALRM, timeout)
    signal.alarm(120)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("jobs", ["2", "3"])
def test_a_dead_worker_fails_its_statement_and_the_rest_finish(capsys, tmp_path, schema_file, deadly, alarm,
                                                                jobs) -> None:
    folder = tmp_path / "log"
    folder.mkdir()
    (folder / "a.sql").write_text("select a from t; select b as die_by_signal from t; select c from t",
                                  encoding="utf-8")
    (folder / "b.sql").write_text("select a + b as s from t;\nselect 1 as die_by_exit", encoding="utf-8")
    (folder / "c.sql").write_text("select a from t; " * 40, encoding="utf-8")
    code, out, err = run(capsys, "explain", folder, "--schema", schema_file, "--jobs", jobs, "-f", "json")
    assert code == batch.SOME_FAILED
    records = [json.loads(line) for line in out.splitlines()]
    assert [(r["file"].rsplit("/", 1)[1], r["index"]) for r in records] == (
        [("a.sql", 0), ("a.sql", 1), ("a.sql", 2), ("b.sql", 0), ("b.sql", 1)] + [("c.sql", i) for i in range(40)])
    killed, exited = records[1], records[4]
    assert killed["error"] == {"exit_code": 70, "type": "WorkerDiedError", "message":
                               "the process explaining this statement was killed by SIGKILL; it was not explained "
                               "(the others go on)"}
    assert exited["error"]["message"].startswith("the process explaining this statement exited with code 3")
    assert killed["line"] == 1 and exited["line"] == 2
    assert all("fields" in r for r in records if r not in (killed, exited))
    assert "45 statements (2 failed)" in err


def test_a_dead_worker_in_text_output_names_the_file(capsys, tmp_path, schema_file, deadly, alarm) -> None:
    folder = tmp_path / "log"
    folder.mkdir()
    (folder / "a.sql").write_text("select a from t", encoding="utf-8")
    (folder / "b.sql").write_text("select a as die_by_signal from t", encoding="utf-8")
    code, out, _ = run(capsys, "explain", folder, "--schema", schema_file, "--jobs", "2")
    assert code == batch.SOME_FAILED
    assert f"{folder / 'b.sql'} statement 1: error 70: the process explaining this statement was killed by SIGKILL" in out


def test_a_dead_worker_fails_its_script(capsys, tmp_path, schema_file, deadly, alarm) -> None:
    folder = tmp_path / "jobs"
    folder.mkdir()
    (folder / "a.sql").write_text("create temp table x as select a from t; select a from x", encoding="utf-8")
    (folder / "b.sql").write_text("select a as die_by_signal from t", encoding="utf-8")
    code, out, _ = run(capsys, "explain", folder, "--schema", schema_file, "--jobs", "2", "--through-script", "-f", "json")
    assert code == batch.SOME_FAILED
    records = [json.loads(line) for line in out.splitlines()]
    assert [r.get("error", {}).get("type") for r in records] == [None, None, "WorkerDiedError"]
    assert records[2]["file"].endswith("b.sql") and records[2]["index"] is None


SCRIPT_STATE = (
    "-- a log whose statements read what an earlier one defined\n"
    "CREATE TEMP FUNCTION twice(x INT64) AS (x * 2);\n"
    "DECLARE v INT64 DEFAULT 5;\n"
    "SET v = (SELECT MAX(a) FROM t);\n"
    "SELECT twice(a) AS d, v AS m FROM t;\n"
    "SELECT b FROM t;\n"
)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_jobs_answers_a_file_with_script_functions_and_variables_as_without_jobs(capsys, tmp_path, schema_file,
                                                                                jobs) -> None:
    """Session-5 leftover 2d: with --jobs a CREATE TEMP FUNCTION or a variable earlier in the
    file was not seen (the function opaque, the variable an unknown column): the file is now
    explained whole, as without --jobs."""
    log = tmp_path / "log.sql"
    log.write_text(SCRIPT_STATE, encoding="utf-8")
    code, out, _ = run(capsys, "explain", log, "--schema", schema_file, "--format", "json", "--jobs", jobs,
                       "--dialect", "bigquery")
    assert code == 0
    got = [{k: v for k, v in json.loads(line).items() if k not in ("file", "line")} for line in out.splitlines()]
    whole = prism_lineage.explain(SCRIPT_STATE, SCHEMA, dialect="bigquery")
    assert got == [s.model_dump(mode="json") for s in whole.statements]
    [d] = [f for r in got for f in r["fields"] if f["name"] == "d"]
    assert [(s["column"], s["transformation"], s["confidence"]) for s in d["sources"]] == [("t.a", "expression", "exact")]


def test_a_log_without_script_state_stays_statement_by_statement() -> None:
    units = list(batch._units([("f.sql", "UPDATE t\nSET a = 1;\nselect a from t")], get_dialect(None)))
    assert [type(u).__name__ for u in units] == ["Statement", "Statement"]
    units = list(batch._units([("f.sql", "/* x */ set v = 1; select v")], get_dialect(None)))
    assert [type(u).__name__ for u in units] == ["Script"]
