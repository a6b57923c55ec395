"""Shortcuts taken for speed give what the longer way gives (issue 9's speed bound; see
docs/performance.md): each is checked here against the code it replaces."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from prism_lineage.ir.origin import Origin, SourceText

TEXT = SourceText("select a,\n  b + c\nfrom t\n" * 4, 0, "q.sql")


@st.composite
def origins(draw):
    kind = draw(st.sampled_from(["none", "text", "text", "text", "plain"]))
    if kind == "none":
        return None
    if kind == "plain":  # an origin with no text offsets (start = end = -1)
        return Origin(1, 1, 1, 3, 0)
    start = draw(st.integers(0, 80))
    end = draw(st.integers(start, 90))
    return TEXT.span(start, end, draw(st.sampled_from([0, 1])))


@given(origins(), st.lists(origins(), max_size=6))
def test_join_all_is_join_in_turn(first, others):
    """``SourceText.join_all`` (one pass, used for every call's span) is ``join`` in turn: the same
    object when it covers the rest, else a new span with the same fields."""
    expected = first
    for other in others:
        expected = TEXT.join(expected, other)
    got = TEXT.join_all(first, others)
    if any(expected is given_origin for given_origin in [first, *others]):
        assert got is expected
    else:
        assert type(got) is Origin and tuple(got) == tuple(expected)
        assert all(got is not given_origin for given_origin in [first, *others])


# --- answers: FieldAnswer / UncertainItem built without model_construct's lookups ----------

from prism_lineage.explain.models import (  # noqa: E402
    FieldAnswer, SourceColumn, StatementAnswer, UncertainItem, new_field_answer, new_uncertain_item,
    trusted_constructor,
)


def _same_instance(got, expected) -> None:
    for attribute in ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__"):
        assert getattr(got, attribute) == getattr(expected, attribute), attribute
    assert list(got.__dict__) == list(expected.__dict__)  # the field order too
    assert type(got) is type(expected)
    assert got == expected and repr(got) == repr(expected)
    assert got.model_dump_json() == expected.model_dump_json()


_sources = st.lists(st.builds(
    lambda column, path: SourceColumn.model_construct(column=column, relationship="value",
                                                      transformation="identity", confidence="exact", path=path),
    st.text(max_size=8), st.none() | st.text(max_size=5)), max_size=3)


@given(st.text(max_size=12), _sources)
def test_new_field_answer_is_model_construct(name, sources):
    _same_instance(new_field_answer(name, sources), FieldAnswer.model_construct(name=name, sources=sources))


@given(st.none() | st.text(max_size=12), st.text(max_size=20))
def test_new_uncertain_item_is_model_construct(field, reason):
    _same_instance(new_uncertain_item(field, reason), UncertainItem.model_construct(field=field, reason=reason))


def test_trusted_constructor_refuses_a_model_with_private_state():
    import pytest

    with pytest.raises(TypeError):
        trusted_constructor(StatementAnswer)  # ``_case_sensitive``


# --- a cast's type name, remembered per dialect and type ----------------------------------

import sqlglot  # noqa: E402
from sqlglot import exp  # noqa: E402

from prism_lineage.frontends.sql.dialects import get_dialect, known_dialects  # noqa: E402
from prism_lineage.frontends.sql.expressions import type_text  # noqa: E402

_TYPES = ["date", "int", "bigint", "text", "varchar", "varchar(10)", "decimal(7, 2)", "decimal", "timestamp",
          "double", "float", "boolean", "char(3)", "array<int>", "struct<a int>", "interval", "json", "uuid",
          "numeric", "string", "int64", "number(38, 0)", "time", "datetime", "tinyint", "nvarchar(max)",
          # parameters remembered by their whole shape: each its own text
          "decimal(7, 3)", "decimal(12, 2)", "varchar(11)", "numeric(1, 0)", "char(1)", "array<bigint>",
          "struct<a int, b text>", "map<text, int>", "timestamp(3)", "timestamp with time zone", "bit(1)"]


def test_type_text_is_the_types_sql_in_every_dialect():
    for name in known_dialects():
        dialect = get_dialect(name)
        nodes = [exp.DataType(this=member) for member in exp.DType]
        for written in _TYPES:
            try:
                parsed = sqlglot.parse_one(f"SELECT CAST(x AS {written})", read=dialect)
            except sqlglot.errors.SqlglotError:
                continue
            nodes += [cast.args["to"] for cast in parsed.find_all(exp.Cast)]
        for node in nodes:
            for _ in range(2):  # generated, then remembered
                try:
                    expected = node.sql(dialect=dialect)
                except Exception as error:  # noqa: BLE001 - a type the dialect cannot write
                    try:
                        type_text(node, dialect)
                    except Exception as again:  # noqa: BLE001
                        assert type(again) is type(error)
                        continue
                    raise AssertionError(f"{name}: {node!r} writes in type_text but not in sql()") from None
                assert type_text(node, dialect) == expected, (name, repr(node))


# --- IR: an aggregate call's children by its exact class ------------------------------------

from prism_lineage.ir.expressions import AggregateCall, FieldRef, Literal, SortKey, children  # noqa: E402


class _AnAggregate(AggregateCall):  # takes children()'s general (pattern-matching) path
    __slots__ = ()


_refs = st.builds(lambda i: FieldRef(f"e{i}", None, None, f"f{i}"), st.integers(0, 9))


@given(st.lists(_refs, max_size=3), st.none() | _refs, st.lists(_refs, max_size=2), st.none() | _refs)
def test_aggregate_children_by_class_are_the_general_ones(args, filter_, order_by, limit):
    keys = tuple(SortKey(ref) for ref in order_by)
    fields = ("a", None, None, "sum", tuple(args))
    fast = AggregateCall(*fields, filter=filter_, order_by=keys, limit=limit)
    general = _AnAggregate(*fields, filter=filter_, order_by=keys, limit=limit)
    assert children(fast) == children(general)
    assert all(type(node) in (FieldRef, Literal) for node in children(fast))


# --- end-to-end resolution: the same answers as the reference (resolve before session 5) ----

import pytest  # noqa: E402

from prism_lineage.catalog import Catalog  # noqa: E402
from prism_lineage.errors import PrismError  # noqa: E402
from prism_lineage.frontends.sql import lower_sql  # noqa: E402
from prism_lineage.functions import FunctionRegistry  # noqa: E402
from prism_lineage.guarded import run_guarded  # noqa: E402
from prism_lineage.ir import Modify  # noqa: E402
from prism_lineage.lineage.graph import LineageGraph  # noqa: E402
from prism_lineage.lineage.resolve import EndToEnd  # noqa: E402
from resolve_reference import EndToEnd as ReferenceEndToEnd  # noqa: E402
from test_golden import all_cases, read_case  # noqa: E402


def _plans():
    """(name, sql, schema, dialect, through_script) of every golden case and workload query."""
    for path in all_cases():
        case = read_case(path)
        yield f"{path.parent.name}/{path.stem}", case.sql, case.schema, case.dialect, case.through_script
    try:
        from benchmarks import workloads
    except ImportError:  # pragma: no cover - the benchmarks package is part of the checkout
        return
    for name in ("tpch", "tpcds"):
        try:
            workload = workloads.load(name)
        except (FileNotFoundError, OSError, ValueError):
            continue
        for query, sql in workload.queries:
            yield f"{name}/{query}", sql, workload.schema, None, False


def _compare_all() -> int:
    registry = FunctionRegistry.default()
    compared = 0
    for name, sql, schema, dialect, through in _plans():
        try:
            statements = lower_sql(sql, catalog=Catalog.from_mapping(schema), dialect=dialect, functions=registry,
                                   through_script=through)
        except PrismError:
            continue  # a case that shows a refusal
        for statement in statements:
            if statement.root is None:
                continue
            graph = LineageGraph.of(statement, registry)
            records = graph._records if graph._records is not None else graph.edges
            targets = [w.field for w in statement.writes] if statement.writes is not None else \
                [f.id for f in statement.root.fields]
            ours, reference = EndToEnd(records, graph.links), ReferenceEndToEnd(records, graph.links)
            assert ours.answer(targets, statement.root.id) == reference.answer(targets, statement.root.id), name
            assert ours.cyclic == reference.cyclic, name
            if isinstance(statement.root, Modify):
                rows = statement.root.rows_id
                assert ours.indirect_sources(rows) == reference.indirect_sources(rows), name
            compared += 1
    return compared


def test_end_to_end_answers_are_the_references():
    compared = run_guarded(_compare_all)
    if compared == 0:
        pytest.skip("no plan to compare")
    assert compared > 600


# --- an expression's SQL text without copying its positions -----------------------------------

from pathlib import Path  # noqa: E402

from prism_lineage.frontends.sql.expressions import sql_text  # noqa: E402
from prism_lineage.frontends.sql.parsing import parse_statements  # noqa: E402
from prism_lineage.ir import SourceText  # noqa: E402

IDENTITY = Path(__file__).resolve().parent / "fixtures" / "sqlglot" / "identity.sql"


def _texts():
    for line in IDENTITY.read_text(encoding="utf-8").splitlines():
        if line.strip():
            yield None, line
    from benchmarks import workloads

    for name in ("tpch", "tpcds"):
        try:
            workload = workloads.load(name)
        except (FileNotFoundError, OSError, ValueError):
            continue
        for _, sql in workload.queries:
            yield None, sql
            for dialect in ("duckdb", "snowflake", "tsql", "bigquery", "clickhouse"):
                yield dialect, sql


def _check_sql_texts() -> int:
    from prism_lineage.errors import PrismError
    from prism_lineage.frontends.sql.dialects import get_dialect

    checked = 0
    for dialect_name, text in _texts():
        dialect = get_dialect(dialect_name)
        try:
            trees = parse_statements(text, dialect, SourceText(text))
        except PrismError:
            continue
        for tree in trees:
            nodes = list(tree.walk())
            # every select item, and every expression node of the identity lines
            chosen = [n for n in nodes if isinstance(n.parent, exp.Select) and n.arg_key == "expressions"] \
                if dialect_name is not None or "SELECT" in text.upper() else nodes
            for node in chosen:
                metas = [(child, child._meta, dict(child._meta) if child._meta else None) for child in node.walk()]
                try:
                    expected = node.sql(dialect=dialect)
                except Exception as error:  # noqa: BLE001 - sqlglot cannot write it: neither can sql_text
                    with pytest.raises(type(error)):
                        sql_text(node, dialect)
                    continue
                assert sql_text(node, dialect) == expected, (dialect_name, text, repr(node))
                for child, meta, copy in metas:  # the positions are back, the same dicts
                    assert child._meta is meta and (meta is None or meta == copy)
                checked += 1
    return checked


def test_sql_text_is_sql():
    assert run_guarded(_check_sql_texts) > 5000


@given(st.text(alphabet="ab\n\r é", max_size=40))
def test_line_starts_are_the_offsets_after_each_newline(text):
    expected = [0] + [i + 1 for i, char in enumerate(text) if char == "\n"]
    assert SourceText(text)._line_starts == expected


# --- a statement replaced without dataclasses.replace's checks -------------------------------

import dataclasses  # noqa: E402

from prism_lineage.ir import Statement  # noqa: E402
from prism_lineage.ir.quick import quick_replace  # noqa: E402


@given(st.sampled_from([None, (), ("s0.sort@1:1",)]), st.none() | st.text(max_size=5),
       st.sampled_from(["ordering", "procedure", "target", "index"]))
def test_quick_replace_is_replace(ordering, procedure, changed):
    statement = Statement(3, "insert", None, None, "t", None, (), (), ordering, None, procedure)
    value = {"ordering": ("x",), "procedure": "p", "target": "u", "index": 7}[changed]
    got, expected = quick_replace(statement, **{changed: value}), dataclasses.replace(statement, **{changed: value})
    assert got == expected and type(got) is type(expected)
    assert all(getattr(got, f.name) is getattr(expected, f.name) for f in dataclasses.fields(Statement))


def test_quick_replace_refuses_what_replace_would_not_do():
    statement = Statement(0, "select", None)
    with pytest.raises(TypeError):
        quick_replace(statement, no_such_field=1)
    with pytest.raises(TypeError):
        quick_replace(dataclasses.make_dataclass("Plain", ["a"])(1), a=2)


# --- a parsed statement whose text names no COLUMNS holds none ------------------------------

from prism_lineage.frontends.sql.parsing import WITHOUT_COLUMNS  # noqa: E402


def _check_without_columns() -> tuple[int, int]:
    from prism_lineage.frontends.sql.dialects import get_dialect

    flagged = holding = 0
    texts = [(case.dialect, case.sql) for case in map(read_case, all_cases())] + list(_texts())
    texts.append(("duckdb", "SELECT columns('a.*'), min(COLUMNS(*)) FROM t"))
    texts.append(("clickhouse", "SELECT COLUMNS('a') FROM t"))
    for dialect_name, text in texts:
        try:
            trees = parse_statements(text, get_dialect(dialect_name), SourceText(text))
        except PrismError:
            continue
        for tree in trees:
            has = tree.find(exp.Columns) is not None
            holding += has
            if tree._meta and tree._meta.get(WITHOUT_COLUMNS):
                assert not has, (dialect_name, text)
                flagged += 1
            else:
                assert "COLUMNS" in text.upper(), (dialect_name, text)  # flagged whenever it can be
    return flagged, holding


def test_statements_whose_text_names_no_columns_hold_none():
    flagged, holding = run_guarded(_check_without_columns)
    assert flagged > 1000 and holding >= 2


# --- session 6: a SELECT's aggregate search by node class -------------------------------------

from itertools import product  # noqa: E402
from types import SimpleNamespace  # noqa: E402

from prism_lineage.frontends.sql import select as select_module  # noqa: E402
from prism_lineage.functions import FunctionRegistry  # noqa: E402


def _has_aggregate_in_before(root, state) -> bool:
    """``select._has_aggregate_in`` as it was before session 6 (the reference)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, (exp.Subquery, exp.Query)):
            continue
        if isinstance(node, exp.Window):
            function = node.this
            while isinstance(function, (exp.IgnoreNulls, exp.RespectNulls, exp.Filter)):
                function = function.this
            stack.extend(select_module._child_nodes(function))
            stack.extend(a for key, a in select_module._arg_nodes(node) if key != "this")
            continue
        if (isinstance(node, exp.AggFunc) and not isinstance(node, exp.Anonymous)) or state.is_aggregate_name(node):
            return True
        stack.extend(select_module._child_nodes(node))
    return False


