"""Invariants every explained query must satisfy, checked on every golden case, every property
test query and every workload query (as sqlglot's fixture runner checks tree invariants on
every fixture).

* **stable**: the same input gives the same ids, plan-level graph and answer, run after run;
* **explained**: every output field has sources, or an ``uncertain`` entry naming it, or its
  value reads no column at all (a constant, ``COUNT(*)``);
* **named**: every value source is a column of a table the SQL names, and the SQL names the
  column (or a star stands for it; ``t.*`` for a table without a schema);
* **closed**: every plan-level edge and link joins targets that exist in the plan.

The checks here read the IR and the SQL text independently of the lineage rules, so a rule
that drops or invents an edge is caught.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from sqlglot import exp

import prism_lineage
from prism_lineage.catalog import Catalog
from prism_lineage.explain import lower
from prism_lineage.ir import (
    Aggregate,
    AggregateCall,
    Call,
    CandidateRef,
    CteRef,
    Expr,
    FieldRef,
    OuterRef,
    Project,
    RecursiveCte,
    RecursiveRef,
    Relation,
    Scan,
    SetKind,
    SetOperation,
    Subquery,
    SubqueryKind,
    Values,
    Window,
    WindowCall,
    walk_relations,
)
from prism_lineage.lineage.graph_format import graph_model
from prism_lineage.frontends.sql.dialects import get_dialect


def check_invariants(sql: str, schema: Mapping[str, Any] | None, dialect: str | None,
                     through_script: bool = False) -> dict:
    """Explain ``sql`` twice, check every invariant, and return the answer (``model_dump()``)."""
    options = {"through_script": through_script}
    answer = prism_lineage.explain(sql, schema=schema, dialect=dialect, **options).model_dump()
    again = prism_lineage.explain(sql, schema=schema, dialect=dialect, **options).model_dump()
    assert answer == again, "the answer differs between two runs"
    graphs = prism_lineage.lineage_graphs(sql, schema=schema, dialect=dialect, **options)
    graphs_again = prism_lineage.lineage_graphs(sql, schema=schema, dialect=dialect, **options)
    assert graph_model(graphs).model_dump() == graph_model(graphs_again).model_dump(), \
        "ids or plan-level edges differ between two runs"
    for graph in graphs:
        check_closed(graph)
        check_ids(graph)
    statements = lower(sql, schema, dialect, **options)
    catalog = Catalog.from_mapping(schema)
    named = named_identifiers(sql, dialect, catalog)
    for statement, stated in zip(statements, answer["statements"]):
        check_explained(statement, stated)
        check_named(stated, named, catalog)
        check_ordered(stated)
        check_tables(stated)
    return answer


# --- closed ---------------------------------------------------------------------------------


def check_closed(graph) -> None:
    targets = graph.targets
    for edge in graph.edges:
        assert edge.target in targets and not edge.target.startswith("column:"), \
            f"edge into a target that does not exist: {edge}"
        assert edge.source in targets, f"edge from a target that does not exist: {edge}"
    for link in graph.links:
        assert link.source in targets and link.target in targets, f"link between unknown targets: {link}"


# --- ids -------------------------------------------------------------------------------------

_RELATION_ID = re.compile(r"^s\d+\.[a-z_]+@\d+:\d+(~\d+)?$")


def check_ids(graph) -> None:
    """Relation ids follow specs/ids-and-origins.md: ``s<statement>.<kind>@<line>:<col>[~n]``."""
    for target in graph.targets.values():
        if target.kind == "relation":
            assert _RELATION_ID.match(target.id), f"relation id {target.id!r} does not name its authored position"


# --- explained ------------------------------------------------------------------------------


def check_explained(statement, stated: dict) -> None:
    if statement.root is None:
        # DROP, ALTER, TRUNCATE … move no data (``writes == ()``): nothing to explain.
        assert stated["uncertain"] or statement.writes == (), "a statement that could not be analysed must say why"
        return
    uncertain_fields = {item["field"] for item in stated["uncertain"]}
    creators = _field_creators(statement.root)
    reads = _ColumnReads(creators)
    root_fields = statement.root.fields
    if statement.writes is not None:
        by_id = {f.id: f for f in root_fields}
        outputs = [(w.name, by_id[w.field]) for w in statement.writes]
    else:
        outputs = [(f.name, f) for f in root_fields]
    assert [name for name, _ in outputs] == [f["name"] for f in stated["fields"]], "fields out of order"
    for (name, field), answered in zip(outputs, stated["fields"]):
        if answered["sources"] or name in uncertain_fields:
            continue
        assert not reads.reads_column(field.id), \
            f"field {name!r} reads columns but has no sources and no uncertain entry"


class _ColumnReads:
    """Whether a field's value, traced through the plan, reads any base column."""

    def __init__(self, creators: dict[str, tuple[Relation, int]]):
        self.creators = creators
        self.memo: dict[str, bool] = {}

    def reads_column(self, field_id: str) -> bool:
        if field_id in self.memo:
            return self.memo[field_id]
        self.memo[field_id] = False  # a recursive CTE's cycle adds nothing new
        relation, position = self.creators[field_id]
        result = any(self._expr_reads(e) for e in self._value_exprs(relation, position)) or any(
            self.reads_column(f) for f in self._value_fields(relation, position)
        )
        if isinstance(relation, Scan):
            result = True
        self.memo[field_id] = result
        return result

    @staticmethod
    def _value_exprs(relation: Relation, position: int) -> list[Expr]:
        match relation:
            case Project(exprs=exprs):
                return [exprs[position]]
            case Values(rows=rows):
                return [row[position] for row in rows]
            case Aggregate(keys=keys, measures=measures):
                return [keys[position]] if position < len(keys) else [measures[position - len(keys)]]
            case Window(calls=calls):
                return [calls[position]]
        return []

    @staticmethod
    def _value_fields(relation: Relation, position: int) -> list[str]:
        match relation:
            case SetOperation(kind=kind, left=left, right=right):
                inputs = (left,) if kind is SetKind.EXCEPT else (left, right)
                return [r.fields[position].id for r in inputs]
            case CteRef(definition=definition):
                return [definition.fields[position].id]
            case RecursiveCte(anchor=anchor, recursive=recursive):
                return [anchor.fields[position].id, recursive.fields[position].id]
            case RecursiveRef(cte_fields=cte_fields):
                return [cte_fields[position]]
        return []

    def _expr_reads(self, expr: Expr) -> bool:
        match expr:
            case FieldRef(field=field) | OuterRef(field=field):
                return self.reads_column(field)
            case CandidateRef():
                return True
            case Call(args=args):
                return any(self._expr_reads(a) for a in args)
            case AggregateCall(args=args):
                return any(self._expr_reads(a) for a in args)
            case WindowCall(function=function):
                return any(self._expr_reads(a) for a in getattr(function, "args", ()))
            case Subquery(kind=SubqueryKind.EXISTS):
                return False
            case Subquery(relation=relation, needle=needle):
                return any(self.reads_column(f.id) for f in relation.fields) or (
                    needle is not None and self._expr_reads(needle))
        return False


