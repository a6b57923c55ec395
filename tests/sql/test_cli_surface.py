"""The surface of ``explain`` on the command line and in Python (issue 9 items 13-22): the
table-level summary, the text layout, asking about some columns, inputs, drawings, errors."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

import prism_lineage
from prism_lineage.cli import main

SCHEMA = """
orders: {order_id: bigint, customer_id: bigint, status: varchar, amount: decimal,
         items: "ARRAY<STRUCT<sku VARCHAR, qty INT>>", payload: json}
customers: {customer_id: bigint, name: varchar, country: varchar}
refunds: {order_id: bigint, amount: decimal}
summary: {customer_id: bigint, total: decimal}
"""


def run(tmp_path, capsys, sql: str, *options: str, schema: bool = True) -> tuple[int, str, str]:
    (tmp_path / "schema.yaml").write_text(SCHEMA)
    (tmp_path / "q.sql").write_text(sql, encoding="utf-8")
    extra = ["--schema", str(tmp_path / "schema.yaml")] if schema else []
    code = main(["explain", str(tmp_path / "q.sql"), *extra, *options])
    out = capsys.readouterr()
    return code, out.out, out.err


def answer(tmp_path, capsys, sql: str, *options: str) -> dict:
    code, out, err = run(tmp_path, capsys, sql, "--format", "json", *options)
    assert code == 0, err
    return json.loads(out)


# --- item 19: reads and writes ----------------------------------------------------------------


def test_reads_lists_every_table_scanned_in_any_clause(tmp_path, capsys) -> None:
    sql = ("WITH big AS (SELECT customer_id FROM orders WHERE amount > 100) "
           "SELECT c.name FROM customers c WHERE c.customer_id IN (SELECT customer_id FROM big) "
           "AND NOT EXISTS (SELECT 1 FROM refunds r WHERE r.order_id = c.customer_id)")
    [statement] = answer(tmp_path, capsys, sql)["statements"]
    assert (statement["reads"], statement["writes"]) == (["customers", "orders", "refunds"], [])


def test_writes_is_the_target_and_reads_the_tables_read(tmp_path, capsys) -> None:
    sql = """INSERT INTO summary SELECT customer_id, SUM(amount) FROM orders GROUP BY customer_id;
