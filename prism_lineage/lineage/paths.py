"""Nested paths of base-column sources (specs/nested.md).

End-to-end answers key their sources by base column target (``column:orders.items``); a
source read only in part carries its path in the key, after a separator no identifier holds:
``column:orders.items`` + ``\\x1f`` + ``items[].sku``.  The path starts with the column's own
name, as the answer shows it.
"""

from __future__ import annotations

import re

SEPARATOR = "\x1f"
# An edge path meaning "one part of the source, and which one is not known" (a set operation
# pairing by position with columns nobody declared): the key is sealed, so a name or path
# read below it cannot pick a part of it (``b.*`` stays ``b.*``, never ``b.x``).
UNKNOWN_PART = "\x1e"


def extend(source: str, suffix: str | None) -> str:
    """``source`` (a base column key) read further at ``suffix`` (``.sku``, ``[]`` …).

    ``t.*`` (a star standing for the unknown columns of ``t``) read at ``.name`` is the column
    ``t.name``: the name picks it out of the star."""
    if not suffix or source.endswith(UNKNOWN_PART):
        return source
    if suffix.startswith(UNKNOWN_PART):
        return source + UNKNOWN_PART
    if SEPARATOR in source:
        return source + suffix
    table, _, column = source.rpartition(".")
    if column == "*":
        named = re.match(r"\.([^.\[]+)", suffix)
        if named:
            return extend(f"{table}.{named.group(1)}", suffix[named.end():])
    return f"{source}{SEPARATOR}{column}{suffix}"


def names_a_star(source: str, suffix: str | None) -> bool:
    """Whether ``extend(source, suffix)`` names a column of a star (that read is then exact:
    the star's only unknown was which columns it holds)."""
    return bool(suffix) and SEPARATOR not in source and source.endswith(".*") and suffix.startswith(".")


def unsealed(source: str) -> str:
    """``source`` without the mark of a part not known (``UNKNOWN_PART``)."""
    return source[:-1] if source.endswith(UNKNOWN_PART) else source


def split(source: str) -> tuple[str, str | None]:
    """``(column target, path or None)``."""
    target, separator, path = unsealed(source).partition(SEPARATOR)
    return target, (path if separator else None)


def covers(whole: str | None, part: str) -> bool:
    """Whether reading ``whole`` (``None``: the entire column) already reads ``part``."""
    if whole is None:
        return True
    return part.startswith(whole) and (len(part) == len(whole) or part[len(whole)] in ".[")
