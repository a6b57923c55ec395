"""Helpers for the explorer's tests: projects synced into an index, and servers over them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHOP = ROOT / "examples" / "shop"
DBT = ROOT / "tests" / "fixtures" / "dbt_project"
# Every credential of examples/shop/access.yaml (None: the project owner, as without --as).
SHOP_CREDENTIALS = (None, "alice", "bob", "carol", "dave", "bob-ci", "bob-deploy")
SECRETS = {"alice": "alice-secret-1", "bob": "bob-secret-22", "carol": "carol-secret-3", "dave": "dave-secret-44",
           "bob-ci": "bob-ci-token-5", "bob-deploy": "bob-deploy-token-6"}


def sync_into(project: Path, index: Path, environment: str | None = None) -> Path:
    from prism_lineage.control.sync import sync

    sync(project, index, environment)
    return index


def copy_project(source: Path, target: Path, *, git: bool = False) -> Path:
    """A copy of a project (optionally committed in a new git repository)."""
    shutil.copytree(source, target)
    if git:
        git_commit(target)
    return target


def git_commit(repo: Path, message: str = "a revision") -> str:
    if shutil.which("git") is None:
        pytest.skip("needs git")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-C", str(repo)]
    if not (repo / ".git").exists():
        subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", message], check=True)
    return subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()


def write_secrets(path: Path, secrets: dict[str, str] | None = None) -> Path:
    import yaml

    path.write_text(yaml.safe_dump(dict(secrets or SECRETS)), encoding="utf-8")
    return path


def client(index: Path, *, project: Path | None = None, environment: str | None = None,
           credential: str | None = None, credentials: Path | None = None):
    """A Starlette test client over ``prism-lineage serve``'s application (no revision watcher)."""
    from starlette.testclient import TestClient

    from prism_lineage.server.main import build

    app, _ = build(index=str(index), project=None if project is None else str(project), environment=environment,
                   credential=credential, credentials=None if credentials is None else str(credentials), watch=False)
    return TestClient(app, follow_redirects=False)


def cli_json(capsys, *argv: str) -> tuple[int, str]:
    """What ``prism-lineage ARGV`` prints on stdout (and its exit code)."""
    from prism_lineage.cli import main

    capsys.readouterr()
    code = main(list(argv))
    out, _ = capsys.readouterr()
    return code, out
