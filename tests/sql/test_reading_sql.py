"""Reading SQL text (issue 9 items 14 and 17): whatever sqlglot raises on malformed text is a
parse error with a position, never an internal error; a byte-order mark is ignored; a file of
only comments is "no statements"; an unterminated string names where it opens.

The fuzz test mutates real queries of every dialect (the golden cases written in it, and
TPC-H/TPC-DS) and checks that each mutant is answered or refused with a documented error."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import prism_lineage
from prism_lineage import ParseError, PrismError
from prism_lineage.cli import main
from sqlglot.dialects.dialect import Dialects

TESTS = Path(__file__).resolve().parents[1]
WORKLOADS = TESTS / "fixtures" / "workloads"
SHARED_WORKLOADS = TESTS.parents[1] / "shared" / "workloads"
# The dialects people write most (their golden cases are mutated too), then every other dialect
# sqlglot reads (mutated TPC-H/TPC-DS only), with fewer examples each.
DIALECTS = ["duckdb", "postgres", "snowflake", "bigquery", "tsql", "spark", "databricks", "mysql", "oracle",
            "trino", "redshift", "clickhouse", "hive", "sqlite"]
OTHER_DIALECTS = sorted({d.value for d in Dialects} - set(DIALECTS) - {""}) + [None]  # None: sqlglot's own

# Inputs sqlglot's parser or generator once raised a TypeError, IndexError, ValueError or
# KeyError on (found by the fuzz test below): each is a parse error at a position now.
FOUND = [
    ("postgres", "SELECT * ? FROM  customers"),
    ("redshift", "SELECT payload #>> LATERAL '{items,0,sku}' AS first_sku FROM orders"),
    ("spark", "SELECT MAP(MAP(1, 2), MAP(3" + ")" * 2),
    ("oracle", "SELECT * EXCEPT (ordered_at) REPLACE (UPPER(status) AS ) FROM orders"),
    ("databricks", "MERGE INTO customers t USING staging s ON t.id = s.id WHEN MATCHED THEN UPDATE * "
                   "WHEN NOT MATCHED THEN INSERT *"),
    ("databricks", "MERGE INTO customers t USING staging s ON t.id = s.id WHEN MATCHED THEN DELETE "
                   "WHEN NOT MATCHED THEN INSERT "),
    ("bigquery", "SELECT payload->'$.a..b' FROM orders"),
]


def check_refusal(error: PrismError, text: str) -> None:
    assert error.exit_code not in (1, 70), f"{type(error).__name__}: {error}"
    assert error.message.strip()
    if isinstance(error, ParseError):  # a parse error always knows the token it stopped at
        assert error.origin is not None, f"a parse error without a position: {error}"
    if error.origin is not None:
        lines = text.count("\n") + 1
        assert 1 <= error.origin.line <= lines, f"line {error.origin.line} of a {lines}-line text: {error}"
        assert error.origin.column >= 1


@pytest.mark.parametrize("dialect, sql", FOUND)
def test_what_sqlglot_raises_is_a_parse_error(dialect, sql) -> None:
    try:
        prism_lineage.explain(sql, dialect=dialect)
    except PrismError as error:
        check_refusal(error, sql)


@pytest.mark.parametrize("dialect, sql", [found for found in FOUND if "MERGE" not in found[1]])
def test_the_cli_names_where_sqlglot_stopped(tmp_path, capsys, dialect, sql) -> None:
    file = tmp_path / "q.sql"
    file.write_text(f"SELECT 1;\n{sql}")
    code = main(["explain", str(file), "-d", dialect])
    out = capsys.readouterr()
    assert (code, out.out) == (4, "")
    [line] = out.err.splitlines()
    assert line.startswith("prism-lineage: error: cannot parse the SQL: ")
    assert re.search(r"\(at (statement 2, )?line 2, column \d+\)$", line), line
    assert "Traceback" not in out.err and "sqlglot.expressions" not in line


# --- the fuzz test ------------------------------------------------------------------------------


@cache
def corpus(dialect: str) -> tuple[str, ...]:
    """Real queries read in ``dialect``: its golden cases, then TPC-H and TPC-DS."""
    own = []
    for path in sorted((TESTS / "golden").glob("*/*.sql")):
        text = path.read_text(encoding="utf-8")
        if re.search(rf"^-- dialect: {dialect}\s*$", text, re.M):
            own.append("\n".join(line for line in text.splitlines() if not line.startswith("-- ")))
    workloads = SHARED_WORKLOADS if SHARED_WORKLOADS.is_dir() else WORKLOADS
    shared = [p.read_text(encoding="utf-8") for p in sorted(workloads.glob("*/q*.sql"))[::7]]
    if not own and not shared:
        pytest.skip(f"no real queries to mutate for {dialect}: no golden cases and no TPC workloads")
    return tuple(own + shared)


TOKEN = re.compile(r"\w+|\s+|[^\w\s]")
NOISE = ["(", ")", "[", "]", "{", "}", ",", ";", "'", '"', "`", "$$", "/*", "--", "::", "->", "->>", "#>>", "*",
         ".", "?", "@", ":", "\\", "e'", "x'", "N'", "SELECT", "FROM", "WHERE", "AS", "ON", "USING", "JOIN",
         "LATERAL", "UNNEST(", "OVER (", "PARTITION BY", "CASE", "WHEN", "THEN", "END", "WITH", "UNION",
         "EXCEPT", "ORDER BY", "LIMIT", "TOP", "QUALIFY", "PIVOT (", "UNPIVOT (", "FILTER (WHERE", "INTERVAL",
         "ARRAY[", "STRUCT(", "MAP(", "CAST(", "TRY_CAST(", "EXTRACT(", "IGNORE NULLS", "DISTINCT", "NOT",
         "INSERT", "UPDATE", "MERGE", "DELETE", "SET", "VALUES", "REPLACE (", "EXCLUDE (", "RENAME (", "NULL",
         "1", "t.*", "*", "=", "<>", "||"]
# Operators: sqlglot's parser lets a TypeError or IndexError through where one meets a keyword
# instead of an operand (``SELECT * ? FROM t``), so the fuzzer puts them there often.
OPERATORS = ["->", "->>", "#>>", "#>", "?", "?|", "@>", "<@", "@", "||", "::", "MAP(", "!", "~", "%", "^", "&", "|",
             "<<", ">>", "=>", ":=", "-", "+", "/", "=", "<", "IS", "NOT", "LIKE", "IN", "BETWEEN", "AND", "OR",
             "COLLATE", "AT TIME ZONE"]
KEYWORDS = {"FROM", "JOIN", "AND", "OR", "WHERE", "AS", "ON", "THEN", "END", "GROUP", "ORDER", ")", ","}


@st.composite
def mutants(draw, dialect: str) -> str:
    tokens = TOKEN.findall(draw(st.sampled_from(corpus(dialect))))
    for _ in range(draw(st.integers(1, 4))):
        if not tokens:
            break
        at = draw(st.integers(0, len(tokens) - 1))
        how = draw(st.sampled_from(["delete", "insert", "duplicate", "swap", "truncate", "replace", "operator"]))
        if how == "delete":
            del tokens[at]
        elif how == "insert":
            tokens.insert(at, draw(st.sampled_from(NOISE)) + " ")
        elif how == "duplicate":
            tokens.insert(at, tokens[draw(st.integers(0, len(tokens) - 1))])
        elif how == "swap":
            other = draw(st.integers(0, len(tokens) - 1))
            tokens[at], tokens[other] = tokens[other], tokens[at]
        elif how == "truncate":
            tokens = tokens[:at]
        elif how == "operator":  # an operator where a keyword follows
            before = [i for i, token in enumerate(tokens) if token.upper() in KEYWORDS] or [at]
            tokens.insert(draw(st.sampled_from(before)), draw(st.sampled_from(OPERATORS)) + " ")
        else:
            tokens[at] = draw(st.sampled_from(NOISE))
    return "".join(tokens)


@pytest.mark.parametrize("dialect", DIALECTS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_mutated_real_queries_are_answered_or_refused_cleanly(dialect: str, data) -> None:
    answered_or_refused_cleanly(dialect, data.draw(mutants(dialect), label="sql"))


@pytest.mark.parametrize("dialect", OTHER_DIALECTS)
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_every_other_dialect_answers_or_refuses_mutants_cleanly(dialect: str | None, data) -> None:
    answered_or_refused_cleanly(dialect, data.draw(mutants(dialect), label="sql"))


def answered_or_refused_cleanly(dialect: str | None, text: str) -> None:
    try:
        prism_lineage.explain(text, dialect=dialect)
    except PrismError as error:
        check_refusal(error, text)


# --- item 17: byte-order marks, comments only, unterminated strings -----------------------------


def run(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_byte_order_mark_is_ignored(tmp_path, capsys) -> None:
    file = tmp_path / "bom.sql"
    file.write_bytes(b"\xef\xbb\xbfSELECT a FROM t WHERE b > 1")
    code, out, err = run(capsys, "explain", file, "-f", "json")
    assert (code, err) == (0, "")
    assert '"column": "t.a"' in out
    assert prism_lineage.explain("\ufeffSELECT x FROM t") == prism_lineage.explain("SELECT x FROM t")
    with pytest.raises(prism_lineage.UnknownColumnError) as error:  # positions count from after the mark
        prism_lineage.explain("\ufeffSELECT nope FROM t", schema={"t": ["a"]})
    assert (error.value.line, error.value.column) == (1, 8)


@pytest.mark.parametrize("text", ["-- nothing here\n", "/* a block */ ;", ";;\n;", "-- a\n;\n/* b */\n"])
def test_only_comments_or_semicolons_is_no_statements_like_an_empty_file(tmp_path, capsys, text) -> None:
    empty = tmp_path / "empty.sql"
    empty.write_text("  \n")
    file = tmp_path / "comments.sql"
    file.write_text(text)
    empty_code, _, _ = run(capsys, "explain", empty)
    code, out, err = run(capsys, "explain", file)
    assert code == empty_code == 3
    assert (out, err) == ("", f"prism-lineage: error: no SQL statements in {file}: it holds only comments or "
                              "semicolons\n")
    assert run(capsys, "graph", file)[0] == 3
    assert prism_lineage.explain(text).statements == []


def test_a_directory_reports_a_comments_only_file_like_an_empty_one(tmp_path, capsys) -> None:
    folder = tmp_path / "q"
    folder.mkdir()
    (folder / "a.sql").write_text("SELECT a FROM t")
    (folder / "b.sql").write_text("-- to do\n")
    for options in ((), ("--through-script",)):
        code, out, _ = run(capsys, "explain", folder, *options)
        assert code == 1
        assert out.splitlines()[-1] == (f"{folder / 'b.sql'} file: error 3: no SQL statements in {folder / 'b.sql'}: "
                                        "it holds only comments or semicolons")


@pytest.mark.parametrize("dialect, text, what, where", [
    ("duckdb", "SELECT a,\n  'unfinished FROM t", "unterminated string: the quote that opens it is never closed", (2, 3)),
    ("postgres", "SELECT 1;\nSELECT E'it\\'s FROM t", "unterminated string", (2, 8)),
    ("duckdb", 'SELECT "col FROM t', "unterminated quoted identifier", (1, 8)),
    ("bigquery", "SELECT `col FROM t", "unterminated quoted identifier: the backtick", (1, 8)),
    ("tsql", "SELECT [col FROM t", "unterminated quoted identifier: the [ that opens it has no ]", (1, 8)),
    ("postgres", "SELECT $$body FROM t", "unterminated dollar-quoted string", (1, 8)),
    ("duckdb", "SELECT a FROM t\n/* note", "unterminated comment: the /* that opens it has no */", (2, 1)),
])
def test_an_unterminated_token_names_its_line_and_column(capsys, tmp_path, dialect, text, what, where) -> None:
    with pytest.raises(ParseError) as error:
        prism_lineage.explain(text, dialect=dialect)
    assert error.value.message.startswith(what)
    assert (error.value.line, error.value.column) == where
    file = tmp_path / "q.sql"
    file.write_text(text)
    code, _, err = run(capsys, "explain", file, "-d", dialect)
    assert code == 4
    assert err.rstrip().endswith(f"(at line {where[0]}, column {where[1]})")