MERGE INTO summary s USING refunds r ON s.customer_id = r.order_id WHEN MATCHED THEN UPDATE SET total = s.total - r.amount;
CREATE VIEW paid AS SELECT * FROM orders WHERE status = 'paid';
DROP TABLE refunds;
SELECT 1 AS one"""
    statements = answer(tmp_path, capsys, sql)["statements"]
    assert [(s["kind"], s["reads"], s["writes"]) for s in statements] == [
        ("insert", ["orders"], ["summary"]),
        ("merge", ["refunds", "summary"], ["summary"]),
        ("create_view", ["orders"], ["paid"]),
        ("drop", [], ["refunds"]),
        ("select", [], []),
    ]


def test_reads_follow_the_script_with_through_script(tmp_path, capsys) -> None:
    sql = "CREATE TEMP TABLE paid AS SELECT * FROM orders WHERE status = 'paid';\nSELECT amount FROM paid"
    plain = answer(tmp_path, capsys, sql)["statements"][1]
    through = answer(tmp_path, capsys, sql, "--through-script")["statements"][1]
    assert (plain["reads"], through["reads"]) == (["paid"], ["orders"])


def test_text_has_the_tables_as_a_header_line(tmp_path, capsys) -> None:
    code, out, _ = run(tmp_path, capsys, "INSERT INTO summary SELECT c.customer_id, o.amount FROM orders o "
                                         "JOIN customers c ON o.customer_id = c.customer_id")
    assert code == 0
    assert out.splitlines()[:2] == ["statement 1: insert → summary", "  reads: customers, orders   writes: summary"]


def test_python_answer_has_reads_and_writes() -> None:
    explanation = prism_lineage.explain("UPDATE t SET a = u.b FROM u WHERE t.k = u.k", dialect="postgres")
    [statement] = explanation.statements
    assert (statement.reads, statement.writes) == (["t", "u"], ["t"])


# --- item 18: asking about some fields ----------------------------------------------------------

TOTALS = "SELECT customer_id, SUM(amount) AS Total FROM orders WHERE status = 'paid' GROUP BY customer_id"


def test_column_and_relationship_filter_the_json(tmp_path, capsys) -> None:
    [statement] = answer(tmp_path, capsys, TOTALS, "--dialect", "snowflake", "--column", "total",
                         "--relationship", "value,control")["statements"]
    assert [f["name"] for f in statement["fields"]] == ["TOTAL"]
    assert [(s["column"], s["relationship"]) for s in statement["fields"][0]["sources"]] == [
        ("orders.amount", "value"), ("orders.status", "control")]


def test_column_is_repeatable_and_keeps_the_statements_that_have_one(tmp_path, capsys) -> None:
    sql = "SELECT order_id FROM orders;\nSELECT name, country FROM customers;\nSELECT country FROM customers"
    found = answer(tmp_path, capsys, sql, "-c", "country", "-c", "order_id")["statements"]
    assert [(s["index"], [f["name"] for f in s["fields"]]) for s in found] == [
        (0, ["order_id"]), (1, ["country"]), (2, ["country"])]


def test_text_is_filtered_too(tmp_path, capsys) -> None:
    code, out, _ = run(tmp_path, capsys, TOTALS, "-c", "CUSTOMER_ID", "-r", "grouping")
    assert code == 0
    assert out == ("statement 1: select\n  reads: orders   writes: -\n  customer_id\n"
                   "    grouping  orders.customer_id  aggregate    exact\n")


def test_a_column_no_statement_has_names_the_fields_there_are(tmp_path, capsys) -> None:
    code, out, err = run(tmp_path, capsys, TOTALS, "-c", "totl")
    assert (code, out) == (5, "")
    assert err == ("prism-lineage: error: no output field 'totl' in statement 1 (did you mean total?); "
                   "its output fields: customer_id, total\n")


def test_an_unknown_relationship_kind_is_a_usage_error(tmp_path, capsys) -> None:
    code, _, err = run(tmp_path, capsys, TOTALS, "-r", "value,lineage")
    assert code == 2
    assert err.startswith("prism-lineage: error: unknown relationship kind 'lineage'; the kinds are: value, grouping")


def test_case_matters_where_the_dialect_says_so() -> None:
    clickhouse = prism_lineage.explain("SELECT a AS Foo, b AS foo FROM t", dialect="clickhouse")
    assert clickhouse.field("foo").sources[0].column == "t.b"
    assert clickhouse.field("Foo").sources[0].column == "t.a"
    with pytest.raises(prism_lineage.UnknownFieldError):
        clickhouse.field("FOO")
    duckdb = prism_lineage.explain('SELECT a AS "Foo", b AS "FOO" FROM t', dialect="duckdb")
    with pytest.raises(prism_lineage.AmbiguousFieldError, match="could be Foo or FOO"):
        duckdb.field("foo")
    assert duckdb.statements[0].field("FOO").sources[0].column == "t.b"


def test_field_of_an_explanation_is_the_one_statement_that_has_it() -> None:
    explanation = prism_lineage.explain("SELECT a FROM t; SELECT b FROM u; SELECT a FROM v")
    assert explanation.field("b").sources[0].column == "u.b"
    with pytest.raises(prism_lineage.AmbiguousFieldError, match="a of statement 1 or a of statement 3"):
        explanation.field("a")
    with pytest.raises(KeyError):
        explanation.field("c")
    assert explanation.statements[2].field("A").sources[0].column == "v.a"


def test_a_filtered_answer_keeps_what_is_uncertain_about_its_fields() -> None:
    explanation = prism_lineage.explain("SELECT x.*, t.a FROM x JOIN t ON x.k = t.k", schema={"t": ["a", "k"]})
    kept = explanation.filtered(["a"])
    assert [f.name for f in kept.statements[0].fields] == ["a"]
    assert all(u.field in (None, "a") for u in kept.statements[0].uncertain)
    assert explanation.filtered(relationships=["join"]).statements[0].fields[1].sources == [
        s for s in explanation.statements[0].fields[1].sources if s.relationship == "join"]


def test_a_directory_is_filtered_statement_by_statement(tmp_path, capsys) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "a.sql").write_text("SELECT a FROM t; SELECT b FROM t")
    (folder / "b.sql").write_text("SELECT a, b FROM u")
    assert main(["explain", str(folder), "--jobs", "1", "-c", "b", "-f", "json"]) == 0
    found = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(Path(r["file"]).name, r["index"], [f["name"] for f in r["fields"]]) for r in found] == [
        ("a.sql", 1, ["b"]), ("b.sql", 0, ["b"])]
    assert main(["explain", str(folder), "--jobs", "1", "-c", "zz"]) == 5
    assert "no statement has an output field named 'zz'" in capsys.readouterr().err


# --- item 20: inputs ---------------------------------------------------------------------------


def test_schema_may_be_a_path_and_sql_a_sqlglot_expression(tmp_path) -> None:
    import sqlglot

    (tmp_path / "schema.yaml").write_text(SCHEMA)
    by_path = prism_lineage.explain(TOTALS, schema=str(tmp_path / "schema.yaml"))
    by_mapping = prism_lineage.explain(TOTALS, schema=__import__("yaml").safe_load(SCHEMA))
    assert by_path == by_mapping == prism_lineage.explain(TOTALS, schema=tmp_path / "schema.yaml")
    parsed = sqlglot.parse_one(TOTALS, read="duckdb")
    assert prism_lineage.explain(parsed, schema=tmp_path / "schema.yaml", dialect="duckdb") == prism_lineage.explain(
        TOTALS, schema=tmp_path / "schema.yaml", dialect="duckdb")
    several = sqlglot.parse("SELECT a FROM t; SELECT b FROM u", read="postgres")
    assert [s.reads for s in prism_lineage.explain(several, dialect="postgres").statements] == [["t"], ["u"]]
    assert len(prism_lineage.lineage_graphs(parsed, dialect="duckdb")) == 1


@pytest.mark.parametrize("sql, schema, message", [
    (42, None, "explain() takes SQL text, a sqlglot expression (or a list of them, as sqlglot.parse gives), or a "
               "plan with to_statements() (a prism_lineage.frame DataFrame, a SubstraitPlan, a Polars LazyFrame), "
               "not int"),
    (b"SELECT 1", None, "not bytes"),
    ("SELECT 1", 3.5, "schema= takes a mapping of tables to columns, a Catalog, or the path of a schema file "
                      "(YAML or JSON), not float"),
])
def test_what_explain_does_not_take_is_a_usage_error(sql, schema, message) -> None:
    with pytest.raises(prism_lineage.UsageError) as error:
        prism_lineage.explain(sql, schema=schema)
    assert message in str(error.value)


def test_a_missing_schema_path_is_a_schema_error(tmp_path) -> None:
    with pytest.raises(prism_lineage.SchemaError, match="schema file not found"):
        prism_lineage.explain("SELECT 1", schema=str(tmp_path / "nope.yaml"))


# --- item 21: the column-level graph -----------------------------------------------------------

WRITE = ("INSERT INTO summary SELECT c.customer_id, SUM(o.amount) FROM orders o JOIN customers c "
         "ON o.customer_id = c.customer_id WHERE o.status = 'paid' GROUP BY c.customer_id;\n"
         "DELETE FROM refunds WHERE amount < 0")


def test_dot_draws_input_columns_to_output_columns(tmp_path, capsys) -> None:
    code, out, _ = run(tmp_path, capsys, WRITE, "--format", "dot")
    assert code == 0
    labels = dict(re.findall(r'^    (n\d+) \[label="([^"]*)"\];$', out, re.M))
    clusters = re.findall(r'^    label="([^"]*)";', out, re.M)
    assert clusters == ["customers", "orders", "refunds", "statement 1: insert → summary",
                        "statement 2: delete → refunds"]
    edges = {(labels[a], labels[b], label, color, style)
             for a, b, label, color, style in re.findall(
                 r'^  (n\d+) -> (n\d+) \[label="([^"]*)", color=(\w+), fontcolor=\w+, style=(\w+)\];$', out, re.M)}
    assert ("amount", "total", "aggregate", "black", "solid") in edges
    assert ("customer_id", "customer_id", "identity", "black", "solid") in edges
    assert ("status", "total", "control: filter", "red", "solid") in edges
    assert ("customer_id", "total", "join: join", "darkgreen", "solid") in edges
    assert ("amount", "(rows changed)", "control: filter", "red", "solid") in edges
    assert len(re.findall(r" -> ", out)) == sum(
        len(f["sources"]) for s in json.loads(run(tmp_path, capsys, WRITE, "-f", "json")[1])["statements"]
        for f in s["fields"]) + 1  # and the deleted rows


def test_not_exact_is_dashed_and_says_so(tmp_path, capsys) -> None:
    code, out, _ = run(tmp_path, capsys, "SELECT * FROM events", "--format", "dot")
    assert code == 0
    assert re.search(r'-> n\d+ \[label="identity \(unknown\)", color=black, fontcolor=black, style=dashed\]', out)
    code, out, _ = run(tmp_path, capsys, "SELECT * FROM events", "--format", "mermaid")
    assert re.search(r'n\d+ -\.->\|"identity #40;unknown#41;"\| n\d+', out)


def test_mermaid_draws_the_same_graph(tmp_path, capsys) -> None:
    code, dot, _ = run(tmp_path, capsys, WRITE, "--format", "dot")
    code, mermaid, _ = run(tmp_path, capsys, WRITE, "--format", "mermaid")
    assert code == 0 and mermaid.startswith("flowchart LR\n")
    dot_edges = re.findall(r"^  (n\d+) -> (n\d+) ", dot, re.M)
    mermaid_edges = re.findall(r"^  (n\d+) -(?:->|\.->)\|[^|]*\| (n\d+)$", mermaid, re.M)
    assert dot_edges == mermaid_edges
    assert len(re.findall(r"^  linkStyle \d+ stroke:", mermaid, re.M)) == len(mermaid_edges)
    assert "linkStyle 0 stroke:" in mermaid


def test_the_drawing_escapes_what_the_sql_names(tmp_path, capsys) -> None:
    code, out, _ = run(tmp_path, capsys, 'SELECT "a""b\x1b[2J" AS "x|y]" FROM "t(1)"', "--format", "mermaid",
                       schema=False)
    assert code == 0
    assert "\x1b" not in out and '"t#40;1#41;"' in out and '"x#124;y#93;"' in out
    code, out, _ = run(tmp_path, capsys, 'SELECT "a""b" AS x FROM t', "--format", "dot", schema=False)
    assert 'label="a\\"b"' in out


def test_the_picture_in_the_docs_is_drawn_from_todays_answer(capsys) -> None:
    """docs/pictures/summary-columns.svg is `dot -Tsvg` of the command docs/cli.md shows
    (`make docs-pictures` redraws it; Graphviz is not needed to check it)."""
    root = Path(__file__).resolve().parents[2]
    assert main(["explain", str(root / "examples/orders/summary.sql"), "--schema",
                 str(root / "examples/orders/schema.yaml"), "-f", "dot"]) == 0
    dot = capsys.readouterr().out
    svg = (root / "docs" / "pictures" / "summary-columns.svg").read_text(encoding="utf-8")
    drawn = sorted(re.findall(r">([^<>]+)</text>", svg))
    expected = sorted(re.findall(r'label="([^"]*)"', dot))
    assert drawn == [html.unescape(e) for e in expected]


# --- item 22: text layout ----------------------------------------------------------------------


def test_text_columns_line_up_and_never_run_together(tmp_path, capsys) -> None:
    sql = ("SELECT o.order_id, i.sku, o.payload->>'$.customer.region' AS region FROM orders AS o "
           "CROSS JOIN UNNEST(o.items) AS i WHERE o.status = 'paid'")
    code, out, _ = run(tmp_path, capsys, sql, "--dialect", "duckdb")
    assert code == 0
    kinds = ("value ", "grouping ", "control ", "join ", "window ", "sort ", "policy ", "quality ")
    rows = [line for line in out.splitlines() if line.startswith("    ") and line.strip().startswith(kinds)]
    assert len(rows) >= 6
    words = [[(m.start(), m.group()) for m in re.finditer(r"\S+", row)] for row in rows]
    # Every column starts at the same place on every line: kind, column, transformation, confidence.
    for column in (0, 1, -2, -1):
        assert len({w[column][0] for w in words}) == 1, out
    for row in rows:
        assert all(len(gap) >= 2 for gap in re.findall(r"(?<=\S)( +)(?=\S)", row.strip())), row
    assert re.search(r"orders\.items +\[\]\.sku ", out)  # the path apart from its column
    assert "semi_structured_access  conservative" in out  # the longest kind, still two spaces apart


def test_the_uncertain_reasons_come_last(tmp_path, capsys) -> None:
    code, out, _ = run(tmp_path, capsys, "SELECT e.*, o.order_id FROM events e JOIN orders o ON e.id = o.order_id")
    assert code == 0
    lines = out.splitlines()
    at = lines.index("  uncertain:")
    assert all(line.startswith("    ") and ": " in line for line in lines[at + 1:])
    assert not any(line.startswith("    value") for line in lines[at:])


# --- issue 15 item 17: nothing the SQL names reaches the terminal raw ---------------------------

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
NASTY = ["\x1b[2J", "\x1b]0;owned\x07", "\x07", "\x9b31m", "\u202e", "\r", "\x08"]


@pytest.mark.parametrize("nasty", NASTY)
def test_text_dot_mermaid_graph_and_errors_never_print_control_characters(tmp_path, capsys, nasty) -> None:
    """Every text rendering of explain and graph, and an error echoing a name, shows control
    characters escaped (JSON escapes them itself)."""
    name = f'"c{nasty}x"'
    sql = f'SELECT {name} AS "out{nasty}", b FROM "t{nasty}" WHERE {name} > 1 ORDER BY b'
    (tmp_path / "q.sql").write_text(sql, encoding="utf-8")
    outputs = []
    for command, fmt in (("explain", "text"), ("explain", "dot"), ("explain", "mermaid"), ("graph", "text"),
                         ("graph", "dot")):
        code = main([command, str(tmp_path / "q.sql"), "--format", fmt])
        out = capsys.readouterr()
        assert code == 0, out.err
        outputs.append(out.out + out.err)
    if nasty != "\r":  # reading the file turns a carriage return into a newline
        (tmp_path / "s.yaml").write_text(json.dumps({f"t{nasty}": {"a": "int"}}))
        code = main(["explain", str(tmp_path / "q.sql"), "--schema", str(tmp_path / "s.yaml")])
        out = capsys.readouterr()
        assert code == 5 and "unknown column" in out.err
        outputs.append(out.out + out.err)
    for text in outputs:
        assert not CONTROL.search(text.replace("\n", "")), repr(CONTROL.search(text.replace("\n", "")))
