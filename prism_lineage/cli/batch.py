"""``prism-lineage explain`` over many statements: a directory of SQL files or a query log,
explained statement by statement on every core (``--jobs``).

Each statement is explained on its own, as a query log's statements are independent (no
statement sees the tables another creates).  The statements are cut where sqlglot's parser ends
them, a block of text at a time (``split_statements``), so a semicolon in a string, a comment or
a routine body never cuts, memory stays bounded and the workers start at once.  Results come
back in input order (worker processes take chunks of statements and answer them one by one) and
are numbered there, one number per answer (``write_outcome``); a statement
that fails is reported in the output in its place and the others go on.  A worker process that
dies (killed, out of memory, a crash in native code) is noticed at once: the statement it was
on is reported failed, with its file, a new worker takes its place and the run finishes.

With ``--through-script`` a directory is read as **one script per file**: each file is
explained in order through the script (its temp tables, views and DDL followed), the files in
parallel.  A script's statements depend on the ones before, so the first that fails ends its
file (the rest are counted as not explained).  A single file or standard input with ``--jobs``
is a query log: ``--through-script`` is refused there.  See docs/cli.md.
"""

from __future__ import annotations

import collections
import itertools
import json
import multiprocessing
import os
import re
import signal
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import wait
from pathlib import Path
from typing import Any

from ..errors import InputError, PrismError, UnknownFieldError, UsageError
from ..explain import explain as run_explain
from ..explain import explain_script
from ..explain.models import Explanation, StatementAnswer
from ..explain.text import render_text
from ..frontends.sql.dialects import get_dialect
from .inputs import no_statements, read_catalog, read_functions, read_sql

# Exit code when some statements could not be explained (the others were, and every failure
# is reported in its place in the output).
SOME_FAILED = 1
_BLOCK_CHARS = 1 << 16  # text tokenized at a time when cutting statements
_MAX_CHUNK = 64  # statements a worker takes at a time


@dataclass(frozen=True, slots=True)
class Statement:
    """One statement of a file: where it starts and its text (from just after the previous
    semicolon, so positions inside it are shifted by ``first_line``/``first_column``)."""

    file: str | None
    index: int  # the statement's index in its file, from 0
    line: int  # line of its first token (what the output shows)
    first_line: int  # where ``text`` starts in the file (1-based)
    first_column: int
    text: str


