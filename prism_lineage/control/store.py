"""The current store: an environment's lineage as of its last sync, built for walks (SQLite).

The epochs (``prism_lineage/index``) are the record: one per sync, Parquet, read with DuckDB.
Beside them each environment keeps one SQLite file, ``current.sqlite3``, holding what the newest
epoch says, shaped for answering: integer ids, the adjacency indexed in both directions (covering
indexes on ``(src, dst)`` and ``(dst, src)``), each edge's column detail (equal detail stored
once), the assets with what an answer shows of them, who may see what (``viewers.py``), and what
the sync was (its epoch, revision, parser state).  A sync updates it from its delta in one
transaction after the epoch is committed; ``lineage`` and ``lineage impact`` answer from it with
a few indexed queries (``reading.py``) and never load the project, the ledger or the epochs.

A store whose epoch is not the index's newest committed one is stale (a sync stopped between the
commit and the store's update): the next sync, or ``prism-lineage index repair``, rebuilds it
from the index.  See specs/control-plane.md.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path

STORE_FILE = "current.sqlite3"
STORE_VERSION = 3  # PRAGMA user_version: a store of another version is rebuilt, never read

UNREAD_INDEX = "CREATE INDEX IF NOT EXISTS assets_unread ON assets (id) WHERE sql_status IS NOT NULL"
# The SQL-only sync finds the statements that looked an asset up by their key (a scan of every
# statement per key without it); a store built before it gets it at its next SQL-only sync.
STATEMENTS_BY_KEY = "CREATE INDEX IF NOT EXISTS statements_by_key ON statements (key)"

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE assets (
    id INTEGER PRIMARY KEY,
    asset_id TEXT NOT NULL UNIQUE,
    full_name TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    namespace TEXT NOT NULL,
    kind TEXT NOT NULL,
    owner TEXT,
    steward TEXT,
    certified INTEGER NOT NULL,
    file TEXT NOT NULL,
    sql_status TEXT,
    sql_read_from TEXT,
    waiting INTEGER NOT NULL DEFAULT 0,
    notes TEXT,
    read_notes TEXT
);
CREATE INDEX assets_by_name ON assets (name);
CREATE INDEX assets_waiting ON assets (waiting) WHERE waiting;
CREATE INDEX IF NOT EXISTS assets_unread ON assets (id) WHERE sql_status IS NOT NULL;
CREATE TABLE aliases (alias TEXT NOT NULL, asset INTEGER NOT NULL, rank INTEGER NOT NULL DEFAULT 0,
                      PRIMARY KEY (alias, asset)) WITHOUT ROWID;
CREATE TABLE links (id INTEGER PRIMARY KEY, digest TEXT NOT NULL UNIQUE, links TEXT NOT NULL);
CREATE TABLE edges (
    id INTEGER PRIMARY KEY,
    src INTEGER NOT NULL,
    dst INTEGER NOT NULL,
    mark TEXT NOT NULL,
    via TEXT NOT NULL,
    file TEXT NOT NULL,
    links INTEGER,
    note TEXT,
    revision TEXT,
    scope INTEGER
);
CREATE INDEX edges_down ON edges (src, dst, scope);
CREATE INDEX edges_up ON edges (dst, src, scope);
CREATE TABLE credentials (name TEXT PRIMARY KEY, viewer TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE scopes (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE);
CREATE TABLE scope_assets (
    scope INTEGER NOT NULL, asset INTEGER NOT NULL, sql_status TEXT, sql_read_from TEXT, waiting INTEGER NOT NULL,
    read_notes TEXT, PRIMARY KEY (scope, asset)
) WITHOUT ROWID;
CREATE TABLE scope_targets (scope INTEGER NOT NULL, target INTEGER NOT NULL, PRIMARY KEY (scope, target)) WITHOUT ROWID;
CREATE TABLE scope_ledgers (key TEXT PRIMARY KEY, ledger BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE refused (key TEXT PRIMARY KEY, why TEXT NOT NULL, timeout REAL, max_bytes INTEGER) WITHOUT ROWID;
CREATE TABLE files (path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, ctime_ns INTEGER, inode INTEGER)
    WITHOUT ROWID;
CREATE TABLE documents (path TEXT PRIMARY KEY, document TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE statements (position INTEGER PRIMARY KEY, writer TEXT NOT NULL, key TEXT, via TEXT NOT NULL,
                         file TEXT NOT NULL, read_from TEXT, declared TEXT, declared_by TEXT NOT NULL DEFAULT 'reads',
                         language TEXT NOT NULL DEFAULT 'sql');
CREATE INDEX statements_by_writer ON statements (writer);
CREATE INDEX IF NOT EXISTS statements_by_key ON statements (key);
CREATE TABLE ledger (key TEXT PRIMARY KEY, read TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE lookups (resolved TEXT NOT NULL, key TEXT NOT NULL, PRIMARY KEY (resolved, key)) WITHOUT ROWID;
CREATE TABLE declared (name TEXT PRIMARY KEY, columns TEXT, complete INTEGER NOT NULL DEFAULT 1) WITHOUT ROWID;
CREATE TABLE asset_names (full_name TEXT PRIMARY KEY, aliases TEXT NOT NULL, alias_ranks TEXT NOT NULL) WITHOUT ROWID;
"""

