"""The table-level rollup: declared and parsed edges, how each is known, whose SQL and which
file, the column lineage behind each parsed edge, and the statuses in words."""

from __future__ import annotations

import pytest

from gov_helpers import GOLDEN, SHOP, shop, table, view, write_project
from prism_lineage.governance.access import OWNER, Viewer
from prism_lineage.governance.loading import load_project
from prism_lineage.governance.rollup import EnvironmentLineage, sync
from prism_lineage.governance.statuses import (
    DECLARED_READ_NOTE,
    PIPELINE_ORDER_NOTE,
    EnvironmentStatus,
    Mark,
    MarkStatus,
    ParserState,
    SqlStatus,
    Via,
)


def render_edges(lineage: EnvironmentLineage) -> str:
    """One line per edge and mark, then its column links: the golden files' format."""
    lines = []
    for edge in lineage.edges:
        source, target = lineage.assets[edge.source].full_name, lineage.assets[edge.target].full_name
        lines.append(f"{source} -> {target}  {edge.mark}  via {edge.via}  {edge.file}")
        for link in edge.columns or ():
            lines.append(f"    {link.source} -> {link.target}  {link.relationship} {link.transformation} "
                         f"{link.confidence}")
    lines.append("----")
    for asset in sorted(lineage.assets.values(), key=lambda a: a.full_name):
        lines.append(f"{asset.full_name}  {asset.kind}  {asset.sql_status or '-'}  {asset.sql_read_from or '-'}")
    return "\n".join(lines) + "\n"


def check_golden(name: str, text: str, update: bool) -> None:
    path = GOLDEN / name
    if update:
        path.write_text(text)
    assert path.exists(), f"{path} is missing: run pytest --update-goldens and review it"
    assert text == path.read_text()


def test_shop_prod_edges_golden(update_goldens):
    lineage, _ = shop("prod")
    check_golden("shop_prod.edges", render_edges(lineage), update_goldens)


def test_declared_and_parsed_pair_are_two_edges():
    lineage, _ = shop("prod")
    orders, daily = lineage.by_name["analytics.orders"], lineage.by_name["analytics.daily_revenue"]
    pair = [e for e in lineage.edges if (e.source, e.target) == (orders, daily)]
    assert sorted(e.mark for e in pair) == [Mark.DECLARED, Mark.PARSED]
    assert all(e.via is Via.VIEW and e.file == "views/daily_revenue.yaml" for e in pair)
    declared = next(e for e in pair if e.mark is Mark.DECLARED)
    assert declared.columns is None and declared.note == DECLARED_READ_NOTE


def test_view_reads_are_not_checked_against_sql():
    # revenue_by_country lists analytics.orders only; its SQL also reads raw.customers.
    lineage, _ = shop("prod")
    target = lineage.by_name["marts.revenue_by_country"]
    customers = lineage.by_name["raw.customers"]
    found = [(e.mark, e.via) for e in lineage.edges if e.source == customers and e.target == target]
    assert found == [(Mark.PARSED, Via.VIEW)]


def test_pipeline_order_edge_is_between_written_tables_and_never_a_read():
    lineage, _ = shop("prod")
    revenue, scores = lineage.by_name["analytics.customer_revenue"], lineage.by_name["analytics.customer_scores"]
    [edge] = [e for e in lineage.edges if e.source == revenue and e.target == scores]
    assert (edge.mark, edge.via, edge.file) == (Mark.DECLARED, Via.PIPELINE, "pipelines/growth.yaml")
    assert edge.note == PIPELINE_ORDER_NOTE and edge.columns is None


def test_statuses_in_words():
    lineage, _ = shop("prod")
    status = {a.full_name: a.sql_status for a in lineage.assets.values()}
    assert status["analytics.customer_revenue"] is SqlStatus.IN_FILE
    assert status["analytics.customer_scores"] is SqlStatus.NOT_PARSED
    assert status["analytics.orders"] is None and status["raw.orders"] is None
    assert lineage.marks(OWNER) == {"declared": "Recorded", "parsed": "Recorded", "observed": "Not recorded"}
    assert lineage.status is EnvironmentStatus.COMPUTED


def test_sql_in_a_file_gives_no_parsed_edge():
    # customer_revenue.sql reads analytics.orders, but a file is not read.
    lineage, _ = shop("prod")
    revenue = lineage.by_name["analytics.customer_revenue"]
    assert not [e for e in lineage.edges if e.target == revenue]


def test_environments_differ(tmp_path):
    dev, _ = shop("dev")
    prod, _ = shop("prod")
    assert "sandbox.experiments" in dev.by_name and "sandbox.experiments" not in prod.by_name
    owner = lambda l: l.assets[l.by_name["raw.orders"]].owner  # noqa: E731
    assert owner(dev) == "dev-team@shop.example" and owner(prod) == "ingest@shop.example"
    assert dev.by_name["analytics.orders"] != prod.by_name["analytics.orders"]  # ids are per environment


