"""A sync's reading pass: the new and changed statements read on every core, wave by wave.

Statements are independent except for derived columns: a view (or a table one statement writes)
whose columns are not declared gets them from its own SQL's output, so a statement that reads
it must be read after it.  Which derived assets a statement may read is over-approximated from
its words (a statement names a table by its name, so a derived asset whose name is not among
its words cannot be one it reads); a statement is dispatched once every such asset it may
read has its columns — wave after wave over the topological layers, each statement as soon as
it is ready.  Each task carries the derived columns its statement may need; the workers hold
the rest (the environment's names and declared columns) from the fork.

The pass is a speculation checked by the rollup: its reads join the read ledger the rollup
starts from (``governance/rollup.py``), which re-uses a read only when every address it looked
up still resolves to the same asset and columns — so a read made with columns that turned out
different is read again there, and the answer is always exactly the serial one.

Guards (``ReadingBudget``): a statement over ``max_bytes`` is refused unread; one that runs
over ``timeout`` seconds is stopped (an alarm in the worker) — both "Could not be parsed".  A
worker that dies (a crash of the parser) loses its statements: each is read again alone in a
fresh worker, and one that kills it again is "Could not be parsed"; the rest of the pass goes
on.  An interrupted pass (Ctrl-C, SIGTERM) stops reading: what was read stands, the rest is
"Not read yet" (``ParserState.NO_ANSWER``); a pool that cannot start leaves everything new
"Not read yet" to everyone (``ParserState.NO_PARSER``).
"""

from __future__ import annotations

import os
import re
import signal
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import repeat

from ..errors import NestingTooDeepError
from ..governance.sql_reading import ColumnLink, Dependency, SqlReader, StatementRead, reads_itself, statement_key
from ..guarded import DEEP_MESSAGE
from ..governance.statuses import ParserState, SqlStatus
from .budget import ReadingBudget, default_jobs  # noqa: F401 - re-exported

# The early workers' configuration in the sync's environment directory (``_Worker.write``): a
# writer's temporary file by its name (``.tmp-``), which ``index check``/``repair`` know.
READING_FILE = ".tmp-reading.pickle"
_WORD = re.compile(r"[^\W\d][\w$]*", re.UNICODE)
# Statements a worker takes at a time when many are ready.  Every chunk costs this process a
# submission, a wake-up of the executor's threads, a future and a wait; at 8 a 100,000-asset pass
# was 9,500 chunks and those mechanics were about half of this process's CPU in the pass (which
# the workers' two cores share); at 32 (45 ms of reading) the pass still hands out small chunks
# as the ready statements run out (``size`` below).
_CHUNK = 32
_SLICE = 1024  # statements whose words are looked at between two looks at the workers

# ``_WORD`` over ASCII text, in C: every byte that is not ``[A-Za-z0-9_$]`` a space, the text
# split, and the digits and ``$`` a run starts with stripped (``_WORD`` starts a word only at a
# letter or ``_`` and runs on to the end of the run): the same words, as bytes, lowered.
_ASCII_RUNS = bytes(c if chr(c).isascii() and (chr(c).isalnum() or chr(c) in "_$") else 32 for c in range(256))
_LEADING = b"0123456789$"


def ascii_words(sql: str) -> set[bytes]:
    """``{w.lower() for w in _WORD.findall(sql)}`` encoded, for ASCII ``sql`` (about a third of the
    time: this runs for every statement of a pass)."""
    words = set(sql.encode("ascii").lower().translate(_ASCII_RUNS).split())
    if words and min(words) < b"A":  # a run starts with a digit or "$" (they sort first)
        words = set(map(bytes.lstrip, words, repeat(_LEADING)))
        words.discard(b"")
    return words


@dataclass
class PassResult:
    reads: dict[str, StatementRead] = field(default_factory=dict)  # by statement key
    refused: dict[str, str] = field(default_factory=dict)  # key -> why (over budget, crashed the parser)
    parser: ParserState = ParserState.RAN
    interrupted: bool = False
    workers: int = 1


@dataclass(frozen=True, slots=True)
class _Task:
    index: int
    key: str
    sql: str
    dialect: str | None
    writer: str


class Interrupted(Exception):
    """SIGTERM during a pass: handled as Ctrl-C is."""


# --- what there is to read --------------------------------------------------------------------