class _State:
    is_aggregate_name = select_module.SelectState.is_aggregate_name

    def __init__(self, functions):
        self.ctx = SimpleNamespace(functions=functions)


def _check_aggregate_search() -> tuple[int, int]:
    states = [_State(None), _State(FunctionRegistry.default())]
    # The golden cases and the TPC queries as written (``_texts`` in every dialect parses the
    # same queries five more times: seconds, for no other select).
    texts = [(case.dialect, case.sql) for case in map(read_case, all_cases())]
    texts += [(dialect, text) for dialect, text in _texts() if dialect is None]
    texts += [(None, "SELECT my_agg(a), median(b) OVER (), count(*) FILTER (WHERE x) FROM t"),
              ("duckdb", "SELECT list(a) OVER w, arg_max(a, b), (SELECT max(c) FROM u) FROM t WINDOW w AS ()")]
    compared = found = 0
    for dialect_name, text in texts:
        try:
            trees = parse_statements(text, get_dialect(dialect_name), SourceText(text))
        except PrismError:
            continue
        for tree in trees:
            for select in tree.find_all(exp.Select):  # what ``_has_aggregate`` asks about
                order = select.args.get("order")
                nodes = [*select.expressions, select.args.get("having"), select.args.get("qualify"),
                         *(order.expressions if order else [])]
                for node, state in product(filter(None, nodes), states):
                    expected = _has_aggregate_in_before(node, state)
                    assert select_module._has_aggregate_in(node, state) == expected, (dialect_name, text, repr(node))
                    compared += 1
                    found += expected
    return compared, found


