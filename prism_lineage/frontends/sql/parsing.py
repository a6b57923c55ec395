"""Parsing SQL text with sqlglot, turning its errors into ``ParseError`` with a position."""

from __future__ import annotations

import re

import sqlglot.errors as sqlglot_errors
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect

from ...errors import ParseError
from ...ir import Origin, SourceText


def parse_statements(text: str, dialect: Dialect, source: SourceText) -> list[exp.Expression]:
    """Every statement of ``text`` (empty statements between semicolons are dropped)."""
    try:
        parsed = dialect.parse(text)
    except sqlglot_errors.ParseError as error:
        raise _parse_error(error, source) from None
    except sqlglot_errors.TokenError as error:
        raise ParseError(f"cannot read the SQL text: {error}") from None
    return [statement for statement in parsed if statement is not None]


_TOKEN = re.compile(r"<Token token_type: [^,]*, text: (.*?), line: \d+.*?>")


# sqlglot's "Required keyword: 'expression' missing for <class 'sqlglot…GT'>".
_MISSING = re.compile(r"Required keyword: '(\w+)' missing for <class '[\w.]*?(\w+)'>")
_PARTS = {"this": "operand", "expression": "right-hand side"}


def _missing_part(match: re.Match) -> str:
    part = _PARTS.get(match.group(1), f"'{match.group(1)}'")
    return f"incomplete {match.group(2).upper()} expression: its {part} is missing"


def _parse_error(error: sqlglot_errors.ParseError, source: SourceText) -> ParseError:
    details = error.errors[0] if error.errors else {}
    description = str(details.get("description") or error).split("\n")[0]
    # sqlglot prints tokens as ``<Token token_type: …, text: WHERE, …>``: keep the text.
    description = _TOKEN.sub(lambda m: f"'{m.group(1)}'", description)
    description = _MISSING.sub(_missing_part, description)
    line, column = details.get("line"), details.get("col")
    near = (details.get("highlight") or "").strip()
    message = f"cannot parse the SQL: {description}"
    if near:
        message += f" near '{near}'"
    origin = None
    if line is not None and column is not None:
        origin = Origin(int(line), int(column), int(line), int(column), None, source.file)
    return ParseError(message, origin=origin)