# A store built whole (``build_aside``) creates its tables, fills them, then creates the indexes
# of ``SCHEMA`` (the same statements, so the same schema): an index built from its table's rows
# at once is sorted once, instead of being updated row by row in random order.
_STATEMENTS = [part.strip() for part in SCHEMA.split(";") if part.strip()]
_SCHEMA_TABLES = ";\n".join(p for p in _STATEMENTS if not p.startswith("CREATE INDEX")) + ";"
_SCHEMA_INDEXES = ";\n".join(p for p in _STATEMENTS if p.startswith("CREATE INDEX")) + ";"

# What ``meta`` holds (all text; absent: NULL).
META_KEYS = ("project", "environment", "status", "held_for_review", "parser", "epoch", "revision", "commit",
             "synced_at", "environments", "default_environment", "visibility_independent",
             "missing", "budget", "version", "statements", "in_files", "interim", "files_digest")
# missing: JSON list of what index repair quarantined and no sync has healed yet; budget: the
# reading budget of the last full sync; version: prism_lineage's; statements, in_files: counts;
# interim: "1" while a sync has written this revision's assets but not read what is new in it;
# files_digest: "<epoch>@<digest>" of the ``files`` rows (``files_digest``).


class StoreError(Exception):
    """The store cannot be read (corrupt, another version): rebuild it from the index."""


def store_path(root: str | Path) -> Path:
    return Path(root) / STORE_FILE


def connect_read(path: Path) -> sqlite3.Connection:
    """A read-only connection; a write in progress makes it wait up to 5 s, never read half."""
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5.0, check_same_thread=False)
    try:
        version = connection.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.DatabaseError as error:
        connection.close()
        raise StoreError(f"{path} is not a readable store: {error}") from None
    if version != STORE_VERSION:
        connection.close()
        raise StoreError(f"{path} is a store of version {version}, not {STORE_VERSION}")
    return connection


def notes_json(notes) -> str | None:
    """An asset's declaration notes as stored (a JSON list of text; None: none)."""
    return json.dumps(list(notes), ensure_ascii=False, separators=(",", ":")) if notes else None


def read_notes_json(notes) -> str | None:
    """An asset's read notes (``rollup.ReadNote``) as stored: a JSON list of [text, [mentions]]."""
    if not notes:
        return None
    return json.dumps([[n.text, list(n.mentions)] for n in notes], ensure_ascii=False, separators=(",", ":"))


def alias_rows(asset, identifier: int) -> list[tuple[str, int, int]]:
    """(alias, asset, rank) rows: a name held twice keeps its strongest rank."""
    ranks: dict[str, int] = {}
    for i, alias in enumerate(asset.aliases):
        rank = asset.alias_ranks[i] if i < len(asset.alias_ranks) else 0
        ranks[alias] = min(rank, ranks.get(alias, rank))
    return [(alias, identifier, rank) for alias, rank in ranks.items()]