def statements_of(env, ids: dict[str, str]) -> list[tuple[str, str | None, str | None]]:
    """(writer, sql, dialect) of each statement of ``env``, in the rollup's order
    (``rollup._Builder._statements``)."""
    found = [(v.full_name, v.sql, v.dialect or env.dialect) for v in env.views]
    for pipeline in env.pipelines:
        for asset in pipeline.assets:
            if asset.writes in ids:
                found.append((asset.writes, asset.sql, asset.dialect or env.dialect))
    return found


def read_pass(env, ids: dict[str, object], previous: dict[str, StatementRead], *, jobs: int,
              budget: ReadingBudget = ReadingBudget(), functions=None,
              progress: Callable[[int, int], None] | None = None,
              start_pool: Callable | None = None, scratch: str | os.PathLike | None = None) -> PassResult:
    """Read the statements of ``env`` that ``previous`` (the ledger) does not hold.

    ``ids``: the environment's full names (as keys; their values are not used).  ``scratch``: a
    directory only this pass writes in (the sync's environment directory, under its write lock),
    where early workers read their configuration (``_Worker.write``)."""
    statements = statements_of(env, ids)
    declared = {d.full_name: tuple((c.name, c.type) for c in d.columns) or None for d in (*env.tables, *env.views)}
    key_of: dict[int, str] = {}  # each statement's key, by its position (asked again per reader)

    def anything_new() -> bool:
        """Whether a statement is to be read: keys made up to the first one (the rest later)."""
        for i, (_, sql, dialect) in enumerate(statements):
            if sql is not None:
                key = key_of[i] = statement_key(sql, dialect)
                if key not in previous and (budget.max_bytes is None or len(sql.encode("utf-8")) <= budget.max_bytes):
                    return True
        return False

    result = PassResult()
    pool = None
    try:
        # Workers forked before the project was loaded (``EarlyPool``) each load the configuration
        # (names and declared columns) from a file before their first read: handed it now, they
        # load it while this process makes the tasks below and looks at the first statements (at
        # 100,000 assets about a second of this process alone, and 0.3-0.5 s of each worker's).
        cannot_start = False
        if isinstance(start_pool, EarlyPool) and start_pool.holds(jobs) and anything_new():
            try:
                pool = start_pool(jobs)
                _Worker.configure(ids, declared, functions, budget, build=False)
                pool.source = _Worker.write(ids, declared, functions, budget, scratch)
                pool.warm()
            except Exception:  # noqa: BLE001 - a parser that cannot start: said below if anything is new
                cannot_start = True
        return _read_pass(ids, statements, declared, key_of, previous, result, pool, cannot_start, jobs=jobs,
                          budget=budget, functions=functions, progress=progress, start_pool=start_pool,
                          scratch=scratch)
    finally:
        if pool is not None:
            pool.close()


