"""``neardup serve DIR``: an index over HTTP (:mod:`neardup.online.server`, the ``serve`` extra).

Kept light: the web stack is imported only when the server starts.
"""

from __future__ import annotations

import argparse
import os

from ..errors import UserError

#: Environment variable holding the token write requests must carry (``--token`` overrides it).
TOKEN_ENV = "NEARDUP_TOKEN"


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``serve`` to ``subparsers``."""
    s = subparsers.add_parser("serve", help="serve an index over HTTP (JSON API; needs the `serve` extra)")
    s.add_argument("index", metavar="DIR", help="the index folder")
    s.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1: this machine only)")
    s.add_argument("--port", type=int, default=8080, help="port (8080)")
    s.add_argument("--token", help=f"token write requests must send as 'Authorization: Bearer TOKEN' "
                                   f"(default: ${TOKEN_ENV}; none: writes are open)")
    s.add_argument("--max-body", type=int, default=16 << 20, metavar="BYTES", help="largest request body (16 MiB)")
    s.add_argument("--sync", choices=("full", "normal"),
                   help="as for `index create`, for this server's commits (the index's, set at create)")
    s.add_argument("--read-timeout", type=float, default=30.0, metavar="SECONDS",
                   help="a request's headers and body must arrive within this time, else the connection is closed (30)")
    s.add_argument("--max-connections", type=int, default=1000, metavar="N",
                   help="open connections at most; past it the one waiting longest for a request is closed (1000)")
    return s


def run(args: argparse.Namespace) -> int:
    try:
        from ..online.server import serve
    except ImportError as exc:
        raise UserError(f"neardup serve needs the web extra: pip install -e '.[serve]' in the neardup checkout ({exc})") from None
    token = args.token if args.token is not None else os.environ.get(TOKEN_ENV) or None
    return serve(args.index, host=args.host, port=args.port, token=token, max_body=args.max_body, sync=args.sync,
                 read_timeout=args.read_timeout, max_connections=args.max_connections)
