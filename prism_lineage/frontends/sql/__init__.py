"""The SQL frontend: sqlglot parses, names are resolved against the catalog, the IR is built.

Names are resolved while lowering (no separate ``qualify`` pass): the lowering already
knows every scope, and resolving once is both faster and lets errors name the candidates.
"""

from __future__ import annotations

from collections.abc import Iterator

import sqlglot.errors as sqlglot_errors

from ...catalog import Catalog
from ...errors import ResolutionError
from ...ir import SourceText, Statement
from ...ir.quick import quick_replace
from .context import LoweringContext
from .dialects import Normalizer, get_dialect, known_dialects
from .multitable import expand_multitable_inserts
from .returning import expand_data_modifying_ctes
from .procedures import BODY_OF, expand_routines, unanalysed_in_body
from .parsing import parse_statements, raised_by_sqlglot, statement_parse_error, without_byte_order_mark
from .scripts import ScriptCatalog
from .statements import lower_statement, result_query

__all__ = ["lower_sql", "ScriptLowering", "known_dialects"]


def lower_sql(text: str, *, catalog: Catalog, dialect: str | None = None, file: str | None = None,
              functions=None, through_script: bool = False) -> list[Statement]:
    """Parse ``text`` (one or more statements) and lower each statement into the IR, in order:
    tables and views a statement creates or changes are known to the statements after it
    (scripts.py); with ``through_script`` a read of one is the rows written into it, so lineage
    continues to the base tables.  ``functions`` is the function registry (aggregates and
    generators the frontend must recognise)."""
    return list(ScriptLowering(text, catalog=catalog, dialect=dialect, file=file, functions=functions,
                               through_script=through_script))


class ScriptLowering:
    """The statements of a SQL text, parsed at once (a ``ParseError`` is raised here), then
    lowered one at a time, in order, as they are iterated: an error is raised at the statement
    that fails, after the statements before it were given (batch mode reports them)."""

    __slots__ = ("_nodes", "_source", "_script", "_options")

    def __init__(self, text: str, *, catalog: Catalog, dialect: str | None = None, file: str | None = None,
                 functions=None, through_script: bool = False):
        sql_dialect = get_dialect(dialect)
        text = without_byte_order_mark(text)
        self._source = SourceText(text, None, file)
        # A multi-table insert is one INSERT per target; a routine's SQL body follows its CREATE.
        nodes = expand_multitable_inserts(parse_statements(text, sql_dialect, self._source))
        # The write inside a data-modifying CTE is answered before the statement holding it.
        self._nodes = expand_data_modifying_ctes(expand_routines(nodes, sql_dialect, text, self._source))
        self._script = ScriptCatalog(catalog)
        self._options = (sql_dialect, Normalizer(sql_dialect), functions, through_script, text)

    def __len__(self) -> int:
        return len(self._nodes)

    def __iter__(self) -> Iterator[Statement]:
        sql_dialect, normalizer, functions, through_script, text = self._options
        script = self._script
        for index, node in enumerate(self._nodes):
            ctx = LoweringContext(statement=index, text=self._source, catalog=script, normalizer=normalizer,
                                  dialect=sql_dialect, functions=functions, through_script=through_script,
                                  source=text)
            script.begin(ctx)
            ctx.result_query(result_query(node))
            routine = node.meta.get(BODY_OF) if node._meta else None
            try:
                statement = lower_statement(node, ctx)
            except ResolutionError as error:
                if routine is None:
                    raise
                # A routine's body reads names the script does not know (a loop's record, a
                # cursor): that statement is not answered, and its answer says why.
                statement = unanalysed_in_body(node, ctx, routine, error)
            except (sqlglot_errors.SqlglotError, ValueError, TypeError, KeyError, IndexError, AttributeError,
                    AssertionError) as error:
                # sqlglot failing on a part of the statement while it is lowered (reading a
                # JSON path or a type string, writing an expression's SQL text): the statement
                # cannot be read.  Raised by our own code, it is a bug, and stays one.
                if not isinstance(error, sqlglot_errors.SqlglotError) and not raised_by_sqlglot(error):
                    raise
                raise statement_parse_error(error, node, ctx) from None
            if statement.root is not None and statement.ordering is None:
                statement = quick_replace(statement, ordering=ctx.ordering)
            if routine is not None:
                statement = quick_replace(statement, procedure=routine)
            yield script.record(statement, node, ctx)

    def line(self, index: int) -> int | None:
        """The line of the first token of statement ``index`` (1-based), if the parser kept it."""
        lines = [n.meta["line"] for n in self._nodes[index].walk() if n._meta and "line" in n._meta]
        return min(lines) if lines else None
