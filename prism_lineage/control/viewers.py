"""Who may see what, as the store keeps it: each credential compiled at sync time.

The access policy is read at the revision a sync reads (the approved one: a branch never widens
its own access), and every credential — the project owner, each member, each API token — is
compiled by ``governance.access.viewer_for`` (the one authority on access) into what an answer
needs in this environment: its permissions, and what it sees as regular expressions over full
names (``fnmatch``'s own translation, so a pattern matches exactly what ``fnmatchcase`` does).
Grants limited to other environments are dropped; a token whose narrowing excludes this
environment sees nothing.  The read path answers from this without importing pydantic.
"""

from __future__ import annotations

import json
import re

from ..governance.errors import PermissionRefusedError, UnknownCredentialError

OWNER_KEY = ""  # the credential row of the project owner (no --as)
OWNER_NAME = "project owner"


def compile_viewer(viewer, environment: str) -> dict:
    """A ``governance.access.Viewer`` as stored: its permissions and its visibility scope in
    ``environment`` (``Viewer.scope``: None for one who sees everything), the scope's patterns
    compiled — the scope says exactly what the viewer sees there."""
    scope = viewer.scope(environment)
    if scope is None:
        return {"name": viewer.name, "everything": True, "permissions": sorted(viewer.permissions), "grants": [],
                "narrowing": None, "scope": None}
    narrowing = None if scope.narrowing is None else _regex(scope.narrowing)
    return {"name": viewer.name, "everything": False, "permissions": sorted(viewer.permissions),
            "grants": [_regex(scope.patterns)], "narrowing": narrowing, "scope": scope.key}


def compile_policy(policy, environment: str) -> dict[str, dict]:
    """Every credential of ``policy`` (members, tokens, and the owner under ``OWNER_KEY``)."""
    from ..governance.access import viewer_for

    found = {OWNER_KEY: compile_viewer(viewer_for(policy, None), environment)}
    for name in (*policy.members, *policy.tokens):
        found[name] = compile_viewer(viewer_for(policy, name), environment)
    return found


def _regex(patterns) -> str:
    import fnmatch

    return "|".join(f"(?:{fnmatch.translate(p)})" for p in patterns) or "(?!)"


class StoredViewer:
    """A credential as the read path uses it: ``may``, ``require``, ``sees``."""

    __slots__ = ("name", "everything", "permissions", "scope", "_grants", "_narrowing", "_seen")

    def __init__(self, data: dict):
        self.name = data["name"]
        self.scope: str | None = data.get("scope")  # the visibility scope's key (None: sees everything)
        self.everything = bool(data["everything"])
        self.permissions = frozenset(data["permissions"])
        self._grants = [re.compile(g) for g in data["grants"]]
        self._narrowing = re.compile(data["narrowing"]) if data["narrowing"] is not None else None
        self._seen: dict[str, bool] = {}

    @classmethod
    def from_json(cls, text: str) -> "StoredViewer":
        return cls(json.loads(text))

    def may(self, permission: str) -> bool:
        return self.everything or permission in self.permissions

    def require(self, permission: str) -> None:
        if not self.may(permission):
            raise PermissionRefusedError(self.name, permission)

    def sees(self, full_name: str) -> bool:
        if self.everything:
            return True
        found = self._seen.get(full_name)
        if found is None:
            found = (self._narrowing is None or self._narrowing.match(full_name) is not None) and any(
                g.match(full_name) is not None for g in self._grants)
            self._seen[full_name] = found
        return found


def unknown(name: str) -> UnknownCredentialError:
    return UnknownCredentialError(name)
