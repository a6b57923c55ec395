"""A sync that works from the store when only SQL changed: no project load, no index read.

The most frequent change to a project is an edit to a statement: a view's SQL or a pipeline
asset's inline SQL, in a file the last complete sync read.  For that change the rollup's answer
differs from the last one only around the statement: its own read, the reads of the statements
that looked up the asset it writes (when its output columns changed), transitively, and the
incoming edges and SQL status of the assets those statements write.  This module computes
exactly that from what the store keeps of the last sync — each view and pipeline file's text
as the sync read it (parsed only when edited), the statements in the rollup's order, the read ledger with a reverse table from each
asset to the statements that looked it up, the declared columns — and writes the epoch and the
store's delta, as the full sync would have.

It declines (returns None, and the sync reads everything) whenever the change is anything else:
a file added, removed or outside ``views/`` and ``pipelines/``; a declaration that changed in
anything but its SQL; a statement whose asset is written by several statements; a change whose
effects spread to more than ``MAX_AFFECTED`` statements or go round a cycle; or a statement whose
reading depended on an asset some credential may not see, or that a visibility scope reads on
its own (the rollup works scopes out; ``governance/rollup.py``).  tests/control/test_engine.py
checks, over random edits, that the store and the index it leaves are the full sync's.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

MAX_AFFECTED = 200
ENGINE_DIRECTORIES = ("views/", "pipelines/")


# --- the read ledger as JSON ----------------------------------------------------------------------

# One encoder for every read (``json.dumps`` with options builds one per call): the same text.
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def read_to_json(read, memo: dict | None = None) -> str:
    """A read as the engine stores it (``read_from_json`` reads it back).  ``memo``: each
    dependency's and link's own JSON by ``id``, for a caller encoding many reads it keeps alive
    meanwhile (the reads of a pass share their links and dependencies: ``reading_pass._Shared``);
    the text is the same: the encoder writes a tuple as it writes a list, and items are joined
    by ``,`` as it joins them."""
    if memo is None:
        return _COMPACT.encode([
            read.key, read.status.value if read.status else None, list(read.reads),
            [[name, [[l.source, l.target, l.relationship, l.transformation, l.confidence] for l in links]]
             for name, links in read.columns],
            None if read.outputs is None else list(read.outputs),
            [[list(d.address), d.resolved, None if d.columns is None else [list(c) for c in d.columns]]
             for d in read.dependencies]])
    encode = _COMPACT.encode
    columns = []
    for name, links in read.columns:
        # A group of links is shared by many reads (``reading_pass._Shared``): its text is made
        # once, by the group's identity (kept alive in the memo, as the links are).
        found = memo.get(id(links))
        if found is None:
            parts = []
            for link in links:
                one = memo.get(id(link))
                if one is None:
                    one = memo[id(link)] = (encode([link.source, link.target, link.relationship,
                                                    link.transformation, link.confidence]), link)  # kept: its id stays its own
                parts.append(one[0])
            found = memo[id(links)] = (",".join(parts), links)
        text = memo.get(name)  # a name (a str key: never an int id)
        if text is None:
            text = memo[name] = encode(name)
        columns.append("[" + text + ",[" + found[0] + "]]")
    dependencies = []
    for dependency in read.dependencies:
        found = memo.get(id(dependency))
        if found is None:
            found = memo[id(dependency)] = (encode([dependency.address, dependency.resolved, dependency.columns]),
                                            dependency)
        dependencies.append(found[0])
    return ("[" + encode([read.key, read.status.value if read.status else None, read.reads])[1:-1] + ",["
            + ",".join(columns) + "]," + encode(read.outputs) + ",[" + ",".join(dependencies) + "]]")


def read_from_json(text: str):
    from ..governance.sql_reading import ColumnLink, Dependency, StatementRead
    from ..governance.statuses import SqlStatus

    key, status, reads, columns, outputs, dependencies = json.loads(text)
    return StatementRead(
        key, SqlStatus(status) if status else None, tuple(reads),
        tuple((name, tuple(ColumnLink(*link) for link in links)) for name, links in columns),
        None if outputs is None else tuple(outputs),
        tuple(Dependency(tuple(address), resolved, None if found is None else tuple(tuple(c) for c in found))
              for address, resolved, found in dependencies))


# --- what a full sync leaves for the next one -----------------------------------------------------

# The tables of the engine's state that depend on the project and the ledger only (not on the
# rollup's assets): what ``write_engine_state`` can copy from a file written before the rollup.
AHEAD_TABLES = ("documents", "document_trees", "statements", "ledger", "lookups", "declared")


def write_engine_state(path: Path, project_dir: Path, env, lineage, snapshot: dict,
                       parsed: dict[str, tuple[str, str | None]] | None = None, copy_from: str | None = None) -> None:
    """After a full sync: the view and pipeline files' documents, the statements in the
    rollup's order, the ledger, the reverse lookups and the declared columns.  ``parsed``: the
    large files' texts and documents (JSON text) as the sync's load read them
    (``native.read_native``); a file whose text is still that one is not parsed again.
    ``copy_from``: a store file into which the same call wrote the ``AHEAD_TABLES`` from the same
    project and ledger (``control/sync._EngineAhead``): they are copied from it, and only the
    assets' names (the rollup's) are made here."""
    if copy_from is not None:
        _write_names_copying(path, lineage, env, copy_from)
        return
    from ..governance.rollup import _asset_file
    from ..governance.sql_reading import statement_key

    documents = []
    trees: dict[str, tuple[str, object]] = {}
    if (Path(project_dir) / "project.yaml").is_file():
        import os

        from .fingerprint import _stat

        # Each file's text as the sync read it, parsed only when an edit needs it (a later
        # SQL-only sync compares it with the edited file).  A file whose size, times or inode
        # differ from the fingerprint taken before the sync read the project may not be the
        # text it read: it is left out, so an edit to it is never worked out from the store.
        base = os.fspath(project_dir)
        for relative in sorted(snapshot):
            if relative.startswith(ENGINE_DIRECTORIES) and relative.endswith((".yaml", ".yml")):
                file = os.path.join(base, relative)  # a string: no ``Path`` made per file (100,000)
                try:
                    with open(file, "rb") as handle:
                        before = _stat(os.fstat(handle.fileno()))
                        text = handle.read().decode("utf-8")
                    if before != tuple(snapshot[relative]) or _stat(os.stat(file)) != before:
                        continue
                except (OSError, ValueError):
                    continue
                documents.append((relative, text))
                if len(text) >= TREE_BYTES:
                    loaded = (parsed or {}).get(relative)
                    if loaded is not None and loaded[0] == text:
                        # The document the load made of this very text (what ``_parsed`` gives).
                        if loaded[1] is not None:
                            trees[relative] = (text, json.loads(loaded[1]))
                        continue
                    try:
                        trees[relative] = (text, _parsed(text))
                    except Decline:
                        pass  # not a document JSON can hold: parsed (and declined) when edited
    from ..governance.statuses import DECLARED_READ_NOTE, ref_note

    statements = []
    for view in env.views:
        # What it declares it reads, as the rollup holds it (``rollup._Builder._statements``):
        # the read notes compare it with what its SQL reads.
        if view.refs is not None:
            declared, by = [[r.name, ref_note(r, view.file), r.call] for r in view.refs], "refs"
        else:
            declared, by = [[name, DECLARED_READ_NOTE, None] for name in view.reads], "reads"
        statements.append((view.full_name, view.sql, view.dialect or env.dialect, "view", view.file,
                           view.sql_read_from, json.dumps(declared, ensure_ascii=False), by, view.language))
    for pipeline in env.pipelines:
        for asset in pipeline.assets:
            if asset.writes in lineage.by_name:
                file = _asset_file(pipeline, asset)
                declared = None if asset.refs is None else json.dumps(
                    [[r.name, ref_note(r, file), r.call] for r in asset.refs], ensure_ascii=False)
                statements.append((asset.writes, asset.sql, asset.dialect or env.dialect, "pipeline",
                                   file, asset.sql_read_from, declared, "refs", asset.language))
    rows = [(i, writer, statement_key(sql, dialect) if sql is not None else None, via, file, read_from, *rest)
            for i, (writer, sql, dialect, via, file, read_from, *rest) in enumerate(statements)]
    lookups = {(d.resolved, key) for key, read in lineage.ledger.items() for d in read.dependencies
               if d.resolved is not None}
    declared = [(d.full_name, json.dumps([list(c) for c in ((c.name, c.type) for c in d.columns)])
                 if d.columns else None, int(d.columns_complete)) for d in (*env.tables, *env.views)]
    # An asset's names exactly as the rollup holds them (the store's alias rows keep each name
    # once, at its strongest rank): an epoch's node row is rebuilt from them.
    names = _names(lineage)
    connection = sqlite3.connect(path, timeout=30.0)
    try:
        with connection:
            for table in ("documents", "statements", "ledger", "lookups", "declared", "asset_names"):
                connection.execute(f"DELETE FROM {table}")
            connection.executemany("INSERT INTO documents (path, document) VALUES (?, ?)", documents)
            connection.execute(TREES)
            connection.execute("DELETE FROM document_trees")
            write_trees(connection, trees)
            connection.executemany("INSERT INTO statements (position, writer, key, via, file, read_from, declared, "
                                   "declared_by, language) VALUES (?,?,?,?,?,?,?,?,?)", rows)
            connection.executemany("INSERT INTO asset_names (full_name, aliases, alias_ranks) VALUES (?, ?, ?)",
                                   names)
            # Streamed, in key order (the table's order): each read's JSON is made as it is
            # inserted, never all at once (about 150 MB at 100,000 assets).
            memo: dict = {}  # the ledger (and its links and dependencies) stays alive while it is used
            connection.executemany("INSERT INTO ledger (key, read) VALUES (?, ?)",
                                   ((key, read_to_json(lineage.ledger[key], memo)) for key in sorted(lineage.ledger)))
            connection.executemany("INSERT INTO lookups (resolved, key) VALUES (?, ?)", sorted(lookups))
            connection.executemany("INSERT INTO declared (name, columns, complete) VALUES (?, ?, ?)", declared)
            connection.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('dialect', ?)", (env.dialect,))
    finally:
        connection.close()


def _names(lineage) -> list[tuple[str, str, str]]:
    """An asset's names exactly as the rollup holds them (the store's alias rows keep each name
    once, at its strongest rank): an epoch's node row is rebuilt from them."""
    return [(a.full_name, json.dumps(list(a.aliases), ensure_ascii=False), json.dumps(list(a.alias_ranks)))
            for a in lineage.assets.values() if a.aliases or a.alias_ranks]


