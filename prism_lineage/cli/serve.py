"""``prism-lineage serve``: the lineage explorer as a web page, and its JSON API.

::

    prism-lineage serve --index DIR [--project DIR] [--env ENV] [--host 127.0.0.1] [--port N]
                        [--as CREDENTIAL | --credentials FILE] [--mapping FILE] [--poll SECONDS]

Answers come from the environment's current store in the index (``prism-lineage sync``), read
per request for the request's credential; the API's JSON is the CLI's ``-o json``, byte for
byte.  With ``--project`` the server also syncs whenever the checkout's revision changes.
See docs/explorer.md.
"""

from __future__ import annotations

import sys

from ..errors import UsageError


def register(commands) -> None:
    parser = commands.add_parser(
        "serve",
        help="the lineage explorer as a web page (and its JSON API), answering from the index",
        description="A local web server: the lineage explorer, asset records, change sets, and a JSON API whose "
                    "answers are the CLI's -o json, from the environment's current store (docs/explorer.md).",
    )
    parser.add_argument("--index", required=True, metavar="DIR", help="the index (see 'prism-lineage sync')")
    parser.add_argument("--project", metavar="DIR", default=None,
                        help="the project directory: sync it whenever its checkout's revision changes, and read "
                             "change sets from it (without: the one project the index holds)")
    parser.add_argument("--env", metavar="ENV", default=None,
                        help="the environment (may be left out when there is one, or a default)")
    parser.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8765, metavar="N",
                        help="the port (default 8765; 0: any free port, printed)")
    who = parser.add_mutually_exclusive_group()
    who.add_argument("--as", dest="credential", metavar="CREDENTIAL", default=None,
                     help="serve this member's or API token's view to everyone, without a login (local use)")
    who.add_argument("--credentials", metavar="FILE", default=None,
                     help="a YAML file mapping credential names to secrets: people log in with them, API clients "
                          "send 'Authorization: Bearer <secret>' (keep it out of git)")
    parser.add_argument("--mapping", metavar="FILE", default=None,
                        help="for POST /api/v1/lineage: how OpenLineage dataset names map to assets (as observe "
                             "--mapping)")
    parser.add_argument("--poll", type=float, default=2.0, metavar="SECONDS",
                        help="with --project: how often to look at the checkout's revision (default 2)")
    parser.set_defaults(run=run)


def run(args) -> int:
    import socket

    from ..server.main import build

    if not 0 <= args.port <= 65535:
        raise UsageError(f"port {args.port} is outside 0 to 65535")
    if args.poll <= 0:
        raise UsageError(f"--poll {args.poll} must be a positive number of seconds")
    app, explorer = build(index=args.index, project=args.project, environment=args.env, credential=args.credential,
                          credentials=args.credentials, poll=args.poll, mapping=args.mapping)
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
        sock.listen(2048)  # connections wait in the backlog from now on, until the server accepts them
    except OSError as error:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {error.strerror or error}") from None
    port = sock.getsockname()[1]
    host = f"[{args.host}]" if family == socket.AF_INET6 else args.host
    who = ("people log in; API clients send a token" if explorer.authority.needs_login
           else f"as {explorer.authority.describe(explorer.authority.fixed)}")
    print(f"prism-lineage: serving {explorer.where.project}/{explorer.where.environment} ({who}) at "
          f"http://{host}:{port}/explorer", file=sys.stderr, flush=True)
    import uvicorn

    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    finally:
        if explorer.watcher is not None:
            explorer.watcher.stop()
        explorer.observations.close()
    return 0
