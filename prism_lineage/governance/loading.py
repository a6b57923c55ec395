"""Loading a project directory, whichever format it is written in."""

from __future__ import annotations

from pathlib import Path

from ..terminal import printable
from .access import AccessPolicy
from .dbt import is_dbt_project, load_dbt_project
from .declarations import Project
from .errors import ProjectError
from .native import is_native_project, load_native


def load_project(root: str | Path, *, documents: dict[str, tuple[str, str | None]] | None = None,
                 parse=None) -> tuple[Project, AccessPolicy]:
    """A native project (``project.yaml``) or a dbt project (``dbt_project.yml`` and
    ``target/manifest.json``), with its access policy.  ``documents``: a native project's large
    declaration files' texts and parsed documents (``native.read_native``) are put there.
    ``parse``: where a native project's declaration files may be parsed (``native.read_native``)."""
    if not str(root):
        raise ProjectError("no project directory given")
    path = Path(root)
    if not path.is_dir():
        raise ProjectError(f"project directory not found: {printable(str(root))}")
    if is_native_project(path):
        project, access, _ = load_native(path, documents=documents, parse=parse)
        return project, access
    if is_dbt_project(path):
        return load_dbt_project(path)
    raise ProjectError(f"{printable(str(root))} is neither a native project (no project.yaml) nor a dbt project "
                       "(no dbt_project.yml or target/manifest.json)")
