"""A dbt project's ``manifest.json`` (and ``catalog.json``) as project declarations.

* sources and seeds → tables;
* models materialised as views → views, whose reads are their ``depends_on``;
* every other model (table, incremental, materialised view, snapshot) → an asset of one
  pipeline named after the project, writing a table, ordered by ``depends_on``;
* ephemeral models are no asset: dbt inlines them as ``__dbt__cte__<name>`` into their
  children's compiled SQL, so lineage runs through them to their own reads, and a dependency
  on one is a dependency on what it reads;
* ``owner``, ``steward`` and ``certified`` come from ``meta`` (the node's, over its config's);
* column names and types from ``catalog.json`` where it has the node, else the manifest's
  ``columns``.

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
from .declarations import Column, Environment, Pipeline, PipelineAsset, Project, Table, View
from .errors import ProjectError
from .files import load_json, load_yaml

COMPILED = "compiled_code"
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
    if catalog == "":
        catalog = CATALOG_FILE if (root / CATALOG_FILE).is_file() else None
    catalog_document = load_json(catalog_root or root, catalog) if catalog is not None else {}
    if not isinstance(catalog_document, dict):
        raise ProjectError(f"{catalog}: expected a JSON object")
    nodes = _mapping(manifest_document, "nodes", manifest)
    sources = _mapping(manifest_document, "sources", manifest)
    if not all(isinstance(v, dict) for v in (*nodes.values(), *sources.values())):
        raise ProjectError(f"{manifest}: every node and source must be an object")
    dialect = _DIALECTS.get(str(metadata.get("adapter_type", "")).lower())
    columns = {**(_mapping(catalog_document, "nodes", catalog)), **(_mapping(catalog_document, "sources", catalog))}
    return _built(lambda: _Importer(nodes, sources, columns, dialect)), metadata


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


class _Importer:
    def __init__(self, nodes: dict, sources: dict, catalog: dict, dialect: str | None):
        self.nodes = {k: v for k, v in nodes.items() if v.get("resource_type") in (*_WRITTEN, "seed")
                      and (v.get("config") or {}).get("enabled", True)}
        self.sources = sources
        self.catalog = catalog
        self.dialect = dialect
        self.written = [n for n in self.nodes.values()
                        if n["resource_type"] in _WRITTEN and _materialized(n) not in (_VIEW, _EPHEMERAL)]
        self.written_ids = {n["unique_id"] for n in self.written}

    # --- assets -----------------------------------------------------------------------------

    def tables(self) -> Iterable[Table]:
        return (table for _, table in self.table_entries())

    def views(self) -> Iterable[View]:
        return (view for _, view in self.view_entries())

    def table_entries(self) -> Iterable[tuple[str, Table]]:
        """Each table with the ``unique_id`` of the source, seed or model it comes from."""
        for uid, source in sorted(self.sources.items()):
            yield uid, Table(namespace=source["schema"], name=source.get("identifier") or source["name"],
                             columns=self._columns(uid, source), file=source.get("original_file_path") or "",
                             aliases=_aliases(source.get("name"), source.get("identifier")),
                             **_stewardship(source))
        for uid, node in sorted(self.nodes.items()):
            if node["resource_type"] == "seed" or uid in self.written_ids:
                yield uid, Table(namespace=node["schema"], name=_alias(node), columns=self._columns(uid, node),
                                 file=node.get("original_file_path") or "",
                                 aliases=_aliases(node["name"], _alias(node)), **_stewardship(node))

    def view_entries(self) -> Iterable[tuple[str, View]]:
        for uid, node in sorted(self.nodes.items()):
            if node["resource_type"] == "model" and _materialized(node) == _VIEW:
                sql, read_from = self._sql(uid)
                yield uid, View(namespace=node["schema"], name=_alias(node), sql=sql,
                                reads=tuple(self._full_name(d) for d in self._dependencies(uid)),
                                columns=self._columns(uid, node), dialect=self.dialect,
                                file=node.get("original_file_path") or "", sql_read_from=read_from,
                                aliases=_aliases(node["name"], _alias(node)), **_stewardship(node))

    def pipeline(self, name: str) -> Pipeline:
        written_ids = self.written_ids
        assets = []
        for node in sorted(self.written, key=lambda n: n["unique_id"]):
            uid = node["unique_id"]
            sql, read_from = self._sql(uid)
            depends = [self.nodes[d]["name"] for d in self._dependencies(uid) if d in written_ids]
            assets.append(PipelineAsset(name=node["name"], writes=f"{node['schema']}.{_alias(node)}", sql=sql,
                                        depends_on=tuple(depends), dialect=self.dialect, sql_read_from=read_from,
                                        file=node.get("original_file_path")))
        return Pipeline(name=name, assets=tuple(assets), file="dbt_project.yml")

    # --- dependencies, through ephemeral models ---------------------------------------------

    def _dependencies(self, uid: str) -> list[str]:
        """What ``uid`` depends on among assets: an ephemeral model stands for its own reads."""
        found: list[str] = []
        stack = list(reversed(self._depends_on(uid)))
        seen: set[str] = set()
        while stack:
            dependency = stack.pop()
            if dependency in seen:
                continue
            seen.add(dependency)
            node = self.nodes.get(dependency)
            if node is not None and _materialized(node) == _EPHEMERAL:
                stack.extend(reversed(self._depends_on(dependency)))
            elif node is not None or dependency in self.sources:
                found.append(dependency)
        return found

    def _depends_on(self, uid: str) -> list[str]:
        node = self.nodes.get(uid) or {}
        return list((node.get("depends_on") or {}).get("nodes") or [])

    def _full_name(self, uid: str) -> str:
        if uid in self.sources:
            source = self.sources[uid]
            return f"{source['schema']}.{source.get('identifier') or source['name']}"
        node = self.nodes[uid]
        return f"{node['schema']}.{_alias(node)}"

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

    def _sql(self, uid: str) -> tuple[str, str]:
        node = self.nodes[uid]
        if node.get("compiled_code"):
            return node["compiled_code"], COMPILED
        return self._resolved_raw(uid), RAW

    def _resolved_raw(self, uid: str) -> str:
        """``raw_code`` with its Jinja references resolved and ephemeral models inlined."""
        sql = self._substituted(uid)
        ephemeral = self._ephemeral_chain(uid)
        if not ephemeral:
            return sql
        return _with_ctes(sql, [(f"{EPHEMERAL_PREFIX}{self.nodes[e]['name']}", self._substituted(e))
                                for e in ephemeral], self.dialect)

    def _substituted(self, uid: str) -> str:
        node = self.nodes[uid]

        def ref(match: re.Match) -> str:
            names = _string_args(match.group(1))
            target = self._node_named(names[-1]) if names else None
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

        sql = node.get("raw_code") or ""
        sql = _CONFIG.sub("", sql)
        sql = _REF.sub(ref, sql)
        sql = _SOURCE.sub(source, sql)
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

    def _node_named(self, name: str) -> dict | None:
        return next((n for n in self.nodes.values() if n.get("name") == name), None)


def declared_columns(node: dict) -> tuple[Column, ...]:
    """The columns a node declares in its YAML (``columns``, with ``data_type`` when given)."""
    return tuple(Column(name=c.get("name") or key, type=c.get("data_type"), doc=c.get("description") or None)
                 for key, c in (node.get("columns") or {}).items())


@dataclass(frozen=True, slots=True)
class DbtRelation:
    """A source, seed or model as the table or view it becomes, by its dbt ``unique_id`` (the
    review gate matches the two versions of a project by it)."""

    unique_id: str
    declaration: Table | View
    declared_columns: tuple[Column, ...]  # as the node's YAML declares them
    cataloged: bool  # the declaration's columns come from catalog.json

    @property
    def kind(self) -> str:
        return "table" if isinstance(self.declaration, Table) else "view"


def load_relations(root: str | Path) -> dict[str, DbtRelation]:
    """Every table and view of a dbt project directory's manifest, by ``unique_id``."""
    root = Path(root)
    _target_files(root)
    importer, _ = _importer(root)

    def build() -> dict[str, DbtRelation]:
        found = {}
        for uid, declaration in (*importer.table_entries(), *importer.view_entries()):
            node = importer.sources.get(uid) or importer.nodes[uid]
            found[uid] = DbtRelation(uid, declaration, declared_columns(node), importer.cataloged(uid))
        return found

    return _built(build)


_CALL_ARGS = r"\(\s*((?:'[^']*'|\"[^\"]*\")(?:\s*,\s*(?:'[^']*'|\"[^\"]*\"))*)\s*(?:,[^)]*)?\)"
_REF = re.compile(r"\{\{\s*ref" + _CALL_ARGS + r"\s*\}\}")
_SOURCE = re.compile(r"\{\{\s*source" + _CALL_ARGS + r"\s*\}\}")
_CONFIG = re.compile(r"\{\{\s*config\s*\((?:[^{}]|\{[^{}]*\})*\)\s*\}\}", re.DOTALL)
_THIS = re.compile(r"\{\{\s*this\s*\}\}")


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


def _relation(node: dict) -> str:
    if node.get("relation_name"):
        return node["relation_name"]
    return f"{node['schema']}.{_alias(node)}"


def _alias(node: dict) -> str:
    return node.get("alias") or node.get("identifier") or node["name"]


def _aliases(*names: str | None) -> tuple[str, ...]:
    return tuple(dict.fromkeys(n for n in names if n))


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
