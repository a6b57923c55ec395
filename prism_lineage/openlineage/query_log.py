"""Warehouse query logs → observed edges (specs/openlineage.md, "Query logs").

A log is JSON lines or Parquet, one record per statement that ran, in one of these shapes (told
by the record's keys, in any letter case; docs/openlineage.md#query-logs):

* Snowflake ``QUERY_HISTORY``: ``QUERY_TEXT``, ``DATABASE_NAME``, ``SCHEMA_NAME``, ``USER_NAME``,
  ``START_TIME``, ``EXECUTION_STATUS``, ``QUERY_ID`` (dialect snowflake);
* BigQuery ``INFORMATION_SCHEMA.JOBS``: ``query``, ``project_id``, ``default_dataset`` (when the
  export adds it), ``user_email``, ``start_time``/``creation_time``, ``state``, ``error_result``,
  ``job_id`` (dialect bigquery);
* Postgres ``pg_stat_statements``: ``query``, ``datname``, ``rolname``/``usename``, ``queryid``
  (dialect postgres; it keeps statements that completed, and no time: ``captured_at`` where the
  export adds it, else the time of ingestion);
* generic: ``query_text``, ``dialect``, ``database``, ``schema``, ``user``, ``start_time``,
  ``status``, ``query_id``.

Each distinct statement is analysed once: records are grouped by a fingerprint of their text
(sqlglot's tokens, literals replaced by ``?``) and context (dialect, database, schema), so the
same statement run a thousand times with other literals is read once.  A failed statement gives
no edge.  A statement's writes give observed edges from each declared asset it reads to the
declared asset it writes, at the time it ran, with the column lineage the engine reads from it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ..errors import InputError, PrismError
from ..governance.sql_reading import AddressBook, ColumnLink, ProjectCatalog
from .observed import DEFAULT_RETENTION, QUERY_LOG, QUERY_LOG_JOB, ObservedEdge, Rejected, Summary, utc

# Each key: the names a log's shapes give it (compared in lower case).
_ALIASES = {
    "text": ("query_text", "query", "statement", "sql"),
    "dialect": ("dialect",),
    "database": ("database_name", "database", "project_id", "datname", "dbname", "catalog"),
    "schema": ("schema_name", "schema", "default_dataset", "dataset_id"),
    "user": ("user_name", "user", "user_email", "rolname", "usename", "username"),
    "start": ("start_time", "creation_time", "captured_at", "started_at", "time"),
    "status": ("execution_status", "status", "state"),
    "error": ("error_result", "error_code", "error_message"),
    "query_id": ("query_id", "job_id", "queryid", "id"),
}
_SHAPE_DIALECT = {"snowflake": "snowflake", "bigquery": "bigquery", "pg_stat_statements": "postgres"}
_SUCCESS = {"success", "succeeded", "successful", "ok", "done", "complete", "completed", "finished"}
_FAILED = {"fail", "failed", "failed_with_error", "failed_with_incident", "incident", "error", "errored",
           "cancelled", "canceled", "aborted", "timeout"}
_NOT_FINISHED = {"running", "queued", "pending", "started", "resuming_warehouse", "blocked"}
# Statements whose literals can carry SQL (dynamic SQL, procedures) or name a table
# (``IDENTIFIER('t')``, ``TABLE('t')``): their literals are part of their fingerprint.
_RUNS_SQL = {"IMMEDIATE", "EXECUTE", "EXEC", "CALL"}
_NAMES_TABLE = {"IDENTIFIER", "TABLE"}
MAX_STATEMENT_CHARACTERS = 1_000_000


@dataclass(frozen=True, slots=True)
class LogRecord:
    number: int  # line (JSON lines) or row (Parquet), 1-based
    text: str
    dialect: str | None
    database: str | None
    schema: str | None
    user: str | None
    started: datetime | None
    failed: bool
    finished: bool
    query_id: str | None


def shape_of(keys: Iterable[str]) -> str:
    lowered = {k.lower() for k in keys}
    if "query_text" in lowered and ("execution_status" in lowered or "database_name" in lowered):
        return "snowflake"
    if "query" in lowered and lowered & {"job_id", "creation_time", "user_email", "error_result", "project_id"}:
        return "bigquery"
    if "query" in lowered and lowered & {"calls", "queryid", "dbid", "total_exec_time", "total_time"}:
        return "pg_stat_statements"
    return "generic"


def _get(record: dict[str, Any], lowered: dict[str, str], key: str) -> Any:
    for alias in _ALIASES[key]:
        original = lowered.get(alias)
        if original is not None:
            value = record[original]
            if value is not None:
                return value
    return None


def _time(value: Any) -> datetime:
    if isinstance(value, datetime):
        return utc(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        # Epoch seconds, or milliseconds (BigQuery exports), told apart by size.
        return utc(datetime.fromtimestamp(value / 1000 if value > 1e11 else value))
    if isinstance(value, str):
        text = value.strip()
        try:
            return utc(datetime.fromisoformat(text.replace(" UTC", "+00:00")))
        except ValueError:
            # Exports spell times their own way: "2026-11-30 10:00:00.000 +0000" (Snowflake).
            from dateutil import parser

            try:
                return utc(parser.parse(text))
            except (ValueError, OverflowError) as error:
                raise ValueError(str(error)) from None
    raise ValueError(f"a time is expected, not {type(value).__name__}")


def record_of(number: int, record: Any, default_dialect: str | None) -> LogRecord | Rejected:
    """One log record in our terms, or why it is refused."""
    if not isinstance(record, dict):
        return Rejected(number, "not a log record: a JSON object is expected")
    lowered = {key.lower(): key for key in record if isinstance(key, str)}
    shape = shape_of(lowered)
    text = _get(record, lowered, "text")
    if not isinstance(text, str) or not text.strip():
        return Rejected(number, "no statement text (query_text, query, statement or sql)")
    if len(text) > MAX_STATEMENT_CHARACTERS:
        return Rejected(number, f"the statement is {len(text):,} characters, more than the limit of "
                                f"{MAX_STATEMENT_CHARACTERS:,}")
    started = _get(record, lowered, "start")
    try:
        when = _time(started) if started is not None else None
    except (ValueError, OverflowError, OSError) as error:
        return Rejected(number, f"start time {started!r} is not a time: {error}")
    status = _get(record, lowered, "status")
    error = _get(record, lowered, "error")
    failed = error not in (None, "", 0, {}) and not (isinstance(error, dict) and not any(error.values()))
    finished = True
    if status is not None:
        word = str(status).strip().lower()
        if word in _FAILED:
            failed = True
        elif word in _NOT_FINISHED:
            finished = False
        elif word not in _SUCCESS:
            return Rejected(number, f"status {status!r} is not one this reader knows (success, failed, running …)")
    dialect = _get(record, lowered, "dialect") or default_dialect or _SHAPE_DIALECT.get(shape)
    schema = _get(record, lowered, "schema")
    if isinstance(schema, dict):  # BigQuery's default_dataset struct
        schema = schema.get("dataset_id")
    database = _get(record, lowered, "database")
    if shape == "pg_stat_statements" and schema is None:
        schema = "public"
    query_id = _get(record, lowered, "query_id")
    return LogRecord(number, text, str(dialect) if dialect else None, _str(database), _str(schema),
                     _str(_get(record, lowered, "user")), when, failed, finished,
                     None if query_id is None else str(query_id))


def _str(value: Any) -> str | None:
    return None if value is None else str(value)


def read_log(path: str | Path, default_dialect: str | None = None) -> Iterator[LogRecord | Rejected]:
    """The records of a query log file: Parquet (by its magic bytes) or JSON lines."""
    path = Path(path)
    try:
        with path.open("rb") as handle:
            magic = handle.read(4)
    except FileNotFoundError:
        raise InputError(f"query log not found: {path}") from None
    except IsADirectoryError:
        raise InputError(f"{path} is a directory, not a query log") from None
    except OSError as error:
        raise InputError(f"cannot read query log {path}: {error.strerror or error}") from None
    if magic == b"PAR1":
        yield from _parquet_records(path, default_dialect)
    else:
        with path.open("rb") as handle:
            yield from json_records(handle, default_dialect)


def json_records(lines: Iterable[bytes | str], default_dialect: str | None = None) -> Iterator[LogRecord | Rejected]:
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except UnicodeDecodeError as error:
            yield Rejected(number, f"not UTF-8 text: {error.reason} at byte {error.start}")
            continue
        except json.JSONDecodeError as error:
            yield Rejected(number, f"not valid JSON: {error.msg} at column {error.colno}")
            continue
        yield record_of(number, record, default_dialect)


def _parquet_records(path: Path, default_dialect: str | None) -> Iterator[LogRecord | Rejected]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        source = pq.ParquetFile(path)
        number = 0
        for batch in source.iter_batches(batch_size=10_000):
            for record in batch.to_pylist():
                number += 1
                yield record_of(number, record, default_dialect)
    except (pa.ArrowException, OSError) as error:
        raise InputError(f"cannot read query log {path} as Parquet: {str(error).splitlines()[0]}") from None


def fingerprint(record: LogRecord) -> str:
    """The statement's identity for analysis: its context and its tokens, literals as ``?``
    (the text itself when it cannot be tokenized, or when a literal may name a table)."""
    context = f"{record.dialect or ''}\x00{record.database or ''}\x00{record.schema or ''}\x00"
    try:
        from sqlglot.dialects.dialect import Dialect
        from sqlglot.tokens import TokenType

        dialect = Dialect.get_or_raise(record.dialect)
        tokens = dialect.tokenize(record.text)
    except Exception:  # noqa: BLE001 - anything sqlglot cannot tokenize is fingerprinted as text
        return hashlib.blake2b((context + " ".join(record.text.split())).encode(), digest_size=16).hexdigest()
    literal = {TokenType.STRING, TokenType.NUMBER, TokenType.NATIONAL_STRING, TokenType.BIT_STRING,
               TokenType.HEX_STRING, TokenType.BYTE_STRING, TokenType.RAW_STRING, TokenType.HEREDOC_STRING}
    keep_literals = any(
        t.text.upper() in _RUNS_SQL
        or (t.text.upper() in _NAMES_TABLE and i + 1 < len(tokens) and tokens[i + 1].token_type is TokenType.L_PAREN)
        for i, t in enumerate(tokens))
    # Unquoted names are one name in any letter case where the dialect folds them (Snowflake,
    # Postgres …); not where some names keep their case (BigQuery's tables, MySQL's).
    fold = getattr(getattr(dialect, "NORMALIZATION_STRATEGY", None), "name", "") in ("UPPERCASE", "LOWERCASE")
    words = []
    for token in tokens:
        kind = token.token_type
        if kind in literal and not keep_literals:
            words.append("?")
        elif kind is TokenType.IDENTIFIER:
            words.append(f'"{token.text}"')  # quoted: its case is part of the name
        elif kind is TokenType.VAR:
            words.append(token.text.upper() if fold else token.text)
        elif kind in literal:
            words.append(f"{kind.name}:{token.text}")
        else:
            words.append(kind.name if token.text.isalpha() else token.text)
    return hashlib.blake2b((context + " ".join(words)).encode(), digest_size=16).hexdigest()


@dataclass(frozen=True, slots=True)
class Analysis:
    """What one distinct statement writes: (asset read, asset written, column links)."""

    writes: tuple[tuple[str, str, tuple[ColumnLink, ...]], ...]
    error: str | None = None


class LogAnalyser:
    """Analyses each distinct statement of a log once, against one environment's assets."""

    def __init__(self, assets: dict[str, str], *, functions=None, databases: Iterable[str] | None = None):
        """``databases``: the warehouse databases that hold this environment (any, when None): a
        table qualified with another database is not one of its assets."""
        self.ids = dict(assets)  # full name -> asset id
        self.book = AddressBook(self.ids)
        self.databases = None if databases is None else frozenset(d.casefold() for d in databases)
        self.catalog = ProjectCatalog(self.book, lambda name: None)
        self.functions = functions
        self.analyses: dict[str, Analysis] = {}
        self.fingerprints: dict[tuple, str] = {}  # exact (context, text) -> fingerprint

    def analysis(self, record: LogRecord) -> Analysis:
        exact = (record.dialect, record.database, record.schema, record.text)
        key = self.fingerprints.get(exact)
        if key is None:
            key = self.fingerprints[exact] = fingerprint(record)
        found = self.analyses.get(key)
        if found is None:
            found = self.analyses[key] = self._analyse(record)
        return found

    def _analyse(self, record: LogRecord) -> Analysis:
        from ..explain import explain_statements, lower
        from ..ir import Scan, walk_relations

        text = _qualified(record)
        try:
            statements = lower(text, self.catalog, record.dialect, functions=self.functions)
            explanation = explain_statements(statements, self.functions)
        except PrismError as error:
            return Analysis((), str(error).splitlines()[0])
        writes: dict[tuple[str, str], dict[ColumnLink, None]] = {}
        for statement, answer in zip(statements, explanation.statements):
            if statement.root is None or statement.target is None:
                continue
            target = self._owners(statement.target)
            if len(target) != 1:
                continue
            target = target[0]
            owners: dict[str, tuple[str, ...]] = {}
            for relation in walk_relations(statement.root):
                if isinstance(relation, Scan) and relation.opaque_reason is None and relation.table not in owners:
                    owners[relation.table] = self._owners(relation.table)
            for owner_list in owners.values():
                for owner in owner_list:
                    if owner != target:
                        writes.setdefault((owner, target), {})
            for field in answer.fields:
                for source in field.sources:
                    table = _table_of(source.column, owners)
                    if table is None:
                        continue
                    link = ColumnLink(source.column[len(table) + 1:], field.name, source.relationship,
                                      source.transformation, source.confidence)
                    for owner in owners[table]:
                        if owner != target:
                            writes.setdefault((owner, target), {})[link] = None
        return Analysis(tuple((self.ids[s], self.ids[t], tuple(links)) for (s, t), links in writes.items()))

    def _owners(self, table: str) -> tuple[str, ...]:
        """The declared assets a table name (as the plan spells it) is, in this environment's
        databases only."""
        parts = tuple(table.split("."))
        if self.databases is not None and len(parts) >= 3 and parts[-3].strip('"`[]').casefold() not in self.databases:
            return ()
        return self.book.find(parts).owners


