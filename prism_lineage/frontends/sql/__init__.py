"""The SQL frontend: sqlglot parses, names are resolved against the catalog, the IR is built.

Names are resolved while lowering (no separate ``qualify`` pass): the lowering already
knows every scope, and resolving once is both faster and lets errors name the candidates.
"""

from __future__ import annotations

from ...catalog import Catalog
from ...ir import SourceText, Statement
from .context import LoweringContext
from .dialects import Normalizer, get_dialect, known_dialects
from .parsing import parse_statements
from .scripts import ScriptCatalog
from .statements import lower_statement

__all__ = ["lower_sql", "known_dialects"]


def lower_sql(text: str, *, catalog: Catalog, dialect: str | None = None, file: str | None = None,
              functions=None, through_script: bool = False) -> list[Statement]:
    """Parse ``text`` (one or more statements) and lower each statement into the IR, in order:
    tables and views a statement creates are known to the statements after it (scripts.py);
    with ``through_script`` a read of one is the rows written into it, so lineage continues to
    the base tables.  ``functions`` is the function registry (aggregates and generators the
    frontend must recognise)."""
    sql_dialect = get_dialect(dialect)
    normalizer = Normalizer(sql_dialect)
    source = SourceText(text, None, file)
    script = ScriptCatalog(catalog)
    statements = []
    for index, node in enumerate(parse_statements(text, sql_dialect, source)):
        ctx = LoweringContext(statement=index, text=source, catalog=script, normalizer=normalizer,
                              dialect=sql_dialect, functions=functions, through_script=through_script, source=text)
        statement = lower_statement(node, ctx)
        script.record(statement, node, ctx)
        statements.append(statement)
    return statements
