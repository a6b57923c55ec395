"""Snowflake's ``IDENTIFIER('name')``: an object or column name given as a string literal
(specs/scan.md).  The string is read as the name written there — ``IDENTIFIER('db.s.t')`` is
the table ``db.s.t``, ``IDENTIFIER('"MyT"')`` the quoted name, ``SELECT IDENTIFIER('a')`` the
column ``a`` — so lineage reads through it as through the name itself.  A name known only when
the statement runs (``IDENTIFIER($t)``, ``IDENTIFIER(:t)``) stays what it is: a FROM item or
target not analysed (unknown, said), and a column of that kind is refused — never a constant.
"""

from __future__ import annotations

import sqlglot.errors as sqlglot_errors
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect

from ...errors import InvalidStatementError
from ...ir import SourceText


def read_literal_identifiers(statement: exp.Expression, dialect: Dialect, source: SourceText) -> None:
    """Replace, in place, each ``IDENTIFIER('…')`` of ``statement`` by the name it holds."""
    for node in list(statement.find_all(exp.DynamicIdentifier)):
        argument = node.this
        parent = node.parent
        in_table = isinstance(parent, exp.Table) and node.arg_key == "this"
        if not (isinstance(argument, exp.Literal) and argument.is_string):
            if in_table:
                continue  # a FROM item or target not analysed: said where it is read
            meta = argument.meta or node.meta
            origin = source.span(meta["start"], meta["end"]) if "start" in meta else None
            raise InvalidStatementError(
                f"IDENTIFIER({argument.sql(dialect=dialect)}) names a column known only when the statement runs: "
                "prism_lineage does not read it (write the column's name)", origin=origin)
        try:
            name = exp.to_table(argument.this, dialect=dialect) if in_table else \
                exp.to_column(argument.this, dialect=dialect)
        except (sqlglot_errors.ParseError, sqlglot_errors.TokenError, ValueError):
            continue  # not a name: left as written (read as an unknown item)
        for part in name.find_all(exp.Identifier):
            part.meta.update({k: v for k, v in argument.meta.items() if k in ("line", "col", "start", "end")})
        if in_table:
            for key in ("this", "db", "catalog"):
                if name.args.get(key) is not None:
                    parent.set(key, name.args[key])
        else:
            node.replace(name)