def _read_pass(ids, statements, declared, key_of: dict[int, str], previous, result: PassResult, early_pool,
               cannot_start: bool, *, jobs, budget, functions, progress, start_pool, scratch) -> PassResult:
    writers: dict[str, list[int]] = {}
    for i, (writer, _, _) in enumerate(statements):
        writers.setdefault(writer, []).append(i)
    # A derived asset: no declared columns, exactly one statement writes it, with SQL.
    derived_writer = {name: found[0] for name, found in writers.items()
                      if declared.get(name) is None and len(found) == 1 and statements[found[0]][1] is not None}
    by_word: dict[str, list[str]] = {}
    for name in derived_writer:
        by_word.setdefault(name.rsplit(".", 1)[-1].lower(), []).append(name)

    tasks: dict[int, _Task] = {}
    known: dict[str, StatementRead] = {}  # reads this pass can use: the ledger's and its own
    writers_of_key: dict[str, set[str]] = {}  # the same SQL may write several assets: read once
    task_of_key: dict[str, int] = {}  # the task that reads each key (the first statement with it)
    for i, (writer, sql, dialect) in enumerate(statements):
        if sql is None:
            continue
        key = key_of.get(i)
        if key is None:
            key = key_of[i] = statement_key(sql, dialect)
        if key in previous:
            known.setdefault(key, previous[key])
            continue
        if key in writers_of_key:
            writers_of_key[key].add(writer)
            continue
        writers_of_key[key] = {writer}
        if budget.max_bytes is not None and len(sql.encode("utf-8")) > budget.max_bytes:
            result.reads[key] = known[key] = StatementRead(key, SqlStatus.NOT_PARSED)
            result.refused[key] = f"larger than {budget.max_bytes} bytes"
            continue
        tasks[i] = _Task(i, key, sql, dialect, writer)
        task_of_key[key] = i
    if not tasks:
        return result
    if cannot_start:
        result.parser = ParserState.NO_PARSER
        return result

    # What each statement may read among the derived assets whose columns this pass works out:
    # looked at slice by slice (``analyse``) while the workers read the first ones, not all before
    # the first is handed out (at 100,000 assets that was 1-2 s of both workers waiting).  A
    # statement looked at after a derived asset it needs was read is not blocked by it; one looked
    # at before is unblocked when it is (``done``).
    pending = {writer for i in tasks for writer in writers_of_key[tasks[i].key]}
    needs: dict[int, set[str]] = {}
    derived_words = by_word.keys()
    ascii_by_word = {word.encode("ascii"): names for word, names in by_word.items() if word.isascii()}
    ascii_derived = ascii_by_word.keys()
    order = list(tasks)  # in the statements' order (``tasks`` was filled in it)
    analysed = 0  # statements looked at
    cursor = 0  # the next one in ``order``
    looked: set[int] = set()
    # The statements that write what a statement looked at waits for are looked at next, ahead of
    # the order: a project whose first statements all read derived assets written further on (a
    # generated warehouse: 35,000 views first, then the pipelines that write what they read) had
    # every one of them looked at, blocked, before the first statement could be handed out.
    # Which statements wait for which is the same whatever the order they are looked at in.
    writers_first: deque[int] = deque()
    blocked: dict[int, set[str]] = {}
    unblocked_by: dict[str, list[int]] = {}
    # Taken from the front as chunks are handed out: a deque (a list's pop(0) moves the rest, which
    # at 100,000 assets was over half a second of this process's time).
    ready: deque[int] = deque()

    def analyse(count: int) -> None:
        nonlocal analysed, cursor
        upto = min(len(order), analysed + count)
        while analysed < upto:
            if writers_first:
                i = writers_first.popleft()
                if i in looked:
                    continue
            else:
                i = order[cursor]
                cursor += 1
                if i in looked:
                    continue
            looked.add(i)
            analysed += 1
            task = tasks[i]
            sql = task.sql
            if sql.isascii():
                found, names_of = ascii_derived & ascii_words(sql), ascii_by_word
            else:
                found, names_of = derived_words & {w.lower() for w in _WORD.findall(sql)}, by_word
            if found:
                need = needs[i] = {name for word in found for name in names_of[word] if name != task.writer}
                waits = blocked[i] = {name for name in need if name in pending}
                for name in waits:
                    unblocked_by.setdefault(name, []).append(i)
                    first = task_of_key[key_of[derived_writer[name]]]
                    if first not in looked:
                        writers_first.append(first)
                if waits:
                    continue
            ready.append(i)

    derived_columns: dict[str, tuple | None] = {}  # a derived asset's columns, once its writer was read

    def columns_of(name: str):
        columns = declared.get(name)
        if columns is not None:
            return columns
        if name in derived_columns:
            return derived_columns[name]
        writer = derived_writer.get(name)
        if writer is None:
            return None
        read = known.get(key_of[writer])  # a derived asset's writer has SQL: its key is known
        if read is None:
            return None  # not read yet (a cycle of words): not kept, it may be read later
        if read.outputs is None or reads_itself(read, name):
            columns = None  # a writer reading its own target gives no shape (rollup._Builder._columns_of)
        else:
            columns = tuple((n, None) for n in read.outputs)
        derived_columns[name] = columns  # a read joins ``known`` once and is never replaced
        return columns

    def done(task: _Task, read: StatementRead, why: str | None) -> list[int]:
        result.reads[task.key] = known[task.key] = read
        if why:
            result.refused[task.key] = why
        freed = []
        for writer in writers_of_key[task.key]:
            pending.discard(writer)
            for j in unblocked_by.get(writer, ()):
                blocked[j].discard(writer)
                if not blocked[j] and j not in started and j not in freed:
                    freed.append(j)
        return freed

    started: set[int] = set()
    total = len(tasks)

    def payload(i: int):
        task = tasks[i]
        need = needs.get(i)
        return (task.index, task.key, task.sql, task.dialect,
                {name: columns_of(name) for name in need} if need else {})

    def next_ready(busy: bool) -> deque[int]:
        """Ready statements, or — when nothing is being read and a cycle (of words) blocks the
        rest — the first blocked one, read with what is known."""
        if ready or busy:
            return ready
        if analysed < len(order):
            analyse(_SLICE)
            return ready
        rest = sorted(i for i in tasks if i not in started)
        if rest:
            ready.append(rest[0])
        return ready

    shared = _Shared()
    finished = 0
    pool = early_pool
    try:
        if pool is None:
            try:
                pool = (start_pool or _Pool)(jobs)  # a _Pool forks at its first chunk, after this
                early = getattr(pool, "early", False)
                # Workers forked from here on share the reader built here (the address book of every
                # name); workers forked before the project was loaded (``EarlyPool``) each build their
                # own from a file, read once, instead of sharing the whole loaded project.
                _Worker.configure(ids, declared, functions, budget, build=not early)
                if early:
                    pool.source = _Worker.write(ids, declared, functions, budget, scratch)
            except Exception:  # noqa: BLE001 - a parser that cannot start: nothing new is read
                result.parser = ParserState.NO_PARSER
                return result
        result.workers = pool.workers
        with _terminating():
            while finished < total:
                looking = analysed < len(order)
                if looking:
                    analyse(_SLICE)
                batch = next_ready(pool.busy())
                while batch and pool.has_room():
                    size = max(1, min(_CHUNK, len(batch) // max(1, pool.workers * 2)))
                    chunk = [batch.popleft() for _ in range(min(size, len(batch)))]
                    started.update(chunk)
                    pool.submit([payload(i) for i in chunk])
                # While statements are still being looked at, only what has come back is taken
                # (the workers have work in flight meanwhile); then the pass waits for them.
                for outcomes in (pool.results(wait=False) if looking else pool.results()):
                    shared.begin(outcomes)
                    for index, packed, why in outcomes:
                        ready.extend(done(tasks[index], shared.read(packed), why))
                        finished += 1
                    if progress is not None:
                        progress(finished, total)
                    break  # back to submitting what became ready
    except (KeyboardInterrupt, Interrupted):
        result.interrupted = True
        result.parser = ParserState.NO_ANSWER
    finally:
        if pool is not None and pool is not early_pool:
            pool.close()
    return result


# --- what travels back from a worker ----------------------------------------------------------------

_PACKED: dict[tuple, tuple] = {}  # in a worker: each distinct group of packed links, one tuple
_PACKED_LIMIT = 50_000


def pack(read: StatementRead) -> tuple:
    """A read as plain tuples and strings: what a worker sends back (pickled and unpickled far
    faster than the dataclasses, and ``_Shared`` rebuilds it sharing what reads repeat).  The
    links from one asset that another read of this worker gave too are sent as the very same
    tuple, so a chunk pickles each such group once (the pickler refers back to an object it has
    written) and this process unpickles it once."""
    if len(_PACKED) > _PACKED_LIMIT:
        _PACKED.clear()
    columns = tuple((name, _PACKED.setdefault(group, group))
                    for name, group in ((name, tuple((link.source, link.target, link.relationship,
                                                      link.transformation, link.confidence) for link in links))
                                        for name, links in read.columns))
    return (read.key, None if read.status is None else read.status.value, read.reads, columns,
            read.outputs, tuple((d.address, d.resolved, d.columns) for d in read.dependencies))


def _packed(key, status, reads, links, outputs, dependencies) -> tuple:
    """``pack`` of the read ``SqlReader.read_as`` gives these parts of (``links``: each asset's
    links as tuples of ``ColumnLink``'s fields, in order), without making the ``ColumnLink``s
    (about a twentieth of reading a statement of a generated warehouse)."""
    if len(_PACKED) > _PACKED_LIMIT:
        _PACKED.clear()
    return (key, None if status is None else status.value, reads,
            tuple((name, _PACKED.setdefault(group, group))
                  for name, group in ((name, tuple(found)) for name, found in links.items())),
            outputs, tuple((d.address, d.resolved, d.columns) for d in dependencies))


_GROUPS = 50_000  # distinct groups of links ``_Shared`` remembers (a key of pointers each)


class _Shared:
    """Rebuilds packed reads (``pack``), each distinct column link, group of links from one asset,
    dependency and name held once for the whole pass: a warehouse's statements repeat the same
    links (``id`` to ``id``, identity, exact) and look up the same tables with the same columns,
    and every read would otherwise hold its own copies — most of a full sync's memory at 100,000
    assets.  The reads compare equal to the worker's own (frozen dataclasses compare by value)."""

    def __init__(self) -> None:
        self.links: dict[tuple, tuple[tuple, ColumnLink]] = {}  # packed link -> (that key, its link)
        self.groups: dict[tuple, tuple[ColumnLink, ...]] = {}  # packed group -> its links
        self.dependencies: dict[tuple, Dependency] = {}
        self.names: dict = {}
        self.held: list = []  # the outcomes of the chunk being read (``begin``)
        self.by_identity: dict[int, tuple[ColumnLink, ...]] = {}

    def begin(self, outcomes: list) -> None:
        """The packed reads ``read`` is given next come from ``outcomes`` (one chunk).  A worker
        sends a group of links its reads repeat as one object (``pack``), so the chunk's reads
        hold it once: its shared group is found by the object's identity after the first time,
        with no hash of its links (a tuple of tuples, hashed anew on each lookup: about a quarter
        of this).  ``outcomes`` is held until the next chunk, so that no identity is reused."""
        self.held = outcomes
        self.by_identity = {}

    def read(self, packed: tuple) -> StatementRead:
        key, status, reads, columns, outputs, dependencies = packed
        groups, names, by_identity = self.groups, self.names, self.by_identity
        found_links = []
        for name, found in columns:
            shared = by_identity.get(id(found))
            if shared is None:
                shared = groups.get(found)
                if shared is None:
                    shared = self._group(found)
                if self.held:
                    by_identity[id(found)] = shared
            found_links.append((names.setdefault(name, name), shared))
        shared_dependencies = []
        for dependency in dependencies:
            one = self.dependencies.get(dependency)
            if one is None:
                one = self.dependencies[dependency] = Dependency(*dependency)
            shared_dependencies.append(one)
        return StatementRead(key, None if status is None else SqlStatus(status),
                             names.setdefault(reads, reads) if reads else (), tuple(found_links),
                             None if outputs is None else names.setdefault(outputs, outputs),
                             tuple(shared_dependencies))

    def _group(self, found: tuple) -> tuple[ColumnLink, ...]:
        links = self.links
        keys, shared = [], []
        for link in found:
            one = links.get(link)
            if one is None:
                one = links[link] = (link, ColumnLink(*link))
            keys.append(one[0])
            shared.append(one[1])
        group = tuple(shared)
        if len(self.groups) < _GROUPS:
            self.groups[tuple(keys)] = group  # its key made of the links' own keys: no copy kept
        return group


class _terminating:
    """SIGTERM stops a pass as Ctrl-C does (what was read stands)."""

    def __enter__(self):
        self.previous = None
        try:
            self.previous = signal.signal(signal.SIGTERM, self._raise)
        except ValueError:  # not the main thread
            self.previous = None
        return self

    @staticmethod
    def _raise(signum, frame):
        raise Interrupted()

    def __exit__(self, *exc):
        if self.previous is not None:
            signal.signal(signal.SIGTERM, self.previous)


# --- the workers ----------------------------------------------------------------------------------

class _Worker:
    """What a worker process holds (set before the fork) and how it reads one statement."""

    ids: dict[str, str] = {}
    declared: dict = {}
    functions = None
    budget = ReadingBudget()
    reader = None
    extra: dict = {}

    source: str | None = None  # the file this configuration was read from (``write``)

    @classmethod
    def configure(cls, ids, declared, functions, budget, source: str | None = None, build: bool = True) -> None:
        """Set before the workers fork: the address book and catalog are built once, here, and
        shared by every worker (``build``; else on the first read).  ``ids``: the environment's
        full names (their ids are not used)."""
        cls.ids, cls.declared, cls.functions, cls.budget = ids, declared, functions, budget
        cls.source = source
        cls.reader = None
        if build:
            cls._reader()

    @classmethod
    def write(cls, ids, declared, functions, budget, directory: str | os.PathLike | None = None) -> str:
        """The configuration, for workers forked before it was known (``EarlyPool``): a file they
        each read once (``load``); removed when the pool closes.  Workers forked from now on
        inherit it, and know it is the same.

        In ``directory`` (the sync's environment directory) it has one fixed name, ``READING_FILE``:
        a sync killed before its pool closed (SIGKILL, a power cut) leaves it there, and the next
        sync of the environment writes over it (``index check`` lists it as a writer's temporary
        file, ``index repair`` removes it) — in the system's temporary directory it stayed forever.
        Without ``directory``, a new temporary file."""
        import pickle
        import tempfile

        if directory is not None:
            path = os.path.join(os.fspath(directory), READING_FILE)
            try:
                os.unlink(path)  # one a killed sync left
            except FileNotFoundError:
                pass
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "wb") as file:
                pickle.dump((tuple(ids), declared, functions, budget), file, protocol=pickle.HIGHEST_PROTOCOL)
            cls.source = path
            return path
        with tempfile.NamedTemporaryFile("wb", prefix="prism-lineage-reading-", suffix=".pickle",
                                         delete=False) as file:
            pickle.dump((tuple(ids), declared, functions, budget), file, protocol=pickle.HIGHEST_PROTOCOL)
        cls.source = file.name
        return file.name

    @classmethod
    def load(cls, source: str) -> None:
        import gc
        import pickle

        with open(source, "rb") as file:
            names, declared, functions, budget = pickle.load(file)
        cls.configure(names, declared, functions, budget, source)
        gc.freeze()  # held for the whole pass: no collection need look at it again

    @classmethod
    def forget(cls) -> None:
        """Hold nothing (before forking early workers: they must not inherit a reader)."""
        cls.ids, cls.declared, cls.functions, cls.budget = {}, {}, None, ReadingBudget()
        cls.reader, cls.extra, cls.source = None, {}, None

    @classmethod
    def start(cls) -> None:
        """In each worker: Ctrl-C is the parent's to handle; what the fork shares stays shared."""
        import faulthandler
        import gc

        faulthandler.disable()  # a crash of the parser is reported by the parent, in words
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        gc.freeze()
        # The sync pauses the parent's collector; reading SQL leaves cycles (sqlglot's trees).
        # At the default threshold (700 new objects) a collection ran every few hundred
        # microseconds, while the statement being read was still alive: its tree was promoted
        # and freed only by full collections of everything the worker had accumulated.  At
        # 10,000 most trees are garbage when a collection runs: on the 10k governance bench
        # 107 collections instead of 1,530 per 4,000 statements (no full one instead of 7),
        # 0.33-0.48 s of collection instead of 0.89-1.27 s (about a tenth of the reading).
        gc.set_threshold(10_000, 10, 10)
        gc.enable()

    @classmethod
    def _reader(cls):
        if cls.reader is None:
            from ..governance.sql_reading import AddressBook, ProjectCatalog

            book = AddressBook(cls.ids)

            def columns_of(name):
                found = cls.declared.get(name)
                if found is not None:
                    return found
                return cls.extra.get(name)

            cls.reader = _DeepReader(book, ProjectCatalog(book, columns_of), cls.functions)
        return cls.reader

    @classmethod
    def read(cls, chunk) -> list[tuple[int, tuple, str | None]]:
        if not cls.budget.timeout:
            # The whole chunk on the deep-stack thread (``prism_lineage.guarded``), each
            # statement's own hand-over then running inline: handing over once per statement
            # cost 12-15 % of the reading's CPU, measured on the 10k governance bench.  With a
            # time limit each statement is handed over on its own, so that the alarm (which
            # Python delivers to the main thread) stops the wait for that one statement.
            from ..guarded import run_guarded

            return run_guarded(cls._read_all, chunk)
        return cls._read_all(chunk)

    @classmethod
    def _read_all(cls, chunk) -> list[tuple[int, tuple, str | None]]:
        out = []
        for index, key, sql, dialect, columns in chunk:
            cls.extra = columns
            packed, why = cls._read_one(key, sql, dialect)
            out.append((index, packed, why))
        return out

    @classmethod
    def _read_one(cls, key: str, sql: str, dialect: str | None) -> tuple[tuple, str | None]:
        """The statement's read, packed (``pack``), and why it could not be read."""
        timeout = cls.budget.timeout
        try:
            # Built once per worker (a worker forked after the pass began builds it at its first
            # statement): outside the statement's time limit, which is the statement's own.
            reader = cls._reader()
        except Exception as error:  # noqa: BLE001 - said for the statement, as below
            return pack(StatementRead(key, SqlStatus.NOT_PARSED)), f"internal error: {type(error).__name__}: {error}"
        if timeout:
            previous = signal.signal(signal.SIGALRM, _alarm)
            signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            return reader.read_as(sql, dialect, _packed), None
        except _OverTime:
            return pack(StatementRead(key, SqlStatus.NOT_PARSED)), f"took longer than {timeout:g} s"
        except RecursionError:
            return pack(StatementRead(key, SqlStatus.NOT_PARSED)), "nests too deeply"
        except Exception as error:  # noqa: BLE001 - one statement's bug must not stop the pass
            return pack(StatementRead(key, SqlStatus.NOT_PARSED)), f"internal error: {type(error).__name__}: {error}"
        finally:
            if timeout:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, previous)


