"""Who may reach a served app: loopback by default; anything wider needs named origins and a token.

On 127.0.0.1 only this machine's browsers connect, so the websocket origins are the loopback names
and no login is asked. Listening on any other address (``0.0.0.0``, a LAN address) exposes every
served session file to the network: the server then refuses to start unless the origins browsers
will use are listed (``--allow-origin host[:port]``, e.g. the public name of a reverse proxy), and
every browser must log in with an access token (Panel's login page; the token is the password).
The token comes from ``WORKBENCH_TOKEN`` or is generated and printed once at start. Loopback with
an extra ``--allow-origin`` (a reverse proxy on the same machine) asks for the same login.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from workbench.errors import UsageError

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
TOKEN_ENV = "WORKBENCH_TOKEN"


@dataclass(frozen=True, slots=True)
class Exposure:
    """How a server on ``address`` is reached: allowed websocket origins and the access token (if any)."""

    address: str
    origins: tuple[str, ...]
    token: str | None
    token_from_env: bool

    def serve_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``pn.serve``."""
        kwargs: dict[str, Any] = {"websocket_origin": list(self.origins)}
        if self.token is not None:
            kwargs["basic_auth"] = self.token
            kwargs["cookie_secret"] = secrets.token_urlsafe(32)  # login cookies die with the server
        return kwargs

    def announcement(self) -> str:
        """What the server prints at start (the generated token, once; never a token from the environment)."""
        if self.token is None:
            return ""
        allowed = ", ".join(self.origins)
        if self.token_from_env:
            return f"Listening on {self.address}: login required (token from ${TOKEN_ENV}); allowed origins: {allowed}"
        return (f"Listening on {self.address}: login required. Access token (the password on the login page; "
                f"shown once, set ${TOKEN_ENV} to choose your own): {self.token}\nAllowed origins: {allowed}")


def exposure(address: str, port: int, allow_origins: Sequence[str] = (),
             env: Mapping[str, str] | None = None) -> Exposure:
    """The origins and token for serving on ``address:port`` (``UsageError`` when unsafe)."""
    env = os.environ if env is None else env
    origins = [o.strip() for o in allow_origins if o.strip()]
    for origin in origins:
        if "://" in origin or "/" in origin or origin == "*":
            raise UsageError("give a host or host:port as browsers send it "
                             "(no scheme, no path, no wildcard), e.g. workbench.example.org",
                             field="allow_origin", value=repr(origin))
    env_token = env.get(TOKEN_ENV) or None
    if address in LOOPBACK:
        loop = [f"{address}:{port}", f"127.0.0.1:{port}", f"localhost:{port}"]
        if not [o for o in origins if o not in loop]:
            return Exposure(address, tuple(loop), env_token, env_token is not None)
        # loopback behind a reverse proxy: browsers elsewhere reach it through the named origin, so
        # the same login is required as on a public address
        token = env_token or secrets.token_urlsafe(18)
        return Exposure(address, tuple(dict.fromkeys([*loop, *origins])), token, env_token is not None)
    if not origins:
        # the message names no flag: the command line puts the field's flag in front (cli_message)
        raise UsageError(f"needed: address {address} listens beyond this machine, so list the origins "
                         "(HOST[:PORT]) browsers will use (behind a reverse proxy: its public host name); "
                         f"browsers then log in with an access token (${TOKEN_ENV}, or one printed at start)",
                         field="allow_origin")
    token = env_token or secrets.token_urlsafe(18)
    return Exposure(address, tuple(dict.fromkeys(origins)), token, env_token is not None)
