"""``sync``: one pass over an environment at the checkout's revision — the only writer.

A sync holds the environment's write lock (``locking.py``) for the whole write: it reads the
project (native or dbt), works out the environment's lineage starting from what the index holds
(statements whose SQL and looked-up addresses are unchanged are not read again), writes one epoch
(``prism_lineage/index``), then updates the current store (``store.py``) from that epoch's delta
— or rebuilds it from the index when it is missing or stale.  It records the revision: the git
commit when the project is in git (``+uncommitted`` when its files differ from it), which every
parsed edge read by this pass then names.

Where the index lives: ``INDEX/<project>/<environment>/`` (names checked to stay inside
``INDEX``), and ``INDEX/.projects/`` remembers, for each project directory synced, its project
name and environments, so that ``lineage --index`` finds the store without reading the project.
"""

from __future__ import annotations

import datetime
import json
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..errors import InputError, UsageError
from .locking import WriterLock
from .paths import environment_root, read_pointer, write_pointer  # noqa: F401 - re-exported
from .store import STORE_FILE, StoreError, StoreWriter, read_meta


@dataclass
class SyncSummary:
    """What a sync did, for the summary line and for callers."""

    project: str
    environment: str
    epoch: int | None
    revision: str | None
    statements: int = 0  # statements with SQL held inline (read or re-used)
    read: int = 0  # read by this pass
    unchanged: int = 0  # re-used: SQL and looked-up addresses unchanged
    failed: int = 0  # could not be parsed (of those read)
    not_read: int = 0  # not read yet (the pass stopped, or the parser could not run)
    in_files: int = 0  # kept in a file, not read
    seconds: float = 0.0
    held_for_review: bool = False
    store_rebuilt: bool = False
    workers: int = 0  # worker processes that read statements
    scope_reads: int = 0  # statements read again for visibility scopes
    interrupted: bool = False  # the pass was stopped: what it did not read is not read yet
    parser: str = "ran"  # the parser's state on this pass (governance.statuses.ParserState)
    # How the sync worked: "full" (the project read), "unchanged" (no file changed) or "sql" (only
    # SQL changed: worked out from the store, engine.py).
    path: str = "full"
    notes: list[str] = field(default_factory=list)

    def line(self) -> str:
        where = f"{self.project}/{self.environment}"
        if self.held_for_review:
            return (f"prism-lineage: {where} is held for review: nothing read, no epoch written, its lineage is "
                    f"not computed until the move is approved ({self.seconds:.2f} s)")
        at = f" at {self.revision}" if self.revision else ""
        parts = [f"{self.read} read", f"{self.unchanged} unchanged", f"{self.failed} failed"]
        if self.not_read:
            parts.append(f"{self.not_read} not read yet")
        if self.in_files:
            parts.append(f"{self.in_files} kept in files")
        scoped = f", {self.scope_reads} read again for what restricted credentials see" if self.scope_reads else ""
        stopped = "; interrupted: what was not read is not read yet" if self.interrupted else ""
        if self.parser == "no_parser":
            stopped = "; the parser could not start: what is new is not read yet"
        workers = f" with {self.workers} worker{'s' if self.workers != 1 else ''}" if self.workers else ""
        return (f"prism-lineage: synced {where}{at} as epoch {self.epoch}: {self.statements} statements "
                f"({', '.join(parts)}{scoped}) in {self.seconds:.2f} s{workers}{stopped}")


# --- the revision ----------------------------------------------------------------------------