def _field_creators(root: Relation) -> dict[str, tuple[Relation, int]]:
    """Field id → (the relation that creates it, its position there)."""
    out: dict[str, tuple[Relation, int]] = {}
    for relation in walk_relations(root):
        created = relation.columns if hasattr(relation, "columns") else ()
        for position, field in enumerate(created):
            out[field.id] = (relation, position)
    return out


# --- named ----------------------------------------------------------------------------------


def named_identifiers(sql: str, dialect: str | None, catalog: Catalog | None = None) -> tuple[set[str], bool]:
    """Every identifier the SQL writes (lower-cased) and whether it writes a star."""
    parsed = get_dialect(dialect).parse(sql)
    names: set[str] = set()
    star = False
    for statement in parsed:
        if statement is None:
            continue
        # A table alias used as a value (``TO_JSON(t)``, ``STRUCT(t)``) is the whole row: every column.
        row_names = {t.alias_or_name.lower() for t in statement.find_all(exp.Table)}
        for node in statement.walk():
            if isinstance(node, exp.Column) and not node.table and node.name.lower() in row_names:
                star = True
            if isinstance(node, exp.Identifier):
                names.add(node.name.lower())
            elif isinstance(node, exp.Star):
                star = True
            elif isinstance(node, exp.Join) and str(node.args.get("method") or "").upper() == "NATURAL":
                star = True  # NATURAL JOIN names its columns implicitly
            elif isinstance(node, exp.Pivot):
                star = True  # PIVOT groups by (UNPIVOT keeps) every column it does not name
            elif isinstance(node, (exp.Parameter, exp.PositionalColumn)) and isinstance(node.this, exp.Literal) \
                    and not node.this.is_string:
                star = True  # Snowflake's $2 / DuckDB's #2 name the second column, whatever it is called
            elif isinstance(node, exp.TableAlias) and node.columns:
                star = True  # ``t AS u(a, b)`` names t's first columns by position, whatever they are
            elif isinstance(node, exp.Columns):
                star = True  # DuckDB's COLUMNS(pattern) stands for the columns its pattern picks
                # … and COLUMNS(['a', 'b']) names its columns in strings.
                names.update(str(lit.this).lower() for lit in node.find_all(exp.Literal) if lit.is_string)
            elif isinstance(node, exp.Clone) or (isinstance(node, exp.Var) and node.name.upper() == "ROW"
                                                 and isinstance(node.parent, exp.Insert)):
                star = True  # CREATE TABLE … CLONE and MERGE … INSERT ROW copy every column
            elif isinstance(node, exp.LikeProperty) and catalog is not None and isinstance(node.this, exp.Table):
                # CREATE TABLE t LIKE s names every column of s (as t's, for the statements after it).
                copied = catalog.lookup(tuple(p.name for p in node.this.parts))
                if copied is not None:
                    names.update(c.name.lower() for c in copied.columns)
            elif isinstance(node, (exp.Command, exp.Execute, exp.ExecuteSql, exp.Heredoc, exp.RawString,
                                   exp.DynamicIdentifier)) or (
                    isinstance(node, exp.Literal) and isinstance(node.parent, exp.Create)):
                # (Snowflake's IDENTIFIER('t') names t in a string too.)
                # Dynamic SQL and a routine's body ($$ … $$) name their columns inside a string:
                # every word of it counts.
                for part in node.walk():
                    if isinstance(part, (exp.Identifier, exp.Literal, exp.Heredoc, exp.RawString)):
                        names.update(w.lower() for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", str(part.this)))
    return names, star


def check_named(stated: dict, named: tuple[set[str], bool], catalog: Catalog) -> None:
    identifiers, star = named
    for field in stated["fields"]:
        for source in field["sources"]:
            if source["relationship"] != "value":
                continue
            table, _, column = source["column"].rpartition(".")
            last = table.rpartition(".")[2].lower()
            if column == "*":
                assert star, f"{source['column']} without a star in the SQL"
                continue
            declared = _declared(catalog, table)
            if declared is not None:
                assert declared.column(column) is not None, f"{source['column']} is not a column of {table}"
                assert column.lower() in identifiers or star, f"{source['column']} is never named in the SQL"
            else:
                assert column.lower() in identifiers, f"{source['column']} of a schema-less table is never named"
            if not table.startswith("("):
                assert last in identifiers, f"table {table} is never named in the SQL"


def _declared(catalog: Catalog, table: str):
    for candidate in catalog.tables:
        if candidate.name == table:
            return candidate
    return None


# --- tables ---------------------------------------------------------------------------------


def check_tables(stated: dict) -> None:
    """The table-level summary agrees with the column-level answer: every table a value or
    row source comes from is among ``reads`` (no source from a table the statement does not
    read), ``reads`` is sorted without repeats, and ``writes`` is the target."""
    reads = stated["reads"]
    assert reads == sorted(set(reads)), f"reads {reads} not sorted or repeated"
    assert stated["writes"] == ([stated["target"]] if stated["target"] is not None else []), \
        f"writes {stated['writes']} is not the target {stated['target']}"
    sources = [s for f in stated["fields"] for s in f["sources"]] + list(stated.get("rows") or [])
    for source in sources:
        if source["relationship"] in ("policy", "quality"):
            continue  # a declared policy or check may read a table the SQL does not name
        column = source["column"]
        assert any(column.startswith(table + ".") for table in reads), \
            f"source {column} comes from no table in reads {reads}"


# --- ordered --------------------------------------------------------------------------------

_KIND_ORDER = ["value", "grouping", "control", "join", "window", "sort", "policy", "quality"]


def check_ordered(stated: dict) -> None:
    """Sources sorted by relationship kind, then column; a column once per kind."""
    for field in stated["fields"]:
        keys = [(_KIND_ORDER.index(s["relationship"]), s["column"]) for s in field["sources"]]
        assert keys == sorted(keys), f"sources of {field['name']!r} are not in order"
        assert len(set(keys)) == len(keys), f"a column appears twice under one kind in {field['name']!r}"
