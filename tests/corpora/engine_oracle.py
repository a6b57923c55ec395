"""The engine as the oracle: run a query on DuckDB over the data its script loaded, and check
prism_lineage's answer for the same query against what DuckDB computed.

Checked, for a query prism_lineage answers (a typed refusal is allowed; anything else raised is a
failure):
- the output fields: as many as DuckDB's result columns, named alike where DuckDB's name is a plain
  identifier — unless the answer stands a ``*`` field for columns it says (``uncertain``) it
  cannot name;
- an output field whose value sources are all ``identity``/``exact`` holds only values those
  columns held before the query ran, or constants the query spells (compared as DuckDB's VARCHAR
  casts).
The data are the scripts' own, so a value shared by two columns proves nothing about which one a
field copies: missing sources are not judged here (the field helper's session notes say how they
were looked for, with values no other column holds)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import duckdb

import prism_lineage
from prism_lineage import errors


@dataclass
class Verdict:
    sql: str
    refused: str | None = None
    problems: list[str] = field(default_factory=list)
    compared: int = 0  # fields whose identity sources' values were compared with the result


def _schema(con: duckdb.DuckDBPyConnection, qualified: bool = False) -> dict[str, dict[str, str]]:
    rows = con.execute(
        "select table_schema, table_name, column_name, data_type from information_schema.columns "
        "where table_catalog in (current_database(), 'temp') "
        "order by table_schema, table_name, ordinal_position").fetchall()
    schema: dict[str, dict[str, str]] = {}
    for namespace, table, column, type_ in rows:
        name = table if namespace == "main" and not qualified else f"{namespace}.{table}"
        schema.setdefault(name, {})[column] = type_
    return schema


def _values(con: duckdb.DuckDBPyConnection, table: str, column: str) -> set[str] | None:
    relation = ".".join('"' + part + '"' for part in table.split("."))
    try:
        rows = con.execute(f'select distinct cast("{column}" as varchar) from {relation} '
                           f'where "{column}" is not null').fetchall()
    except duckdb.Error:
        return None
    return {row[0] for row in rows}


def _column_values(con: duckdb.DuckDBPyConnection, sql: str, position: int) -> set[str]:
    rows = con.execute(f"select distinct cast(#{position + 1} as varchar) from ({sql}) "
                       f"where #{position + 1} is not null").fetchall()
    return {row[0] for row in rows}


def _literals(sql: str) -> set[str]:
    return set(re.findall(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])", sql)) | set(re.findall(r"'([^']*)'", sql))


def check_write(con: duckdb.DuckDBPyConnection, sql: str) -> Verdict:
    """Answer the write ``sql`` (a typed refusal passes; anything else raised is a failure), then
    run it on ``con`` so that the script goes on."""
    verdict = Verdict(sql)
    schema = _schema(con)
    try:
        prism_lineage.explain(sql, schema=schema, dialect="duckdb")
    except errors.PrismError as error:
        verdict.refused = f"{type(error).__name__}: {error}"
    except Exception as error:  # noqa: BLE001 - what the oracle is here to catch
        verdict.problems.append(f"{type(error).__name__}: {error}")
    con.execute(sql)
    return verdict


def check(con: duckdb.DuckDBPyConnection, sql: str, qualified: bool = False) -> Verdict:
    """Run ``sql`` on ``con`` and judge prism_lineage's answer for it (DuckDB dialect).
    ``qualified``: the schema names every table with its schema (``main.t``), for SQL that does."""
    verdict = Verdict(sql)
    schema = _schema(con, qualified)
    before = {(t, c): _values(con, t, c) for t, columns in schema.items() for c in columns}
    names = [d[0] for d in con.execute(sql).description]
    try:
        answer = prism_lineage.explain(sql, schema=schema, dialect="duckdb")
    except errors.PrismError as error:
        verdict.refused = f"{type(error).__name__}: {error}"
        return verdict
    except Exception as error:  # noqa: BLE001 - what the oracle is here to catch
        verdict.problems.append(f"{type(error).__name__}: {error}")
        return verdict
    statement = answer.statements[-1]
    if statement.target is not None:
        # A write the suite runs as a query (``WITH … MERGE INTO …``): DuckDB answers its row
        # count, not the written columns — judged as ``check_write`` judges writes.
        return verdict
    fields = statement.fields
    starred = any(f.name == "*" for f in fields) and bool(statement.uncertain)
    if not starred:
        if len(fields) != len(names):
            verdict.problems.append(f"fields {[f.name for f in fields]} but DuckDB's columns are {names}")
            return verdict
        for ours, theirs in zip(fields, names):
            if re.fullmatch(r"\w+", theirs) and ours.name.lower() != theirs.lower():
                verdict.problems.append(f"field {ours.name!r} is DuckDB's column {theirs!r}")
    for position, f in enumerate(fields):
        if starred or f.name == "*":
            continue
        values = [s for s in f.sources if s.relationship == "value"]
        identities = [s for s in values if s.transformation == "identity" and s.confidence == "exact"
                      and not getattr(s, "path", None)]
        if not identities or len(identities) != len(values):
            continue
        held: set[str] = set()
        for source in identities:
            table, _, column = source.column.rpartition(".")
            key = next(((t, c) for (t, c) in before if t.lower() == table.lower() and c.lower() == column.lower()),
                       None)
            if key is None or before[key] is None:
                held = set()
                break
            held |= before[key]
        else:
            # A constant branch (``SELECT 1, 2 … UNION SELECT x, y …``) adds values no column held:
            # constants have no source by design, so the query's own literals are allowed.
            out = _column_values(con, sql, position) - _literals(sql)
            verdict.compared += 1
            if not out <= held:
                verdict.problems.append(
                    f"{f.name} <- {[s.column for s in identities]} identity exact, but it holds "
                    f"{sorted(out - held)[:3]} which they did not")
    return verdict