def test_the_aggregate_search_by_class_is_the_one_before():
    compared, found = run_guarded(_check_aggregate_search)
    assert compared > 7_000 and found > 1_000


# --- session 6: one tokenizer and parser per dialect and thread --------------------------------

def test_a_reused_parser_leaves_what_it_returned_before_untouched():
    dialect = get_dialect("duckdb")
    first_text = "SELECT a, b + 1 AS c FROM t WHERE d > 2; SELECT x FROM y"
    first = parse_statements(first_text, dialect, SourceText(first_text))
    kept = [tree.sql() for tree in first]
    for text in ("SELECT q FROM r", "SELECT (", "SELECT 'unterminated", first_text):
        try:
            parse_statements(text, dialect, SourceText(text))
        except PrismError:
            pass
    assert [tree.sql() for tree in first] == kept
    again = parse_statements(first_text, dialect, SourceText(first_text))
    assert [tree.sql() for tree in again] == kept and all(a is not b for a, b in zip(first, again))
    # Another thread gets its own (a parse there while this thread's parser is idle).
    import threading

    seen = []
    worker = threading.Thread(target=lambda: seen.append(
        [t.sql() for t in parse_statements(first_text, dialect, SourceText(first_text))]))
    worker.start()
    worker.join()
    assert seen == [kept]