# One encoder for every edge (``json.dumps`` with options builds one per call): the same text.
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def links_json(columns, memo: dict | None = None) -> str | None:
    """A parsed edge's column detail as stored (a compact JSON list of 5-lists); None: not traced.
    ``memo``: each link's own JSON by ``id`` of the link, for a caller encoding many edges whose
    links it keeps alive meanwhile (a warehouse's edges share most links: the rollup shares the
    objects); the text is the same (the items joined by ``,``, as the encoder joins them)."""
    if columns is None:
        return None
    if memo is None:
        return _COMPACT.encode([[c.source, c.target, c.relationship, c.transformation, c.confidence]
                                for c in columns])
    parts = []
    for c in columns:
        found = memo.get(id(c))
        if found is None:
            found = memo[id(c)] = (_COMPACT.encode([c.source, c.target, c.relationship, c.transformation,
                                                    c.confidence]), c)  # the link kept: its id stays its own
        parts.append(found[0])
    return "[" + ",".join(parts) + "]"


class StoreWriter:
    """Writes an environment's store: whole (into a new file renamed into place) or a delta (one
    transaction).  Rows come from the rollup's own objects (``governance.rollup``)."""

    def __init__(self, root: str | Path):
        self.root = Path(root)
        self.path = store_path(self.root)

    # --- whole ------------------------------------------------------------------------------

    def build(self, lineage, meta: Mapping[str, str | None], credentials: Mapping[str, dict]) -> None:
        """The store of ``lineage``, written to a temporary file and renamed into place."""
        self.publish(self.build_aside(lineage, meta, credentials))

    def aside(self) -> str:
        """An empty temporary file beside the store, for ``build_aside``."""
        import tempfile

        self.root.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=".tmp-store-", suffix=".sqlite3", dir=self.root)
        os.close(handle)
        return temporary

    def publish(self, temporary: str | Path) -> None:
        """A store written aside (``build_aside``) made the store: flushed to disk, given the
        permissions of a file the user creates (mkstemp's is private), renamed into place."""
        try:
            with open(temporary, "rb") as written:
                os.fsync(written.fileno())
            os.chmod(temporary, 0o666 & ~_umask())
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    def build_aside(self, lineage, meta: Mapping[str, str | None], credentials: Mapping[str, dict],
                    temporary: str | None = None) -> str:
        """The store of ``lineage`` in a temporary file beside the store (its path returned; the
        caller publishes or removes it).  ``temporary``: an empty file made by ``aside``."""
        if temporary is None:
            temporary = self.aside()
        try:
            connection = sqlite3.connect(temporary)
            try:
                connection.execute("PRAGMA journal_mode = OFF")
                connection.execute("PRAGMA synchronous = OFF")
                connection.executescript(_SCHEMA_TABLES)
                with connection:
                    ids = self._insert_assets(connection, lineage.assets.values(), lineage.waiting)
                    self._insert_edges(connection, lineage.edges, ids)
                    self._write_scopes(connection, lineage.scoped, ids)
                    self._write_meta(connection, meta)
                    self._write_credentials(connection, credentials)
                connection.executescript(_SCHEMA_INDEXES)
                with connection:
                    connection.execute(f"PRAGMA user_version = {STORE_VERSION}")
                connection.execute("ANALYZE")
            finally:
                connection.close()
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        return temporary

    # --- delta ------------------------------------------------------------------------------

    def apply(self, *, assets: Iterable = (), removed: Iterable[str] = (), waiting: frozenset[str] = frozenset(),
              edge_groups: Mapping[str, tuple] | None = None, meta: Mapping[str, str | None],
              credentials: Mapping[str, dict] | None = None, scoped: Mapping | None = None, also=None) -> None:
        """One transaction: ``assets`` (new or changed ``Asset`` objects) upserted, ``removed``
        asset ids deleted with their edges, each target of ``edge_groups`` given exactly those
        incoming edges (base rows), ``meta`` and ``credentials`` (when given) replaced, and the
        visibility scopes' overrides (when given: ``EnvironmentLineage.scoped``) replaced;
        ``also(connection)`` writes the rest of the caller's change in the same transaction."""
        connection = sqlite3.connect(self.path, timeout=30.0)
        try:
            if connection.execute("PRAGMA user_version").fetchone()[0] != STORE_VERSION:
                raise StoreError(f"{self.path} is not a store of version {STORE_VERSION}")
            with connection:
                # Every answer lists the assets whose SQL was not read: without this partial
                # index that is a scan of every asset (8 ms of a 9 ms answer at 100,000 assets).
                # A store built before it gets it at its next sync.
                connection.execute(UNREAD_INDEX)
                removed = list(removed)
                if removed:
                    gone = _ids_of(connection, removed)
                    marks = ",".join(str(i) for i in gone)
                    if marks:
                        connection.execute(f"DELETE FROM edges WHERE src IN ({marks}) OR dst IN ({marks})")
                        connection.execute(f"DELETE FROM aliases WHERE asset IN ({marks})")
                        connection.execute(f"DELETE FROM scope_assets WHERE asset IN ({marks})")
                        connection.execute(f"DELETE FROM scope_targets WHERE target IN ({marks})")
                        connection.execute(f"DELETE FROM assets WHERE id IN ({marks})")
                assets = list(assets)
                if assets:
                    self._upsert_assets(connection, assets, waiting)
                if edge_groups:
                    wanted = set(edge_groups) | {e.source for g in edge_groups.values() for e in g}
                    ids = _id_map(connection, wanted)
                    targets = ",".join(str(ids[t]) for t in edge_groups if t in ids)
                    if targets:
                        connection.execute(f"DELETE FROM edges WHERE dst IN ({targets}) AND scope IS NULL")
                    self._insert_edges(connection, [e for g in edge_groups.values() for e in g], ids)
                if scoped is not None:
                    connection.execute("DELETE FROM edges WHERE scope IS NOT NULL")
                    connection.execute("DELETE FROM scope_assets")
                    connection.execute("DELETE FROM scope_targets")
                    connection.execute("DELETE FROM scopes")
                    wanted = {a for o in scoped.values() for a in o.assets} | set(
                        t for o in scoped.values() for t in o.edges) | {
                        e.source for o in scoped.values() for g in o.edges.values() for e in g}
                    self._write_scopes(connection, scoped, _id_map(connection, wanted))
                if removed or edge_groups or scoped is not None:
                    connection.execute("DELETE FROM links WHERE id NOT IN (SELECT links FROM edges WHERE links IS "
                                       "NOT NULL)")
                self._write_meta(connection, meta)
                if credentials is not None:
                    connection.execute("DELETE FROM credentials")
                    self._write_credentials(connection, credentials)
                if also is not None:
                    also(connection)
        finally:
            connection.close()

    def set_meta(self, meta: Mapping[str, str | None]) -> None:
        connection = sqlite3.connect(self.path, timeout=30.0)
        try:
            with connection:
                self._write_meta(connection, meta)
        finally:
            connection.close()

    # --- rows -------------------------------------------------------------------------------

    @staticmethod
    def _asset_row(asset, waiting: frozenset[str]) -> tuple:
        return (asset.id, asset.full_name, asset.name, asset.namespace, asset.kind, asset.owner, asset.steward,
                int(bool(asset.certified)), asset.file, asset.sql_status.value if asset.sql_status else None,
                asset.sql_read_from, int(asset.id in waiting), notes_json(asset.notes),
                read_notes_json(asset.read_notes))

    def _insert_assets(self, connection, assets: Iterable, waiting: frozenset[str]) -> dict[str, int]:
        ordered = sorted(assets, key=lambda a: a.full_name)
        connection.executemany(
            "INSERT INTO assets (asset_id, full_name, name, namespace, kind, owner, steward, certified, file, "
            "sql_status, sql_read_from, waiting, notes, read_notes) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            [self._asset_row(a, waiting) for a in ordered])
        ids = dict(connection.execute("SELECT asset_id, id FROM assets"))
        connection.executemany("INSERT OR IGNORE INTO aliases (alias, asset, rank) VALUES (?, ?, ?)",
                               [row for a in ordered for row in alias_rows(a, ids[a.id])])
        return ids

    def _upsert_assets(self, connection, assets: list, waiting: frozenset[str]) -> None:
        connection.executemany(
            "INSERT INTO assets (asset_id, full_name, name, namespace, kind, owner, steward, certified, file, "
            "sql_status, sql_read_from, waiting, notes, read_notes) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
            "ON CONFLICT (asset_id) DO UPDATE SET full_name = excluded.full_name, name = excluded.name, "
            "namespace = excluded.namespace, kind = excluded.kind, owner = excluded.owner, "
            "steward = excluded.steward, certified = excluded.certified, file = excluded.file, "
            "sql_status = excluded.sql_status, sql_read_from = excluded.sql_read_from, waiting = excluded.waiting, "
            "notes = excluded.notes, read_notes = excluded.read_notes",
            [self._asset_row(a, waiting) for a in assets])
        ids = _id_map(connection, {a.id for a in assets})
        marks = ",".join(str(ids[a.id]) for a in assets)
        connection.execute(f"DELETE FROM aliases WHERE asset IN ({marks})")
        connection.executemany("INSERT OR IGNORE INTO aliases (alias, asset, rank) VALUES (?, ?, ?)",
                               [row for a in assets for row in alias_rows(a, ids[a.id])])

    def _write_scope_ledgers(self, connection, scoped: Mapping) -> None:
        """Each scope's own reads (the next sync re-uses them, as the index's ledger for the
        base): the rows of ``compile/statements`` as one Parquet blob per scope."""
        from ..index.ledger import scope_ledger_blob

        connection.execute("DELETE FROM scope_ledgers")
        connection.executemany("INSERT INTO scope_ledgers (key, ledger) VALUES (?, ?)",
                               [(key, scope_ledger_blob(o)) for key, o in sorted(scoped.items()) if o.ledger])

    def _write_scopes(self, connection, scoped: Mapping, ids: Mapping[str, int]) -> None:
        """Each visibility scope worked out (``ScopeOverrides`` by key): its key — a scope with
        no override reads as the base, and is stored all the same, so that the read path tells
        it from a scope not worked out — its assets' statuses, and its edge groups."""
        self._write_scope_ledgers(connection, scoped)
        for key in sorted(scoped):
            overrides = scoped[key]
            scope = connection.execute("INSERT INTO scopes (key) VALUES (?)", (key,)).lastrowid
            connection.executemany(
                "INSERT INTO scope_assets (scope, asset, sql_status, sql_read_from, waiting, read_notes) "
                "VALUES (?,?,?,?,?,?)",
                [(scope, ids[a.id], a.sql_status.value if a.sql_status else None, a.sql_read_from,
                  int(a.sql_status is not None and a.sql_status.value == "Not read yet"), read_notes_json(a.read_notes))
                 for a in overrides.assets.values()])
            connection.executemany("INSERT INTO scope_targets (scope, target) VALUES (?, ?)",
                                   [(scope, ids[target]) for target in overrides.edges])
            self._insert_edges(connection, [e for group in overrides.edges.values() for e in group], ids, scope)

    def _insert_edges(self, connection, edges: Iterable, ids: Mapping[str, int], scope: int | None = None) -> None:
        import hashlib

        edges = list(edges)
        memo: dict = {}  # the edges (and their links) stay alive while it is used
        # Each edge's detail by the identity of its links (a warehouse's edges hold few distinct
        # lists of shared links): the same text, made once per list, found by compiled code.
        by_links: dict[tuple, str | None] = {}
        details = []
        for edge in edges:
            columns = edge.columns
            key = None if columns is None else tuple(map(id, columns))
            detail = by_links.get(key, by_links)
            if detail is by_links:
                detail = by_links[key] = links_json(columns, memo)
            details.append(detail)
        # Each column detail once, in the order first met (the ids it gets are those one insert
        # per detail gave), then every id in a few queries instead of two per detail.
        digests = {detail: hashlib.blake2b(detail.encode(), digest_size=16).hexdigest()
                   for detail in dict.fromkeys(details) if detail is not None}
        connection.executemany("INSERT OR IGNORE INTO links (digest, links) VALUES (?, ?)",
                               [(digest, detail) for detail, digest in digests.items()])
        by_digest: dict[str, int] = {}
        wanted = list(digests.values())
        for start in range(0, len(wanted), 500):
            part = wanted[start:start + 500]
            by_digest.update(connection.execute(f"SELECT digest, id FROM links WHERE digest IN "
                                                f"({','.join('?' * len(part))})", part))
        link_of: dict[str | None, int | None] = {detail: by_digest[digest] for detail, digest in digests.items()}
        link_of[None] = None  # not traced
        rows = [(ids[edge.source], ids[edge.target], edge.mark._value_, edge.via._value_, edge.file, link_of[detail],
                 edge.note, getattr(edge, "revision", None), scope) for edge, detail in zip(edges, details)]
        connection.executemany("INSERT INTO edges (src, dst, mark, via, file, links, note, revision, scope) "
                               "VALUES (?,?,?,?,?,?,?,?,?)", rows)

    @staticmethod
    def _write_meta(connection, meta: Mapping[str, str | None]) -> None:
        connection.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                               [(k, None if v is None else str(v)) for k, v in meta.items()])

    @staticmethod
    def _write_credentials(connection, credentials: Mapping[str, dict]) -> None:
        connection.executemany("INSERT INTO credentials (name, viewer) VALUES (?, ?)",
                               [(name, json.dumps(data, ensure_ascii=False)) for name, data in credentials.items()])


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _ids_of(connection, asset_ids: list[str]) -> list[int]:
    return list(_id_map(connection, set(asset_ids)).values())