def test_held_for_review_is_not_computed_never_empty():
    project, _ = load_project(SHOP)
    lineage = sync(project, "prod", held_for_review=True)
    assert lineage.status is EnvironmentStatus.NOT_COMPUTED and lineage.edges == ()
    assert lineage.assets  # the declarations are known; the edges are not worked out


def test_undeclared_read_is_not_an_edge_and_self_reads_are_not_edges(tmp_path):
    root = write_project(tmp_path, tables=[table("a.t", ["x"]), table("a.u", ["x"])], pipelines=[{
        "name": "p", "assets": [
            {"name": "u", "writes": "a.u", "sql": "SELECT t.x FROM a.t JOIN elsewhere.s ON s.x = t.x "
                                                  "UNION ALL SELECT x FROM a.u"}]}])
    project, _ = load_project(root)
    lineage = sync(project)
    names = [(lineage.assets[e.source].full_name, lineage.assets[e.target].full_name) for e in lineage.edges]
    assert names == [("a.t", "a.u")]
    [edge] = lineage.edges
    assert [(c.source, c.target, c.relationship) for c in edge.columns] == [
        ("x", "x", "value"), ("x", "x", "join")]


def test_a_statement_reading_two_tables_gives_two_edges_with_their_own_columns(tmp_path):
    root = write_project(tmp_path, tables=[table("s.a", ["k", "v"]), table("s.b", ["k", "w"])], views=[
        view("s.ab", "SELECT a.k, a.v + b.w AS total FROM s.a JOIN s.b ON a.k = b.k")])
    project, _ = load_project(root)
    lineage = sync(project)
    by_source = {lineage.assets[e.source].full_name: [(c.source, c.target, c.relationship) for c in e.columns]
                 for e in lineage.edges}
    assert by_source == {
        "s.a": [("k", "k", "value"), ("k", "k", "join"), ("v", "total", "value"), ("k", "total", "join")],
        "s.b": [("k", "k", "join"), ("w", "total", "value"), ("k", "total", "join")],
    }


def test_view_columns_are_derived_from_its_sql_for_its_readers(tmp_path):
    root = write_project(tmp_path, tables=[table("s.t", ["a", "b"])], views=[
        view("s.v1", "SELECT a AS x, b FROM s.t"), view("s.v2", "SELECT * FROM s.v1")])
    project, _ = load_project(root)
    lineage = sync(project)
    v1 = lineage.by_name["s.v1"]
    [edge] = [e for e in lineage.edges if e.source == v1]
    assert [(c.source, c.target, c.confidence) for c in edge.columns] == [("x", "x", "exact"), ("b", "b", "exact")]


def test_a_column_not_declared_is_read_schema_less(tmp_path):
    root = write_project(tmp_path, tables=[table("s.t", ["a"])], views=[view("s.v", "SELECT a, zz FROM s.t")])
    project, _ = load_project(root)
    lineage = sync(project)
    [edge] = lineage.edges
    assert [(c.source, c.target) for c in edge.columns] == [("a", "a"), ("zz", "zz")]
    assert lineage.assets[lineage.by_name["s.v"]].sql_status is None


def test_statement_kind_the_engine_does_not_analyse_could_not_be_parsed(tmp_path):
    root = write_project(tmp_path, tables=[table("s.t", ["a"]), table("s.u", ["a"])], pipelines=[{
        "name": "p", "assets": [{"name": "u", "writes": "s.u", "sql": "CALL refresh_u((SELECT a FROM s.t))"}]}])
    project, _ = load_project(root)
    lineage = sync(project)
    assert lineage.assets[lineage.by_name["s.u"]].sql_status is SqlStatus.NOT_PARSED


def test_what_was_read_is_drawn_beside_a_statement_that_was_not(tmp_path):
    root = write_project(tmp_path, tables=[table("s.t", ["a"]), table("s.u", ["a"])], pipelines=[{
        "name": "p", "assets": [{"name": "u", "writes": "s.u", "sql": "SELECT a FROM s.t; GRANT SELECT ON s.u TO r"}]}])
    project, _ = load_project(root)
    lineage = sync(project)
    assert lineage.assets[lineage.by_name["s.u"]].sql_status is SqlStatus.NOT_PARSED  # so it reads at least
    assert [(lineage.assets[e.source].full_name, e.mark) for e in lineage.edges] == [("s.t", "parsed")]


def test_too_large_sql_could_not_be_parsed(tmp_path, monkeypatch):
    import prism_lineage.governance.sql_reading as sql_reading

    assert sql_reading.MAX_SQL_CHARACTERS == 1_000_000
    monkeypatch.setattr(sql_reading, "MAX_SQL_CHARACTERS", 40)  # a small limit, the same rule
    root = write_project(tmp_path, tables=[table("s.t", ["a"])], views=[
        view("s.small", "SELECT a FROM s.t"), view("s.large", "SELECT a FROM s.t WHERE a = 1 OR a = 2 OR a = 3")])
    project, _ = load_project(root)
    lineage = sync(project)
    assert lineage.assets[lineage.by_name["s.large"]].sql_status is SqlStatus.NOT_PARSED
    assert lineage.assets[lineage.by_name["s.small"]].sql_status is None


