"""The native project format: YAML files in a git checkout (docs/governance.md, field by field).

::

    project.yaml                 name, dialect, environments (and whether each reviews), default_environment
    access.yaml                  roles, members, API tokens (optional; see access.py)
    environments/<env>.yaml      an environment's dialect and its own patches of tables (optional)
    tables/**/*.yaml             one table per file
    views/**/*.yaml              one view per file
    pipelines/**/*.yaml          one pipeline per file

A declaration file may name the ``environments`` it exists in (default: every one).  Files are
read in path order, so answers do not depend on the file system's listing order.  Every file is
read through ``files.py`` (regular files under the project root, bounded in size, duplicate
keys and deep nesting refused); the project's and the environments' names are checked
(``names.py``) before a path is made from them; a key ``project.yaml`` or an environment's file
does not know is refused.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from ..terminal import printable
from .access import AccessPolicy
from .declarations import Column, Environment, Pipeline, PipelineAsset, Project, Table, View
from .errors import ProjectError
from .files import declaration_files, load_yaml, load_yaml_text, located, one_reading
from .names import check_name

PROJECT_FILE = "project.yaml"
ACCESS_FILE = "access.yaml"
_KINDS = ("tables", "views", "pipelines")
_PATCHABLE = {"namespace", "name", "columns", "owner", "steward", "certified", "doc", "labels", "annotations",
              "identifier_fields", "schema_id", "partitions", "properties", "write_order", "routing"}
# Fields of the declarations that only a loader sets (a dbt manifest's): a native file that
# writes one is refused as an unknown field is.
_LOADER_ONLY = {"refs", "language", "notes", "alias_ranks", "sql_read_from", "file", "columns_complete"}
_ENVIRONMENT_SETTINGS = {"reviews"}
_PROJECT_KEYS = ("name", "dialect", "environments", "default_environment")
_ENVIRONMENT_FILE_KEYS = ("dialect", "patches")


@dataclass
class NativeSource:
    """What a native project's files hold, before environments are applied."""

    root: Path
    settings: dict[str, Any]
    declarations: dict[str, list[tuple[dict[str, Any], Table | View | Pipeline]]]
    patches: dict[str, dict[str, Any]] = field(default_factory=dict)  # env -> its file's document
    unreadable: dict[str, str] = field(default_factory=dict)  # file -> why (lenient loading only)


def is_native_project(root: Path) -> bool:
    return (root / PROJECT_FILE).is_file()


def load_native(root: str | Path, *, strict: bool = True,
                documents: dict[str, tuple[str, str | None]] | None = None, parse=None
                ) -> tuple[Project, AccessPolicy, dict[str, str]]:
    """The project, its access policy, and (when not ``strict``) the files that could not be
    read, each with the reason; ``strict`` raises ``ProjectError`` on the first instead.
    ``documents``, ``parse``: as in ``read_native``."""
    with one_reading():  # the root's real path resolved once, not once per file
        return _load_native(Path(root), strict, documents, parse)


def _load_native(root: Path, strict: bool, documents, parse=None) -> tuple[Project, AccessPolicy, dict[str, str]]:
    source = read_native(root, strict=strict, documents=documents, parse=parse)
    settings = source.settings
    names = _environment_names(settings)
    environments = tuple(_environment(source, name, settings.get("dialect")) for name in names)
    default = settings.get("default_environment")
    if default is not None and default not in names:
        raise ProjectError(f"{PROJECT_FILE}: default_environment '{default}' is not one of {', '.join(names)}")
    access = _access(source.root)
    project = _validated(Project, {
        "name": _project_name(source), "environments": environments,
        "default_environment": default, "owner": access.owner, "format": "native",
    }, PROJECT_FILE)
    return project, access, dict(source.unreadable)


# A declaration file at least this large is handed to ``documents`` (the control plane keeps the
# parsed documents of its large view and pipeline files: control/engine.py, same size).
LARGE_DOCUMENT_BYTES = 64 * 1024


