"""Where an environment lives in an index, and what a sync remembers of a project directory.

``INDEX/<project>/<environment>/`` holds the environment's epochs and its current store; the
names are checked so that no project or environment name leads outside ``INDEX``.
``INDEX/.projects/<digest of the project directory>.json`` remembers, for each project directory
synced, its project name, environments and default, so that ``lineage --index`` finds the store
without reading the project.  Light on purpose: the read path imports it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..errors import InputError

try:  # hashlib's blake2b itself, without loading OpenSSL (a few ms of every answer's start-up)
    from _blake2 import blake2b as _blake2b
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import blake2b as _blake2b

POINTERS = ".projects"


def environment_root(index: str | Path, project: str, environment: str) -> Path:
    """``INDEX/<project>/<environment>``, refused when a name would lead outside ``INDEX``."""
    base = Path(index).resolve()
    for kind, name in (("project", project), ("environment", environment)):
        if not name or name in (".", "..") or "/" in name or "\\" in name or "\x00" in name or name.startswith("."):
            raise InputError(f"the {kind} name {name!r} cannot name a directory of the index "
                             "(no '/', '\\', NUL, and not starting with '.')")
    root = (base / project / environment).resolve()
    if base not in root.parents:
        raise InputError(f"the {kind} name {project!r}/{environment!r} leads outside the index {index}")
    return root


def _pointer_path(index: str | Path, project_dir: str | Path) -> Path:
    digest = _blake2b(str(Path(project_dir).resolve()).encode(), digest_size=12).hexdigest()
    return Path(index) / POINTERS / f"{digest}.json"


def write_pointer(index: str | Path, project_dir: str | Path, project) -> None:
    path = _pointer_path(index, project_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    document = {"path": str(Path(project_dir).resolve()), "project": project.name,
                "environments": [e.name for e in project.environments],
                "default_environment": project.default_environment}
    temporary = path.with_name(f".tmp-{os.getpid()}-{path.name}")
    temporary.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    os.replace(temporary, path)


def read_pointer(index: str | Path, project_dir: str | Path) -> dict | None:
    """What the last sync of ``project_dir`` into ``index`` recorded of the project (its name,
    environments and default), or None when it was never synced from there."""
    try:
        document = json.loads(_pointer_path(index, project_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return document if isinstance(document, dict) and document.get("project") else None