class _DeepReader(SqlReader):
    """``SqlReader`` whose statements may run inline on the deep-stack thread (a whole chunk is
    handed over at once, ``_Worker.read``): SQL nested too deeply for the stack is still refused
    statement by statement, as the hand-over per statement does (``guarded._run``), never the
    whole chunk."""

    def _lowered(self, sql, dialect):
        try:
            return super()._lowered(sql, dialect)
        except RecursionError:
            raise NestingTooDeepError(DEEP_MESSAGE) from None


class _OverTime(Exception):
    pass


def _alarm(signum, frame):
    raise _OverTime()


def _start_worker() -> None:
    _Worker.start()


def _warm(source: str) -> list:
    """An early worker's configuration loaded ahead of its first chunk (``_Pool.warm``)."""
    if _Worker.source != source:
        _Worker.load(source)
    return []


def _read_chunk(chunk, source: str | None = None):
    if source is not None and _Worker.source != source:
        _Worker.load(source)  # an early worker's first chunk of this pass
    return _Worker.read(chunk)


def _nothing() -> None:
    pass


def _chunks_by_size(root, relatives: list[str], count: int) -> list[list[str]]:
    """``relatives`` cut, in order, into about ``count`` chunks of about the same number of bytes.

    A chunk is what one worker parses at a time, and the loader takes the chunks in order.  Cut
    by the number of files, the last chunk of a generated 100,000-asset project held its 20
    pipeline files (830 KB each, most of the project's YAML by size) beside 3,100 small ones: one
    worker parsed them for 2.4 s while the other had nothing left and the loader waited.  Cut by
    bytes, a large file is a chunk of its own and the two workers share them.  A file that cannot
    be measured counts as small (its worker's read says what is wrong)."""
    import os

    sizes = []
    for relative in relatives:
        try:
            sizes.append(os.stat(os.path.join(root, relative)).st_size)
        except (OSError, ValueError):
            sizes.append(0)
    target = max(1, sum(sizes) // max(1, count))
    chunks: list[list[str]] = []
    chunk: list[str] = []
    held = 0
    for relative, size in zip(relatives, sizes):
        if chunk and held + size > target:
            chunks.append(chunk)
            chunk, held = [], 0
        chunk.append(relative)
        held += size
    if chunk:
        chunks.append(chunk)
    return chunks


def _parse_files(root: str, relatives: list[str]) -> list:
    """In a worker, while the sync loads the project: declaration files parsed as the loader
    would (``native.parsed_elsewhere``), handed back in order."""
    from pathlib import Path

    from ..governance.files import one_reading
    from ..governance.native import parsed_elsewhere

    where = Path(root)
    with one_reading():
        return [parsed_elsewhere(where, relative) for relative in relatives]


class _Pool:
    """Worker processes (forked: they share the environment's names and declared columns, or,
    forked early, read them from ``source``), at most two chunks in flight per worker.  ``jobs``
    1 reads in a worker too, so that a crash of the parser never takes the sync down."""

    early = False  # forked before the project was loaded (``EarlyPool``)

    def __init__(self, jobs: int):
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self.workers = max(1, jobs)
        self._context = multiprocessing.get_context("fork")
        self._executor = ProcessPoolExecutor(self.workers, mp_context=self._context, initializer=_start_worker)
        self._futures: dict = {}
        self._retry: list = []  # chunks lost with a worker: each statement read again alone
        self.source: str | None = None  # where early workers read the configuration (``_Worker.write``)

    def spawn(self) -> None:
        """Fork the workers now (the executor forks every worker at its first task)."""
        self._executor.submit(_nothing)

    def warm(self) -> None:
        """Each worker loads the configuration (``source``) now, ahead of the chunks: one task per
        worker, taken in order by idle workers (a worker that takes two loads once; one that took
        none loads at its first chunk).  Kept as a chunk of no statements: a worker that dies on it
        loses the chunks in flight as any other does (``results``)."""
        for _ in range(self.workers):
            self._futures[self._executor.submit(_warm, self.source)] = []

    def has_room(self) -> bool:
        return len(self._futures) < self.workers * 2

    def busy(self) -> bool:
        return bool(self._futures or self._retry)

    def submit(self, chunk) -> None:
        self._futures[self._executor.submit(_read_chunk, chunk, self.source)] = chunk

    def results(self, wait: bool = True) -> Iterable[list]:
        """The outcomes of chunks that are done (at least one, if ``wait``: it waits for one)."""
        from concurrent.futures import FIRST_COMPLETED
        from concurrent.futures import wait as done_among
        from concurrent.futures.process import BrokenProcessPool

        if self._retry:
            yield self._alone(self._retry.pop(0))
            return
        if not self._futures:
            return
        finished, _ = done_among(list(self._futures), timeout=None if wait else 0, return_when=FIRST_COMPLETED)
        # In the order they were submitted (``wait`` returns a set): when several chunks are done
        # by the time we look, which one is taken first must not depend on hashing.
        for future in [f for f in self._futures if f in finished]:
            chunk = self._futures.pop(future)
            try:
                outcomes = future.result()
            except BrokenProcessPool:
                # A worker died (the parser crashed): every chunk in flight is lost with it.
                lost = [chunk, *self._futures.values()]
                self._futures.clear()
                self._executor.shutdown(wait=False, cancel_futures=True)
                from concurrent.futures import ProcessPoolExecutor

                self._executor = ProcessPoolExecutor(self.workers, mp_context=self._context,
                                                     initializer=_start_worker)
                self._retry.extend(statement for lost_chunk in lost for statement in lost_chunk)
                if self._retry:
                    yield self._alone(self._retry.pop(0))
                return
            if chunk:  # not a warm-up (``warm``)
                yield outcomes

    def _alone(self, statement) -> list:
        """One statement read in a fresh worker of its own: if it kills that one too, it is the
        statement that crashes the parser."""
        from concurrent.futures import ProcessPoolExecutor
        from concurrent.futures.process import BrokenProcessPool

        index, key = statement[0], statement[1]
        with ProcessPoolExecutor(1, mp_context=self._context, initializer=_start_worker) as alone:
            try:
                return alone.submit(_read_chunk, [statement], self.source).result()
            except BrokenProcessPool:
                return [(index, pack(StatementRead(key, SqlStatus.NOT_PARSED)), "crashed the parser")]

    def close(self) -> None:
        for process in list(getattr(self._executor, "_processes", {}).values()):
            if process.is_alive():
                process.kill()
        self._executor.shutdown(wait=True, cancel_futures=True)
        if self.source is not None:
            try:
                os.unlink(self.source)
            except OSError:
                pass
            self.source = None


class EarlyPool:
    """Reading workers forked before the project is loaded (``sync`` starts one as it begins a
    full sync), so that each holds the reader's imports and, later, the names and columns it
    reads against — not the loaded project (at 100,000 assets, forking after the load made
    each worker 0.9 GB, most of it the project's pages).  Used as ``read_pass``'s
    ``start_pool``: the first call hands the pool over (``_Pool.early``); a pool that could not
    fork raises then, so the pass says the parser could not start, as before.  ``close`` ends a
    pool that was not handed over (nothing to read, or the sync failed first)."""

    def __init__(self, jobs: int):
        self.jobs = jobs
        self.error: BaseException | None = None
        self.pool: _Pool | None = None
        try:
            _Worker.forget()
            pool = _Pool(jobs)
            pool.early = True
            pool.spawn()
            self.pool = pool
        except Exception as error:  # noqa: BLE001 - reported by the pass (ParserState.NO_PARSER)
            self.error = error

    def holds(self, jobs: int) -> bool:
        """Whether the next call hands over workers forked early for ``jobs``."""
        return self.pool is not None and jobs == self.jobs

    def __call__(self, jobs: int) -> _Pool:
        if self.pool is None or jobs != self.jobs:
            if self.error is not None:
                raise self.error
            return _Pool(jobs)
        pool, self.pool = self.pool, None
        return pool

    def parse_files(self, root, relatives: list[str]):
        """The project's declaration files parsed by the workers while they wait for the pass
        (``native.read_native``'s ``parse``): handed out in order as their chunks come back, so
        the loader validates one chunk while the workers parse the next.  None for a file whose
        chunk was lost (a worker that died, a document that cannot travel): the loader reads it
        itself."""
        pool = self.pool
        if pool is None or not relatives:
            yield from (None for _ in relatives)
            return
        chunks = _chunks_by_size(root, relatives, pool.workers * 16)
        futures = []
        try:
            for chunk in chunks:
                futures.append(pool._executor.submit(_parse_files, str(root), chunk))
        except Exception:  # noqa: BLE001 - a pool that cannot take them: the loader reads the rest
            pass
        for i, chunk in enumerate(chunks):
            found = None
            if i < len(futures):
                try:
                    found = futures[i].result()
                except Exception:  # noqa: BLE001 - read by the loader instead
                    found = None
            if found is None or len(found) != len(chunk):
                found = [None] * len(chunk)
            yield from found

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None


def now() -> float:
    return time.perf_counter()