def read_native(root: Path, *, strict: bool = True,
                documents: dict[str, tuple[str, str | None]] | None = None, parse=None) -> NativeSource:
    """What the project's files hold.  ``documents``, when given, receives for each declaration
    file of at least ``LARGE_DOCUMENT_BYTES`` its text and its document as JSON text (None when
    JSON cannot hold it: a date, an alias inside itself), so a caller that keeps them does not
    parse the YAML again.

    ``parse(root, relatives)``, when given, parses declaration files elsewhere (the sync's
    reading workers, idle while the project loads: ``control/reading_pass.EarlyPool``): it
    yields, for each file in order, ``parsed_elsewhere``'s answer, or None for a file this
    process must read itself — so every refusal is still this process's own, file by file in
    path order, and a document parsed elsewhere is the one ``load_yaml_text`` gives."""
    with one_reading():
        return _read_native(root, strict, documents, parse)


def parsed_elsewhere(root: Path, relative: str) -> tuple[str | None, Any, str | None] | None:
    """A declaration file's document as ``read_native``'s ``parse`` hands it over: (its text when
    it is large, else None; the document; its JSON text when it is large), or None when it
    cannot be read (the loader reads it again itself and says why)."""
    try:
        text, document = load_yaml_text(root, relative)
    except Exception:  # noqa: BLE001 - refused or not: the loader's own reading decides
        return None
    if len(text) >= LARGE_DOCUMENT_BYTES:
        return text, document, _json_or_none(document)
    return None, document, None


def _listed(root: Path) -> list[tuple[str, list[str] | Exception]]:
    """Each kind's declaration files, or the refusal its directory gives (raised in its turn,
    after the files of the kinds before it are read, as listing kind by kind did)."""
    found: list[tuple[str, list[str] | Exception]] = []
    for kind in _KINDS:
        try:
            found.append((kind, declaration_files(root, kind)))
        except Exception as error:  # noqa: BLE001 - raised in its turn by the loader
            found.append((kind, error))
            break  # nothing after a refused directory is listed (nor read) before the refusal
    return found


def _read_native(root: Path, strict: bool, documents, parse=None) -> NativeSource:
    if not root.is_dir():
        raise ProjectError(f"project directory not found: {printable(str(root))}")
    settings = _document(root, PROJECT_FILE)
    if not isinstance(settings, dict):
        raise ProjectError(f"{PROJECT_FILE}: expected a mapping with 'name' and 'environments'")
    _known_keys(settings, _PROJECT_KEYS, PROJECT_FILE, root)
    if settings.get("dialect") is not None:
        _validated(Environment, {"name": "x", "dialect": settings["dialect"]}, PROJECT_FILE, root, (),
                   ("dialect",))
    source = NativeSource(root, settings, {kind: [] for kind in _KINDS})
    listed = _listed(root)
    ahead = None
    if parse is not None:
        ahead = iter(parse(root, [relative for _, found in listed if isinstance(found, list) for relative in found]))
    for kind, found in listed:
        if isinstance(found, Exception):
            raise found  # a directory that cannot be listed is refused, strict or not (as before)
        for relative in found:
            elsewhere = next(ahead, None) if ahead is not None else None
            try:
                if elsewhere is None:
                    text, document = load_yaml_text(root, relative)
                    large = len(text) >= LARGE_DOCUMENT_BYTES
                    as_json = _json_or_none(document) if large and documents is not None else None
                else:
                    text, document, as_json = elsewhere
                    large = text is not None
                source.declarations[kind].append((document, _declaration(kind, document, relative, root)))
                if documents is not None and large:
                    documents[relative] = (text, as_json)
            except ProjectError as error:
                if strict:
                    raise
                source.unreadable[relative] = error.message
    for name in _environment_names(settings, root):
        relative = f"environments/{name}.yaml"  # the name was checked: one path component
        if os.path.lexists(root / relative):
            try:
                source.patches[name] = _environment_document(root, relative)
            except ProjectError as error:
                if strict:
                    raise
                source.unreadable[relative] = error.message
    return source


def _environment_document(root: Path, relative: str) -> dict[str, Any]:
    """An environment's file: its dialect and its patches, each a mapping of a table's full name
    to the fields it changes."""
    document = _document(root, relative) or {}
    if not isinstance(document, dict):
        raise ProjectError(f"{relative}: expected a mapping")
    _known_keys(document, _ENVIRONMENT_FILE_KEYS, relative, root)
    patches = document.get("patches") or {}
    if not isinstance(patches, dict):
        raise ProjectError(f"{located(root, relative, ('patches',))}: 'patches' must map table names to fields")
    for name, patch in patches.items():
        if not isinstance(name, str):
            raise ProjectError(f"{located(root, relative, ('patches',))}: a patch must be keyed by a table's full "
                               f"name, got {printable(repr(name))}")
        if not isinstance(patch, dict):
            raise ProjectError(f"{located(root, relative, ('patches', name))}: the patch of {printable(name)} "
                               "must be a mapping")
    return document


