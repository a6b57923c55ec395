"""What a project's files looked like when a sync read them: enough to tell, without reading
them, that nothing changed since.

Each file a sync may read — a native project's files (every file under the project directory
but hidden ones), or a dbt project's ``dbt_project.yml``, ``profiles.yml``, ``access.yaml`` and
``target/manifest.json``/``catalog.json`` — is remembered by its size, modification and change
times (nanoseconds) and inode, taken *before* the sync reads the project.  A later sync that
finds the same files with the same four values finds nothing changed: any write, rename or
replacement of a file changes its change time (``ctime``), which no tool sets back.
"""

from __future__ import annotations

import os
from array import array
from itertools import chain
from pathlib import Path

Fingerprint = dict[str, tuple[int, int, int, int]]  # path (relative, posix) -> (size, mtime_ns, ctime_ns, inode)

_DBT_FILES = ("dbt_project.yml", "profiles.yml", "access.yaml", "target/manifest.json", "target/catalog.json")


def fingerprint(root: str | Path) -> Fingerprint:
    root = Path(root)
    found: Fingerprint = {}
    if (root / "project.yaml").is_file():
        try:
            directory = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            return found
        try:
            _walk(directory, "", found)
        finally:
            os.close(directory)
    else:
        for relative in _DBT_FILES:
            try:
                found[relative] = _stat(os.stat(root / relative))
            except OSError:
                continue
    return found


def _walk(directory: int, prefix: str, found: Fingerprint) -> None:
    """Every file under the open ``directory``, in the directory's own order (``digest``),
    each stat-ed relative to its directory (``fstatat``: no path resolved from the root again
    for each of 100,000 files)."""
    try:
        with os.scandir(directory) as listing:
            entries = list(listing)
    except OSError:
        return
    stat = os.stat
    for entry in entries:
        name = entry.name
        if name.startswith("."):
            continue  # .git, editors' files: never declarations
        try:
            if entry.is_dir(follow_symlinks=False):
                inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=directory)
                try:
                    _walk(inner, f"{prefix}{name}/", found)
                finally:
                    os.close(inner)
            else:
                status = stat(name, dir_fd=directory, follow_symlinks=False)
                found[f"{prefix}{name}"] = (status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino)
        except OSError:
            continue


def _stat(status: os.stat_result) -> tuple[int, int, int, int]:
    return (status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino)


def digest(found: Fingerprint) -> str:
    """A digest of ``found`` as the walk listed it (paths in the walk's order, then every value):
    equal digests mean equal fingerprints, so a sync that finds the digest it stored knows that
    nothing changed without reading a row per file back (100,000 at warehouse scale).  The
    order is the directories' own, stable while no entry is added or removed; a different
    order only makes the sync compare the files one by one."""
    try:
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - a Python built without it
        from hashlib import blake2b
    hasher = blake2b(digest_size=20)
    hasher.update("\0".join(found).encode("utf-8", "surrogateescape"))
    hasher.update(b"\1")
    values = chain.from_iterable(found.values())
    try:
        hasher.update(array("q", values).tobytes())
    except OverflowError:  # an inode number above 2**63 (some network file systems)
        hasher.update(repr(list(found.values())).encode())
    return f"{len(found)}:{hasher.hexdigest()}"


def newest_change(found: Fingerprint) -> int:
    """The latest change time (ns) among ``found``: a file changed since has a later one, as
    long as the clock did not go back — which is why it is only used to *guess* what changed,
    the digest then saying whether the guess is the whole change (``store.changed_files``)."""
    from operator import itemgetter

    return max(map(itemgetter(2), found.values()), default=0)
