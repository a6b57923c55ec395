"""``explain``: for every output field of every statement, the base columns it depends on."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import Any, Protocol, runtime_checkable

from ..catalog import Catalog
from ..errors import UsageError
from ..frontends import as_plan_source
from ..guarded import guarded, run_guarded
from ..frontends.sql import ScriptLowering, lower_sql
from ..frontends.sql.dialects import get_dialect
from ..frontends.sql.dialects import names_are_case_sensitive as dialect_is_case_sensitive
from ..functions import FunctionRegistry
from ..ir import Statement
from ..lineage.graph import LineageGraph
from ..lineage.through import ScriptSummaries
from .answer import answer_statement
from .asking import mark_case_sensitive
from .models import Explanation, FieldAnswer, SourceColumn, StatementAnswer, UncertainItem

__all__ = [
    "PlanSource", "explain", "explain_statements", "explain_script", "ScriptAnswers", "lineage_graphs", "Explanation", "StatementAnswer", "FieldAnswer",
    "SourceColumn", "UncertainItem",
]

# Generated SQL nests deeply (CTE chains of hundreds) and lowering and lineage recurse per
# level: every entry point runs on the deep-stack worker (guarded.py), where a plan too deep
# to follow is a clear ``NestingTooDeepError``, never a crash.


@guarded
def lower(sql: str, schema: Mapping[str, Any] | Catalog | None = None, dialect: str | None = None,
          *, file: str | None = None, functions: FunctionRegistry | None = None,
          through_script: bool = False, strict: bool = False) -> list[Statement]:
    """Lower SQL text into IR statements (``through_script``, ``strict``: see ``explain``)."""
    catalog = _catalog(schema, strict)
    registry = functions if functions is not None else FunctionRegistry.default()
    return lower_sql(sql, catalog=catalog, dialect=dialect, file=file, functions=registry,
                     through_script=through_script)


def _catalog(schema: "Mapping[str, Any] | Catalog | str | os.PathLike | None", strict: bool) -> Catalog:
    catalog = as_catalog(schema)
    return catalog.strictly() if strict and not catalog.strict else catalog


@guarded
def explain_statements(statements: list[Statement], functions: FunctionRegistry | None = None) -> Explanation:
    registry = functions if functions is not None else FunctionRegistry.default()
    # The rows a script's statements wrote are resolved once for all their readers.
    summaries = ScriptSummaries(registry)
    answers = [answer_statement(s, LineageGraph.of(s, registry, summaries)) for s in statements]
    return Explanation.model_construct(statements=answers)


class ScriptAnswers:
    """A SQL text explained one statement at a time, in order (``explain_script``): iterating
    gives each statement's answer as soon as it is explained; an error is raised at the
    statement that fails, after the answers before it.  ``len()`` is the number of statements
    (the text is parsed when this is made: a ``ParseError`` is raised then)."""

    __slots__ = ("_lowering", "_functions", "_case_sensitive", "_summaries")

    def __init__(self, lowering: ScriptLowering, functions: FunctionRegistry, case_sensitive: bool = False):
        self._lowering = lowering
        self._functions = functions
        self._case_sensitive = case_sensitive
        self._summaries = ScriptSummaries(functions)

    def __len__(self) -> int:
        return len(self._lowering)

    def __iter__(self) -> Iterator[StatementAnswer]:
        steps = iter(self._lowering)
        while True:
            answer = self._next(steps)
            if answer is None:
                return
            yield answer

    @guarded
    def _next(self, steps: Iterator[Statement]) -> StatementAnswer | None:
        statement = next(steps, None)
        if statement is None:
            return None
        answer = answer_statement(statement, LineageGraph.of(statement, self._functions, self._summaries))
        answer._case_sensitive = self._case_sensitive
        return answer

    def line(self, index: int) -> int | None:
        """The line where statement ``index`` starts, if known."""
        return self._lowering.line(index)


def explain_script(sql: str, schema: Mapping[str, Any] | Catalog | None = None, dialect: str | None = None,
                   *, file: str | None = None, functions: FunctionRegistry | None = None,
                   through_script: bool = False, strict: bool = False) -> ScriptAnswers:
    """``explain``, statement by statement (see ``ScriptAnswers``): the same answers, each given
    as soon as its statement is explained, so a failing statement does not lose the ones before."""
    catalog = _catalog(schema, strict)
    registry = functions if functions is not None else FunctionRegistry.default()
    lowering = run_guarded(ScriptLowering, sql, catalog=catalog, dialect=dialect, file=file, functions=registry,
                           through_script=through_script)
    return ScriptAnswers(lowering, registry, dialect_is_case_sensitive(dialect))


@runtime_checkable
class PlanSource(Protocol):
    """Anything that lowers itself into IR statements (a dataframe-style plan, a Substrait
    plan reader …): ``explain`` accepts it in place of SQL text.

    A plan may also declare the user functions it calls with ``function_infos()`` (an iterable
    of ``FunctionInfo``): ``explain`` adds them to its function registry for that plan, over
    the built-ins and the caller's ``functions``.
    """

    def to_statements(self) -> list[Statement]: ...


def _with_plan_functions(functions: FunctionRegistry | None, plan: PlanSource) -> FunctionRegistry | None:
    declared = getattr(plan, "function_infos", None)
    infos = tuple(declared()) if callable(declared) else ()
    if not infos:
        return functions
    registry = functions.copy() if functions is not None else FunctionRegistry.default()
    for info in infos:
        registry.register(info)
    return registry


def as_catalog(schema: "Mapping[str, Any] | Catalog | str | os.PathLike | None") -> Catalog:
    """The catalog ``schema`` stands for: a ``Catalog``; a mapping of tables (docs/schema.md);
    the path of a schema file, YAML or JSON (a ``SchemaError`` if it cannot be read); or
    ``None`` (every table schema-less)."""
    if isinstance(schema, Catalog):
        return schema
    if isinstance(schema, (str, os.PathLike)):
        from ..catalog import load_schema

        return load_schema(os.fspath(schema))
    if schema is None or isinstance(schema, Mapping):
        return Catalog.from_mapping(schema)
    raise UsageError(f"schema= takes a mapping of tables to columns, a Catalog, or the path of a schema file "
                     f"(YAML or JSON), not {type(schema).__name__}")


def _sql_of(sql: Any, dialect: str | None) -> str | None:
    """The SQL text of a sqlglot expression, or of a list of them (``sqlglot.parse``'s
    result); ``None`` for anything else."""
    from sqlglot import exp

    if isinstance(sql, exp.Expression):
        return sql.sql(dialect=get_dialect(dialect))
    if isinstance(sql, (list, tuple)) and sql and all(isinstance(e, exp.Expression) or e is None for e in sql):
        written = [e.sql(dialect=get_dialect(dialect)) for e in sql if e is not None]
        return ";\n".join(written) if written else None
    return None


_ACCEPTED = ("SQL text, a sqlglot expression (or a list of them, as sqlglot.parse gives), or a plan with "
             "to_statements() (a prism_lineage.frame DataFrame, a SubstraitPlan, a Polars LazyFrame)")


def explain(sql: "str | PlanSource | Any", schema: "Mapping[str, Any] | Catalog | str | os.PathLike | None" = None,
            dialect: str | None = None, *, file: str | None = None,
            functions: FunctionRegistry | None = None, through_script: bool = False,
            strict: bool = False) -> Explanation:
    """Explain every output field of every statement in ``sql``.

    ``sql`` is SQL text; a parsed sqlglot expression, or a list of them (read as the SQL sqlglot
    writes for them in ``dialect``: positions in errors and origins refer to that text); or a
    plan that lowers itself (``PlanSource``: a dataframe-style plan, a ``SubstraitPlan``, a
    Polars ``LazyFrame``).  ``schema`` maps table names (possibly dotted) to ``{column: type}``
    (see docs/schema.md), or is the path of a schema file (YAML or JSON); tables not in it are
    read schema-less.  ``dialect`` is any dialect sqlglot reads.  ``functions`` adds lineage
    facts for your functions (docs/functions.md).  In a script, a table or view an earlier
    statement created is a table of its own for the statements after it; with
    ``through_script=True`` lineage continues through it to the base tables (docs/scripts.md).
    A table the schema given does not declare is read without one and said in ``uncertain``
    (with the closest declared names); ``strict=True`` refuses it instead (``MissingTableError``).
    Raises a ``PrismError`` subclass (``ParseError``, ``AmbiguousColumnError`` …) on bad input,
    ``UsageError`` for an argument of a type it does not take.

    ``explain(...).field("name")`` is one output field; ``.filtered(columns, relationships)``
    a smaller answer (specs/explain.md).
    """
    if not isinstance(sql, str):
        written = _sql_of(sql, dialect)
        if written is not None:
            sql = written
        else:
            sql = as_plan_source(sql, schema)  # a Polars LazyFrame, as it is
    if isinstance(sql, str):
        # One hand-over to the deep-stack worker for the whole answer (the calls inside run
        # inline there): each hand-over costs a thread switch, a large part of a small query.
        return run_guarded(_explain_sql, sql, schema, dialect, file, functions, through_script, strict)
    if isinstance(sql, PlanSource):
        statements = run_guarded(sql.to_statements)
        functions = _with_plan_functions(functions, sql)
        case_sensitive = True  # a plan's names are its columns' names, exactly
    else:
        raise UsageError(f"explain() takes {_ACCEPTED}, not {type(sql).__name__}")
    return mark_case_sensitive(explain_statements(statements, functions), case_sensitive)


def _explain_sql(sql: str, schema, dialect: str | None, file: str | None, functions: FunctionRegistry | None,
                 through_script: bool, strict: bool) -> Explanation:
    statements = lower(sql, as_catalog(schema), dialect, file=file, functions=functions,
                       through_script=through_script, strict=strict)
    return mark_case_sensitive(explain_statements(statements, functions), dialect_is_case_sensitive(dialect))


@guarded
def lineage_graphs(sql: "str | PlanSource", schema: Mapping[str, Any] | Catalog | None = None,
                   dialect: str | None = None, *, file: str | None = None,
                   functions: FunctionRegistry | None = None, through_script: bool = False,
                   strict: bool = False) -> list[LineageGraph]:
    """The plan-level lineage graph of every statement in ``sql`` (what ``explain`` takes)."""
    if not isinstance(sql, str):
        written = _sql_of(sql, dialect)
        sql = written if written is not None else as_plan_source(sql, schema)
    if not isinstance(sql, str) and isinstance(sql, PlanSource):
        registry = _with_plan_functions(functions, sql) or FunctionRegistry.default()
        return [LineageGraph.of(s, registry) for s in sql.to_statements()]
    if not isinstance(sql, str):
        raise UsageError(f"lineage_graphs() takes {_ACCEPTED}, not {type(sql).__name__}")
    registry = functions if functions is not None else FunctionRegistry.default()
    return [LineageGraph.of(s, registry)
            for s in lower(sql, as_catalog(schema), dialect, file=file, functions=registry, through_script=through_script,
                           strict=strict)]