def _known_keys(document: dict, known: tuple[str, ...], file: str, root: Path | None = None) -> None:
    for key in document:
        if key not in known:
            raise ProjectError(f"{located(root, file, (key,))}: unknown key '{printable(str(key))}' "
                               f"(known: {', '.join(known)})")


def _project_name(source: NativeSource) -> str:
    name = source.settings.get("name")
    if name is None:
        name = source.root.resolve().name
        where = f"{PROJECT_FILE} (no 'name': the directory's name is used; set 'name')"
    else:
        where = PROJECT_FILE
    return check_name("project", name, where)


def _environment_names(settings: dict[str, Any], root: Path | None = None) -> list[str]:
    return list(_environment_settings(settings, root))


def _environment_settings(settings: dict[str, Any], root: Path | None = None) -> dict[str, dict[str, Any]]:
    """Each environment's settings: ``environments`` is a list of names, or a mapping of each
    name to its settings (``reviews``; an empty entry takes the defaults)."""
    entries = settings.get("environments")
    if isinstance(entries, list):
        entries = {name: None for name in entries} if all(isinstance(n, str) for n in entries) else None
    if not isinstance(entries, dict) or not entries or not all(isinstance(n, str) and n for n in entries):
        raise ProjectError(f"{located(root, PROJECT_FILE, ('environments',))}: 'environments' must list at least "
                           "one environment name")
    found = {}
    for name, entry in entries.items():
        check_name("environment", name, PROJECT_FILE)
        entry = {} if entry is None else entry
        if not isinstance(entry, dict):
            raise ProjectError(f"{located(root, PROJECT_FILE, ('environments', name))}: environments.{name} must be "
                               "a mapping of its settings")
        extra = sorted(set(entry) - _ENVIRONMENT_SETTINGS, key=str)
        if extra:
            raise ProjectError(f"{located(root, PROJECT_FILE, ('environments', name, extra[0]))}: "
                               f"environments.{name}: unknown setting '{printable(str(extra[0]))}' "
                               f"(known: {', '.join(sorted(_ENVIRONMENT_SETTINGS))})")
        if not isinstance(entry.get("reviews", False), bool):
            raise ProjectError(f"{located(root, PROJECT_FILE, ('environments', name, 'reviews'))}: "
                               f"environments.{name}.reviews must be true or false")
        found[name] = entry
    return found


def _environment(source: NativeSource, name: str, dialect: str | None) -> Environment:
    env_document = source.patches.get(name, {})
    patches = env_document.get("patches") or {}
    patch_file = f"environments/{name}.yaml"
    if not isinstance(patches, dict):
        raise ProjectError(f"{patch_file}: 'patches' must map table names to fields")
    declared: dict[str, list] = {kind: [] for kind in _KINDS}
    for kind in _KINDS:
        for document, declaration in source.declarations[kind]:
            only = document.get("environments")
            if only is None or name in only:
                declared[kind].append(declaration)
    tables = []
    applied = []
    for table in declared["tables"]:
        patch = patches.get(table.full_name)
        if patch is not None:
            tables.append(_patched(table, patch, patch_file, source.root))
            applied.append(table.full_name)
        else:
            tables.append(table)
    unknown = sorted(set(patches) - set(applied))
    if unknown:
        raise ProjectError(f"{located(source.root, patch_file, ('patches', unknown[0]))}: patches table "
                           f"'{printable(unknown[0])}', which environment '{name}' does not declare")
    reviews = _environment_settings(source.settings)[name].get("reviews", False)
    return _validated(Environment, {
        "name": name, "dialect": env_document.get("dialect", dialect), "reviews": reviews, "tables": tables,
        "views": declared["views"], "pipelines": declared["pipelines"], "patched": tuple(applied),
    }, patch_file if patches else PROJECT_FILE)