def _id_map(connection, asset_ids: set[str]) -> dict[str, int]:
    """asset id → integer id, for the given ids that the store holds."""
    found: dict[str, int] = {}
    wanted = list(asset_ids)
    for start in range(0, len(wanted), 500):
        chunk = wanted[start:start + 500]
        marks = ",".join("?" * len(chunk))
        found.update(connection.execute(f"SELECT asset_id, id FROM assets WHERE asset_id IN ({marks})", chunk))
    return found


def read_meta(path: Path) -> dict[str, str | None]:
    connection = connect_read(path)
    try:
        return dict(connection.execute("SELECT key, value FROM meta"))
    finally:
        connection.close()


def read_scope_ledgers(path: Path) -> dict:
    """The scopes' own reads a store keeps (``ScopeOverrides`` holding only their ledgers, by
    scope key), for the next sync to re-use; empty when the store cannot be read."""
    from ..index.ledger import scope_ledger_of

    try:
        connection = connect_read(path)
    except (StoreError, sqlite3.Error):
        return {}
    try:
        return {key: scope_ledger_of(key, blob) for key, blob in connection.execute("SELECT key, ledger FROM "
                                                                                    "scope_ledgers")}
    except sqlite3.Error:
        return {}
    finally:
        connection.close()


def read_refused(path: Path) -> dict[str, tuple[str, float | None, int | None]]:
    """Statements a sync refused to read whole (over its budget, or crashing the parser), by
    statement key: (why, the timeout and size limit it was refused under)."""
    try:
        connection = connect_read(path)
    except (StoreError, sqlite3.Error):
        return {}
    try:
        return {key: (why, timeout, max_bytes) for key, why, timeout, max_bytes in connection.execute(
            "SELECT key, why, timeout, max_bytes FROM refused")}
    except sqlite3.Error:
        return {}
    finally:
        connection.close()


