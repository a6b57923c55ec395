"""Who may see what: roles, members, API tokens, and the viewer an answer is given to.

Lineage is read with ``lineage.read``.  Every role holds it (a viewer's included), so a person
is never refused; an API token lists its own permissions and may be narrower than the person
who made it, in permissions and in what it sees, never wider.  What a credential may see is
a set of patterns over assets' full names (``fnmatch``: ``analytics.*``), optionally limited
to some environments, like the Data assets list.  Without a credential the answer is the
project owner's: every asset, every permission.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from fnmatch import fnmatchcase

from pydantic import BaseModel, ConfigDict, Field

from .errors import PermissionRefusedError, UnknownCredentialError  # noqa: F401 - re-exported

LINEAGE_READ = "lineage.read"
REVIEW_APPROVE = "review.approve"  # approve an environment's move to what a branch brings (``--approved``)


class _Access(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Role(_Access):
    permissions: tuple[str, ...] = ()
    sees: tuple[str, ...] = ("*",)
    environments: tuple[str, ...] | None = None  # None: every environment


class Member(_Access):
    roles: tuple[str, ...]


class Token(_Access):
    """An API token.  ``permissions`` are the token's own (never more than its maker's);
    ``sees`` narrows what the maker sees (absent: the maker's)."""

    made_by: str
    permissions: tuple[str, ...] = ()
    sees: tuple[str, ...] | None = None
    environments: tuple[str, ...] | None = None


class AccessPolicy(_Access):
    owner: str | None = None
    roles: dict[str, Role] = Field(default_factory=dict)
    members: dict[str, Member] = Field(default_factory=dict)
    tokens: dict[str, Token] = Field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Grant:
    """Assets matching one of ``patterns`` in one of ``environments`` (None: all)."""

    patterns: tuple[str, ...]
    environments: frozenset[str] | None

    def allows(self, environment: str, full_name: str) -> bool:
        if self.environments is not None and environment not in self.environments:
            return False
        return any(fnmatchcase(full_name, pattern) for pattern in self.patterns)


@dataclass(frozen=True, slots=True)
class Viewer:
    """The credential an answer is given to.  A token carries its maker's grants and its own
    (``narrowing``): it sees an asset only if both allow it."""

    name: str
    permissions: frozenset[str]
    grants: tuple[Grant, ...]
    narrowing: Grant | None = None
    everything: bool = False

    def may(self, permission: str) -> bool:
        return self.everything or permission in self.permissions

    def sees(self, environment: str, full_name: str) -> bool:
        if self.everything:
            return True
        if self.narrowing is not None and not self.narrowing.allows(environment, full_name):
            return False
        return any(grant.allows(environment, full_name) for grant in self.grants)

    def require(self, permission: str) -> None:
        if not self.may(permission):
            raise PermissionRefusedError(self.name, permission)

    def scope(self, environment: str) -> "VisibilityScope | None":
        """What this credential may see in ``environment``, as a visibility scope (None: every
        asset, the owner's)."""
        if self.everything:
            return None
        patterns = tuple(sorted({p for g in self.grants if g.environments is None or environment in g.environments
                                 for p in g.patterns}))
        narrowing = None
        if self.narrowing is not None:
            applies = self.narrowing.environments is None or environment in self.narrowing.environments
            narrowing = tuple(sorted(set(self.narrowing.patterns))) if applies else ()
        return VisibilityScope.of(patterns, narrowing)


@dataclass(frozen=True, slots=True)
class VisibilityScope:
    """A set of assets of one environment some credentials may see, by the patterns that say so.

    Answers given to a restricted credential never depend on an asset it may not see, so the
    SQL a scope sees is read again where a read depended on such an asset (``rollup.py``).
    Credentials whose grants are alike in the environment share a scope: its ``key`` ("s" and
    16 hex digits) is a digest of the patterns, stable from one sync to the next and saying
    nothing of them by itself."""

    key: str
    patterns: tuple[str, ...]  # sees an asset matching one of these …
    narrowing: tuple[str, ...] | None  # … and, when set (a token's own), one of these

    @classmethod
    def of(cls, patterns: tuple[str, ...], narrowing: tuple[str, ...] | None) -> "VisibilityScope":
        text = "\x00".join(patterns) + "\x01" + ("\x00".join(narrowing) if narrowing is not None else "\x02")
        return cls("s" + hashlib.blake2b(text.encode(), digest_size=8).hexdigest(), patterns, narrowing)

    def sees(self, full_name: str) -> bool:
        if self.narrowing is not None and not any(fnmatchcase(full_name, p) for p in self.narrowing):
            return False
        return any(fnmatchcase(full_name, p) for p in self.patterns)


OWNER = Viewer("project owner", frozenset(), (), everything=True)


def authorized(policy: AccessPolicy, credential: str | None, *, approving: bool = False) -> Viewer:
    """The viewer for ``credential`` once it is known to hold what the request needs: ``lineage.read``
    always, and ``review.approve`` to approve a move.  Checked before any work is done, so a
    refused credential syncs nothing and writes nothing."""
    viewer = viewer_for(policy, credential)
    viewer.require(LINEAGE_READ)
    if approving:
        viewer.require(REVIEW_APPROVE)
    return viewer


def policy_viewers(policy: AccessPolicy) -> list[Viewer]:
    """Every member's and every token's viewer (the owner's included)."""
    return [viewer_for(policy, name) for name in (*policy.members, *policy.tokens)]


def policy_scopes(policy: AccessPolicy, environment: str) -> list[VisibilityScope]:
    """The distinct visibility scopes of a policy's credentials in ``environment`` (the owner's,
    which sees everything, is none): what a sync reads the SQL again for."""
    found = {}
    for viewer in policy_viewers(policy):
        scope = viewer.scope(environment)
        if scope is not None:
            found.setdefault(scope.key, scope)
    return list(found.values())


def viewer_for(policy: AccessPolicy, credential: str | None) -> Viewer:
    """The viewer for ``credential`` (a member's or a token's name); ``None``: the owner."""
    if credential is None:
        return OWNER
    if credential in policy.members:
        return _member_viewer(policy, credential)
    token = policy.tokens.get(credential)
    if token is None:
        raise UnknownCredentialError(credential)
    if token.made_by not in policy.members:
        # A token outlives nothing: its maker's rights bound it, so without them it has none.
        return Viewer(credential, frozenset(), ())
    maker = _member_viewer(policy, token.made_by)
    narrowing = None
    if token.sees is not None or token.environments is not None:
        environments = frozenset(token.environments) if token.environments is not None else None
        narrowing = Grant(token.sees if token.sees is not None else ("*",), environments)
    if maker.everything:
        return Viewer(credential, frozenset(token.permissions), (Grant(("*",), None),), narrowing)
    return Viewer(credential, frozenset(token.permissions) & maker.permissions, maker.grants, narrowing)


def _member_viewer(policy: AccessPolicy, name: str) -> Viewer:
    member = policy.members[name]
    if name == policy.owner:
        return Viewer(name, frozenset(), (), everything=True)
    permissions: set[str] = {LINEAGE_READ}  # every role holds it, a viewer's included
    grants = []
    for role_name in member.roles:
        role = policy.roles.get(role_name)
        if role is None:
            continue  # the loader refuses unknown roles; a role removed later grants nothing
        permissions.update(role.permissions)
        environments = frozenset(role.environments) if role.environments is not None else None
        grants.append(Grant(role.sees, environments))
    return Viewer(name, frozenset(permissions), tuple(grants))