def _write_names_copying(path: Path, lineage, env, copy_from: str) -> None:
    """``write_engine_state`` with its project-and-ledger tables copied from ``copy_from``."""
    connection = sqlite3.connect(path, timeout=30.0)
    try:
        connection.execute("ATTACH DATABASE ? AS ahead", (copy_from,))
        with connection:
            connection.execute(TREES)
            for table in (*AHEAD_TABLES, "asset_names"):
                connection.execute(f"DELETE FROM main.{table}")
            for table in AHEAD_TABLES:  # each keyed by its primary key: the same rows, the same table
                connection.execute(f"INSERT INTO main.{table} SELECT * FROM ahead.{table}")
            connection.executemany("INSERT INTO asset_names (full_name, aliases, alias_ranks) VALUES (?, ?, ?)",
                                   _names(lineage))
            connection.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('dialect', ?)", (env.dialect,))
        connection.execute("DETACH DATABASE ahead")
    finally:
        connection.close()


# --- the SQL-only sync ------------------------------------------------------------------------------

class Decline(Exception):
    """The change is not one this module works out: the sync reads everything."""


def sync_sql_edits(project_dir: Path, root: Path, old: dict, snapshot: dict, budget, revision: str | None,
                   meta: dict, changed: list[str] | None = None, found_digest: str | None = None):
    """The epoch and store delta for a change to SQL only (see the module); returns the summary,
    or None to decline.  Runs under the environment's write lock.  ``changed``: the paths whose
    fingerprint differs, when the caller knows them; the store records ``snapshot`` as the files
    synced (``found_digest``: its digest) in the transaction that moves it to the new epoch."""
    try:
        engine = _Engine(Path(project_dir), root, budget, revision, meta)
        engine.files = (old, snapshot, changed, found_digest)
        return engine.run(old, snapshot, changed)
    except Decline:
        return None