# --- session 6: a source column's table found by its dots -----------------------------------

from prism_lineage.governance import sql_reading  # noqa: E402


def _owner_of_before(column, owners):
    best = None
    for table, assets in owners.items():
        if assets and column.startswith(table + ".") and (best is None or len(table) > len(best[0])):
            best = (table, assets)
    return best


_names = st.text(alphabet="ab.[]*", max_size=6)


@given(st.dictionaries(_names, st.sampled_from([(), ("x.a",), ("x.a", "y.b")]), max_size=5), _names, _names)
def test_a_columns_owner_by_its_dots_is_the_longest_table_it_starts_with(owners, table, rest):
    for column in (f"{table}.{rest}", rest, table):
        assert sql_reading._owner_of(column, owners) == _owner_of_before(column, owners)


# Text of the sort SQL is made of, with what ends or starts a word: digits and "$" leading a run,
# quotes, dots, punctuation, every ASCII character now and then.
_SQL_CHARACTERS = st.sampled_from(list("abcXYZ_$0189 .,;()'\"`\n\t-+*/=<>[]{}@#:") + [chr(c) for c in range(128)])


@given(st.text(_SQL_CHARACTERS, max_size=60))
def test_a_passs_ascii_words_are_the_regular_expressions(sql):
    """``reading_pass.ascii_words`` (bytes translated and split, used for every statement of a
    sync's reading pass) finds the words ``_WORD`` finds, lowered."""
    from prism_lineage.control.reading_pass import _WORD, ascii_words

    assert {w.decode("ascii") for w in ascii_words(sql)} == {w.lower() for w in _WORD.findall(sql)}


def test_a_passs_ascii_words_on_the_cases_that_matter():
    from prism_lineage.control.reading_pass import ascii_words

    assert ascii_words("SELECT 1orders, $x.a$b, t9, 12 FROM S.Orders_2") == {
        b"select", b"orders", b"x", b"a$b", b"t9", b"from", b"s", b"orders_2"}
    assert ascii_words("") == set() and ascii_words("1 2 $ $$ 3") == set()