@dataclass(frozen=True, slots=True)
class Script:
    """A whole file, explained in order through the script (``--through-script``), or — with
    ``through`` false — as ``explain`` without ``--jobs`` reads it (a file whose statements
    define functions or variables later ones read)."""

    file: str | None
    text: str
    through: bool = True


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A file that could not be read or cut into statements (reported in its place)."""

    file: str | None
    error: PrismError


# The output of one answer (or failed statement), cut where its statement number goes: the
# number is known only in input order, once the answers before it are counted (one statement
# may give several answers: a routine and its body, an INSERT ALL), so the parent writes it.
# ``None``: an answer counted but not shown (``--column``).
Piece = tuple[str, str] | None


@dataclass(frozen=True, slots=True)
class Outcome:
    rendered: str = ""  # output with no statement number (a file that cannot be read), after the pieces
    chars: int = 0  # the length of its text (the progress bar counts text)
    explained: int = 0
    failed: int = 0
    shown: int = 0  # answers written (with --column, those that have a field asked for)
    skipped: int = 0  # statements of a script after the one that failed: not explained
    pieces: tuple[Piece, ...] = ()  # each answer or failure, in order, numbered by the parent
    file: str | None = None  # whose statements they are (numbers count from 1 in each file)


def write_outcome(outcome: Outcome, numbers: dict, first: int) -> str:
    """The output of ``outcome``, its statements numbered after those of its file before it
    (``numbers``: file → statements so far; ``first``: 1 in text, 0 (an index) in JSON)."""
    number = numbers.get(outcome.file, 0)
    parts = []
    for piece in outcome.pieces:
        if piece is not None:
            parts.append(f"{piece[0]}{number + first}{piece[1]}")
        number += 1
    numbers[outcome.file] = number
    parts.append(outcome.rendered)
    return "".join(parts)


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def run_batch(args, jobs: int) -> int:
    """Explain every statement under ``args.file`` with ``jobs`` processes."""
    from .substrait_input import plan_option

    if plan_option(args) is not None:
        raise UsageError(f"--jobs and directories are for SQL statements; a {plan_option(args)} plan is explained "
                         "whole: drop --jobs")
    scripts = bool(getattr(args, "through_script", False))
    if scripts and not _show_files(args.file):
        raise UsageError(
            "--through-script reads a file as one script, whose statements depend on each other in order, but "
            "--jobs reads it as a query log of independent statements: drop --jobs to explain the file as a "
            "script, or give a directory to explain each of its files as a script, in parallel")
    catalog = read_catalog(args.schema, getattr(args, "strict", False))
    functions = read_functions(args.functions)
    dialect = get_dialect(args.dialect)  # an unknown dialect is a usage error before any work
    inputs = _inputs(args.file)  # read now: a missing path fails before any work
    filters = (getattr(args, "columns", None), getattr(args, "relationships", None))
    options = (catalog, args.dialect, functions, args.format, _show_files(args.file), filters)
    started = time.perf_counter()
    explained = failed = skipped = shown = 0
    # Statements are cut while the workers explain the first ones (``imap`` draws them lazily).
    units = _script_units(inputs) if scripts else _units(inputs, dialect)
    outcomes, processes = _outcomes(units, options, jobs)
    numbers: dict[str | None, int] = {}
    first = 0 if args.format == "json" else 1
    with _Progress(sum(len(text) for _, text in inputs if isinstance(text, str))) as bar:
        for outcome in outcomes:
            sys.stdout.write(write_outcome(outcome, numbers, first))
            explained += outcome.explained
            failed += outcome.failed
            skipped += outcome.skipped
            shown += outcome.shown
            bar.advance(outcome.chars, explained + failed)
    sys.stdout.flush()
    elapsed = time.perf_counter() - started
    done = explained + failed
    rate = done / elapsed if elapsed > 0 else 0.0
    not_explained = f", {skipped} not explained after a failure in their script" if skipped else ""
    print(f"prism-lineage: {done} statements ({failed} failed{not_explained}) in {elapsed:.2f} s: "
          f"{rate:,.0f} statements/s with {processes} process(es)", file=sys.stderr)
    if filters[0] is not None and explained and not shown:
        print(f"prism-lineage: error: no statement has an output field named "
              f"{' or '.join(repr(c) for c in filters[0])}", file=sys.stderr)
        return UnknownFieldError.exit_code
    return SOME_FAILED if failed or skipped else 0


# --- reading ----------------------------------------------------------------------------------


def _inputs(path: str | None) -> list[tuple[str | None, str | InputError]]:
    """(file, text) of every input, or (file, error) for a file of a directory that cannot be read."""
    if path in (None, "-") or not Path(path).is_dir():
        text, file = read_sql(path)
        return [(file, text)]
    files = sorted(p for p in Path(path).rglob("*.sql") if p.is_file())
    if not files:
        raise InputError(f"no .sql files in the directory {path}")
    found: list[tuple[str | None, str | InputError]] = []
    for file in files:
        try:
            found.append((str(file), read_sql(str(file))[0]))
        except InputError as error:
            found.append((str(file), error))
    return found


def _script_units(inputs) -> Iterator[Script | Unreadable]:
    for file, text in inputs:
        yield Unreadable(file, text) if isinstance(text, InputError) else Script(file, text)


def _units(inputs, dialect) -> Iterator[Statement | Unreadable]:
    for file, text in inputs:
        if isinstance(text, InputError):
            yield Unreadable(file, text)
            continue
        units = list(split_statements(text, file, dialect))
        if not units:  # only comments and semicolons: reported like an empty file
            yield Unreadable(file, no_statements(file))
        elif any(isinstance(u, Statement) and _STATEFUL.match(u.text) for u in units):
            # A statement defines a function or variable that the statements after it
            # read: they are not independent, and explained one by one they would be answered
            # otherwise than without --jobs (a function left opaque, a variable unknown).  The
            # file is explained whole, as without --jobs (its first failure ends it).
            yield Script(file, text, through=False)
        else:
            yield from units


# The first keywords of a statement that sets script state later statements read (after any
# comments): CREATE [OR REPLACE] [TEMP] FUNCTION | MACRO, DECLARE, SET of a variable (``SET v =``,
# ``SET @v =``, ``SET (a, b) =`` — not T-SQL's ``SET NOCOUNT ON``).  A procedure is not: a CALL
# is not followed into it either way.
_STATEFUL = re.compile(
    r"(?:\s|--[^\n]*(?:\n|$)|/\*.*?\*/)*(?:CREATE\s+(?:OR\s+REPLACE\s+)?(?:(?:TEMP|TEMPORARY)\s+)?"
    r"(?:FUNCTION|MACRO)\b|DECLARE\b|SET\s*(?:@|\(|[\w$.]+\s*(?::?=)))", re.IGNORECASE | re.DOTALL)


def split_statements(text: str, file: str | None, dialect, *,
                     block_chars: int = _BLOCK_CHARS) -> Iterator[Statement | Unreadable]:
    """The non-empty statements of ``text``, cut where sqlglot's parser ends them.

    The text is read a block at a time, from a known statement boundary to just after a ``;``
    character: tokenized (a cut inside a string or a comment leaves it unterminated, and the
    block doubles), then parsed, noting which tokens each statement took
    (``parsing.statement_extents``) — so a ``;`` inside a string, a comment, a ``$$`` body or a
    ``BEGIN … END`` block never cuts, and a routine the SQL frontend reads with the statements
    after it (BigQuery's ``CREATE PROCEDURE … BEGIN s1; s2; END``) stays one statement.  The
    last statement of a block may go on past it: it starts the next block.  A statement the
    parser refuses is cut where the parser stopped reading it (its own error is reported in
    its place).  Text that cannot be tokenized to its end (an unterminated string) gives up
    the statements it begins with, and the rest is one statement, whose error is reported.
    """
    lines = _LineIndex(text)
    start, index, size, block = 0, 0, len(text), block_chars
    while start < size:
        cut = _cut_after(text, start + block)
        final = cut >= size
        tokens = _tokenize(dialect, text[start:cut])
        if tokens is None:
            if not final:
                block *= 2
                continue
            tokens, cut = _readable_prefix(dialect, text, start)
            if tokens is None:
                rest = text[start:]
                if rest.strip():
                    yield _statement(file, index, lines, start, size - len(rest.lstrip()), rest)
                return
            final = True  # what follows cannot be read: the prefix's statements end in it
        piece = text[start:cut]
        found = _cut_units(tokens, piece, dialect, final)
        if found is None:  # one statement, which may go on past the block
            block *= 2
            continue
        units, resume = found
        for piece_start, first, end in units:
            yield _statement(file, index, lines, start + piece_start, start + first, piece[piece_start:end])
            index += 1
        block = block_chars
        start += resume
        if cut >= size and resume >= len(piece):
            return


def _cut_units(tokens: list, piece: str, dialect, final: bool) -> tuple[list[tuple[int, int, int]], int] | None:
    """The statements of a block as (start of its text, its first token, end of its text), in
    offsets of ``piece``, and where the next block starts; ``None`` if nothing can be cut yet."""
    from sqlglot import exp

    from ..frontends.sql.parsing import chunk_extents, statement_extents
    from ..frontends.sql.procedures import statements_taken
    from ..guarded import run_guarded

    if not tokens:
        return ([], len(piece)) if final else None  # only comments so far
    try:
        extents = run_guarded(statement_extents, tokens, piece, dialect, getattr(tokens, "batches", ()))
    except PrismError:  # nested too deeply for the parser after all: each part fails on its own
        extents = chunk_extents(tokens)
    read = [e for e in extents.statements if e.node is not None and not isinstance(e.node, exp.Semicolon)]
    groups: list[tuple[int, int]] = []
    position = 0
    while position < len(read):
        taken = statements_taken(read[position].node, [e.node for e in read[position + 1:]])
        last = read[min(position + taken, len(read) - 1)]
        groups.append((read[position].first, last.end))
        position += taken + 1
    failed = extents.failed
    if failed is not None:
        if failed.end >= len(tokens) - 1 and not final:
            # It may fail only because the block cut it short: read it again with more text.
            if not groups:
                return None
            return _spans(tokens, piece, groups), _after(tokens, failed.first)
        groups.append((failed.first, failed.end))
        return _spans(tokens, piece, groups), _after(tokens, failed.end + 1) if failed.end < len(tokens) else len(piece)
    if not final:
        if len(groups) <= 1:
            return None
        return _spans(tokens, piece, groups[:-1]), _after(tokens, groups[-1][0])
    return _spans(tokens, piece, groups), len(piece)


def _after(tokens: list, first: int) -> int:
    """Where the text of a statement whose first token is ``tokens[first]`` starts: just after
    the ``;`` before it."""
    return tokens[first - 1].end + 1 if first > 0 else 0


def _spans(tokens: list, piece: str, groups: list[tuple[int, int]]) -> list[tuple[int, int, int]]:
    return [(_after(tokens, first), tokens[first].start, tokens[end].start if end < len(tokens) else len(piece))
            for first, end in groups]


class _Tokens(list):
    """A block's tokens, and where each T-SQL batch after a ``GO`` line starts among them."""

    batches: tuple[int, ...] = ()


def _tokenize(dialect, text: str):
    from sqlglot.errors import TokenError

    from ..frontends.sql.parsing import batch_tokens

    try:
        found = batch_tokens(text, dialect)
    except TokenError:
        return None
    if len(found) == 1:
        return found[0]
    tokens = _Tokens(t for batch in found for t in batch)
    starts, at = [], 0
    for batch in found[:-1]:
        at += len(batch)
        starts.append(at)
    tokens.batches = tuple(starts)
    return tokens


def _readable_prefix(dialect, text: str, start: int, attempts: int = 1000):
    """The tokens of the shortest text from ``start`` to a ``;`` that tokenizes and ends with
    a semicolon token, and where it ends; ``(None, None)`` if there is none nearby."""
    from sqlglot.tokens import TokenType

    cut = start
    for _ in range(attempts):
        cut = _cut_after(text, cut)
        if cut >= len(text):
            break
        tokens = _tokenize(dialect, text[start:cut])
        if tokens and tokens[-1].token_type == TokenType.SEMICOLON:
            return tokens, cut
    return None, None


def _cut_after(text: str, position: int) -> int:
    found = text.find(";", position)
    return len(text) if found == -1 else found + 1


def _statement(file, index, lines: "_LineIndex", piece_start: int, first_token: int, text: str) -> Statement:
    first_line, first_column = lines.position(piece_start)
    return Statement(file, index, lines.position(first_token)[0], first_line, first_column, text)


class _LineIndex:
    """Offset → 1-based (line, column), for offsets asked in increasing order."""

    __slots__ = ("text", "offset", "line", "line_start")

    def __init__(self, text: str):
        self.text, self.offset, self.line, self.line_start = text, 0, 1, 0

    def position(self, offset: int) -> tuple[int, int]:
        if offset < self.offset:
            self.offset, self.line, self.line_start = 0, 1, 0
        newlines = self.text.count("\n", self.offset, offset)
        if newlines:
            self.line += newlines
            self.line_start = self.text.rfind("\n", self.offset, offset) + 1
        self.offset = offset
        return self.line, offset - self.line_start + 1


# --- explaining -------------------------------------------------------------------------------

_OPTIONS: tuple | None = None  # (catalog, dialect, functions, format, show files, filters), per process


class InternalError(PrismError):
    """A bug met on one statement of a batch (reported in its place; the others go on)."""

    exit_code = 70


def _init_worker(options: tuple, ignore_interrupt: bool = False) -> None:
    global _OPTIONS
    _OPTIONS = options
    if ignore_interrupt:
        # Ctrl-C reaches the whole process group: the parent stops the pool, and the
        # workers must not print tracebacks of their own.
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _outcomes(units: Iterator, options: tuple, jobs: int) -> tuple[Iterable[Outcome], int]:
    """The outcomes in input order, and how many processes explain."""
    if jobs > 1:
        # The first statements tell whether there are enough to share, and the chunk size.
        first = list(itertools.islice(units, jobs * 8 * _MAX_CHUNK))
        processes = min(jobs, len(first))
        units = itertools.chain(first, units)
    if jobs <= 1 or processes <= 1:
        _init_worker(options)
        return map(explain_unit, units), 1
    chunk = max(1, min(_MAX_CHUNK, len(first) // (jobs * 8)))
    return _supervised(units, options, processes, chunk), processes


class WorkerDiedError(PrismError):
    """The process explaining a statement died (killed, out of memory, a crash in native code):
    that statement is reported in its place, the others go on."""

    exit_code = 70


@dataclass(slots=True)
class _Worker:
    process: Any
    connection: Any
    chunk: list | None = None  # (seq, unit) pairs it was given
    done: int = 0  # how many of them it has answered


def _serve(connection, options: tuple) -> None:
    """A worker process: explain each chunk it is sent, answering unit by unit (so that the
    parent knows which unit it was on, should it die)."""
    _init_worker(options, ignore_interrupt=True)
    while True:
        try:
            chunk = connection.recv()
        except EOFError:
            return
        if chunk is None:
            return
        for seq, unit in chunk:
            connection.send((seq, explain_unit(unit)))


def _supervised(units: Iterator, options: tuple, processes: int, chunk_size: int) -> Iterator[Outcome]:
    """The outcomes of ``units`` in input order, explained by ``processes`` worker processes.

    Each worker is given a chunk of units at a time and answers them one by one.  A worker
    that dies is noticed at once (its process sentinel): the unit it was explaining is
    reported as failed, with its file and why the process ended, the rest of its chunk goes
    back in the queue, and a new worker takes its place — the run always finishes.
    """
    context = multiprocessing.get_context()
    source = enumerate(units)
    queue: collections.deque[list] = collections.deque()  # chunks to give out first (re-queued)
    results: dict[int, Outcome] = {}
    emitted = 0
    exhausted = False
    workers: list[_Worker] = []

    def start() -> _Worker:
        ours, theirs = context.Pipe()
        process = context.Process(target=_serve, args=(theirs, options), daemon=True)
        process.start()
        theirs.close()
        return _Worker(process, ours)

    def next_chunk() -> list | None:
        nonlocal exhausted
        if queue:
            return queue.popleft()
        if exhausted:
            return None
        chunk = list(itertools.islice(source, chunk_size))
        exhausted = len(chunk) < chunk_size
        return chunk or None

    def died(worker: _Worker) -> None:
        while worker.connection.poll():  # what it answered before it ended
            try:
                seq, outcome = worker.connection.recv()
            except (EOFError, OSError):
                break
            results[seq] = outcome
            worker.done += 1
        pending = (worker.chunk or [])[worker.done:]
        if pending:
            seq, unit = pending[0]
            results[seq] = _died(unit, worker.process.exitcode, options)
            if len(pending) > 1:
                queue.appendleft(pending[1:])
        worker.connection.close()
        worker.chunk = None

    try:
        workers = [start() for _ in range(processes)]
        while True:
            for worker in workers:
                if worker.chunk is None:
                    chunk = next_chunk()
                    if chunk is not None:
                        worker.chunk, worker.done = chunk, 0
                        worker.connection.send(chunk)
            while emitted in results:
                yield results.pop(emitted)
                emitted += 1
            busy = [w for w in workers if w.chunk is not None]
            if not busy:
                break
            ready = set(wait([w.connection for w in busy] + [w.process.sentinel for w in busy]))
            for index, worker in enumerate(workers):
                if worker.chunk is None:
                    continue
                if worker.connection in ready:
                    try:
                        seq, outcome = worker.connection.recv()
                    except (EOFError, OSError):
                        ready.add(worker.process.sentinel)
                    else:
                        results[seq] = outcome
                        worker.done += 1
                        if worker.done == len(worker.chunk):
                            worker.chunk = None
                if worker.chunk is not None and worker.process.sentinel in ready:
                    worker.process.join()
                    died(worker)
                    workers[index] = start()
        while emitted in results:
            yield results.pop(emitted)
            emitted += 1
    finally:
        for worker in workers:
            if worker.process.is_alive():
                try:
                    worker.connection.send(None)
                except (OSError, ValueError):
                    pass
        for worker in workers:
            worker.process.join(timeout=1)
            if worker.process.is_alive():
                worker.process.terminate()
                worker.process.join()


def _died(unit, exitcode: int | None, options: tuple) -> Outcome:
    """The outcome of the unit a worker process died on."""
    _, _, _, format_, show_files, _ = options
    if exitcode is not None and exitcode < 0:
        try:
            how = f"was killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            how = f"was killed by signal {-exitcode}"
    else:
        how = f"exited with code {exitcode}"
    error = WorkerDiedError(f"the process explaining this statement {how}; it was not explained (the others "
                            "go on)")
    if isinstance(unit, Statement):
        return _failure(unit.file, unit.index, unit.line, error, format_, show_files, None, len(unit.text))
    text = getattr(unit, "text", "")
    return _failure(unit.file, None, None, error, format_, show_files, None, len(text) if isinstance(text, str) else 0)


def explain_unit(unit: Statement | Script | Unreadable) -> Outcome:
    catalog, dialect, functions, format_, show_files, _ = _OPTIONS
    if isinstance(unit, Unreadable):
        return _failure(unit.file, None, None, unit.error, format_, show_files)
    if isinstance(unit, Script):
        return _explain_script(unit)
    try:
        explanation = run_explain(unit.text, catalog, dialect, file=unit.file, functions=functions)
    except PrismError as error:
        return _failure(unit.file, unit.index, unit.line, error, format_, show_files, _shifted(error, unit),
                        len(unit.text))
    except Exception as error:  # noqa: BLE001 - one statement's bug must not stop the log
        return _failure(unit.file, unit.index, unit.line, _internal(error), format_, show_files, None, len(unit.text))
    pieces, shown = _render(unit.file, [(unit.line, answer) for answer in explanation.statements], format_,
                            show_files)
    return Outcome("", len(unit.text), explained=1, shown=shown, pieces=pieces, file=unit.file)


def _explain_script(unit: Script) -> Outcome:
    """A file explained in order through the script: every answer until the first statement
    that fails, then that statement's error (the statements after it read what it would have
    made, so they are not explained)."""
    catalog, dialect, functions, format_, show_files, _ = _OPTIONS
    chars = len(unit.text)
    try:
        run = explain_script(unit.text, catalog, dialect, file=unit.file, functions=functions,
                             through_script=unit.through)
    except PrismError as error:  # the file does not parse: nothing of it is explained
        return _failure(unit.file, None, None, error, format_, show_files, _position(error), chars)
    if not len(run):
        return _failure(unit.file, None, None, no_statements(unit.file), format_, show_files, None, chars)
    lines = _first_lines(unit, dialect, len(run))
    answers: list[tuple[int | None, StatementAnswer]] = []
    error: PrismError | None = None
    try:
        for index, answer in enumerate(run):
            answers.append((lines[index] if lines else run.line(index), answer))
    except PrismError as caught:
        error = caught
    except Exception as caught:  # noqa: BLE001 - one script's bug must not stop the others
        error = _internal(caught)
    pieces, shown = _render(unit.file, answers, format_, show_files) if answers else ((), 0)
    if error is None:
        return Outcome("", chars, explained=len(answers), shown=shown, pieces=pieces, file=unit.file)
    index = len(answers)
    skipped = len(run) - index - 1
    after = (f"; the {skipped} statement{'s' if skipped != 1 else ''} after it in this script "
             f"{'are' if skipped != 1 else 'is'} not explained") if skipped else ""
    failure = _failure(unit.file, index, lines[index] if lines else run.line(index), error, format_, show_files,
                       _position(error), 0, after)
    return Outcome("", chars, explained=len(answers), failed=1, skipped=skipped, pieces=pieces + failure.pieces,
                   file=unit.file,
                   shown=shown)


def _first_lines(unit: Script, dialect: str | None, count: int) -> list[int] | None:
    """The line of each statement's first token, as the tokenizer cuts them (the parser keeps
    no position for keywords); ``None`` if the cut disagrees with the parser's count."""
    cut = [s.line for s in split_statements(unit.text, unit.file, get_dialect(dialect)) if isinstance(s, Statement)]
    return cut if len(cut) == count else None


def _internal(error: Exception) -> PrismError:
    return InternalError(f"internal error: {type(error).__name__}: {error} (a bug: please report it with the "
                         "statement)")


def _render(file: str | None, answers: list[tuple[int | None, StatementAnswer]], format_: str,
            show_files: bool) -> tuple[tuple[Piece, ...], int]:
    """The output of each answer, cut where its number goes (``None`` for an answer with no
    field ``--column``/``--relationship`` asks for: counted, not shown), and how many are shown."""
    columns, relationships = _OPTIONS[5] if _OPTIONS is not None else (None, None)
    pieces: list[Piece] = []
    for line, answer in answers:
        if columns is not None or relationships is not None:
            answer = answer.filtered(columns, relationships)
            if answer is None:
                pieces.append(None)
                continue
        if format_ == "json":
            pieces.append(_json_piece(file, line, answer.model_dump(mode="json")))
        else:
            head = f"{file} " if show_files and file else ""
            text = render_text(Explanation.model_construct(statements=[answer.model_copy(update={"index": 0})]))
            if not text.startswith(_FIRST):  # the renderer's header changed: say so rather than misnumber
                raise AssertionError(f"an answer's text does not start with {_FIRST!r}: {text[:40]!r}")
            pieces.append((head + "statement ", text[len(_FIRST):]))
    return tuple(pieces), sum(p is not None for p in pieces)


_FIRST = "statement 1"  # how the text of an answer numbered 1 starts (explain/text.py)


def _json_piece(file: str | None, line: int | None, record: dict[str, Any]) -> Piece:
    """A JSON line ``{"file": …, "index": N, "line": …, …}`` cut where N goes."""
    record.pop("index", None)
    return json.dumps({"file": file})[:-1] + ', "index": ', ", " + json.dumps({"line": line, **record})[1:] + "\n"


def _failure(file, index, line, error: PrismError, format_: str, show_files: bool,
             where: tuple[int, int] | None = None, chars: int = 0, after: str = "") -> Outcome:
    """A statement (or, ``index`` None, a file) that could not be explained, reported in its
    place; ``where`` is the error's position in the file, ``after`` ends the message."""
    message = (error.message if where else str(error)) + after
    if format_ == "json":
        failure: dict[str, Any] = {"exit_code": error.exit_code, "type": type(error).__name__, "message": message}
        if where:
            failure.update(line=where[0], column=where[1])
        if index is None:
            record = {"file": file, "index": None, "line": line, "error": failure}
            return Outcome(json.dumps(record) + "\n", chars, failed=1, file=file)
        return Outcome("", chars, failed=1, pieces=(_json_piece(file, line, {"error": failure}),), file=file)
    head = f"{file} " if show_files and file else ""
    at = f" (at line {where[0]}, column {where[1]})" if where else ""
    tail = f": error {error.exit_code}: {message}{at}\n"
    if index is None:
        return Outcome(f"{head}file{tail}", chars, failed=1, file=file)
    return Outcome("", chars, failed=1, pieces=((f"{head}statement ", tail),), file=file)


def _position(error: PrismError) -> tuple[int, int] | None:
    """The error's position, in a text explained whole (a script)."""
    origin = error.origin
    return (origin.line, origin.column) if origin is not None else None


def _shifted(error: PrismError, unit: Statement | None) -> tuple[int, int] | None:
    """The error's position in the file (it was found in the statement's text alone)."""
    origin = error.origin
    if origin is None or unit is None:
        return None
    line = unit.first_line + origin.line - 1
    column = unit.first_column + origin.column - 1 if origin.line == 1 else origin.column
    return line, column


def _show_files(path: str | None) -> bool:
    return path not in (None, "-") and Path(path).is_dir()


class _Progress:
    """A progress bar on stderr when stderr is a terminal (tqdm), else nothing.  It measures
    the text explained (the number of statements is known only once all are cut)."""

    def __init__(self, total_chars: int):
        self.bar = None
        if sys.stderr.isatty() and total_chars:
            from tqdm import tqdm

            self.bar = tqdm(total=total_chars, unit="B", unit_scale=True, file=sys.stderr, leave=False,
                            dynamic_ncols=True, mininterval=0.2)

    def __enter__(self) -> "_Progress":
        return self

    def advance(self, chars: int, statements: int) -> None:
        if self.bar is not None:
            self.bar.set_postfix_str(f"{statements} statements", refresh=False)
            self.bar.update(chars)

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.close()