def git_revision(project_dir: str | Path) -> str | None:
    """The git commit the project directory is checked out at, with ``+uncommitted`` when its
    files differ from it; None outside git (or without git)."""
    root = str(Path(project_dir).resolve())
    try:
        commit = subprocess.run(["git", "-C", root, "rev-parse", "--verify", "--end-of-options", "HEAD^{commit}"],
                                capture_output=True, text=True, timeout=30)
        if commit.returncode != 0:
            return None
        status = subprocess.run(["git", "-C", root, "status", "--porcelain", "--untracked-files=normal", "--", "."],
                                capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return None
    revision = commit.stdout.strip()
    if status.returncode == 0 and status.stdout.strip():
        revision += "+uncommitted"
    return revision


# --- the sync --------------------------------------------------------------------------------

def sync(project_dir: str | Path, index: str | Path, environment: str | None = None, *, wait: bool = False,
         base: str | Path | None = None, base_rev: str | None = None, approved: bool = False,
         jobs: int | None = None, statement_timeout: float | None = None, max_statement_bytes: int | None = None,
         progress=None, start_pool=None, full: bool = False) -> SyncSummary:
    """Sync ``environment`` of the project in ``project_dir`` into ``index`` (see the module).

    ``jobs``: worker processes that read statements (None: every core).  ``statement_timeout``
    (seconds) and ``max_statement_bytes``: what one statement may cost; over it, it could not be
    parsed.  ``progress(done, total)``: called as statements are read.  ``start_pool``: how the
    reading pass starts its workers (tests).  ``full``: read the project whole even when the
    store could tell that nothing, or only SQL, changed."""
    with _collector_paused():
        return _sync(project_dir, index, environment, wait=wait, base=base, base_rev=base_rev, approved=approved,
                     jobs=jobs, statement_timeout=statement_timeout, max_statement_bytes=max_statement_bytes,
                     progress=progress, start_pool=start_pool, full=full)


@contextmanager
def _collector_paused():
    """Python's cyclic garbage collector off for the sync, back as it was after.

    A full sync holds millions of long-lived objects (the project's declarations, every
    statement's read, the rollup) and makes them at a steady pace, so the collector ran again
    and again over all of them — thousands of collections, a fifth of the sync's own CPU at
    10,000 assets — and found nothing to free: what a sync builds is kept until its end.  Reading
    SQL does leave cycles (sqlglot's trees point to their parents), so the workers collect as
    usual (``reading_pass._Worker.start``) and so does the rollup, which may read statements in
    process (``_collecting``)."""
    import gc

    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        # What the sync made joins the oldest generation (freeze, then unfreeze), so that turning
        # the collector back on does not start with a young collection over millions of objects.
        gc.freeze()
        gc.unfreeze()
        if enabled:
            gc.enable()


@contextmanager
def _collecting():
    """The collector on while SQL is read in this process (the rollup reads what the pass could
    not know, and the visibility scopes' own reads: ``rollup.collecting_while_reading``), and
    only then: the rollup's own objects (edges, assets, statements) hold no cycle, and a
    collector left on passed over them again and again as they were made, then once more when
    the rollup ended.  Everything the sync holds so far is frozen first, never scanned
    (``_collector_paused`` unfreezes it at the end)."""
    import gc

    if gc.isenabled():
        yield
        return
    from ..governance.rollup import collecting_while_reading

    gc.freeze()
    with collecting_while_reading():
        yield


def _sync(project_dir, index, environment, *, wait, base, base_rev, approved, jobs, statement_timeout,
          max_statement_bytes, progress, start_pool, full) -> SyncSummary:
    from .fingerprint import fingerprint
    from .budget import ReadingBudget, default_jobs

    started = time.perf_counter()
    if approved and base is None and base_rev is None:
        raise UsageError("--approved needs --base or --base-rev: it approves the move from that version")
    snapshot = fingerprint(project_dir)  # before anything is read: a later edit is a change next time
    options = _Options(jobs or default_jobs(), ReadingBudget(statement_timeout, max_statement_bytes), progress,
                       start_pool)
    if base is None and base_rev is None and not full:
        unchanged = _sync_if_unchanged(project_dir, index, environment, snapshot, options, wait)
        if unchanged is not None:
            unchanged.seconds = time.perf_counter() - started
            return unchanged
    # resync (session 5): the reading workers fork now, before the project is loaded, so that
    # they do not hold it (``reading_pass.EarlyPool``); a pool a test or caller gives is its own.
    early = None
    if options.start_pool is None:
        from .reading_pass import EarlyPool

        early = EarlyPool(options.jobs)
        options = _Options(options.jobs, options.budget, options.progress, early)
    try:
        return _sync_full(project_dir, index, environment, wait, base, base_rev, approved, options, snapshot,
                          started)
    finally:
        if early is not None:
            early.close()


def _sync_full(project_dir, index, environment, wait, base, base_rev, approved, options, snapshot,
               started) -> SyncSummary:
    from ..governance.loading import load_project

    parsed: dict = {}  # the large files' documents, kept for the engine's state (no second parse)
    # The early workers parse the declaration files while they wait for the pass (their YAML
    # is most of the load); this process validates each chunk as it comes back.
    project, access = load_project(project_dir, documents=parsed,
                                   parse=getattr(options.start_pool, "parse_files", None))
    standing = None
    if base is not None or base_rev is not None:
        import tempfile

        from ..cli.lineage import checkout

        with tempfile.TemporaryDirectory(prefix="prism-lineage-") as scratch:
            standing, access = load_project(base if base is not None else checkout(str(project_dir), base_rev,
                                                                                   Path(scratch)))
    env_name = _environment_name(project, standing, environment, approved)
    root = environment_root(index, project.name, env_name)
    revision = git_revision(project_dir)

    def after_store(path, summary: SyncSummary) -> None:
        """What a full sync writes into the store after its lineage: the engine's state (for the
        SQL-only syncs to come) and the files' fingerprint."""
        from .store import write_fingerprint

        complete = standing is None and not summary.held_for_review and summary.parser == "ran"
        if complete:
            from .engine import write_engine_state

            write_engine_state(path, Path(project_dir), project.environment(env_name), summary.lineage, snapshot,
                               parsed, copy_from=getattr(summary, "engine_ahead", None))
        write_fingerprint(path, snapshot if complete else {})

    def engine_ahead(path, ledger: dict) -> None:
        """The engine's state that depends on the project and the pass's ledger only, written
        into ``path`` while the rollup runs (``_EngineAhead``)."""
        from .engine import write_engine_state

        env = project.environment(env_name)
        write_engine_state(path, Path(project_dir), env, _LedgerOnly(env, ledger), snapshot, parsed)

    with WriterLock(root, wait=wait):
        summary = _sync_locked(project, standing, access, env_name, root, revision, approved, options, after_store,
                               engine_ahead if standing is None else None)
        write_pointer(index, project_dir, project)
        if (root / STORE_FILE).is_file() and not getattr(summary, "store_completed", False):
            after_store(root / STORE_FILE, summary)
    summary.seconds = time.perf_counter() - started
    return summary


def _sync_if_unchanged(project_dir, index, environment: str | None, snapshot: dict, options: _Options,
                       wait: bool) -> SyncSummary | None:
    """The sync of a project none of whose files changed since the last complete sync of this
    environment (``fingerprint.py``): one epoch that changes nothing, written without reading the
    project or the index; None when anything may have changed (the sync then reads it all)."""
    import json

    from ..index.epochs import epochs
    from .locate import _environment
    from .fingerprint import digest
    from .store import FILES_DIGEST, changed_files, files_digest, recorded_digest

    pointer = read_pointer(index, project_dir)
    if pointer is None or not snapshot:
        return None
    try:
        name = pointer["project"]
        chosen = _environment(name, pointer.get("environments") or [], pointer.get("default_environment"),
                              environment)
    except Exception:  # noqa: BLE001 - the full sync says what is wrong
        return None
    if chosen is None:
        return None
    root = environment_root(index, name, chosen)
    store = root / STORE_FILE
    if not store.is_file():
        return None
    revision = git_revision(project_dir)
    with WriterLock(root, wait=wait):
        try:
            meta = read_meta(store)
        except Exception:  # noqa: BLE001
            return None
        committed = epochs(root / "alive")
        if not committed or meta.get("epoch") != str(committed[-1]) or meta.get("status") != "computed":
            return None
        if meta.get("parser") != "ran" or meta.get("missing") not in (None, "[]") or meta.get("held_for_review") == "1":
            return None
        if meta.get("budget") != json.dumps(options.budget.as_dict()) or meta.get("version") != _version():
            return None
        # The digest of the files as the last sync found them answers "nothing changed" without
        # reading a row per file back; without it (or when it differs) the rows are compared.
        found = digest(snapshot)
        recorded = recorded_digest(meta)
        if recorded is None or recorded[1] != found:
            before, changed = changed_files(store, meta, snapshot, found)
            if before != snapshot:
                return _sync_sql_edits(project_dir, root, before, snapshot, options, revision, meta, name, chosen,
                                       changed, found)
        from ..index.unchanged import write_unchanged
        from .store import connect_read

        connection = connect_read(root / STORE_FILE)
        try:
            if connection.execute("SELECT 1 FROM assets WHERE waiting LIMIT 1").fetchone():
                return None
            alive = [a for (a,) in connection.execute("SELECT asset_id FROM assets ORDER BY asset_id")]
        finally:
            connection.close()
        epoch = write_unchanged(root, chosen, "ran", alive, revision)
        StoreWriter(root).set_meta({"epoch": str(epoch), "revision": revision,
                                    "commit": revision.split("+")[0] if revision else None,
                                    "synced_at": datetime.datetime.now(datetime.timezone.utc).isoformat(
                                        timespec="seconds"),
                                    FILES_DIGEST: files_digest(epoch, snapshot, found)})
    statements = int(meta.get("statements") or 0)
    return SyncSummary(name, chosen, epoch, revision, statements=statements, unchanged=statements,
                       in_files=int(meta.get("in_files") or 0), parser="ran", path="unchanged")


def _sync_sql_edits(project_dir, root: Path, before: dict, snapshot: dict, options: _Options, revision, meta: dict,
                    project: str, environment: str, changed: list[str], found_digest: str) -> SyncSummary | None:
    """Only SQL changed (``engine.py``): the epoch and the store from the store's own state."""
    from .engine import sync_sql_edits

    if not before:
        return None
    # The files are recorded in the transaction that moves the store to the new epoch.
    done = sync_sql_edits(Path(project_dir), root, before, snapshot, options.budget, revision, meta, changed,
                          found_digest)
    if done is None:
        return None
    epoch, read = done
    statements = int(meta.get("statements") or 0)
    return SyncSummary(project, environment, epoch, revision, statements=statements, read=read,
                       unchanged=statements - read, in_files=int(meta.get("in_files") or 0), parser="ran", path="sql")


def _version() -> str:
    from .. import __version__

    return __version__


def _environment_name(project, standing, environment: str | None, approved: bool) -> str:
    from ..governance.rollup import environment_of
    from ..governance.transitions import transition

    if standing is not None:
        return transition(standing, project, environment, approved=approved).environment
    return environment_of(project, environment).name


@dataclass(frozen=True)
class _Options:
    jobs: int
    budget: object
    progress: object
    start_pool: object


def _sync_locked(project, standing, access, environment: str, root: Path, revision: str | None,
                 approved: bool, options: _Options, after_store=None, engine_ahead=None) -> SyncSummary:
    aheads: list[_EngineAhead] = []  # the engine's state written while the rollup ran, if it was
    summary = None
    try:
        summary = _sync_locked_with(project, standing, access, environment, root, revision, approved, options,
                                    after_store, engine_ahead, aheads)
        return summary
    finally:
        for ahead in aheads:  # its file was copied by the store's child, or is not used
            ahead.discard()
        if summary is not None:
            summary.engine_ahead = None


def _sync_locked_with(project, standing, access, environment: str, root: Path, revision: str | None,
                      approved: bool, options: _Options, after_store, engine_ahead, aheads: list) -> SyncSummary:
    from ..governance.rollup import sync as rollup_sync
    from ..governance.statuses import SqlStatus
    from ..governance.transitions import sync_transition, transition
    from ..index import EpochIndex
    from ..governance.access import policy_scopes
    from .viewers import compile_policy

    credentials = compile_policy(access, environment)
    scopes = policy_scopes(access, environment)
    summary = SyncSummary(project.name, environment, None, revision)
    index = EpochIndex(root)
    try:
        if standing is not None and transition(standing, project, environment, approved=approved).held:
            held = sync_transition(standing, project, environment)
            summary.held_for_review = True
            _record_held(root, held, credentials, revision)
            return summary
        committed = index.epochs()
        previous = index.lineage(project.name, environment) if committed else None
        if previous is not None:  # the scopes' own reads, which the store keeps
            from .store import read_scope_ledgers

            previous.scoped.update(read_scope_ledgers(root / STORE_FILE))
        proposed = project.environment(environment)
        interim = []  # the store as this revision stands before the pass reads (``_write_waiting``)

        def before_pass(ledger: dict) -> None:
            if standing is None:
                interim.append(_write_waiting(project, environment, root, previous, ledger, committed, scopes,
                                              credentials, revision))

        starting, passed = _read_new_statements(project, proposed, previous, root, options, summary, before_pass)
        ahead = None
        if engine_ahead is not None and passed.parser.value == "ran" and (not interim or interim[0] is None) \
                and _store_rebuilt(root, committed):
            ahead = _EngineAhead.start(root, engine_ahead, starting.ledger)
            if ahead is not None:
                aheads.append(ahead)
        with _collecting():
            if standing is not None:
                lineage = sync_transition(standing, project, environment, approved=approved, previous=starting,
                                          scopes=scopes, parser=passed.parser)
            else:
                lineage = rollup_sync(project, environment, previous=starting, scopes=scopes, parser=passed.parser)
        summary.read = sum(1 for k in passed.reads if k not in passed.refused or "bytes" not in passed.refused[k])
        summary.read += lineage.reads_performed
        summary.scope_reads = sum(o.reads_performed for o in lineage.scoped.values())
        lineage = _with_revisions(lineage, previous, revision)
        summary.lineage = lineage  # what the sync computed (not part of the summary's JSON)
        summary.engine_ahead = ahead.finish(lineage.ledger) if ahead is not None else None
        _count(summary, project, environment, lineage, previous)
        meta = _meta(project, lineage, None, revision)
        meta.update(budget=json.dumps(options.budget.as_dict()), version=_version(),
                    statements=str(summary.statements), in_files=str(summary.in_files), missing="[]")
        aside = None
        if (not interim or interim[0] is None) and _store_rebuilt(root, committed):
            aside = _StoreAside.start(root, index, lineage, meta, credentials, summary, after_store)
        try:
            epoch = index.write(lineage, revision=revision, epoch=aside.epoch if aside is not None else None,
                                fork=EPOCH_ASIDE and STORE_ASIDE and _may_fork())
        except BaseException:
            if aside is not None:
                aside.abandon(index)
            raise
        delta = index.last_delta
    except OSError as error:
        raise InputError(f"cannot use the index in {root}: {error.strerror or error}") from None
    except Exception as error:
        # DuckDB is imported only by what reads the index (a first sync never does): an error
        # of its own can come only once it is loaded.
        duckdb = sys.modules.get("duckdb")
        if duckdb is None or not isinstance(error, duckdb.Error):
            raise
        raise InputError(f"cannot read the index in {root}: {str(error).splitlines()[0]} (prism-lineage index "
                         f"repair --index {root.parent.parent} quarantines what cannot be read)") from None
    summary.epoch = epoch
    meta["epoch"] = str(epoch)
    from ..index.maintenance import heal

    try:
        heal(root)  # every row that differed from what the index held is written again: nothing is missing
    except BaseException:
        if aside is not None:
            aside.abandon(index)
        raise
    if aside is not None and aside.finish():
        summary.store_rebuilt = True
        summary.store_completed = True  # ``after_store`` ran on it, before it was published
    else:
        summary.store_rebuilt = update_store(root, index, lineage, delta, committed, meta, credentials,
                                             interim=interim[0] if interim else None)
    _remember_refusals(root, lineage, passed, options)
    return summary


def _store_rebuilt(root: Path, committed: list[int]) -> bool:
    """Whether ``update_store`` will rebuild the store whole (not apply a delta): no epoch was
    committed before, or the store is missing, unreadable or not the last epoch's."""
    if not committed:
        return True
    try:
        return read_meta(root / STORE_FILE).get("epoch") != str(committed[-1])
    except Exception:  # noqa: BLE001 - any store that cannot be read is rebuilt
        return True


class _ForkedStoreFile:
    """A forked child writing one temporary store file beside the store (``StoreWriter.aside``),
    which the sync waits for, uses, or stops: what ``_StoreAside`` and ``_EngineAhead`` share.

    The child inherits what it writes from (no copy, no pickling) and ends with ``os._exit``
    (``_in_child``).  A child that failed, was stopped, or whose file is not used leaves nothing:
    its file is removed with what SQLite keeps beside it (``_remove_store_file``)."""

    def __init__(self, pid: int, path: str):
        self.pid: int | None = pid
        self.path = path

    @classmethod
    def fork(cls, root: Path, child) -> _ForkedStoreFile | None:
        """A child running ``child(path)`` (which never returns) on a new empty file beside the
        store; None when there is no child (none may be forked here, or none could be: no process
        left, no file), nothing left then.  Ctrl-C while forking is raised, nothing left."""
        import os

        if not _may_fork():
            return None
        path = None
        try:
            path = StoreWriter(root).aside()
            pid = os.fork()
        except BaseException as error:
            if path is not None:
                _remove_store_file(path)
            if not isinstance(error, Exception):
                raise  # Ctrl-C
            return None
        if pid == 0:
            child(path)
        return cls(pid, path)

    def wait(self) -> bool:
        """Wait for the child: whether it wrote its file (exit status 0).  Ctrl-C while waiting
        stops it (its file removed) and is raised."""
        import os

        try:
            _, status = os.waitpid(self.pid, 0)
            written = os.waitstatus_to_exitcode(status) == 0
        except ChildProcessError:
            written = False
        except BaseException:
            self.stop()
            raise
        self.pid = None
        return written

    def stop(self) -> None:
        """The child killed (if it runs) and reaped, its file removed."""
        import os
        import signal

        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except (OSError, ChildProcessError):
                pass
            self.pid = None
        _remove_store_file(self.path)


def _in_child(write) -> None:
    """What a forked child runs: ``write()``, then ``os._exit`` (none of the parent's cleanup,
    buffers or handlers run here) — exit status 0 when it returned, 1 when it raised anything
    (the parent then writes what the child would have)."""
    import os
    import signal

    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it stops this child
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        write()
        code = 0
    except BaseException:  # noqa: BLE001 - the parent writes it itself
        code = 1
    finally:
        os._exit(code)


# Whether a rebuilt store is written by a child process while this one writes the epoch
# (``_StoreAside``); tests turn it off to compare.
STORE_ASIDE = True


class _StoreAside:
    """A store rebuilt whole, written by a forked child while this process writes the epoch.

    The two are independent (the epoch's Parquet files, the store's SQLite file) and each is
    about a second of CPU at 10,000 assets; with the reading workers done, the sync's own
    process was the only one running, on one of the cores.  The child inherits the finished
    lineage, writes the store into a temporary file beside it, then what the sync writes after
    the store (``after_store``: the engine's state and the files' fingerprint), and exits.  The
    epoch's number is reserved first, so the store's ``meta`` names it.  The store is published
    (renamed into place) only after the epoch is committed and healed, as before, so no reader
    sees a store ahead of the index; a child that failed leaves nothing, and the store is
    rebuilt here as before."""

    def __init__(self, root: Path, epoch: int, child: _ForkedStoreFile):
        self.root, self.epoch, self.child = root, epoch, child
        self.pid, self.temporary = child.pid, child.path

    @classmethod
    def start(cls, root: Path, index, lineage, meta: dict, credentials: dict, summary: SyncSummary,
              after_store) -> _StoreAside | None:
        if not STORE_ASIDE or not _may_fork():
            return None
        epoch = index.reserve()
        meta["epoch"] = str(epoch)
        child = None
        try:
            child = _ForkedStoreFile.fork(root, lambda temporary: _store_in_child(
                root, lineage, dict(meta), credentials, temporary, summary, after_store))
        finally:
            if child is None:  # no child (no process left?): the store is written here, after the epoch
                index.release(epoch)
                meta["epoch"] = None
        return cls(root, epoch, child) if child is not None else None

    def finish(self) -> bool:
        """Wait for the child; publish its store.  False when it failed (nothing is left)."""
        if not self.child.wait():
            _remove_store_file(self.temporary)
            return False
        StoreWriter(self.root).publish(self.temporary)
        return True

    def abandon(self, index) -> None:
        """The epoch was not written: the child is stopped, its file removed, the number freed."""
        self.stop()
        index.release(self.epoch)

    def stop(self) -> None:
        self.child.stop()


def _store_in_child(root: Path, lineage, meta: dict, credentials: dict, temporary: str, summary: SyncSummary,
                    after_store) -> None:
    """The forked child of ``_StoreAside``: never returns; exit status 0 when the store is
    written."""

    def write() -> None:
        StoreWriter(root).build_aside(lineage, meta, credentials, temporary)
        if after_store is not None:
            after_store(temporary, summary)

    _in_child(write)


# Whether a large epoch's edges file is written by a forked child while this process writes the
# epoch's other files (``index/writer._ForkedFile``); tests turn it off to compare.
EPOCH_ASIDE = True


# Whether the engine's state is written by a child while the rollup runs (``_EngineAhead``);
# tests turn it off to compare.
ENGINE_AHEAD = True


class _LedgerOnly:
    """What ``write_engine_state`` reads of a lineage, before the rollup: the pass's ledger and
    the environment's names (``EnvironmentLineage.by_name``: every table and view); no assets
    (their names are written from the rollup's, ``engine.AHEAD_TABLES``)."""

    def __init__(self, env, ledger: dict):
        self.ledger = ledger
        self.by_name = {d.full_name: None for d in (*env.tables, *env.views)}
        self.assets: dict = {}


class _EngineAhead:
    """The engine's state (``engine.write_engine_state``: the files' documents, the statements,
    the ledger's JSON, the lookups, the declared columns), written by a forked child while this
    process runs the rollup.

    At 100,000 assets the rollup runs alone on one core for about ten seconds, and the engine's
    state was the larger part of the store child's work after it (the child was the longer
    branch beside the epoch write).  All of it but the assets' names depends on the project and
    the ledger only, and a full sync's ledger is the pass's: the child writes it from that into a
    temporary store file, and the store's child copies it (``write_engine_state(copy_from=)``)
    — only when the rollup kept the very same reads (``finish``); else the store's child writes
    it as before.  No child when other threads run (``_alone``); the file is removed at the end
    of the sync, whatever happened (``discard``)."""

    def __init__(self, child: _ForkedStoreFile, ledger: dict):
        self.child = child
        self.path = child.path
        self.ledger = ledger
        self.written = False

    @property
    def pid(self) -> int | None:
        return self.child.pid

    @classmethod
    def start(cls, root: Path, write, ledger: dict) -> _EngineAhead | None:
        if not (ENGINE_AHEAD and STORE_ASIDE):
            return None
        child = _ForkedStoreFile.fork(root, lambda path: _engine_in_child(path, write, ledger))
        return cls(child, ledger) if child is not None else None

    def finish(self, ledger: dict) -> str | None:
        """Wait for the child; its file when it wrote it from the reads ``ledger`` holds."""
        self.written = self.child.wait()
        same = len(ledger) == len(self.ledger) and all(self.ledger.get(key) is read for key, read in ledger.items())
        return self.path if self.written and same else None

    def discard(self) -> None:
        self.child.stop()


def _engine_in_child(path: str, write, ledger: dict) -> None:
    """The forked child of ``_EngineAhead``: never returns; exit status 0 when the engine's state
    is written into ``path``."""

    def state() -> None:
        import sqlite3

        from .store import _SCHEMA_TABLES

        connection = sqlite3.connect(path)
        try:
            connection.execute("PRAGMA journal_mode = OFF")
            connection.executescript(_SCHEMA_TABLES)
        finally:
            connection.close()
        write(path, ledger)

    _in_child(state)


def _remove_store_file(path: str) -> None:
    """A store file the child did not finish, with what SQLite keeps beside it: a child killed
    in the middle of a transaction leaves its rollback journal (``-journal``; ``-wal``/``-shm``
    in WAL mode) next to the file."""
    for suffix in ("", "-journal", "-wal", "-shm"):
        Path(path + suffix).unlink(missing_ok=True)


def _may_fork() -> bool:
    import os

    return hasattr(os, "fork") and _alone()


def _alone() -> bool:
    """Whether this process may fork a child that uses SQLite: called from the main thread, with
    no other thread running but the idle deep-stack reader (``prism_lineage.guarded``).  A host
    program's own threads may hold a lock (SQLite's, the allocator's) that a forked child would
    wait for forever; such a sync writes the store itself, after the epoch, as before."""
    import threading

    return threading.current_thread() is threading.main_thread() and all(
        t is threading.main_thread() or t.name == "prism-lineage-deep" for t in threading.enumerate())


def _read_new_statements(project, env, previous, root: Path, options: _Options, summary: SyncSummary,
                         before_pass=None):
    """The reading pass over what the ledger does not hold (``reading_pass.py``), and the lineage
    the rollup then starts from: the ledger with the pass's reads.  ``before_pass(ledger)`` is
    called first when the pass has anything to read."""
    from ..governance.rollup import EnvironmentLineage
    from ..governance.statuses import EnvironmentStatus, ParserState
    from .reading_pass import read_pass
    from .store import read_refused

    ledger = dict(previous.ledger) if previous is not None else {}
    # A statement refused under a smaller budget than this sync's is tried again.
    for key, (why, timeout, max_bytes) in read_refused(root / STORE_FILE).items():
        if key in ledger and _budget_grew(why, timeout, max_bytes, options.budget):
            del ledger[key]
    # The pass needs the environment's full names only (what statements may write and look up),
    # not their asset ids: at 100,000 assets hashing each name was 0.2-0.3 s of this process
    # alone while the workers waited for the pass.
    ids = dict.fromkeys(d.full_name for d in (*env.tables, *env.views))
    if before_pass is not None and _anything_to_read(env, ids, ledger):
        before_pass(ledger)
    passed = read_pass(env, ids, ledger, jobs=options.jobs, budget=options.budget,
                       progress=options.progress, start_pool=options.start_pool, scratch=root)
    summary.workers = passed.workers
    summary.interrupted = passed.interrupted
    summary.parser = passed.parser.value
    starting = EnvironmentLineage(project.name, env.name, EnvironmentStatus.COMPUTED, {}, (), ParserState.RAN,
                                  ledger={**ledger, **passed.reads})
    if previous is not None:
        starting.scoped.update(previous.scoped)
    return starting, passed


def _anything_to_read(env, ids: dict[str, None], ledger: dict) -> bool:
    from ..governance.sql_reading import statement_key
    from .reading_pass import statements_of

    return any(sql is not None and statement_key(sql, dialect) not in ledger
               for _, sql, dialect in statements_of(env, ids))


def _write_waiting(project, environment: str, root: Path, previous, ledger: dict, committed: list[int], scopes,
                   credentials: dict, revision: str | None):
    """Before the pass reads anything, the store as this revision stands with nothing new read
    yet (seed 000): every statement whose SQL is new, changed or retried, or whose looked-up
    addresses moved, says "Not read yet" and has no parsed edge; the rest stands as read.  So an
    answer during a long sync (``serve --project``) never shows a parsed edge an older statement
    gave.  The parsed mark stays "Recorded" (the last pass ran; the assets say what waits).

    Written as a delta from the last sync's store, with ``epoch`` NULL and ``interim`` set: a sync
    that dies before its end leaves a store the next one rebuilds (it is not the newest epoch's).
    Returns the lineage written (the end of the sync applies its own delta from it), or None when
    there is no current store to mark (a first sync: the environment is not computed until it ends)."""
    from ..governance.rollup import EnvironmentLineage
    from ..governance.rollup import sync as rollup_sync
    from ..governance.statuses import EnvironmentStatus, ParserState

    if previous is None or not committed:
        return None
    try:
        if read_meta(root / STORE_FILE).get("epoch") != str(committed[-1]):
            return None  # a stale store: rebuilt whole at the end
    except Exception:  # noqa: BLE001 - no store, or one that cannot be read: rebuilt at the end
        return None
    starting = EnvironmentLineage(project.name, environment, EnvironmentStatus.COMPUTED, {}, (), ParserState.RAN,
                                  ledger=ledger)
    starting.scoped.update(previous.scoped)
    with _collecting():
        interim = rollup_sync(project, environment, previous=starting, scopes=scopes, budget=0)
    interim = _with_revisions(interim, previous, revision)
    assets, removed, groups = lineage_delta(previous, interim)
    meta = {**_meta(project, interim, None, revision), "interim": "1"}
    StoreWriter(root).apply(assets=assets, removed=removed, waiting=interim.waiting, edge_groups=groups, meta=meta,
                            credentials=credentials, scoped=interim.scoped)
    return interim


def lineage_delta(before, after) -> tuple[list, list[str], dict]:
    """What a store holding ``before`` needs to hold ``after``: the assets new or changed, the
    asset ids gone, each target whose incoming edges differ with its new group (the index
    writer's comparison, ``index/writer.py``)."""
    from ..index.state import edge_groups
    from ..index.writer import _compiled, _declared

    assets = []
    for key, asset in sorted(after.assets.items()):
        old = before.assets.get(key)
        if old is None or _declared(old) != _declared(asset) or _compiled(old) != _compiled(asset):
            assets.append(asset)
    removed = sorted(set(before.assets) - set(after.assets))
    old_groups, new_groups = edge_groups(before.edges), edge_groups(after.edges)
    groups = {target: new_groups.get(target, ()) for target in sorted(set(old_groups) | set(new_groups))
              if new_groups.get(target, ()) != old_groups.get(target, ())}
    return assets, removed, groups


def _budget_grew(why: str, timeout: float | None, max_bytes: int | None, budget) -> bool:
    if why.startswith("larger than"):
        return budget.max_bytes is None or (max_bytes is not None and budget.max_bytes > max_bytes)
    if why.startswith("took longer"):
        return budget.timeout is None or (timeout is not None and budget.timeout > timeout)
    return False  # crashed the parser, or a bug: read again when its SQL changes


def _remember_refusals(root: Path, lineage, passed, options: _Options) -> None:
    """Which statements of the ledger were refused, and under which budget (the store keeps it)."""
    from .store import read_refused, write_refused

    path = root / STORE_FILE
    if not path.is_file():
        return
    kept = {k: v for k, v in read_refused(path).items() if k in lineage.ledger and k not in passed.reads}
    budget = options.budget
    kept.update({k: (why, budget.timeout, budget.max_bytes) for k, why in passed.refused.items()
                 if k in lineage.ledger})
    write_refused(path, kept)


def _count(summary: SyncSummary, project, environment: str, lineage, previous=None) -> None:
    from ..governance.sql_reading import statement_key
    from ..governance.statuses import SqlStatus

    env = project.environment(environment)
    statements = [(v.sql, v.dialect or env.dialect) for v in env.views] + [
        (a.sql, a.dialect or env.dialect) for p in env.pipelines for a in p.assets if a.writes in lineage.by_name]
    summary.in_files = sum(1 for sql, _ in statements if sql is None)
    keys = {statement_key(sql, dialect) for sql, dialect in statements if sql is not None}
    summary.statements = len(keys)
    before = previous.ledger if previous is not None else {}
    new = [lineage.ledger[k] for k in keys if k in lineage.ledger and before.get(k) != lineage.ledger[k]]
    summary.failed = sum(1 for r in new if r.status is SqlStatus.NOT_PARSED)
    summary.not_read = sum(1 for k in keys if k not in lineage.ledger)
    summary.unchanged = sum(1 for k in keys if k in lineage.ledger and before.get(k) == lineage.ledger[k])


def _with_revisions(lineage, previous, revision: str | None):
    """The parsed edges of statements read by this pass name ``revision``; the others keep the
    revision they were read at."""
    if previous is None:
        read_now = set(lineage.ledger)
    else:
        read_now = {key for key, read in lineage.ledger.items() if previous.ledger.get(key) != read}
    before = {(e.source, e.target, e.mark, e.via, e.file): e.revision for e in (previous.edges if previous else ())}
    from ..governance.statuses import Mark

    fresh: dict[str, bool] = {}  # by target: one of the statements writing it was read now
    renamed = _edge_with_revision()
    by_asset, parsed = lineage.ledger_by_asset, Mark.PARSED
    edges = []  # one loop, no call per edge: a full sync of 100,000 assets names ~300,000 edges' revision
    for edge in lineage.edges:
        if edge.mark is parsed:
            target = edge.target
            now = fresh.get(target)
            if now is None:
                now = fresh[target] = any(k in read_now for k in by_asset.get(target, ()))
            found = revision if now else before.get((edge.source, target, edge.mark, edge.via, edge.file), revision)
            if found != edge.revision:
                edge = renamed(edge, found)
        edges.append(edge)
    lineage.edges = tuple(edges)
    # A scope's own reads are made by this pass (the index keeps the base's ledger only).
    for key, overrides in list(lineage.scoped.items()):
        groups = {target: tuple(e if e.mark is not Mark.PARSED else replace(e, revision=revision) for e in group)
                  for target, group in overrides.edges.items()}
        lineage.scoped[key] = replace(overrides, edges=groups)
    return lineage


def _edge_with_revision():
    """``replace(edge, revision=r)`` for ``LineageEdge``, without ``dataclasses.replace``'s walk
    over the fields per call (a full sync names the revision of every parsed edge)."""
    import dataclasses
    from operator import attrgetter

    from ..governance.rollup import LineageEdge

    names = [f.name for f in dataclasses.fields(LineageEdge) if f.init]
    values, at = attrgetter(*names), names.index("revision")

    def renamed(edge, revision):
        if type(edge) is not LineageEdge:
            return replace(edge, revision=revision)
        found = list(values(edge))
        found[at] = revision
        return LineageEdge(*found)

    return renamed


def _meta(project, lineage, epoch: int | None, revision: str | None) -> dict[str, str | None]:
    return lineage_meta(lineage, epoch, revision, [e.name for e in project.environments],
                        project.default_environment)


def lineage_meta(lineage, epoch: int | None = None, revision: str | None = None,
                 environments: list[str] | None = None, default_environment: str | None = None) -> dict:
    """What the store's ``meta`` says of a sync of ``lineage``."""
    return {"project": lineage.project, "environment": lineage.environment, "status": lineage.status.value,
            "held_for_review": "1" if lineage.held_for_review else "0", "parser": lineage.parser.value,
            "epoch": None if epoch is None else str(epoch), "revision": revision,
            "commit": revision.split("+")[0] if revision else None,
            "synced_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "environments": json.dumps(environments if environments is not None else [lineage.environment]),
            "default_environment": default_environment,
            "visibility_independent": "1" if getattr(lineage, "visibility_independent", False) else "0",
            "interim": None}  # set only while a sync has not read what is new (``_write_waiting``)


def update_store(root: Path, index, lineage, delta, committed_before: list[int], meta: dict,
                 credentials: dict, interim=None) -> bool:
    """The store after the epoch just written: from its delta when the store was current with
    the epoch before (or from what this sync wrote first, ``interim``), else rebuilt from what
    the index holds.  Returns whether it was rebuilt."""
    writer = StoreWriter(root)
    if interim is not None:
        assets, removed, groups = lineage_delta(interim, lineage)
        try:
            writer.apply(assets=assets, removed=removed, waiting=lineage.waiting, edge_groups=groups, meta=meta,
                         credentials=credentials, scoped=lineage.scoped)
            return False
        except (StoreError, OSError, Exception):  # noqa: BLE001 - rebuilt below, as any unreadable store
            pass
    stored_epoch = None
    try:
        stored_epoch = read_meta(root / STORE_FILE).get("epoch")
    except (StoreError, OSError, Exception):  # noqa: BLE001 - any store that cannot be read is rebuilt
        stored_epoch = None
    if committed_before and stored_epoch == str(committed_before[-1]) and delta is not None:
        try:
            writer.apply(assets=delta.assets, removed=delta.removed, waiting=lineage.waiting,
                         edge_groups=delta.edge_groups, meta=meta, credentials=credentials, scoped=lineage.scoped)
            return False
        except StoreError:
            pass
    writer.build(lineage, meta, credentials)
    return True


def _record_held(root: Path, held, credentials: dict, revision: str | None) -> None:
    """An environment held for review: the store says not computed (held), with the assets of
    the revision it stands at; nothing is read and no epoch is written."""
    meta = {"project": held.project, "environment": held.environment, "status": held.status.value,
            "held_for_review": "1", "parser": held.parser.value, "revision": revision,
            "commit": revision.split("+")[0] if revision else None,
            "synced_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    path = root / STORE_FILE
    try:
        read_meta(path)
        StoreWriter(root).apply(meta=meta, credentials=credentials)
    except (StoreError, OSError):
        StoreWriter(root).build(held, {**meta, "epoch": None}, credentials)
