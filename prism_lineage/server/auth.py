"""Who a request is: the server decides, per request, which credential it answers as.

Three ways, chosen when the server starts (``prism-lineage serve``):

* ``--as CREDENTIAL``: every request is that member or API token (local use, no login);
* no ``--as`` and no access policy in the project: every request is the project owner, as the
  CLI answers without ``--as``;
* otherwise people log in with a form (a member's or a token's name and its secret) and API
  clients send ``Authorization: Bearer <secret>``.  The secrets are in a file given with
  ``--credentials`` (kept out of git): the project's ``access.yaml`` says who may see what, and
  holds no secret.

The credential is the only thing the page's requests carry; what it may see is applied by the
store's read path on every answer, so nothing hidden is ever sent to the browser.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from pathlib import Path

from ..errors import InputError, UsageError

SESSION_COOKIE = "prism_session"
OWNER = None  # the project owner's credential (no --as)


class LoginRequired(Exception):
    """The request carries no credential the server knows (HTTP 401)."""


class Credentials:
    """Names and secrets from a ``--credentials`` file: a YAML mapping ``name: secret``, the
    secret either as it is or as ``sha256:<64 hex digits>`` (its SHA-256 digest)."""

    def __init__(self, secrets_by_name: dict[str, str]):
        self._digests: dict[str, bytes] = {}
        for name, secret in secrets_by_name.items():
            self._digests[name] = _digest(secret)
        seen: dict[bytes, str] = {}
        for name, digest in self._digests.items():
            if digest in seen:
                raise UsageError(f"credentials {seen[digest]!r} and {name!r} have the same secret: each needs its own")
            seen[digest] = name

    @property
    def names(self) -> list[str]:
        return sorted(self._digests)

    @classmethod
    def load(cls, path: str | Path) -> "Credentials":
        import yaml

        file = Path(path)
        try:
            text = file.read_text(encoding="utf-8")
        except OSError as error:
            raise InputError(f"cannot read the credentials file {path}: {error.strerror or error}") from None
        try:
            document = yaml.safe_load(text)
        except yaml.YAMLError as error:
            raise InputError(f"the credentials file {path} is not YAML: {str(error).splitlines()[0]}") from None
        if not isinstance(document, dict) or not document:
            raise InputError(f"the credentials file {path} must map each credential's name to its secret "
                             "(name: secret)")
        found = {}
        for name, secret in document.items():
            if not isinstance(name, str) or not name:
                raise InputError(f"the credentials file {path}: {name!r} is not a credential's name")
            if not isinstance(secret, str) or len(secret) < 8:
                raise InputError(f"the credentials file {path}: the secret of {name!r} must be a string of at "
                                 "least 8 characters")
            found[name] = secret
        return cls(found)

    def name_for_secret(self, secret: str) -> str | None:
        """The credential whose secret this is (compared digest to digest, in constant time)."""
        digest = hashlib.sha256(secret.encode()).digest()
        found = None
        for name, expected in self._digests.items():
            if hmac.compare_digest(digest, expected):
                found = name
        return found

    def check(self, name: str, secret: str) -> bool:
        expected = self._digests.get(name)
        digest = hashlib.sha256(secret.encode()).digest()
        return expected is not None and hmac.compare_digest(digest, expected)


def _digest(secret: str) -> bytes:
    if secret.startswith("sha256:"):
        hexdigest = secret[len("sha256:"):]
        if len(hexdigest) != 64 or any(c not in "0123456789abcdefABCDEF" for c in hexdigest):
            raise InputError("a secret written as sha256: must be followed by 64 hex digits")
        return bytes.fromhex(hexdigest)
    return hashlib.sha256(secret.encode()).digest()


class Authority:
    """How this server decides a request's credential (see the module)."""

    def __init__(self, *, fixed: str | None = None, login: Credentials | None = None):
        self.fixed = fixed
        self.login = login
        self._sessions: dict[str, str] = {}
        self._lock = threading.Lock()

    @property
    def needs_login(self) -> bool:
        return self.login is not None

    def credential(self, headers, cookies) -> str | None:
        """The credential of a request (None: the project owner); LoginRequired when it has none."""
        if self.login is None:
            return self.fixed
        header = headers.get("authorization", "")
        if header:
            scheme, _, secret = header.partition(" ")
            if scheme.lower() != "bearer" or not secret.strip():
                raise LoginRequired("the Authorization header must be 'Bearer <secret>'")
            name = self.login.name_for_secret(secret.strip())
            if name is None:
                raise LoginRequired("the token sent is not one this server knows")
            return name
        session = cookies.get(SESSION_COOKIE)
        if session:
            with self._lock:
                name = self._sessions.get(session)
            if name is not None:
                return name
        raise LoginRequired("log in, or send an API token as 'Authorization: Bearer <secret>'")

    def open_session(self, name: str, secret: str) -> str | None:
        """A new session for a person who gave the right secret, or None."""
        if self.login is None or not self.login.check(name, secret):
            return None
        session = secrets.token_urlsafe(32)
        with self._lock:
            self._sessions[session] = name
        return session

    def close_session(self, session: str | None) -> None:
        if session:
            with self._lock:
                self._sessions.pop(session, None)

    def describe(self, credential: str | None) -> str:
        return "the project owner" if credential is None else credential
