"""Putting a server together: which environment, who a request is, and the revision watcher."""

from __future__ import annotations

from ..errors import UsageError
from . import answers
from .auth import Authority, Credentials


def build(*, index: str, project: str | None = None, environment: str | None = None, credential: str | None = None,
          credentials: str | None = None, poll: float = 2.0, watch: bool = True, mapping: str | None = None):
    """The Starlette application and its :class:`~prism_lineage.server.app.Explorer`."""
    from .app import Explorer, create_app
    from .syncing import RevisionWatcher

    where = answers.locate(index, project, environment)
    known = _credential_names(where)
    if credential is not None:
        if credential not in known:
            from ..governance.errors import UnknownCredentialError

            raise UnknownCredentialError(credential)
        authority = Authority(fixed=credential)
    elif credentials is not None:
        login = Credentials.load(credentials)
        unknown = [name for name in login.names if name not in known]
        if unknown:
            raise UsageError(f"the credentials file {credentials} names {', '.join(repr(n) for n in unknown)}, "
                             "not a member or API token of the project's access policy")
        authority = Authority(login=login)
    elif known:
        raise UsageError(f"project '{where.project}' has an access policy ({len(known)} members and tokens): serve "
                         "one credential's view with --as NAME, or give --credentials FILE (each credential's "
                         "secret) so that people log in and API clients send a token")
    else:
        authority = Authority()  # no access policy: the project owner's view, as the CLI answers
    watcher = None
    if mapping is not None:
        from ..openlineage.naming import load_mapping

        load_mapping(mapping, where.environment)  # a malformed file is refused now, not at the first event
    explorer = Explorer(where, authority, observations=answers.Observations(mapping))
    if project is not None and watch:
        watcher = RevisionWatcher(project, index, where.environment, interval=poll, on_synced=explorer.relocate)
        explorer.watcher = watcher
        watcher.start()
    return create_app(explorer), explorer


def _credential_names(where: answers.Located) -> set[str]:
    """The members and API tokens the environment knows (the owner's row excluded): from the
    store as its last sync compiled them, else from the project's access policy."""
    if where.store is not None:
        from ..control.reading import StoreReader

        with StoreReader(where.root) as reader:
            return {name for (name,) in reader.connection.execute("SELECT name FROM credentials") if name}
    from ..governance.loading import load_project

    _, access = load_project(where.project_dir)
    return set(access.members) | set(access.tokens)
