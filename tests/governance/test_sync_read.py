"""The sync's statement reading (``governance/sync_read.py``) keeps exactly what the explain
answer says: every read of every statement equals the read built from ``explain_statements``
and ``walk_relations`` (the way ``SqlReader.read`` read before), tuple for tuple, in order —
on the generated benchmark project, the tests' projects (native, dbt, with visibility scopes),
and, for the field sources and scans alone, every golden SQL case and the TPC workloads."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from pathlib import Path

import pytest

from prism_lineage.errors import PrismError, UnknownColumnError
from prism_lineage.explain import explain_statements, lower
from prism_lineage.functions import FunctionRegistry
from prism_lineage.governance import sql_reading
from prism_lineage.governance.access import policy_scopes
from prism_lineage.governance.loading import load_project
from prism_lineage.governance.rollup import sync
from prism_lineage.governance.sql_reading import ColumnLink, SqlReader, StatementRead, statement_key
from prism_lineage.governance.statuses import SqlStatus
from prism_lineage.governance.sync_read import scanned_in_walk_order, statement_fields
from prism_lineage.guarded import run_guarded
from prism_lineage.ir import Scan, Subquery, walk_relations
from prism_lineage.ir.expressions import iter_tree, subqueries_made
from prism_lineage.ir.walk import expressions_of

from gov_helpers import DBT, DBT2, SHOP

ROOT = Path(__file__).resolve().parents[2]
TRIALS = ROOT / "tests" / "fixtures" / "trials"


# --- the reading before: the explain answer and walk_relations --------------------------------

def _explained_read(self: SqlReader, sql: str, dialect: str | None) -> StatementRead:
    key = statement_key(sql, dialect)
    if len(sql) > self.max_characters:
        return StatementRead(key, SqlStatus.NOT_PARSED)
    with self.catalog.recording() as recording:
        try:
            statements, explanation, re_read = run_guarded(_explained, self, sql, dialect)
        except PrismError:
            return StatementRead(key, SqlStatus.NOT_PARSED, dependencies=tuple(recording.dependencies))
    analysed = [s for s in statements if s.root is not None]
    status = None if analysed and len(analysed) == len(statements) else SqlStatus.NOT_PARSED
    owners: dict[str, tuple[str, ...]] = {}
    for statement in analysed:
        for relation in walk_relations(statement.root):
            if isinstance(relation, Scan) and relation.opaque_reason is None and relation.table not in owners:
                owners[relation.table] = self.book.find(tuple(relation.table.split("."))).owners
    reads = tuple(dict.fromkeys(name for found in owners.values() for name in found))
    links: dict[str, dict[ColumnLink, None]] = {name: {} for name in reads}
    outputs: list[str] = []
    for statement, answer in zip(statements, explanation.statements):
        if statement.root is None:
            continue
        for field in answer.fields:
            outputs.append(field.name)
            for source in field.sources:
                owner = sql_reading._owner_of(source.column, owners)
                if owner is not None:
                    table, names = owner
                    column = source.column[len(table) + 1:]
                    for name in names:
                        confidence = "unknown" if re_read and not self.has_column(name, column) else source.confidence
                        links[name][ColumnLink(column, field.name, source.relationship, source.transformation,
                                               confidence)] = None
    return StatementRead(key, status, reads, tuple((name, tuple(found)) for name, found in links.items()),
                         sql_reading._usable_outputs(outputs) if status is None else None,
                         tuple(recording.dependencies))


def _explained(self: SqlReader, sql: str, dialect: str | None):
    try:
        statements = lower(sql, self.catalog, dialect)
        re_read = False
    except UnknownColumnError as error:
        statements = self._schemaless_read(sql, dialect, error)
        re_read = True
    return statements, explain_statements(statements, self.functions), re_read


# --- whole projects ---------------------------------------------------------------------------

def _projects():
    from benchmarks.governance_bench import generate

    yield "generated", generate(600, 7), None
    for root in (SHOP, DBT, DBT2, *sorted(p for p in TRIALS.iterdir() if p.is_dir())):
        project, access = load_project(root)
        yield root.name, project, access


def _ledgers(project, access) -> dict:
    found = {}
    for env in project.environments:
        scopes = policy_scopes(access, env.name) if access is not None else []
        lineage = sync(project, env.name, scopes=scopes)
        found[env.name] = (lineage.ledger, {key: o.ledger for key, o in lineage.scoped.items()},
                           sorted(lineage.edges, key=repr))
    return found


def test_every_read_of_the_projects_equals_the_explain_answers(monkeypatch):
    compared = 0
    for name, project, access in _projects():
        now = _ledgers(project, access)
        with monkeypatch.context() as patched:
            patched.setattr(SqlReader, "read", _explained_read)
            before = _ledgers(project, access)
        assert now == before, name
        compared += sum(len(ledger) + sum(len(s) for s in scoped.values()) for ledger, scoped, _ in now.values())
    assert compared > 450  # the generated project alone has 510 statements (some texts repeat)


# --- every golden case and the TPC workloads: the field sources and the scans ------------------

def _cases():
    import yaml

    golden = ROOT / "tests" / "golden"
    for path in sorted(p for p in golden.glob("*/*.sql") if p.parent.name != "schemas"):
        sql = path.read_text(encoding="utf-8")
        headers = {}
        for line in sql.splitlines():
            if not line.startswith("--"):
                break
            key, _, value = line[2:].partition(":")
            headers[key.strip().lower()] = value.strip()
        schema_text = headers.get("schema", "none")
        if schema_text.lower() == "none":
            schema = None
        elif schema_text.startswith("{"):
            schema = yaml.safe_load(schema_text)
        else:
            schema = yaml.safe_load((golden / "schemas" / schema_text).read_text(encoding="utf-8"))
        through = headers.get("through-script", "no").lower() in ("yes", "true")
        yield f"{path.parent.name}/{path.stem}", sql, schema, headers.get("dialect") or None, through


def _sources(answer) -> list:
    return [(f.name, tuple((s.column, s.relationship, s.transformation, s.confidence) for s in f.sources))
            for f in answer.fields]


def _check(sql: str, schema, dialect, through: bool) -> int:
    made = subqueries_made()
    try:
        statements = lower(sql, schema, dialect, through_script=through)
    except PrismError:
        return 0
    # No Subquery made while lowering: the plans hold none, and the sync's read skips looking
    # for one (``subqueries=False``) — the same answers, checked below.
    flags = (True, False) if subqueries_made() == made else (True,)
    if flags == (True, False):  # the counter's promise, on every case
        assert not any(isinstance(e, Subquery) for s in statements if s.root is not None
                       for r in walk_relations(s.root) for x in expressions_of(r) for e in iter_tree(x))
    registry = FunctionRegistry.default()
    explanation = explain_statements(statements, registry)
    walked = {}
    for statement in statements:
        if statement.root is not None:
            for relation in walk_relations(statement.root):
                if isinstance(relation, Scan) and relation.opaque_reason is None:
                    walked.setdefault(relation.table, None)
    for subqueries in flags:
        fields = run_guarded(statement_fields, statements, registry, subqueries)
        for statement, answer, found in zip(statements, explanation.statements, fields, strict=True):
            assert (found if found is not None else []) == _sources(answer)
            if statement.root is None:
                assert found is None
        assert run_guarded(scanned_in_walk_order, statements, subqueries) == list(walked)
    return len(statements)


def test_a_plan_without_subquery_made_none_and_one_with_a_subquery_made_one():
    # ``subqueries_made`` is what lets a read skip searching expressions for subqueries: it
    # must move whenever a plan holds one, however the Subquery was made.
    before = subqueries_made()
    lower("SELECT a FROM t WHERE b > 1", {"t": {"a": "int", "b": "int"}}, "duckdb")
    assert subqueries_made() == before
    [statement] = lower("SELECT a FROM t WHERE b IN (SELECT b FROM t)", {"t": {"a": "int", "b": "int"}}, "duckdb")
    assert subqueries_made() > before
    [found] = [e for r in walk_relations(statement.root) for x in expressions_of(r) for e in iter_tree(x)
               if isinstance(e, Subquery)]
    made = subqueries_made()
    copy.copy(found)
    pickle.loads(pickle.dumps(found))
    dataclasses.replace(found, id="other")
    assert subqueries_made() == made + 3


def test_field_sources_and_scans_equal_explain_on_every_golden_case():
    checked = 0
    for name, sql, schema, dialect, through in _cases():
        try:
            checked += _check(sql, schema, dialect, through)
        except AssertionError as error:
            raise AssertionError(f"golden case {name}") from error
    assert checked > 400


def test_field_sources_and_scans_equal_explain_on_the_tpc_workloads():
    import json

    workloads = ROOT / "tests" / "fixtures" / "workloads"
    checked = 0
    for workload in ("tpch", "tpcds"):
        schema = json.loads((workloads / workload / "schema.json").read_text(encoding="utf-8"))
        for path in sorted((workloads / workload).glob("q*.sql")):
            try:
                checked += _check(path.read_text(encoding="utf-8"), schema, None, False)
            except AssertionError as error:
                raise AssertionError(f"{workload}/{path.stem}") from error
    assert checked == 121


ORDERED_SCANS = [
    # Several subqueries in one operator: each in the order walk_relations meets it.
    "SELECT (SELECT MAX(x) FROM b) AS m, (SELECT MIN(y) FROM c) AS n, a.k FROM a",
    "SELECT a.k FROM a WHERE a.k IN (SELECT k FROM d) AND EXISTS (SELECT 1 FROM e WHERE e.k = a.k) "
    "OR a.k > (SELECT AVG(k) FROM f)",
    "SELECT a.k, SUM(a.v) AS s FROM a JOIN g ON g.k = a.k AND g.v > (SELECT MAX(v) FROM h) GROUP BY a.k "
    "HAVING SUM(a.v) > (SELECT SUM(v) FROM i) ORDER BY (SELECT MIN(v) FROM j)",
    "WITH w AS (SELECT k FROM l) SELECT w.k FROM w JOIN w AS w2 ON w.k = w2.k "
    "UNION ALL SELECT k FROM m WHERE k = (SELECT MAX(k) FROM n)",
    "UPDATE o SET v = (SELECT MAX(v) FROM p WHERE p.k = o.k) WHERE o.k IN (SELECT k FROM q)",
    "MERGE INTO r USING s ON r.k = s.k WHEN MATCHED AND s.v > (SELECT MAX(v) FROM t) THEN UPDATE SET v = s.v "
    "WHEN NOT MATCHED THEN INSERT (k, v) VALUES (s.k, (SELECT MIN(v) FROM u))",
    "SELECT k, ROW_NUMBER() OVER (PARTITION BY (SELECT MAX(k) FROM x1) ORDER BY v) AS r FROM x2",
]


@pytest.mark.parametrize("sql", ORDERED_SCANS)
def test_scans_keep_walk_order_with_several_subqueries(sql):
    assert _check(sql, None, "duckdb", False) == 1


def test_a_reading_workers_packed_read_is_the_read_packed(monkeypatch):
    """A sync's reading worker packs what ``SqlReader.read_as`` gives (``reading_pass._packed``,
    no ``ColumnLink`` made): the very tuples ``reading_pass.pack`` makes of ``SqlReader.read``'s
    read, on every statement of the generated project and the tests' projects."""
    from prism_lineage.control.reading_pass import _packed, pack

    original = SqlReader.read
    compared = []

    def both(self, sql, dialect):
        read = original(self, sql, dialect)
        assert self.read_as(sql, dialect, _packed) == pack(read), sql
        compared.append(read.status)
        return read

    monkeypatch.setattr(SqlReader, "read", both)
    for _, project, access in _projects():
        _ledgers(project, access)
    assert len(compared) > 450 and any(status is not None for status in compared)