def write_refused(path: Path, refused: Mapping[str, tuple[str, float | None, int | None]]) -> None:
    connection = sqlite3.connect(path, timeout=30.0)
    try:
        with connection:
            connection.execute("DELETE FROM refused")
            connection.executemany("INSERT INTO refused (key, why, timeout, max_bytes) VALUES (?, ?, ?, ?)",
                                   [(k, *v) for k, v in sorted(refused.items())])
    finally:
        connection.close()


def read_fingerprint(path: Path) -> dict:
    try:
        connection = connect_read(path)
    except (StoreError, sqlite3.Error):
        return {}
    try:
        return {row[0]: tuple(row[1:]) for row in connection.execute(
            "SELECT path, size, mtime_ns, ctime_ns, inode FROM files")}
    except sqlite3.Error:
        return {}
    finally:
        connection.close()


def update_fingerprint(path: Path, before: Mapping[str, tuple], found: Mapping[str, tuple],
                       changed: Iterable[str] | None = None, found_digest: str | None = None) -> None:
    """``write_fingerprint`` for a store that holds ``before``: only the files that differ are
    written (an SQL-only sync at 100,000 files changes one row, not 100,000); ``changed``: the
    paths that differ, when the caller knows them (``changed_files``)."""
    connection = sqlite3.connect(path, timeout=30.0)
    try:
        with connection:
            update_files(connection, before, found, changed, found_digest)
    finally:
        connection.close()


