"""Reading what commands are given: SQL text from a file or stdin, a schema, functions."""

from __future__ import annotations

import sys
from pathlib import Path

from ..catalog import Catalog, load_schema
from ..errors import InputError
from ..functions import FunctionRegistry


def read_sql(path: str | None) -> tuple[str, str | None]:
    """(text, file name) from ``path``, or from stdin when ``path`` is ``-`` or absent."""
    if path in (None, "-"):
        if sys.stdin is None or sys.stdin.isatty():
            raise InputError("no SQL given: pass a FILE, or '-' and SQL on standard input")
        return _not_empty(sys.stdin.read(), "standard input"), None
    file = Path(path)
    try:
        # utf-8-sig: a byte-order mark at the start (editors on Windows write one) is not SQL.
        return _not_empty(file.read_text(encoding="utf-8-sig"), str(file)), str(file)
    except FileNotFoundError:
        raise InputError(f"SQL file not found: {path}") from None
    except IsADirectoryError:
        raise InputError(f"{path} is a directory, not a SQL file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read SQL file {path}: {error}") from None


def no_statements(file: str | None) -> InputError:
    """A text with nothing but comments and semicolons: no statements, like an empty file."""
    where = file or "standard input"
    return InputError(f"no SQL statements in {where}: it holds only comments or semicolons")


def _not_empty(text: str, where: str) -> str:
    if not text.strip():
        raise InputError(f"no SQL in {where}: it is empty")
    return text


def read_catalog(path: str | None, strict: bool = False) -> Catalog:
    catalog = load_schema(path) if path else Catalog([])
    return catalog.strictly() if strict else catalog


def read_functions(path: str | None) -> FunctionRegistry:
    registry = FunctionRegistry.default()
    return registry.load_file(path) if path else registry


def add_sql_arguments(parser) -> None:
    parser.add_argument("file", nargs="?", default="-", metavar="FILE",
                        help="SQL file (one or more statements); '-' or nothing: standard input")
    parser.add_argument("--schema", metavar="FILE",
                        help="tables and columns, JSON or YAML (see docs/schema.md); tables not in it are read "
                             "schema-less")
    parser.add_argument("--dialect", "-d", metavar="D", default=None,
                        help="SQL dialect (any dialect sqlglot reads: duckdb, postgres, snowflake, bigquery …)")
    parser.add_argument("--functions", metavar="FILE",
                        help="lineage facts for your own functions, YAML or JSON (see docs/functions.md)")
    parser.add_argument("--strict", action="store_true",
                        help="refuse a query that reads a table the --schema does not declare (exit 5), instead of "
                             "reading it without a schema and saying so under 'uncertain'")
    parser.add_argument("--through-script", action="store_true",
                        help="in a script, follow the tables and views earlier statements created or wrote through "
                             "to the base tables (see docs/writes.md#scripts); without it they are tables of their own")
