"""The names a project gives, and the paths made from them.

A project's and an environment's names become directories of the index (``INDEX/<project>/<env>``)
and an environment's name a file of the project (``environments/<env>.yaml``), so they are
checked against a documented character set before any path is made from them — and every path
made is still resolved and checked to stay under its root.  An asset's identifiers (namespace,
name, aliases, columns, and the names pipelines and views use to point at assets) may be any
text without control characters: a NUL, an escape or a newline in an identifier is refused.
"""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path

from ..terminal import printable
from .errors import ProjectError

# Letters, digits, '_', '-' and '.', starting with a letter, a digit or '_', at most 128
# characters, no '..': a name that is one path component on every file system.
NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")
NAME_RULE = ("letters, digits, '_', '-' and '.', starting with a letter, a digit or '_', at most 128 "
             "characters, without '..'")


def name_problem(value: object) -> str | None:
    """Why ``value`` cannot be a project's or an environment's name (None: it can)."""
    if not isinstance(value, str) or not NAME.fullmatch(value) or ".." in value:
        return f"must be {NAME_RULE}"
    return None


def check_name(kind: str, value: object, where: str) -> str:
    """``value`` as the name of a ``kind`` (project, environment), or a refusal naming ``where``."""
    problem = name_problem(value)
    if problem is not None:
        shown = printable(value if isinstance(value, str) else repr(value))
        raise ProjectError(f"{where}: {kind} name '{shown}' is refused: a {kind} name {problem}")
    return value  # type: ignore[return-value]


def identifier_problem(value: str) -> str | None:
    """Why ``value`` cannot be an asset's identifier (None: it can)."""
    if not value:
        return "must not be empty"
    if value.isprintable():
        # No character of category Cc is printable (``str.isprintable`` is false for Cc, and
        # for other categories too, which the loop below then looks at): one C call for the
        # common identifier instead of a category lookup per character.
        return None
    for character in value:
        if unicodedata.category(character) == "Cc":
            return f"must not hold control characters (it holds {printable(character)})"
    return None


def under(root: str | Path, *parts: str) -> Path:
    """``root/parts…``, each part a checked name, resolved and checked to stay under ``root``
    (a link inside ``root`` leading out of it is refused)."""
    for part in parts:
        if name_problem(part) is not None:
            raise ProjectError(f"'{printable(part)}' cannot name a directory: a name {NAME_RULE}")
    base = os.path.realpath(root)
    path = os.path.realpath(os.path.join(base, *parts))
    if not path.startswith(base.rstrip(os.sep) + os.sep):
        raise ProjectError(f"{printable(os.path.join(str(root), *parts))} leads outside {printable(str(root))}: "
                           "refused")
    return Path(path)