def update_files(connection, before: Mapping[str, tuple], found: Mapping[str, tuple],
                 changed: Iterable[str] | None = None, found_digest: str | None = None) -> None:
    """``update_fingerprint`` within the caller's transaction (after its ``meta.epoch``)."""
    if changed is None:
        changed = [p for p, v in found.items() if tuple(before.get(p) or ()) != tuple(v)]
    connection.executemany("DELETE FROM files WHERE path = ?", [(p,) for p in sorted(before.keys() - found.keys())])
    connection.executemany("INSERT OR REPLACE INTO files (path, size, mtime_ns, ctime_ns, inode) "
                           "VALUES (?,?,?,?,?)", [(p, *found[p]) for p in sorted(changed)])
    _write_files_digest(connection, found, found_digest)


def write_fingerprint(path: Path, found: Mapping[str, tuple]) -> None:
    """The project's files as the sync that just committed read them (None: forget them, so
    that the next sync reads the project)."""
    connection = sqlite3.connect(path, timeout=30.0)
    try:
        with connection:
            connection.execute("DELETE FROM files")
            connection.executemany("INSERT INTO files (path, size, mtime_ns, ctime_ns, inode) VALUES (?,?,?,?,?)",
                                   [(p, *v) for p, v in sorted(found.items())])
            _write_files_digest(connection, found)
    finally:
        connection.close()