def _patched(table: Table, patch: Any, patch_file: str, root: Path | None = None) -> Table:
    where = ("patches", table.full_name)
    if not isinstance(patch, dict):
        raise ProjectError(f"{located(root, patch_file, where)}: the patch of {table.full_name} must be a mapping")
    extra = sorted(set(patch) - _PATCHABLE, key=str)
    if extra:
        raise ProjectError(
            f"{located(root, patch_file, (*where, extra[0]))}: a patch of {table.full_name} cannot change "
            f"'{printable(str(extra[0]))}' (patchable: {', '.join(sorted(_PATCHABLE))})"
        )
    values = table.model_dump()
    values.update(patch)
    return _validated(Table, values, patch_file, root, where)


def _declaration(kind: str, document: Any, file: str, root: Path | None = None) -> Table | View | Pipeline:
    if not isinstance(document, dict):
        raise ProjectError(f"{file}: expected a mapping declaring one {kind[:-1]}")
    values = {k: v for k, v in document.items() if k != "environments"}
    _refuse_loader_only(values, file, root=root)
    only = document.get("environments")
    if only is not None and not (isinstance(only, list) and all(isinstance(n, str) for n in only)):
        raise ProjectError(f"{located(root, file, ('environments',))}: 'environments' must be a list of "
                           "environment names")
    values["file"] = file
    if kind == "tables":
        return _validated(Table, values, file, root)
    if kind == "views":
        return _validated(View, values, file, root)
    assets = values.get("assets")
    if isinstance(assets, list):
        for i, entry in enumerate(assets):
            if isinstance(entry, dict):
                _refuse_loader_only(entry, file, f"assets.{i}.", root, ("assets", i))
        values["assets"] = [_validated(PipelineAsset, a, file, root, ("assets", i)) if isinstance(a, dict) else a
                            for i, a in enumerate(assets)]
    return _validated(Pipeline, values, file, root)


def _refuse_loader_only(values: dict[str, Any], file: str, where: str = "", root: Path | None = None,
                        prefix: tuple = ()) -> None:
    if _LOADER_ONLY.isdisjoint(values):
        return  # the common case: no key to sort
    found = sorted(k for k in values if k in _LOADER_ONLY)
    if found:
        hint = (" (a pipeline declares no read of another table: what its SQL reads is parsed)"
                if found[0] == "refs" else "")
        raise ProjectError(f"{located(root, file, (*prefix, found[0]))}: {where}{found[0]}: Extra inputs are not "
                           f"permitted{hint}")


def _json_or_none(document: Any) -> str | None:
    import json

    try:
        return json.dumps(document, ensure_ascii=False)
    except (TypeError, ValueError):
        return None


def _access(root: Path) -> AccessPolicy:
    # Whatever stands at access.yaml is read (and refused unless it is a regular file of the
    # project): a FIFO, a directory or a dangling link there is not "no access policy".
    if not os.path.lexists(root / ACCESS_FILE):
        return AccessPolicy()
    document = _document(root, ACCESS_FILE) or {}
    policy = _validated(AccessPolicy, document, ACCESS_FILE, root)
    for member, spec in policy.members.items():
        for role in spec.roles:
            if role not in policy.roles:
                raise ProjectError(f"{located(root, ACCESS_FILE, ('members', member, 'roles'))}: member "
                                   f"'{printable(member)}' has role '{printable(role)}', which is not declared")
    if policy.owner is not None and policy.owner not in policy.members:
        raise ProjectError(f"{located(root, ACCESS_FILE, ('owner',))}: owner '{printable(policy.owner)}' is not a "
                           "member")
    return policy


def _document(root: Path, relative: str) -> Any:
    return load_yaml(root, relative)


def _validated(model: type[BaseModel], values: Any, file: str, root: Path | None = None, prefix: tuple = (),
               line_of: tuple | None = None):
    """``values`` as ``model``, or a refusal naming the file, the line (read again from the file
    when ``root`` is given: ``prefix`` is where ``values`` sit in it, ``line_of`` a path to point
    at instead) and the key — one line, whatever the value."""
    try:
        return model.model_validate(values)
    except ValidationError as error:
        first = error.errors()[0]
        loc = (*prefix, *first["loc"])
        where = ".".join(str(part) for part in loc)
        message = first["msg"].removeprefix("Value error, ")
        raise ProjectError(f"{located(root, file, line_of or loc)}: {printable(where) + ': ' if where else ''}"
                           f"{printable(message)}") from None


__all__ = ["load_native", "read_native", "is_native_project", "Column"]