class _Engine:
    def __init__(self, project_dir: Path, root: Path, budget, revision: str | None, meta: dict):
        from .store import STORE_FILE

        self.project_dir = project_dir
        self.root = root
        self.path = root / STORE_FILE
        self.budget = budget
        self.revision = revision
        self.meta = meta
        self.files = None  # (before, found, changed, digest): recorded with the store's change
        # The reader may look columns up from the thread it parses in (a guarded, deeper stack).
        self.connection = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False)
        from .store import STATEMENTS_BY_KEY

        with self.connection:
            self.connection.execute(STATEMENTS_BY_KEY)

    def run(self, old: dict, snapshot: dict, changed: list[str] | None = None):
        try:
            return self._run(old, snapshot, changed)
        finally:
            self.connection.close()

    # --- what changed ------------------------------------------------------------------------

    def _run(self, old: dict, snapshot: dict, changed: list[str] | None = None):
        if len(old) != len(snapshot) or old.keys() != snapshot.keys():
            raise Decline  # a file added or removed
        if changed is None:
            changed = sorted(p for p in snapshot if snapshot[p] != old[p])
        if not changed or len(changed) > 50 or not all(p.startswith(ENGINE_DIRECTORIES) for p in changed):
            raise Decline
        edits: dict[str, str] = {}  # writer's full name -> its new SQL
        documents = {}
        self.trees: dict[str, object] = {}  # each edited file's document now, kept for the next edit
        for relative in changed:
            before = self._stored_document(relative)
            # The stored document is the one ``_document_of`` reads: read once.
            self.__dict__.setdefault("_documents", {})[relative] = before
            try:
                text = (self.project_dir / relative).read_text(encoding="utf-8")
            except (OSError, ValueError):
                raise Decline from None
            after = _parsed(text)
            documents[relative] = text
            self.trees[relative] = after
            edits.update(_sql_edits(relative, before, after, self.meta.get("environment") or ""))
        if not edits:
            self.reads = {}
            return self._finish(changed, documents, {}, {}, {}, [])
        return self._apply(edits, changed, documents)

    # --- the reading, and what it changes ------------------------------------------------------

    def _apply(self, edits: dict[str, str], changed: list[str], documents: dict):
        """The rollup's reading (``rollup._Builder._result``), restricted to what the edits can
        reach: the statements downstream of the edited ones through the reverse lookups.  Each
        is re-used while every address it looked up has the columns it saw, else read again; the
        rest of the environment keeps its reads (nothing it looked up changed)."""
        from ..governance.sql_reading import statement_key

        # Asked name by name: the store answers each from an index, so a change that reads one
        # statement never loads the 100,000 names of a warehouse (``_StoreIds``, ``_StoreNames``).
        self.ids = _StoreIds(self.connection)
        self.edits = edits
        self.results: dict[str, object] = {}  # writer -> its read now
        self.statement: dict[str, tuple] = {}  # writer -> (position, key now, via, file, read_from)
        self.in_progress: set[str] = set()
        self.stack: list[str] = []  # the writers being read, innermost last
        self._check_scopes_before()
        downstream = set(edits)
        frontier = list(edits)
        while frontier:
            writer = frontier.pop()
            for dependent in self._dependents(writer):
                if dependent not in downstream:
                    downstream.add(dependent)
                    frontier.append(dependent)
                    if len(downstream) > MAX_AFFECTED * 25:
                        raise Decline
        self.downstream = downstream
        for writer in sorted(downstream):
            self._result(writer)
        changed_writers = {w: r for w, r in self.results.items()
                           if w in edits or r != self._old_read(self._statements_of(w)[0][1])}
        if len(changed_writers) > MAX_AFFECTED:
            raise Decline
        for writer, read in changed_writers.items():
            # A text another statement holds too, read otherwise now than the ledger has it (only
            # a cycle makes one text read two ways): that statement's group in the index holds
            # the ledger's read, and which read stands is the rollup's reading order — decline.
            key = self.statement[writer][1]
            others = {w for (w,) in self.connection.execute("SELECT writer FROM statements WHERE key = ?", (key,))}
            if others - set(changed_writers) and self._old_read(key) not in (None, read):
                raise Decline
        self.affected = changed_writers
        self._check_scopes_after()
        compiled = []
        edge_groups = {}
        statement_groups = {}
        for writer, read in sorted(changed_writers.items()):
            position, key, via, file, read_from = self.statement[writer]
            asset_id = self.ids[writer]
            asset = self._asset(writer)
            notes = self._read_notes(writer, read)
            if asset.sql_status != read.status or asset.read_notes != notes:
                compiled.append(replace(asset, sql_status=read.status, read_notes=notes))
            group = self._group(asset_id, read, via, file)
            if group != self._old_group(asset_id):
                edge_groups[asset_id] = group
            statement_groups[asset_id] = (read,)
        self.reads = {self.statement[w][1]: r for w, r in changed_writers.items()}
        return self._finish(changed, documents, {a.id: a for a in compiled}, edge_groups, statement_groups,
                            list(changed_writers))

    def _result(self, writer: str):
        """What ``writer``'s one statement reads now (``rollup._Builder._result``)."""
        from ..governance.sql_reading import statement_key

        found = self.results.get(writer)
        if found is not None:
            return found
        rows = self._statements_of(writer)
        if len(rows) != 1 or rows[0][1] is None:
            raise Decline  # several statements write it, or its SQL is in a file
        position, key, via, file, read_from = rows[0]
        if writer in self.in_progress:
            raise Decline  # a cycle: the rollup's reading order decides
        self.in_progress.add(writer)
        self.stack.append(writer)
        try:
            if writer in self.edits:
                sql = self.edits[writer]
                dialect = self._dialect_of(writer, via)
                key = statement_key(sql, dialect)
                read = self._read(writer, key, sql, dialect)
            else:
                old = self._old_read(key)
                if old is None:
                    raise Decline
                if self._still_valid(old):
                    read = old
                else:
                    sql, dialect = self._sql_of(writer, via, file)
                    if statement_key(sql, dialect) != key:
                        raise Decline
                    read = self._read(writer, key, sql, dialect)
        finally:
            self.in_progress.discard(writer)
            self.stack.pop()
        self.results[writer] = read
        self.statement[writer] = (position, key, via, file, read_from)
        return read

    def _read(self, writer: str, key: str, sql: str, dialect: str | None):
        if self.budget.max_bytes is not None and len(sql.encode("utf-8")) > self.budget.max_bytes:
            raise Decline  # a refusal under the budget: the full sync records it
        reader = self._reader()
        timeout = self.budget.timeout
        if timeout:
            import signal

            def alarm(signum, frame):
                raise _OverTime()

            previous = signal.signal(signal.SIGALRM, alarm)
            signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            return reader.read(sql, dialect)
        except (_OverTime, Decline):
            raise Decline from None  # over the budget: the full sync records the refusal
        except Exception:  # noqa: BLE001 - the full sync's workers report it
            raise Decline from None
        finally:
            if timeout:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, previous)

    def _reader(self):
        if getattr(self, "_sql_reader", None) is None:
            from ..governance.sql_reading import AddressBook, ProjectCatalog, SqlReader

            self.book = AddressBook((), names=_StoreNames(self.connection))
            self._sql_reader = SqlReader(self.book, ProjectCatalog(self.book, self._columns_of, self._complete))
        return self._sql_reader

    def _complete(self, name: str) -> bool:
        row = self.connection.execute("SELECT complete FROM declared WHERE name = ?", (name,)).fetchone()
        return row is None or bool(row[0])

    def _read_notes(self, writer: str, read) -> tuple:
        """What reading ``writer``'s one statement says of it, by the rollup's own rules
        (``rollup._Builder._read_notes``)."""
        from ..governance.rollup import _Builder

        row = self.connection.execute("SELECT declared, declared_by, language FROM statements WHERE writer = ?",
                                      (writer,)).fetchone()
        if row[2] != "sql":
            raise Decline  # not read: the rollup's status for it is not a read
        declared = None if row[0] is None else tuple((name, note, call) for name, note, call in json.loads(row[0]))

        class Statement:
            pass

        statement = Statement()
        statement.writer, statement.declared, statement.declared_by = writer, declared, row[1]
        lender = _NoteRules(self.ids, self._reader(), _Declared(self.connection))
        return tuple(dict.fromkeys(_Builder._read_notes(lender, statement, read)))

    def _columns_of(self, name: str):
        """``rollup._Builder._columns_of``: declared (complete), else the outputs of its single
        writer's read now (read first when it is downstream of an edit) unless that writer reads
        its own target; schema-less for the writer itself; a longer cycle declines."""
        from ..governance.sql_reading import reads_itself

        row = self.connection.execute("SELECT columns, complete FROM declared WHERE name = ?", (name,)).fetchone()
        if row is not None and row[0] is not None and row[1]:
            return tuple(tuple(c) for c in json.loads(row[0]))
        rows = self._statements_of(name)
        if len(rows) != 1 or rows[0][1] is None:
            return None  # several statements or SQL in a file (a statement not in SQL has no read)
        if name in self.in_progress:
            if self.stack and self.stack[-1] == name:
                return None  # the statement reads the table it writes: schema-less, as the rollup
            raise Decline  # a longer cycle: what each statement sees depends on the rollup's reading order
        read = self._result(name) if name in self.downstream else self._old_read(rows[0][1])
        if read is None or read.outputs is None or reads_itself(read, name):
            return None
        return tuple((n, None) for n in read.outputs)

    def _still_valid(self, read) -> bool:
        for dependency in read.dependencies:
            if dependency.resolved is not None and dependency.resolved.startswith("\x00"):
                raise Decline  # ambiguous or hidden candidates: the rollup decides
            if dependency.resolved is not None and self._columns_of(dependency.resolved) != dependency.columns:
                return False
        return True

    def _statements_of(self, writer: str) -> list[tuple]:
        return self.connection.execute("SELECT position, key, via, file, read_from FROM statements WHERE writer = ? "
                                       "ORDER BY position", (writer,)).fetchall()

    def _old_read(self, key: str | None):
        if key is None:
            return None
        row = self.connection.execute("SELECT read FROM ledger WHERE key = ?", (key,)).fetchone()
        return read_from_json(row[0]) if row else None

    def _dependents(self, writer: str) -> list[str]:
        keys = [k for (k,) in self.connection.execute("SELECT key FROM lookups WHERE resolved = ?", (writer,))]
        found = []
        for key in keys:
            found += [w for (w,) in self.connection.execute("SELECT writer FROM statements WHERE key = ?", (key,))]
        return sorted(set(found))

    def _dialect_of(self, writer: str, via: str) -> str | None:
        file = self._statements_of(writer)[0][3]
        document = self._document_of(writer, via, file)
        return document.get("dialect") or self.meta.get("dialect")

    def _document_of(self, writer: str, via: str, file: str):
        """The view's document, or the pipeline asset's entry, that declares ``writer``'s
        statement, from the file the statement is in."""
        cache = self.__dict__.setdefault("_documents", {})
        if file not in cache:
            cache[file] = self._stored_document(file)
        document = cache[file]
        if via == "view" and isinstance(document, dict) and \
                f"{document.get('namespace')}.{document.get('name')}" == writer:
            return document
        if via == "pipeline" and isinstance(document, dict):
            found = [a for a in document.get("assets") or () if isinstance(a, dict) and a.get("writes") == writer]
            if len(found) == 1:
                return found[0]
        raise Decline

    def _stored_document(self, relative: str):
        """The document of ``relative`` as the last sync read it: its stored tree when one was
        kept for that very text (a large file: parsing a pipeline file of 2,500 assets is a
        seventh of a second), else its stored text parsed."""
        row = self.connection.execute("SELECT document FROM documents WHERE path = ?", (relative,)).fetchone()
        if row is None:
            raise Decline
        tree = stored_tree(self.connection, relative, row[0])
        return tree if tree is not None else _parsed(row[0])

    def _sql_of(self, writer: str, via: str, file: str) -> tuple[str, str | None]:
        document = self._document_of(writer, via, file)
        sql = document.get("sql")
        if not isinstance(sql, str):
            raise Decline
        return sql, document.get("dialect") or self.meta.get("dialect")

    def _asset(self, full_name: str):
        from ..governance.rollup import Asset, ReadNote
        from ..governance.statuses import SqlStatus

        row = self.connection.execute(
            "SELECT id, asset_id, full_name, namespace, name, kind, owner, steward, certified, file, sql_status, "
            "sql_read_from, notes, read_notes FROM assets WHERE full_name = ?", (full_name,)).fetchone()
        names = self.connection.execute("SELECT aliases, alias_ranks FROM asset_names WHERE full_name = ?",
                                        (full_name,)).fetchone()
        aliases, ranks = (tuple(json.loads(names[0])), tuple(json.loads(names[1]))) if names else ((), ())
        return Asset(row[1], row[2], row[3], row[4], row[5], row[6], row[7], bool(row[8]), row[9], aliases,
                     SqlStatus(row[10]) if row[10] else None, row[11], ranks,
                     tuple(json.loads(row[12])) if row[12] else (),
                     tuple(ReadNote(text, tuple(mentions)) for text, mentions in json.loads(row[13]))
                     if row[13] else ())

    def _old_group(self, asset_id: str) -> tuple:
        """The target's incoming edges (base rows) as the rollup's objects, in ``edge_groups`` order."""
        from ..governance.rollup import LineageEdge
        from ..governance.sql_reading import ColumnLink
        from ..governance.statuses import Mark, Via

        rows = self.connection.execute(
            "SELECT s.asset_id, e.mark, e.via, e.file, l.links, e.note, e.revision FROM edges e "
            "JOIN assets s ON s.id = e.src JOIN assets t ON t.id = e.dst LEFT JOIN links l ON l.id = e.links "
            "WHERE t.asset_id = ? AND e.scope IS NULL", (asset_id,)).fetchall()
        edges = [LineageEdge(source, asset_id, Mark(mark), Via(via), file,
                             None if links is None else tuple(ColumnLink(*c) for c in json.loads(links)), note,
                             revision) for source, mark, via, file, links, note, revision in rows]
        return tuple(sorted(edges, key=lambda e: (e.source, e.mark, e.via, e.file)))

    def _group(self, asset_id: str, read, via: str, file: str) -> tuple:
        """The target's incoming edges after the change: its declared edges as they were, and the
        parsed edges of its statement's read now (``rollup._Builder._parsed_edges``), named with
        this sync's revision (they were read by it)."""
        from ..governance.rollup import LineageEdge
        from ..governance.statuses import Mark, Via

        declared = [e for e in self._old_group(asset_id) if e.mark is not Mark.PARSED]
        parsed = {}
        for name in read.reads:
            source = self.ids[name]
            if source != asset_id:
                edge = LineageEdge(source, asset_id, Mark.PARSED, Via(via), file, read.columns_from(name), None,
                                   self.revision)
                parsed.setdefault((edge.source, edge.target, edge.mark, edge.via, edge.file), edge)
        return tuple(sorted(declared + list(parsed.values()), key=lambda e: (e.source, e.mark, e.via, e.file)))

    # --- visibility scopes ----------------------------------------------------------------------

    def _viewers(self):
        from .viewers import StoredViewer

        return [StoredViewer.from_json(v) for (v,) in self.connection.execute("SELECT viewer FROM credentials")]

    def _check_scopes_before(self) -> None:
        if self.connection.execute("SELECT 1 FROM scope_targets LIMIT 1").fetchone() or \
                self.connection.execute("SELECT 1 FROM scope_assets LIMIT 1").fetchone():
            self._overridden = {a for (a,) in self.connection.execute(
                "SELECT a.full_name FROM scope_targets s JOIN assets a ON a.id = s.target UNION "
                "SELECT a.full_name FROM scope_assets s JOIN assets a ON a.id = s.asset")}
        else:
            self._overridden = set()

    def _check_scopes_after(self) -> None:
        """Decline when a visibility scope could read an affected statement otherwise than the
        base: one it reads on its own already, or one that looked up an asset it may not see."""
        restricted = [v for v in self._viewers() if not v.everything]
        if not restricted:
            return
        touched = set(self.affected)
        for writer, read in self.affected.items():
            touched |= {d.resolved for d in read.dependencies if d.resolved} | set(read.reads)
            old = self._old_read(self._statements_of(writer)[0][1])
            if old is not None:
                touched |= {d.resolved for d in old.dependencies if d.resolved} | set(old.reads)
        if touched & self._overridden:
            raise Decline
        for viewer in restricted:
            if not all(viewer.sees(name) for name in touched):
                raise Decline

    # --- writing -------------------------------------------------------------------------------

    def _finish(self, changed: list[str], documents: dict, compiled: dict, edge_groups: dict,
                statement_groups: dict, affected: list[str]):
        import datetime

        from ..index.writer import EpochWriter
        from .store import StoreWriter, update_files

        alive = [a for (a,) in self.connection.execute("SELECT asset_id FROM assets ORDER BY asset_id")]
        writer = EpochWriter(self.root)
        writer.revision = self.revision
        epoch = writer.write_known_delta(self.meta.get("environment") or "", "ran", alive,
                                         compiled=list(compiled.values()), edge_groups=edge_groups,
                                         statements=statement_groups)
        self.connection.close()
        meta = {"epoch": str(epoch), "revision": self.revision,
                "commit": self.revision.split("+")[0] if self.revision else None,
                "synced_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}

        def engine_state(connection) -> None:
            """The engine's own tables and the files' fingerprint, in the store's transaction: the
            store moves to the new epoch whole or not at all (a sync stopped before leaves the
            store of the epoch before, which the next sync rebuilds from the index)."""
            for writer_name in affected:
                position, key = self.statement[writer_name][0], self.statement[writer_name][1]
                old_key = connection.execute("SELECT key FROM statements WHERE position = ?",
                                             (position,)).fetchone()[0]
                connection.execute("UPDATE statements SET key = ? WHERE position = ?", (key, position))
                if old_key != key and not connection.execute("SELECT 1 FROM statements WHERE key = ?",
                                                             (old_key,)).fetchone():
                    connection.execute("DELETE FROM ledger WHERE key = ?", (old_key,))
                    connection.execute("DELETE FROM lookups WHERE key = ?", (old_key,))
            for key, read in self.reads.items() if affected else ():
                connection.execute("INSERT OR REPLACE INTO ledger (key, read) VALUES (?, ?)",
                                   (key, read_to_json(read)))
                connection.execute("DELETE FROM lookups WHERE key = ?", (key,))
                connection.executemany("INSERT OR IGNORE INTO lookups (resolved, key) VALUES (?, ?)",
                                       [(d.resolved, key) for d in read.dependencies if d.resolved])
            connection.executemany("INSERT OR REPLACE INTO documents (path, document) VALUES (?, ?)",
                                   sorted(documents.items()))
            write_trees(connection, {p: (documents[p], self.trees[p]) for p in documents if p in self.trees})
            if self.files is not None:
                update_files(connection, *self.files)

        StoreWriter(self.root).apply(assets=list(compiled.values()), edge_groups=edge_groups, meta=meta,
                                     also=engine_state)
        return epoch, len(self.reads) if affected else 0


class _OverTime(Exception):
    pass


class _StoreIds:
    """Each asset's public id by full name, as the rollup's ``ids`` mapping is asked (``[]``,
    ``get``, ``in``): one indexed query per name asked."""

    def __init__(self, connection):
        self.connection = connection
        self._found: dict[str, str | None] = {}

    def get(self, name: str, default=None):
        if name not in self._found:
            row = self.connection.execute("SELECT asset_id FROM assets WHERE full_name = ?", (name,)).fetchone()
            self._found[name] = row[0] if row else None
        found = self._found[name]
        return default if found is None else found

    def __getitem__(self, name: str) -> str:
        found = self.get(name)
        if found is None:
            raise KeyError(name)
        return found

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None


class _StoreNames:
    """The address book's catalog over the store's assets, built for the last parts asked only.

    ``Catalog.lookup`` only looks at the names whose last part equals the address's last part
    (lowercased), so a catalog of those names answers every lookup of that last part exactly as
    the catalog of all names (``sql_reading.AddressBook``): the names are grouped by last part
    once (a tenth of a second at 100,000 assets) and a catalog is built for each last part an
    address asks (building all of them took half a second)."""

    def __init__(self, connection):
        self.connection = connection
        self._catalogs: dict[str, object] = {}
        self._grouped: dict[str, list[str]] | None = None

    def _ending(self, last: str) -> list[str]:
        if self._grouped is None:
            grouped: dict[str, list[str]] = {}
            for (name,) in self.connection.execute("SELECT full_name FROM assets"):
                grouped.setdefault(name.rpartition(".")[2].lower(), []).append(name)
            self._grouped = grouped
        return self._grouped.get(last, [])

    def lookup(self, parts, origin=None):
        from ..catalog import Catalog
        from ..catalog import Table as CatalogTable

        last = parts[-1].lower()
        catalog = self._catalogs.get(last)
        if catalog is None:
            catalog = self._catalogs[last] = Catalog([CatalogTable(n, tuple(n.split(".")), ())
                                                      for n in self._ending(last)])
        return catalog.lookup(parts, origin)


class _Declared:
    """The declared columns as the rollup's ``declared_columns`` mapping is asked (``get``)."""

    def __init__(self, connection):
        self.connection = connection

    def get(self, name: str, default=None):
        row = self.connection.execute("SELECT columns FROM declared WHERE name = ?", (name,)).fetchone()
        if row is None or row[0] is None:
            return default
        return tuple(tuple(c) for c in json.loads(row[0]))


class _NoteRules:
    """Lends the rollup's read-note rules what they look at (the ids, the reader and the
    declared columns), so the engine says exactly what a full sync says."""

    def __init__(self, ids, reader, declared_columns):
        from ..governance.rollup import _Builder

        self.ids, self.reader, self.declared_columns = ids, reader, declared_columns
        self._unknown_column_notes = _Builder._unknown_column_notes.__get__(self)


# A view or pipeline file this large has its parsed document kept beside its text (as JSON, which
# loads ten times faster than its YAML parses), for the next SQL-only sync that edits it.
TREE_BYTES = 64 * 1024
TREES = ("CREATE TABLE IF NOT EXISTS document_trees (path TEXT PRIMARY KEY, text_digest TEXT NOT NULL, "
         "tree TEXT NOT NULL) WITHOUT ROWID")


def _text_digest(text: str) -> str:
    try:
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - a Python built without it
        from hashlib import blake2b
    return blake2b(text.encode("utf-8", "surrogatepass"), digest_size=20).hexdigest()


def write_trees(connection, documents: dict[str, tuple[str, object]]) -> None:
    """Keep the parsed document of each large file (path -> (text, document)), tied to the
    digest of the text it was parsed from: a writer that replaces the text without knowing the
    trees (an older build) leaves a tree no sync takes for that text."""
    connection.execute(TREES)
    for path, (text, document) in documents.items():
        connection.execute("DELETE FROM document_trees WHERE path = ?", (path,))
        if len(text) >= TREE_BYTES:
            connection.execute("INSERT INTO document_trees (path, text_digest, tree) VALUES (?, ?, ?)",
                               (path, _text_digest(text), json.dumps(document, ensure_ascii=False)))


def stored_tree(connection, path: str, text: str):
    """The kept document of ``path`` when it was parsed from ``text``; None otherwise."""
    if len(text) < TREE_BYTES:
        return None
    try:
        row = connection.execute("SELECT text_digest, tree FROM document_trees WHERE path = ?", (path,)).fetchone()
    except sqlite3.OperationalError:  # a store from before the table: the text is parsed
        return None
    if row is None or row[0] != _text_digest(text):
        return None
    return json.loads(row[1])


def _parsed(text: str):
    """A file's YAML document, as JSON would hold it; Decline for anything JSON cannot (a date,
    a set …: the full sync's loader says what it makes of it)."""
    import yaml

    try:
        document = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        return json.loads(json.dumps(document, ensure_ascii=False))
    except (ValueError, TypeError, yaml.YAMLError):
        raise Decline from None


def _sql_edits(relative: str, before, after, environment: str) -> dict[str, str]:
    """{writer: new SQL} when the two documents differ in SQL only; Decline otherwise."""
    if not isinstance(before, dict) or not isinstance(after, dict):
        raise Decline
    if set(before) != set(after) or before.get("environments") != after.get("environments"):
        raise Decline
    only = after.get("environments")
    applies = only is None or (isinstance(only, list) and environment in only)
    edits: dict[str, str] = {}
    if relative.startswith("views/"):
        for key in before:
            if key != "sql" and before[key] != after[key]:
                raise Decline
        if before.get("sql") != after.get("sql"):
            if not isinstance(after.get("sql"), str):
                raise Decline
            edits[f"{after.get('namespace')}.{after.get('name')}"] = after["sql"]
        return edits if applies else {}
    for key in before:
        if key != "assets" and before[key] != after[key]:
            raise Decline
    old_assets, new_assets = before.get("assets"), after.get("assets")
    if not isinstance(old_assets, list) or not isinstance(new_assets, list) or len(old_assets) != len(new_assets):
        raise Decline
    for old, new in zip(old_assets, new_assets):
        if not isinstance(old, dict) or not isinstance(new, dict) or set(old) != set(new):
            raise Decline
        for key in old:
            if key != "sql" and old[key] != new[key]:
                raise Decline
        if old.get("sql") != new.get("sql"):
            if not isinstance(new.get("sql"), str) or "sql" not in old:
                raise Decline
            writes = new.get("writes")
            if not isinstance(writes, str) or writes in edits:
                raise Decline
            edits[writes] = new["sql"]
    return edits if applies else {}