# ``meta.files_digest``: "<epoch>@<newest change time>@<digest>" of the files the ``files`` rows
# hold (``fingerprint.digest``, ``fingerprint.newest_change``).  Tied to the store's epoch, so that
# a writer that rewrites the rows without knowing this key (an older build) leaves a value no
# sync takes for current.
FILES_DIGEST = "files_digest"


def files_digest(epoch: str | int | None, found: Mapping[str, tuple], found_digest: str | None = None) -> str | None:
    """What ``meta.files_digest`` holds for the files ``found`` as of ``epoch``."""
    if not found or epoch is None:
        return None
    from .fingerprint import digest, newest_change

    return f"{epoch}@{newest_change(found)}@{found_digest or digest(found)}"


def recorded_digest(meta: Mapping[str, str | None]) -> tuple[int, str] | None:
    """(newest change time, digest) of the files the store's rows hold, when recorded as of the
    store's own epoch; None otherwise."""
    recorded = (meta.get(FILES_DIGEST) or "").split("@")
    if len(recorded) == 3 and recorded[0] == meta.get("epoch") and recorded[1].isdigit():
        return int(recorded[1]), recorded[2]
    return None


def changed_files(path: Path, meta: Mapping[str, str | None], found: Mapping[str, tuple],
                  found_digest: str) -> tuple[dict, list[str]]:
    """(the files as the store holds them, the paths whose values differ from ``found``).

    Without reading a row per file when it can: the files changed since the last sync are
    guessed — those changed at or after the newest change time it recorded — and only their rows
    are read; the guess is taken only if ``found`` with those rows put back has the digest the
    store recorded, which says that every other file is as recorded (same paths, same order,
    same values).  Otherwise (a clock set back, a file added or removed, a store without the
    digest) every row is read and compared."""
    recorded = recorded_digest(meta)
    if recorded is not None:
        from .fingerprint import digest

        newest, recorded_files = recorded
        # ``>=``: a file written in the same clock tick as the newest one recorded is guessed too.
        guessed = [p for p, values in found.items() if values[2] >= newest]
        rows = _file_rows(path, guessed)
        if len(rows) == len(guessed):
            before = dict(found)
            before.update(rows)
            if digest(before) == recorded_files:
                return before, sorted(p for p in guessed if rows[p] != tuple(found[p]))
    before = read_fingerprint(path)
    return before, sorted(p for p, values in found.items() if p in before and before[p] != tuple(values))


def _file_rows(path: Path, paths: list[str]) -> dict[str, tuple]:
    try:
        connection = connect_read(path)
    except (StoreError, sqlite3.Error):
        return {}
    found: dict[str, tuple] = {}
    try:
        for start in range(0, len(paths), 500):
            chunk = paths[start:start + 500]
            found.update((row[0], tuple(row[1:])) for row in connection.execute(
                f"SELECT path, size, mtime_ns, ctime_ns, inode FROM files WHERE path IN "
                f"({','.join('?' * len(chunk))})", chunk))
    except sqlite3.Error:
        return {}
    finally:
        connection.close()
    return found


def _write_files_digest(connection, found: Mapping[str, tuple], found_digest: str | None = None) -> None:
    row = connection.execute("SELECT value FROM meta WHERE key = 'epoch'").fetchone()
    connection.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                       (FILES_DIGEST, files_digest(row[0] if row else None, found, found_digest)))