def _qualified(record: LogRecord) -> str:
    """The text with its tables qualified by the record's default database and schema, so that
    ``orders`` run in ``shop.analytics`` is ``shop.analytics.orders``."""
    if not (record.database or record.schema):
        return record.text
    try:
        import sqlglot
        from sqlglot.optimizer.qualify_tables import qualify_tables

        trees = sqlglot.parse(record.text, read=record.dialect)
        return ";\n".join(
            qualify_tables(tree, db=record.schema, catalog=record.database if record.schema else None,
                           dialect=record.dialect).sql(record.dialect)
            for tree in trees if tree is not None)
    except Exception:  # noqa: BLE001 - unqualified text is still read (and errors said) below
        return record.text


def _table_of(column: str, owners: dict[str, tuple[str, ...]]) -> str | None:
    best = None
    for table, assets in owners.items():
        if assets and column.startswith(table + ".") and (best is None or len(table) > len(best)):
            best = table
    return best


class LogObserver:
    """Turns a query log into observed edges for one environment, counting what it does."""

    def __init__(self, assets: dict[str, str], *, now: datetime, retention: timedelta = DEFAULT_RETENTION,
                 functions=None, databases: Iterable[str] | None = None):
        self.analyser = LogAnalyser(assets, functions=functions, databases=databases)
        self.now = utc(now)
        self.retention = retention
        self.summary = Summary()
        self.edges: list[ObservedEdge] = []
        self.statements = 0  # records analysed or answered from an earlier analysis

    def feed(self, records: Iterable[LogRecord | Rejected]) -> None:
        for record in records:
            self.summary.lines += 1
            if isinstance(record, Rejected):
                self.summary.rejected.append(record)
                continue
            self.summary.accepted += 1
            if not record.finished:
                self.summary.skip("not finished")
                continue
            if record.failed:
                self.summary.skip("failed: a failed statement gives no edge")
                continue
            seen_at = record.started or self.now
            if seen_at <= self.now - self.retention:
                self.summary.skip("older than the retention")
                continue
            self.statements += 1
            analysis = self.analyser.analysis(record)
            if analysis.error is not None:
                self.summary.skip("could not be analysed")
                continue
            if not analysis.writes:
                self.summary.skip("writes no declared asset from a declared asset")
                continue
            for source, target, links in analysis.writes:
                self.edges.append(ObservedEdge(source, target, QUERY_LOG, QUERY_LOG_JOB, record.query_id, seen_at,
                                               links or None))

    @property
    def distinct(self) -> int:
        """Distinct statements analysed."""
        return len(self.analyser.analyses)
