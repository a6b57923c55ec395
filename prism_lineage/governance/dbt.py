"""A dbt project's ``manifest.json`` (and ``catalog.json``) as project declarations.

* sources and seeds → tables; nodes naming one relation (a seed and a source declared on the
  table it loads) → one asset, found by every dbt name (dbt's ``--select`` precedence);
* models materialised as views → views;
* every other model (table, incremental, materialised view, snapshot, Python) → an asset of
  one pipeline named after the project, writing a table;
* every model's ``depends_on`` (its ``ref()``/``source()`` calls) → declared reads;
* ephemeral models are no asset: dbt inlines them as ``__dbt__cte__<name>`` into their
  children's compiled SQL, so lineage runs through them to their own reads, and a dependency
  on one is a dependency on what it reads;
* ``owner``, ``steward`` and ``certified`` come from ``meta`` (the node's, over its config's);
* column names and types from ``catalog.json`` where it has the node (complete), else the
  manifest's ``columns`` — documentation only (``columns_complete=False``): the rollup takes a
  model's shape from its SQL and never expands a star over them (field trial 02).

A node's SQL is its ``compiled_code``; where only ``raw_code`` exists (a manifest from ``dbt
parse``), ``ref()``, ``source()``, ``this`` and ``config()`` are resolved and ephemeral models
are inlined the way dbt does, and the asset says its SQL was read from raw code.

The manifest's ``metadata.dbt_schema_version`` is read first: versions 7 to 12 (dbt 1.3 and
later, whose nodes hold ``raw_code``/``compiled_code``) are read; an older one (whose SQL is in
``raw_sql``/``compiled_sql``), a newer one and a manifest without a version are refused by name,
never read as holding no SQL.  Files are read through ``files.py`` (regular files under the
project, bounded in size and nesting).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from sqlglot import exp
from sqlglot.errors import SqlglotError

from ..terminal import printable
from .access import AccessPolicy
from .declarations import Column, DeclaredRead, Environment, Pipeline, PipelineAsset, Project, Table, View
from .dbt_shape import check_catalog, check_manifest
from .errors import ProjectError
from .files import load_json, load_yaml

COMPILED = "compiled_code"
JINJA = "jinja"  # a node's language when its raw code keeps Jinja that only dbt renders
RAW = "raw_code, with ref() and source() resolved"
EPHEMERAL_PREFIX = "__dbt__cte__"
SUPPORTED_SCHEMA_VERSIONS = range(7, 13)  # manifest v7 (dbt 1.3, raw_code) to v12
_SCHEMA_VERSION = re.compile(r"/manifest/v([0-9]+)\.json$")
MANIFEST_FILE = "target/manifest.json"
CATALOG_FILE = "target/catalog.json"
_VIEW = "view"
_EPHEMERAL = "ephemeral"
_WRITTEN = ("model", "snapshot")
# dbt adapter → sqlglot dialect (adapters not listed are read in sqlglot's default dialect).
_DIALECTS = {
    "duckdb": "duckdb", "postgres": "postgres", "snowflake": "snowflake", "bigquery": "bigquery",
    "redshift": "redshift", "databricks": "databricks", "spark": "spark", "trino": "trino",
    "athena": "athena", "clickhouse": "clickhouse", "sqlserver": "tsql", "fabric": "tsql",
    "oracle": "oracle", "mysql": "mysql", "teradata": "teradata", "materialize": "materialize",
}


def is_dbt_project(root: Path) -> bool:
    return (root / "dbt_project.yml").is_file() or (root / "target" / "manifest.json").is_file()


def load_dbt_project(root: str | Path, *, environment: str | None = None) -> tuple[Project, AccessPolicy]:
    """A dbt project directory: ``target/manifest.json`` and ``target/catalog.json`` (optional),
    with an optional ``access.yaml`` beside ``dbt_project.yml``."""
    root = Path(root)
    _target_files(root)
    from .native import ACCESS_FILE, _access

    access = _access(root)
    importer, metadata = _importer(root)
    project = _built(lambda: _project(importer, metadata, environment or _profile_target(root), access.owner))
    return project, access


def _target_files(root: Path) -> tuple[Path, Path | None]:
    """``target/manifest.json`` (required) and ``target/catalog.json`` (when present)."""
    manifest = root / MANIFEST_FILE
    if not manifest.is_file():
        configured = _configured_target_path(root)
        if configured is not None:
            # dbt wrote it elsewhere: say so, rather than "run dbt compile" to someone who did.
            # Only target/ is read (and watched by syncs), so the refusal stands.
            raise ProjectError(f"{printable(str(root))} has no target/manifest.json: dbt_project.yml sets "
                               f"target-path: {printable(configured)}, and only target/ is read: run "
                               "'dbt compile --target-path target' (or 'dbt docs generate --target-path target')")
        raise ProjectError(f"{printable(str(root))} has no target/manifest.json: run 'dbt compile' or "
                           "'dbt docs generate' first")
    catalog = root / CATALOG_FILE
    return manifest, catalog if catalog.is_file() else None


def load_manifest(manifest_path: str | Path, catalog_path: str | Path | None = None, *,
                  environment: str = "default", owner: str | None = None) -> Project:
    """A manifest (and catalog) given by path, read from the directory that holds it."""
    manifest_path = Path(manifest_path)
    root = manifest_path.parent
    importer, metadata = _importer(root, manifest_path.name,
                                   Path(catalog_path).name if catalog_path is not None else None,
                                   catalog_root=Path(catalog_path).parent if catalog_path is not None else None)
    return _built(lambda: _project(importer, metadata, environment, owner))


def _project(importer: "_Importer", metadata: dict, environment: str, owner: str | None) -> Project:
    project_name = metadata.get("project_name") or "dbt"
    env = Environment(
        name=environment, dialect=importer.dialect, tables=tuple(importer.tables()), views=tuple(importer.views()),
        pipelines=(importer.pipeline(project_name),) if importer.written else (),
    )
    return Project(name=project_name, environments=(env,), default_environment=environment, owner=owner,
                   format="dbt")


def _built(build):
    """What ``build`` makes of the manifest, or a refusal naming what is wrong with it (two
    relations at one address, an identifier with a control character, a name that cannot be
    a project's …) — never an internal error."""
    try:
        return build()
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        message = first["msg"].removeprefix("Value error, ")
        raise ProjectError(f"{MANIFEST_FILE}: {printable(where) + ': ' if where else ''}{printable(message)}") from None
    except (KeyError, TypeError, AttributeError) as error:
        raise ProjectError(f"{MANIFEST_FILE}: a node lacks what dbt writes ({type(error).__name__}: "
                           f"{printable(str(error))})") from None


def _importer(root: Path, manifest: str = MANIFEST_FILE, catalog: str | None = "",
              catalog_root: Path | None = None) -> tuple["_Importer", dict]:
    """The importer of a project's manifest (and catalog), with the manifest's metadata.
    ``catalog``: its path under ``catalog_root`` (default ``root``); "" for the project's own
    when it has one, None for none."""
    manifest_document = load_json(root, manifest)
    if not isinstance(manifest_document, dict):
        raise ProjectError(f"{manifest}: expected a JSON object")
    metadata = manifest_document.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise ProjectError(f"{manifest}: 'metadata' must be an object")
    _check_schema_version(metadata, manifest)
    check_manifest(manifest_document, manifest)
    if catalog == "":
        catalog = CATALOG_FILE if (root / CATALOG_FILE).is_file() else None
    catalog_document = load_json(catalog_root or root, catalog) if catalog is not None else {}
    if not isinstance(catalog_document, dict):
        raise ProjectError(f"{catalog}: expected a JSON object")
    if catalog is not None:
        check_catalog(catalog_document, catalog)
    nodes = _mapping(manifest_document, "nodes", manifest)
    sources = _mapping(manifest_document, "sources", manifest)
    if not all(isinstance(v, dict) for v in (*nodes.values(), *sources.values())):
        raise ProjectError(f"{manifest}: every node and source must be an object")
    dialect = _DIALECTS.get(str(metadata.get("adapter_type", "")).lower())
    columns = {**(_mapping(catalog_document, "nodes", catalog)), **(_mapping(catalog_document, "sources", catalog))}
    project = metadata.get("project_name") if isinstance(metadata.get("project_name"), str) else None
    return _built(lambda: _Importer(nodes, sources, columns, dialect, project)), metadata


def _check_schema_version(metadata: dict, manifest: str) -> None:
    """Refuses a manifest whose schema this reader does not read (by its version)."""
    declared = metadata.get("dbt_schema_version")
    match = _SCHEMA_VERSION.search(declared) if isinstance(declared, str) else None
    supported = f"v{SUPPORTED_SCHEMA_VERSIONS.start} to v{SUPPORTED_SCHEMA_VERSIONS.stop - 1}"
    if match is None:
        raise ProjectError(f"{manifest}: metadata.dbt_schema_version is missing or not a manifest schema, so "
                           f"it cannot be told how its SQL is stored (manifests {supported} are read)")
    version = int(match.group(1))
    if version not in SUPPORTED_SCHEMA_VERSIONS:
        era = ("an older dbt keeps SQL in raw_sql/compiled_sql" if version < SUPPORTED_SCHEMA_VERSIONS.start
               else "a newer dbt")
        raise ProjectError(f"{manifest}: manifest schema v{version} is not supported ({era}); manifests "
                           f"{supported} (dbt 1.3 and later) are read: regenerate it with a supported dbt")


_MODEL, _SNAPSHOT, _SEED, _SOURCE = "model", "snapshot", "seed", "source"
# dbt's own precedence for a short name (``--select NAME`` matches the nodes of the manifest by
# name, a source only through ``source:``): a model's name first, then a snapshot's or a seed's,
# then a source's; the relation's own name (an alias or identifier) last.  Only two assets of
# the same rank make a name ambiguous.
RANKS = {_MODEL: 0, _SNAPSHOT: 1, _SEED: 1, _SOURCE: 2}
RELATION_RANK = 3
_LABELS = {_MODEL: "model", _SNAPSHOT: "snapshot", _SEED: "seed", _SOURCE: "source"}


@dataclass
class _Relation:
    """One relation of the warehouse and every node of the manifest that names it: the node
    that builds it (a model, snapshot or seed) first, then the sources declared on it."""

    members: list[str]  # unique ids, by rank then id
    namespace: str = ""
    name: str = ""

    @property
    def primary(self) -> str:
        return self.members[0]

    @property
    def full_name(self) -> str:
        return f"{self.namespace}.{self.name}"


class _Importer:
    def __init__(self, nodes: dict, sources: dict, catalog: dict, dialect: str | None, project: str | None = None):
        self.nodes = {k: v for k, v in nodes.items() if isinstance(v, dict)
                      and v.get("resource_type") in (*_WRITTEN, "seed") and _enabled(v)}
        self.sources = {k: v for k, v in sources.items() if isinstance(v, dict) and _enabled(v)}
        self.catalog = catalog
        self.dialect = dialect
        self.project = project  # the root project: dbt resolves a package-less ref() there first
        self._sql_of: dict[str, tuple[str, str, str]] = {}
        self._hook_notes: dict[str, tuple[str, ...]] = {}
        self._snapshot_notes: dict[str, tuple[str, ...]] = {}
        self.relations = self._relations()
        self.relation_of = {uid: relation for relation in self.relations for uid in relation.members}
        self.written = [self.nodes[r.primary] for r in self.relations if r.primary in self.nodes
                        and self.nodes[r.primary]["resource_type"] in _WRITTEN
                        and _materialized(self.nodes[r.primary]) != _VIEW]
        self.written_ids = {n["unique_id"] for n in self.written}

    # --- relations ----------------------------------------------------------------------------

    def _relations(self) -> list[_Relation]:
        """The relations the manifest names, each once: nodes that name the same relation (a
        seed and a source declared on the table it loads) are one asset."""
        groups: dict[tuple[str, str, str], list[str]] = {}
        for uid, node in (*self.nodes.items(), *self.sources.items()):
            if _kind(node) == _MODEL and _materialized(node) == _EPHEMERAL:
                continue  # inlined into its readers: no relation of its own
            key = tuple(str(part or "").lower() for part in (node.get("database"), _schema(node), _alias(node)))
            groups.setdefault(key, []).append(uid)  # type: ignore[arg-type]
        relations = []
        for key, members in sorted(groups.items()):
            members.sort(key=lambda uid: (RANKS[_kind(self._node(uid))], uid))
            primary = self._node(members[0])
            relations.append(_Relation(members, _schema(primary), _alias(primary)))
        # Two databases holding the same schema.name: their full names keep the database.
        by_name: dict[str, list[_Relation]] = {}
        for relation in relations:
            by_name.setdefault(relation.full_name.lower(), []).append(relation)
        for same in by_name.values():
            if len(same) > 1:
                for relation in same:
                    database = self._node(relation.primary).get("database")
                    if database:
                        relation.namespace = f"{database}.{relation.namespace}"
        return relations

    def _node(self, uid: str) -> dict:
        return self.nodes.get(uid) or self.sources[uid]

    # --- assets -----------------------------------------------------------------------------

    def tables(self) -> Iterable[Table]:
        return (table for _, table in self.table_entries())

    def views(self) -> Iterable[View]:
        return (view for _, view in self.view_entries())

    def table_entries(self) -> Iterable[tuple[str, Table]]:
        """Each table with the ``unique_id`` of the node it comes from (the one that builds it)."""
        for relation in self.relations:
            node = self._node(relation.primary)
            if _kind(node) == _MODEL and _materialized(node) == _VIEW:
                continue
            columns, column_notes = self._relation_columns(relation)
            stewardship, stewardship_notes = self._relation_stewardship(relation)
            aliases, ranks = self._names(relation)
            yield relation.primary, Table(
                namespace=relation.namespace, name=relation.name, columns=columns,
                columns_complete=self._relation_cataloged(relation),
                file=node.get("original_file_path") or "", aliases=aliases, alias_ranks=ranks,
                notes=(*self._relation_notes(relation), *stewardship_notes, *column_notes,
                       *self._language_notes(node)), **stewardship)

    def view_entries(self) -> Iterable[tuple[str, View]]:
        for relation in self.relations:
            uid = relation.primary
            node = self._node(uid)
            if not (_kind(node) == _MODEL and _materialized(node) == _VIEW):
                continue
            sql, read_from, language = self._sql(uid)
            columns, column_notes = self._relation_columns(relation)
            stewardship, stewardship_notes = self._relation_stewardship(relation)
            aliases, ranks = self._names(relation)
            yield uid, View(namespace=relation.namespace, name=relation.name, sql=sql, refs=tuple(self._refs(uid)),
                            columns=columns, columns_complete=self._relation_cataloged(relation), dialect=self.dialect, file=node.get("original_file_path") or "",
                            sql_read_from=read_from, aliases=aliases, alias_ranks=ranks, language=language,
                            notes=(*self._relation_notes(relation), *stewardship_notes, *column_notes,
                                   *self._language_notes(node)),
                            **stewardship)

    def pipeline(self, name: str) -> Pipeline:
        assets = []
        # Model names are unique within a package, not across packages (field trial 49): a
        # name two packages use is spelled with its package (``helper.stg_customers``).
        counts: dict[str, int] = {}
        for node in self.written:
            counts[_node_name(node)] = counts.get(_node_name(node), 0) + 1
        for node in self.written:
            uid = node["unique_id"]
            relation = self.relation_of[uid]
            python = _language(node) == "python"
            sql, read_from, language = (node.get("compiled_code") or node.get("raw_code") or "", None, "python") \
                if python else self._sql(uid)
            # The order dbt runs the models in is their refs: each ref is a declared read, so
            # no pipeline-order edge is drawn beside it (depends_on stays empty).
            asset_name = _node_name(node)
            if counts[asset_name] > 1 and node.get("package_name"):
                asset_name = f"{node['package_name']}.{asset_name}"
            assets.append(PipelineAsset(name=asset_name, writes=relation.full_name, sql=sql,
                                        dialect=self.dialect, sql_read_from=read_from,
                                        file=node.get("original_file_path"), refs=tuple(self._refs(uid)),
                                        language=language))
        return Pipeline(name=name, assets=tuple(assets), file="dbt_project.yml")

    # --- names, meta, columns of one relation -------------------------------------------------

    def _names(self, relation: _Relation) -> tuple[tuple[str, ...], tuple[int, ...]]:
        """Every name dbt gives the relation, each with its precedence (the lowest kept)."""
        found: dict[str, int] = {}

        def add(name: str | None, rank: int) -> None:
            if name and found.get(name, RELATION_RANK + 1) > rank:
                found[name] = rank

        for uid in relation.members:
            node = self._node(uid)
            kind = _kind(node)
            rank = RANKS[kind]
            # A versioned model answers to ``name.vN`` (dbt's own spelling); its bare name is
            # what ``ref('name')`` means: the latest version (the others by ``name.vN`` only).
            if _version(node) is None or self._is_latest(node):
                add(node.get("name"), rank)
            add(_node_name(node), rank)
            add(uid, rank)
            if kind == _SOURCE:
                add(f"{node.get('source_name')}.{node.get('name')}", rank)
            add(_alias(node), RELATION_RANK)
        ordered = sorted(found.items(), key=lambda item: (item[1], item[0]))
        return tuple(n for n, _ in ordered), tuple(r for _, r in ordered)

    def _label(self, uid: str) -> str:
        node = self._node(uid)
        kind = _kind(node)
        name = f"{node.get('source_name')}.{node.get('name')}" if kind == _SOURCE else _node_name(node)
        return f"{_LABELS[kind]} {name}"

    def _relation_notes(self, relation: _Relation) -> tuple[str, ...]:
        if len(relation.members) == 1:
            return ()
        names = ", ".join(f"{self._label(uid)} ({self._node(uid).get('original_file_path') or uid})"
                          for uid in relation.members)
        return (f"One relation with several dbt names: {names}; it answers to each.",)

    def _relation_stewardship(self, relation: _Relation) -> tuple[dict[str, Any], tuple[str, ...]]:
        """Owner and steward from the node that builds the relation where it says them (else
        the first source that does); certified when any of its names says so."""
        said = [(uid, _stewardship(self._node(uid))) for uid in relation.members]
        found: dict[str, Any] = {}
        notes = []
        builds = _kind(self._node(relation.primary)) != _SOURCE
        for field in ("owner", "steward"):
            values = [(uid, s[field]) for uid, s in said if s[field] is not None]
            found[field] = values[0][1] if values else None
            others = [(uid, v) for uid, v in values[1:] if v != values[0][1]]
            if others:
                why = ("which builds the relation" if builds and values[0][0] == relation.primary
                       else "the first name that says one")
                said_else = "; ".join(f"{self._label(uid)} says {value}" for uid, value in others)
                notes.append(f"{field}: {values[0][1]}, from {self._label(values[0][0])}, {why} ({said_else}).")
        certified = [uid for uid, s in said if s["certified"]]
        found["certified"] = bool(certified)
        if certified and len(certified) != len(said):
            not_said = ", ".join(self._label(uid) for uid, _ in said if uid not in certified)
            notes.append(f"certified: {', '.join(self._label(uid) for uid in certified)} certifies it and "
                         f"{not_said} does not; a relation certified under any of its names is certified.")
        return found, tuple(notes)

    def _relation_columns(self, relation: _Relation) -> tuple[tuple[Column, ...], tuple[str, ...]]:
        """The catalog's columns (read from the relation itself) where it has any name of the
        relation, else the columns declared by the node that builds it (else the first source
        declaring some); the notes say where the names disagree and which won."""
        declaring = [(uid, declared_columns(self._node(uid))) for uid in relation.members]
        declaring = [(uid, columns) for uid, columns in declaring if columns]
        cataloged = next((uid for uid in relation.members if self.cataloged(uid)), None)
        if cataloged is not None:
            columns = self._columns(cataloged, self._node(relation.primary))
            if not columns and declaring:
                columns = declaring[0][1]
        else:
            columns = declaring[0][1] if declaring else ()
        notes = []
        shapes = {uid: [(c.name.lower(), (c.type or "").lower() or None) for c in cols] for uid, cols in declaring}
        if len({tuple(sorted(shape)) for shape in shapes.values()}) > 1:
            said = "; ".join(f"{self._label(uid)} declares {', '.join(c.name for c in cols)}"
                             for uid, cols in declaring)
            if cataloged is not None:
                won = "the catalog's columns are used: catalog.json read them from the relation itself"
            else:
                builds = _kind(self._node(declaring[0][0])) != _SOURCE
                won = (f"the columns of {self._label(declaring[0][0])} are used"
                       + (", which builds the relation" if builds else ", the first name that declares any")
                       + " (no catalog.json has the relation)")
            notes.append(f"columns: its dbt names disagree ({said}); {won}.")
        return columns, tuple(notes)

    def _relation_cataloged(self, relation: _Relation) -> bool:
        return any(self.cataloged(uid) for uid in relation.members)

    def _language_notes(self, node: dict) -> tuple[str, ...]:
        if _language(node) == "python":
            return (f"A Python model ({node.get('original_file_path')}): only SQL is read, so what it reads is "
                    "drawn from its dbt.ref() and dbt.source() calls alone.",)
        uid = node.get("unique_id")
        if uid not in self.nodes or _kind(node) == _SEED:
            return ()
        self._sql(uid)
        left = None if node.get("compiled_code") else self._resolved_raw(uid)[1]
        if left:
            return (f"Its raw_code holds Jinja only dbt can render ({left}), and the manifest has no compiled_code, "
                    "so its SQL is not read and what it reads is drawn from its ref() and source() calls alone: "
                    "run 'dbt compile' for its compiled SQL.",)
        return (*self._snapshot_notes.get(uid, ()), *self._hook_notes.get(uid, ()))

    # --- declared reads, through ephemeral models ---------------------------------------------

    def _refs(self, uid: str) -> list[DeclaredRead]:
        """What ``uid``'s ``ref()`` and ``source()`` calls declare it reads; a call naming an
        ephemeral model stands for what that model declares, transitively."""
        found: dict[str, DeclaredRead] = {}

        def visit(current: str, through: tuple[tuple[str, str], ...], first_call: str | None,
                  trail: frozenset[str]) -> None:
            for dependency in self._depends_on(current):
                if dependency in trail or (dependency not in self.nodes and dependency not in self.sources):
                    continue  # a node the manifest does not give (disabled, removed, a test's)
                call = self._call(current, dependency)
                node = self.nodes.get(dependency)
                if node is not None and _materialized(node) == _EPHEMERAL and _kind(node) == _MODEL:
                    hops = through if first_call is None else (*through, (self.nodes[current]["name"], call))
                    visit(dependency, hops, first_call or call, trail | {dependency})
                    continue
                relation = self.relation_of.get(dependency)
                if relation is None:
                    continue  # a node the manifest does not give (disabled, another project's)
                if first_call is None:
                    read = DeclaredRead(name=relation.full_name, call=call)
                else:
                    read = DeclaredRead(name=relation.full_name, call=first_call,
                                        through=(*through, (self.nodes[current]["name"], call)))
                if relation.full_name not in found or (found[relation.full_name].through and not read.through):
                    found[relation.full_name] = read

        visit(uid, (), None, frozenset({uid}))
        return list(found.values())

    def _call(self, reader: str, dependency: str) -> str:
        """The call ``reader`` declares ``dependency`` with, as its author wrote it."""
        node = self._node(dependency)
        prefix = "dbt." if _language(self._node(reader)) == "python" else ""
        if _kind(node) == _SOURCE:
            return f"{prefix}source('{node.get('source_name')}', '{node.get('name')}')"
        version = _version(node)
        named = f"'{node.get('name')}'"
        if self._ref_names_package(reader, node):
            named = f"'{node.get('package_name')}', {named}"
        if version is not None and not self._ref_without_version(reader, node):
            return f"{prefix}ref({named}, v={_version_text(version)})"
        return f"{prefix}ref({named})"

    def _ref_names_package(self, reader: str, target: dict) -> bool:
        """Whether ``reader`` names ``target``'s package in its call (``ref('pkg', 'x')``), read
        from the node's ``refs``: only where no package-less call of that name could mean it."""
        refs = (self._node(reader).get("refs") or []) if reader in self.nodes else []
        spelled = [r for r in refs if isinstance(r, dict) and r.get("name") == target.get("name")]
        if not any(r.get("package") == target.get("package_name") for r in spelled):
            return False
        bare = [r for r in spelled if not r.get("package")]
        return not bare or self._node_named(str(target.get("name")), reader=self._node(reader)) is not target

    def _ref_without_version(self, reader: str, target: dict) -> bool:
        """Whether ``reader`` names the versioned model ``target`` by its bare name (``ref('x')``,
        which is the latest version) rather than with ``v=``: read from the node's ``refs``."""
        refs = (self._node(reader).get("refs") or []) if reader in self.nodes else []
        spelled = [r for r in refs if isinstance(r, dict) and r.get("name") == target.get("name")]
        if any(r.get("version") is not None and str(r["version"]) == str(_version(target)) for r in spelled):
            return False
        return self._is_latest(target)

    def _is_latest(self, node: dict) -> bool:
        """Whether ``node`` is the version ``ref('name')`` resolves to: its ``latest_version``,
        else (dbt's rule when none is set) the highest version of that name."""
        version = _version(node)
        if version is None:
            return True
        latest = node.get("latest_version")
        if latest is None:
            versions = [_version(n) for n in self.nodes.values()
                        if n.get("name") == node.get("name") and _kind(n) == _MODEL and _version(n) is not None]
            latest = max(versions, key=_version_key)
        return str(latest) == str(version)

    def _depends_on(self, uid: str) -> list[str]:
        node = self.nodes.get(uid) or {}
        found = (node.get("depends_on") or {}).get("nodes") or []
        return [d for d in found if isinstance(d, str)]

    def _full_name(self, uid: str) -> str:
        return self.relation_of[uid].full_name

    # --- columns ------------------------------------------------------------------------------

    def _columns(self, uid: str, node: dict) -> tuple[Column, ...]:
        found = self.catalog.get(uid)
        declared = node.get("columns") or {}
        if self.cataloged(uid):
            ordered = sorted(found["columns"].values(), key=lambda c: c.get("index", 0))
            return tuple(Column(name=c["name"], type=c.get("type"),
                                doc=(declared.get(c["name"]) or {}).get("description") or None) for c in ordered)
        return declared_columns(node)

    def cataloged(self, uid: str) -> bool:
        """Whether ``catalog.json`` gives the node's columns (else the manifest's are used)."""
        found = self.catalog.get(uid)
        return bool(found and found.get("columns"))

    # --- SQL ----------------------------------------------------------------------------------

    def _sql(self, uid: str) -> tuple[str, str, str]:
        """The node's SQL, where it comes from, and its language: ``jinja`` when raw code
        still holds Jinja after ``ref()``/``source()``/``this``/``config()`` are resolved (a
        macro call, ``var()``, ``{% if %}``) — not SQL yet, so never read (field trial 41:
        DuckDB parses ``{{ m('x') }}`` as a struct literal and the answer was marked exact)."""
        found = self._sql_of.get(uid)
        if found is None:
            node = self.nodes[uid]
            if node.get("compiled_code"):
                found = (node["compiled_code"], COMPILED, "sql")
            else:
                sql, left = self._resolved_raw(uid)
                found = (sql, RAW, JINJA if left else "sql")
            if found[2] == "sql" and _kind(node) == _SNAPSHOT:
                found = (self._as_snapshot(uid, found[0]), *found[1:])
            if found[2] == "sql" and _materialized(node) != _VIEW:
                found = self._with_hooks(uid, found)
            self._sql_of[uid] = found
        return found

    def _as_snapshot(self, uid: str, sql: str) -> str:
        """A snapshot's query as the table dbt builds from it (field trial 48): every column
        of the query, then dbt's own ``dbt_scd_id``, ``dbt_updated_at``, ``dbt_valid_from``,
        ``dbt_valid_to`` (and ``dbt_is_deleted`` with ``hard_deletes: new_record``), named as
        ``snapshot_meta_column_names`` says.  Their values come from the ``updated_at`` column
        (timestamp strategy, or check with ``updated_at`` set), else from the time the snapshot
        ran; ``dbt_scd_id`` hashes the unique key with it.  Without this a ``select *`` reader
        lost them, marked exact."""
        node = self.nodes[uid]
        config = node.get("config") or {}
        names = {**_SNAPSHOT_COLUMNS, **{k: v for k, v in (config.get("snapshot_meta_column_names") or {}).items()
                                         if isinstance(v, str) and v}}
        updated = config.get("updated_at")
        stamp = _quoted(updated, self.dialect) if isinstance(updated, str) and updated.strip() \
            else "CURRENT_TIMESTAMP"
        keys = config.get("unique_key")
        keys = [k for k in (keys if isinstance(keys, list) else [keys]) if isinstance(k, str) and k.strip()]
        hashed = ", ".join([*(f"CAST({_quoted(k, self.dialect)} AS VARCHAR)" for k in keys),
                            f"CAST({stamp} AS VARCHAR)"])
        extra = [f"MD5(CONCAT_WS('|', {hashed})) AS {_quoted(names['dbt_scd_id'], self.dialect)}",
                 *(f"{stamp} AS {_quoted(names[n], self.dialect)}"
                   for n in ("dbt_updated_at", "dbt_valid_from", "dbt_valid_to"))]
        if config.get("hard_deletes") == "new_record":
            extra.append(f"'False' AS {_quoted(names['dbt_is_deleted'], self.dialect)}")
        query = _TRAILING.sub("", sql)
        self._snapshot_notes[uid] = (
            "Read as dbt builds a snapshot: its query's columns, then "
            + ", ".join(names[n] for n in _SNAPSHOT_COLUMNS if n != "dbt_is_deleted"
                        or config.get("hard_deletes") == "new_record")
            + (f" (from {updated})" if stamp != "CURRENT_TIMESTAMP" else " (from the time it ran)") + ".",)
        return f"SELECT *, {', '.join(extra)}\nFROM (\n{query}\n) AS dbt_snapshot_query"

    def _with_hooks(self, uid: str, found: tuple[str, str, str]) -> tuple[str, str, str]:
        """The model's SQL followed by its pre- and post-hooks that may change what its table
        holds (field trial 42: ``update {{ this }} set …`` in a post-hook).  A hook that writes
        the model's own table is read with its SQL (its sources join the model's); one that
        changes nothing a reader sees (GRANT, ANALYZE, CREATE INDEX …) is left out; one that
        writes another table is named in a note; one whose effect cannot be told (Jinja only
        dbt renders, a statement of unknown effect) makes the SQL not read."""
        node = self.nodes[uid]
        sql, read_from, language = found
        notes: list[str] = []
        kept: list[str] = []
        for when, text in _hooks(node):
            rendered = self._render(text, node)
            left = _jinja_left(rendered)
            if left:
                notes.append(f"Its {when} holds Jinja only dbt can render ({left}), so what it does to the table "
                             "cannot be told: its SQL is not read.")
                language = JINJA
                continue
            effect, target = _hook_effect(rendered, _relation(node), self.dialect)
            short = " ".join(rendered.split())
            short = short if len(short) <= 80 else short[:77] + "..."
            if effect == _HOOK_HARMLESS:
                continue
            if effect == _HOOK_OTHER:
                notes.append(f"Its {when} ({short}) writes {target}: what it writes there is not drawn.")
                continue
            kept.append(rendered.strip().rstrip(";"))
            notes.append(f"Its {when} ({short}) "
                         + ("changes the table: it is read with the model's SQL, so a column it sets is drawn "
                            "from both (what the model wrote there may be overwritten)." if effect == _HOOK_THIS
                            else "may change the table and cannot be read: its SQL is not read."))
        self._hook_notes[uid] = tuple(notes)
        if language == JINJA or not kept:
            return sql, read_from, language
        return ";\n".join([sql.strip().rstrip(";"), *kept]) + "\n", read_from, language

    def _render(self, text: str, node: dict) -> str:
        """Jinja of a hook resolved as in raw code: ``ref()``, ``source()``, ``this``."""
        return self._references(_JINJA_COMMENT.sub("", text), node)

    def _resolved_raw(self, uid: str) -> tuple[str, str | None]:
        """``raw_code`` with its Jinja references resolved and ephemeral models inlined, and
        the first Jinja left in it or in an ephemeral model it inlines (None: none is left).
        Jinja is looked for before inlining: sqlglot would rewrite what it misread."""
        sql = self._substituted(uid)
        ephemeral = self._ephemeral_chain(uid)
        bodies = [(f"{EPHEMERAL_PREFIX}{self.nodes[e]['name']}", self._substituted(e)) for e in ephemeral]
        left = _jinja_left(sql) or next((f"{found} in the ephemeral model {self.nodes[e]['name']} it inlines"
                                         for e, (_, body) in zip(ephemeral, bodies)
                                         if (found := _jinja_left(body))), None)
        if not ephemeral or left:
            return sql, left
        return _with_ctes(sql, bodies, self.dialect), None

    def _substituted(self, uid: str) -> str:
        node = self.nodes[uid]
        sql = node.get("raw_code") or ""
        sql = _JINJA_COMMENT.sub("", sql)
        sql = _CONFIG.sub("", sql)
        return self._references(sql, node)

    def _references(self, sql: str, node: dict) -> str:
        """``sql`` with ``{{ ref(…) }}``, ``{{ source(…) }}`` and ``{{ this }}`` resolved."""

        def ref(match: re.Match) -> str:
            names = _string_args(match.group(1))
            package = names[0] if len(names) > 1 else None
            target = self._node_named(names[-1], _ref_version(match.group(0)), package, node) if names else None
            if target is None:
                return match.group(0)  # left as written: the reader cannot parse it and says so
            if _materialized(target) == _EPHEMERAL:
                return f"{EPHEMERAL_PREFIX}{target['name']}"
            return _relation(target)

        def source(match: re.Match) -> str:
            names = _string_args(match.group(1))
            found = next((s for s in self.sources.values()
                          if len(names) == 2 and s.get("source_name") == names[0] and s.get("name") == names[1]), None)
            return _relation(found) if found is not None else match.group(0)

        sql = _REF_CALL.sub(ref, sql)
        sql = _SOURCE_CALL.sub(source, sql)
        return _THIS.sub(lambda _: _relation(node), sql)

    def _ephemeral_chain(self, uid: str) -> list[str]:
        """The ephemeral models ``uid`` reads, directly or through each other, readers last."""
        order: list[str] = []

        def visit(current: str, trail: tuple[str, ...]) -> None:
            for dependency in self._depends_on(current):
                node = self.nodes.get(dependency)
                if node is None or _materialized(node) != _EPHEMERAL or dependency in order or dependency in trail:
                    continue
                visit(dependency, trail + (dependency,))
                order.append(dependency)

        visit(uid, (uid,))
        return order

    def _node_named(self, name: str, version: str | None = None, package: str | None = None,
                    reader: dict | None = None) -> dict | None:
        """The node ``ref(name)`` names: a model, snapshot or seed of that name — of a versioned
        model, the version asked for (``v=``/``version=``), else the latest.  Names are unique
        within a package, not across packages (field trial 49): ``ref('pkg', 'name')`` looks in
        ``pkg`` only, ``ref('name')`` as dbt does — the root project first, then the reader's own
        package, then any."""
        found = [n for n in self.nodes.values() if n.get("name") == name]
        if package is not None:
            found = [n for n in found if n.get("package_name") == package]
        else:
            for where in (self.project, (reader or {}).get("package_name")):
                here = [n for n in found if where is not None and n.get("package_name") == where]
                if here:
                    found = here
                    break
        if any(_version(n) is not None for n in found):
            found = [n for n in found if (str(_version(n)) == version if version is not None else self._is_latest(n))]
        found.sort(key=lambda n: (RANKS[_kind(n)], n.get("unique_id", "")))
        return found[0] if found else None


def declared_columns(node: dict) -> tuple[Column, ...]:
    """The columns a node declares in its YAML (``columns``, with ``data_type`` when given)."""
    return tuple(Column(name=c.get("name") or key, type=c.get("data_type"), doc=c.get("description") or None)
                 for key, c in (node.get("columns") or {}).items())


@dataclass(frozen=True, slots=True)
class DbtRelation:
    """A relation of the warehouse as the table or view it becomes, with the dbt ``unique_id``
    of every node that names it (the review gate matches the two versions of a project by
    them): the node that builds it first."""

    unique_id: str
    declaration: Table | View
    declared_columns: tuple[Column, ...]  # as the YAML of the node that builds it declares them
    cataloged: bool  # the declaration's columns come from catalog.json
    unique_ids: tuple[str, ...] = ()

    @property
    def kind(self) -> str:
        return "table" if isinstance(self.declaration, Table) else "view"


def load_relations(root: str | Path) -> dict[str, DbtRelation]:
    """Every table and view of a dbt project directory's manifest, by the ``unique_id`` of the
    node that builds it (of its first source when none does)."""
    root = Path(root)
    _target_files(root)
    importer, _ = _importer(root)

    def build() -> dict[str, DbtRelation]:
        found = {}
        for uid, declaration in (*importer.table_entries(), *importer.view_entries()):
            relation = importer.relation_of[uid]
            declaring = next((declared_columns(importer._node(m)) for m in relation.members
                              if declared_columns(importer._node(m))), ())
            found[uid] = DbtRelation(uid, declaration, declaring,
                                     any(importer.cataloged(m) for m in relation.members), tuple(relation.members))
        return found

    return _built(build)


_CALL_ARGS = r"\(\s*((?:'[^']*'|\"[^\"]*\")(?:\s*,\s*(?:'[^']*'|\"[^\"]*\"))*)\s*(?:,[^)]*)?\)"
_REF_CALL = re.compile(r"\{\{\s*ref" + _CALL_ARGS + r"\s*\}\}")
_SOURCE_CALL = re.compile(r"\{\{\s*source" + _CALL_ARGS + r"\s*\}\}")
# config(...) may hold a mapping ({...}) or a hook's own Jinja ("grant select on {{ this }} ...").
_CONFIG = re.compile(r"\{\{\s*config\s*\((?:[^{}]|\{\{[^{}]*\}\}|\{[^{}]*\})*\)\s*\}\}", re.DOTALL)
_THIS = re.compile(r"\{\{\s*this\s*\}\}")
_JINJA_COMMENT = re.compile(r"\{#.*?#\}", re.DOTALL)  # dbt drops Jinja comments before anything runs
_JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{\{|\{%", re.DOTALL)
_SQL_STRING = re.compile(r"'(?:[^']|'')*'")


def _jinja_left(sql: str) -> str | None:
    """The first Jinja expression or statement left in ``sql`` outside SQL string literals
    (shortened), else None.  Inside a literal it only makes a constant, read as one."""
    # Literals are blanked to their own length, so a match's place is its place in ``sql``.
    found = _JINJA.search(_SQL_STRING.sub(lambda m: "'" + " " * (len(m.group(0)) - 2) + "'", sql))
    if found is None:
        return None
    text = " ".join(sql[found.start():found.end()].split())
    return text if len(text) <= 60 else text[:57] + "..."


def _string_args(text: str) -> list[str]:
    return [m.group(1) or m.group(2) for m in re.finditer(r"'([^']*)'|\"([^\"]*)\"", text)]


def _with_ctes(sql: str, ctes: list[tuple[str, str]], dialect: str | None) -> str:
    """``sql`` with ``ctes`` put before its own CTEs, as dbt inlines ephemeral models."""
    import sqlglot

    try:
        tree = sqlglot.parse_one(sql, read=dialect)
        definitions = [exp.CTE(this=sqlglot.parse_one(body, read=dialect), alias=exp.TableAlias(
            this=exp.to_identifier(name))) for name, body in ctes]
    except SqlglotError:
        return sql  # the reader meets the same error and says the SQL could not be parsed
    existing = tree.args.get("with_")
    own = list(existing.expressions) if existing is not None else []
    tree.set("with_", exp.With(expressions=definitions + own,
                               recursive=bool(existing and existing.args.get("recursive"))))
    return tree.sql(dialect=dialect)


def _version(node: dict) -> Any:
    """A versioned model's version (``v:`` in its YAML; a number or text), else None."""
    return node.get("version") if _kind(node) == _MODEL else None


def _version_text(version: Any) -> str:
    return str(version) if isinstance(version, (int, float)) else repr(str(version))


def _version_key(version: Any) -> tuple:
    """dbt orders versions as numbers where they are numbers, else as text."""
    try:
        return (0, float(version), "")
    except (TypeError, ValueError):
        return (1, 0.0, str(version))


def _node_name(node: dict) -> str:
    """A node's name as dbt prints and selects it: ``name``, or ``name.vN`` for a versioned model."""
    version = _version(node)
    return str(node.get("name")) if version is None else f"{node.get('name')}.v{version}"


_REF_VERSION = re.compile(r"\b(?:v|version)\s*=\s*(?:'([^']*)'|\"([^\"]*)\"|([0-9][0-9.]*))")


def _ref_version(call: str) -> str | None:
    """The version a ``ref()`` call asks for (``v=2``, ``version='2'``), else None."""
    match = _REF_VERSION.search(call)
    if match is None:
        return None
    return next(group for group in match.groups() if group is not None)


# dbt's own columns of a snapshot's table, by their default names (snapshot_meta_column_names).
_SNAPSHOT_COLUMNS = {"dbt_scd_id": "dbt_scd_id", "dbt_updated_at": "dbt_updated_at",
                     "dbt_valid_from": "dbt_valid_from", "dbt_valid_to": "dbt_valid_to",
                     "dbt_is_deleted": "dbt_is_deleted"}
_TRAILING = re.compile(r"[\s;]+$")


def _quoted(name: str, dialect: str | None) -> str:
    """A column named in a snapshot's config as SQL: a plain name quoted as the dialect quotes
    it, anything else (an expression, ``id || '-' || kind``) as written."""
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        return exp.to_identifier(name, quoted=True).sql(dialect=dialect)
    return f"({name})"


_HOOK_HARMLESS, _HOOK_THIS, _HOOK_OTHER, _HOOK_UNKNOWN = "harmless", "this", "other", "unknown"
# Statements a hook runs that change no value a reader of the table sees.
_HARMLESS_COMMANDS = frozenset({"GRANT", "REVOKE", "ANALYZE", "ANALYSE", "VACUUM", "COMMENT", "CHECKPOINT", "SET",
                                "RESET", "USE", "PRAGMA", "COMMIT", "BEGIN", "START", "ROLLBACK", "INSTALL", "LOAD",
                                "OPTIMIZE", "CLUSTER", "REFRESH", "SHOW", "DESCRIBE", "EXPLAIN", "ALTER OWNER"})
_HARMLESS_NODES = (exp.Grant, exp.Comment, exp.Set, exp.Use, exp.Pragma, exp.Transaction, exp.Commit,
                   exp.Rollback, exp.Query, exp.Describe, exp.Analyze)
_WRITING_NODES = (exp.Update, exp.Delete, exp.Insert, exp.Merge, exp.TruncateTable, exp.Create, exp.Drop, exp.Copy)


def _hooks(node: dict) -> list[tuple[str, str]]:
    """A node's pre- and post-hooks as (``pre-hook``/``post-hook``, SQL), in the order they run
    (a hook is a mapping with ``sql``, or — as some manifests keep it — the SQL itself)."""
    config = node.get("config") or {}
    found = []
    for key in ("pre-hook", "post-hook"):
        hooks = config.get(key) or []
        for hook in hooks if isinstance(hooks, list) else [hooks]:
            text = hook.get("sql") if isinstance(hook, dict) else hook
            if isinstance(text, str) and text.strip():
                found.append((key, text))
    return found


def _hook_effect(sql: str, this: str, dialect: str | None) -> tuple[str, str | None]:
    """What a rendered hook does to the model's table ``this``: nothing a reader sees, writes
    it, writes another table (named), or cannot be told."""
    import logging

    import sqlglot

    quiet = logging.getLogger("sqlglot")
    level = quiet.level
    quiet.setLevel(logging.ERROR)  # sqlglot warns on stderr when it falls back to a Command
    try:
        statements = [s for s in sqlglot.parse(sql, read=dialect) if s is not None]
        this_parts = _table_parts(sqlglot.parse_one(this, read=dialect, into=exp.Table))
    except SqlglotError:
        return _HOOK_UNKNOWN, None
    finally:
        quiet.setLevel(level)
    effects = []
    for statement in statements:
        if isinstance(statement, exp.Command):
            words = f"{statement.this or ''} {statement.expression or ''}".upper().split()
            keyword = words[0] if words else ""
            if keyword == "ALTER":
                # ALTER TABLE … OWNER TO / SET … / CLUSTER BY change no value; anything else may
                # change the shape, which cannot be read.
                keyword = "ALTER OWNER" if "OWNER" in words and not {"ADD", "DROP", "RENAME"} & set(words) else ""
            effects.append((_HOOK_HARMLESS, None) if keyword in _HARMLESS_COMMANDS else (_HOOK_UNKNOWN, None))
        elif isinstance(statement, exp.Alter):
            settings = all(isinstance(action, (exp.AlterSet, exp.ClusterProperty, exp.Properties))
                           for action in statement.args.get("actions") or ())
            # Settings (properties, tags, clustering) change no value; a column added, dropped,
            # renamed or retyped changes the shape: it cannot be read with the model's SQL.
            effects.append((_HOOK_HARMLESS, None) if settings and statement.args.get("actions")
                           else (_HOOK_UNKNOWN, None))
        elif isinstance(statement, _HARMLESS_NODES):
            effects.append((_HOOK_HARMLESS, None))
        elif isinstance(statement, (exp.Create, exp.Drop)) and str(statement.args.get("kind") or "").upper() in (
                "INDEX", "STATISTICS"):
            effects.append((_HOOK_HARMLESS, None))
        elif isinstance(statement, _WRITING_NODES):
            target = statement.find(exp.Table)
            if target is None:
                effects.append((_HOOK_UNKNOWN, None))
                continue
            parts = _table_parts(target)
            same = parts[-len(this_parts):] == this_parts[-len(parts):] if parts else False
            effects.append((_HOOK_THIS, None) if same else (_HOOK_OTHER, ".".join(parts)))
        else:
            effects.append((_HOOK_UNKNOWN, None))
    for effect in (_HOOK_UNKNOWN, _HOOK_THIS, _HOOK_OTHER):
        found = next((e for e in effects if e[0] == effect), None)
        if found is not None:
            return found
    return _HOOK_HARMLESS, None


def _table_parts(table: exp.Table) -> list[str]:
    return [part.name.lower() for part in table.parts]


def _relation(node: dict) -> str:
    if node.get("relation_name"):
        return node["relation_name"]
    return f"{_schema(node)}.{_alias(node)}"


def _alias(node: dict) -> str:
    return str(node.get("alias") or node.get("identifier") or node.get("name") or "")


def _schema(node: dict) -> str:
    return str(node.get("schema") or "")


def _kind(node: dict) -> str:
    kind = node.get("resource_type")
    return kind if kind in RANKS else _MODEL


def _enabled(node: dict) -> bool:
    return (node.get("config") or {}).get("enabled", True) is not False


def _language(node: dict) -> str:
    return str(node.get("language") or "sql").lower()


def _materialized(node: dict) -> str:
    return (node.get("config") or {}).get("materialized") or "view"


def _stewardship(node: dict) -> dict[str, Any]:
    meta = {**((node.get("config") or {}).get("meta") or {}), **(node.get("meta") or {})}
    certified = meta.get("certified", False)
    if not isinstance(certified, bool):
        raise ProjectError(f"{node.get('original_file_path') or node.get('unique_id')}: meta.certified of "
                           f"{node.get('name')} must be true or false, got {certified!r}")
    return {"owner": _text(meta.get("owner")), "steward": _text(meta.get("steward")), "certified": certified}


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _mapping(document: dict, key: str, path: Any) -> dict:
    value = document.get(key) or {}
    if not isinstance(value, dict):
        raise ProjectError(f"{path}: '{key}' must be an object")
    return value


def _configured_target_path(root: Path) -> str | None:
    """dbt_project.yml's ``target-path`` when it is not ``target`` (None: not set, the default,
    or the file cannot be read)."""
    try:
        configured = (load_yaml(root, "dbt_project.yml") or {}).get("target-path")
    except (ProjectError, AttributeError):
        return None
    if not isinstance(configured, str) or configured.strip().strip("/").strip() in ("", "target", "./target"):
        return None
    return configured


def _profile_target(root: Path) -> str:
    """The environment's name: the default target of the project's own profiles.yml, if any
    (read like every project file; when it cannot be read, or names no target, ``default``)."""
    try:
        project = load_yaml(root, "dbt_project.yml") or {}
        profiles = load_yaml(root, "profiles.yml") or {}
        target = profiles[project["profile"]]["target"]
    except (ProjectError, KeyError, TypeError):
        return "default"
    return str(target)