# --- passes, marks and re-reading ------------------------------------------------------------

def _chain(tmp_path, second_sql="SELECT a FROM s.v1"):
    return write_project(tmp_path, tables=[table("s.t", ["a"])], views=[
        view("s.v1", "SELECT a FROM s.t"), view("s.v2", second_sql)],
        access={"owner": "o", "roles": {"r": {"sees": ["s.t", "s.v1"]}},
                "members": {"o": {"roles": ["r"]}, "m": {"roles": ["r"]}}})


def test_no_pass_yet_is_not_recorded_yet(tmp_path):
    project, _ = load_project(_chain(tmp_path))
    lineage = sync(project, parser=ParserState.NOT_RUN)
    assert lineage.parsed_mark(OWNER) is MarkStatus.NOT_RECORDED_YET
    assert {a.sql_status for a in lineage.assets.values() if a.kind == "view"} == {SqlStatus.NOT_READ_YET}
    assert all(e.mark is Mark.DECLARED for e in lineage.edges)


def test_a_pass_reads_as_much_as_its_budget_and_says_the_rest_is_not_read_yet(tmp_path):
    project, _ = load_project(_chain(tmp_path))
    lineage = sync(project, budget=1)
    assert lineage.reads_performed == 1
    statuses = sorted(str(a.sql_status) for a in lineage.assets.values() if a.kind == "view")
    assert statuses == ["None", "Not read yet"]
    assert lineage.parsed_mark(OWNER) is MarkStatus.RECORDED


def test_unchanged_statements_are_not_read_again(tmp_path):
    project, _ = load_project(_chain(tmp_path))
    first = sync(project)
    again = sync(project, previous=first)
    assert (first.reads_performed, again.reads_performed) == (2, 0)
    assert again.edges == first.edges


def test_a_changed_statement_alone_is_read_again(tmp_path):
    project, _ = load_project(_chain(tmp_path))
    first = sync(project)
    changed, _ = load_project(_chain(tmp_path / "b", "SELECT a AS b FROM s.v1"))
    again = sync(changed, previous=first)
    assert again.reads_performed == 1


def test_a_table_now_declared_where_an_address_did_not_resolve_rereads(tmp_path):
    before, _ = load_project(write_project(tmp_path / "a", tables=[table("s.t", ["a"])],
                                           views=[view("s.v", "SELECT a FROM s.t JOIN s.new USING (a)")]))
    after, _ = load_project(write_project(tmp_path / "b", tables=[table("s.t", ["a"]), table("s.new", ["a"])],
                                          views=[view("s.v", "SELECT a FROM s.t JOIN s.new USING (a)")]))
    first = sync(before)
    assert len(first.edges) == 1
    again = sync(after, previous=first)
    assert again.reads_performed == 1 and len(again.edges) == 2
    # With the parser unusable, the statement waits, its parsed edges end, and the mark says so.
    stopped = sync(after, previous=first, parser=ParserState.NO_PARSER)
    assert stopped.edges == () and stopped.parsed_mark(OWNER) is MarkStatus.COULD_NOT_RUN
    assert stopped.assets[stopped.by_name["s.v"]].sql_status is SqlStatus.NOT_READ_YET


def test_stopping_the_parser_with_everything_read_changes_nothing(tmp_path):
    project, _ = load_project(_chain(tmp_path))
    first = sync(project)
    for state in (ParserState.NO_PARSER, ParserState.NO_ANSWER):
        again = sync(project, previous=first, parser=state)
        assert again.edges == first.edges and again.parsed_mark(OWNER) is MarkStatus.RECORDED


@pytest.mark.parametrize("state, told_to_hidden", [
    (ParserState.NO_PARSER, True), (ParserState.PARSER_TOO_OLD, True),
    (ParserState.NO_ANSWER, False), (ParserState.STORE_REFUSED, False),
])
def test_could_not_run_is_told_by_its_cause(tmp_path, state, told_to_hidden):
    project, access = load_project(_chain(tmp_path))
    first = sync(project)
    changed, _ = load_project(_chain(tmp_path / "b", "SELECT a AS b FROM s.v1"))  # s.v2 is hidden from m
    again = sync(changed, previous=first, parser=state)
    from prism_lineage.governance.access import viewer_for

    member = viewer_for(access, "m")
    assert again.parsed_mark(OWNER) is MarkStatus.COULD_NOT_RUN
    expected = MarkStatus.COULD_NOT_RUN if told_to_hidden else MarkStatus.RECORDED
    assert again.parsed_mark(member) is expected


def test_viewer_type_is_the_public_one():
    assert isinstance(OWNER, Viewer)
