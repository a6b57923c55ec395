"""Helpers for the governance tests: the example project, small projects written to a
temporary directory, and lineage built directly from assets and edges (no SQL)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import yaml

from prism_lineage.governance.access import AccessPolicy, Viewer, viewer_for
from prism_lineage.governance.loading import load_project
from prism_lineage.governance.rollup import EnvironmentLineage, sync

ROOT = Path(__file__).resolve().parents[2]
SHOP = ROOT / "examples" / "shop"
DBT = ROOT / "tests" / "fixtures" / "dbt_project"
DBT2 = ROOT / "tests" / "fixtures" / "dbt_project_2"
GOLDEN = Path(__file__).resolve().parent / "golden"


def shop(environment: str | None = None, **options) -> tuple[EnvironmentLineage, AccessPolicy]:
    project, access = load_project(SHOP)
    return sync(project, environment, **options), access


def as_viewer(access: AccessPolicy, credential: str | None) -> Viewer:
    return viewer_for(access, credential)


def write_project(root: Path, *, environments=("prod",), tables=(), views=(), pipelines=(), access=None,
                  patches=None, dialect="duckdb", default=None, files=None) -> Path:
    """A native project from plain dicts (one file per declaration, named after it)."""
    root.mkdir(parents=True, exist_ok=True)
    settings: dict[str, Any] = {"name": "t", "dialect": dialect, "environments": list(environments)}
    if default:
        settings["default_environment"] = default
    _dump(root / "project.yaml", settings)
    for table in tables:
        _dump(root / "tables" / f"{table['namespace']}_{table['name']}.yaml", table)
    for view in views:
        _dump(root / "views" / f"{view['namespace']}_{view['name']}.yaml", view)
    for pipeline in pipelines:
        _dump(root / "pipelines" / f"{pipeline['name']}.yaml", pipeline)
    if access is not None:
        _dump(root / "access.yaml", access)
    for env, patch in (patches or {}).items():
        _dump(root / "environments" / f"{env}.yaml", {"patches": patch})
    for name, text in (files or {}).items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def table(full_name: str, columns=None, **extra) -> dict:
    namespace, name = full_name.rsplit(".", 1)
    found = {"namespace": namespace, "name": name, **extra}
    if columns is not None:
        found["columns"] = [c if isinstance(c, dict) else {"name": c, "type": "int"} for c in columns]
    return found


def view(full_name: str, sql: str, reads=(), **extra) -> dict:
    namespace, name = full_name.rsplit(".", 1)
    return {"namespace": namespace, "name": name, "sql": sql, "reads": list(reads), **extra}


def _dump(path: Path, document: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(document, sort_keys=False))


def git_commit(repo: Path, *paths: str, force: bool = False) -> None:
    """Make ``repo`` a git repository (when it is not one) and commit ``paths`` (default: all)
    with a throwaway identity; skips the test where git is not installed."""
    if shutil.which("git") is None:
        pytest.skip("needs git")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-C", str(repo)]
    if not (repo / ".git").exists():
        subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", *(["-f"] if force else []), *(paths or ["."])], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "a revision"], check=True)


def edit_yaml(root: Path, relative: str, change) -> None:
    """Apply ``change`` to the YAML document in ``root/relative`` and write it back."""
    path = root / relative
    document = yaml.safe_load(path.read_text())
    change(document)
    path.write_text(yaml.safe_dump(document, sort_keys=False))

