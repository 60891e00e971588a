"""NATS users and permissions, generated from the bus declaration (`felt_contracts.access`).

Each identity (a service, or the operator's `felt` command) is a NATS user with allow-lists:
- publish: the requests it sends, the events it publishes, the JetStream API of the streams and
  KV buckets it owns or reads; replies to the requests it serves go through `allow_responses`
  (a reply subject it received, once), never through a publish right on `_INBOX.>`;
- subscribe: the requests it serves, the events it hears and its own inbox `_INBOX.<user>.>`
  (`inbox_prefix`), so nobody reads another identity's replies.

Users carry passwords (`authorization { users = [...] }`), the one scheme the embedded server of
`felt up` can check without an operator/account setup; docs/operations.md says why and how the
passwords are kept. `felt up` writes the server configuration and the passwords under `var/nats/`;
the Kubernetes and docker-compose configurations are rendered from here too (`render`), with
each password read from the environment of the NATS server (a Secret), never written in them.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import ssl
from pathlib import Path
from typing import TYPE_CHECKING, Any

from faststream.nats import NatsBroker
from faststream.nats.security import NatsSecurity, NatsUserPassword

from felt_contracts import access

if TYPE_CHECKING:
    from felt_runtime.settings import Settings

log = logging.getLogger("felt.bus.access")

#: JetStream API verbs on a stream of its owner (create, update, inspect, delete) and of a reader
#: (inspect, create if missing; and its consumer's, `_consumer_api`)
_STREAM_VERBS_OWNER = ("CREATE", "UPDATE", "INFO", "DELETE")
_STREAM_VERBS_READER = ("CREATE", "INFO")


def inbox_prefix(user: str) -> str:
    """Where a user's replies arrive: only this user may subscribe under it."""
    return f"_INBOX.{user}"


def _stream_api(stream: str, verbs: tuple[str, ...]) -> list[str]:
    return [f"$JS.API.STREAM.{verb}.{stream}" for verb in verbs]


def _consumer_api(stream: str) -> list[str]:
    return [
        f"$JS.API.CONSUMER.CREATE.{stream}",
        f"$JS.API.CONSUMER.CREATE.{stream}.>",
        f"$JS.API.CONSUMER.DURABLE.CREATE.{stream}.>",
        f"$JS.API.CONSUMER.INFO.{stream}.>",
        f"$JS.API.CONSUMER.DELETE.{stream}.>",
        f"$JS.API.CONSUMER.MSG.NEXT.{stream}.>",
        f"$JS.ACK.{stream}.>",
        f"$JS.FC.{stream}.>",
    ]


def _bucket_api(bucket: str) -> list[str]:
    stream = f"KV_{bucket}"
    return [
        f"$KV.{bucket}.>",
        *_stream_api(stream, ("CREATE", "UPDATE", "INFO", "PURGE")),
        f"$JS.API.STREAM.MSG.GET.{stream}",
        f"$JS.API.DIRECT.GET.{stream}",
        f"$JS.API.DIRECT.GET.{stream}.>",
        *_consumer_api(stream),
    ]


def permissions(identity: str) -> dict[str, Any]:
    """The NATS `permissions` block of one identity, from `felt_contracts.access`."""
    publish: list[str] = []
    subscribe: list[str] = [f"{inbox_prefix(identity)}.>"]
    serves = False
    for req in access.REQUESTS:
        if req.served_by == identity:
            subscribe += req.subjects
            serves = True
        if identity in req.sent_by:
            publish += req.subjects
    for ev in access.EVENTS:
        if ev.published_by == identity:
            publish += ev.subjects
        if identity in ev.heard_by:
            subscribe += ev.subjects
    jetstream = False
    for stream in access.STREAMS:
        if stream.owner == identity:
            publish += _stream_api(stream.name, _STREAM_VERBS_OWNER)
            jetstream = True
        if identity in stream.readers:
            publish += [*_stream_api(stream.name, _STREAM_VERBS_READER), *_consumer_api(stream.name)]
            jetstream = True
    for bucket in access.BUCKETS:
        if bucket.owner == identity:
            publish += _bucket_api(bucket.name)
            jetstream = True
    if jetstream:
        publish.append("$JS.API.INFO")
    block: dict[str, Any] = {
        "publish": {"allow": _unique(publish)} if publish else {"deny": [">"]},
        "subscribe": {"allow": _unique(subscribe)},
    }
    if serves:
        block["allow_responses"] = True
    return block


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def superuser(name: str, password: str) -> dict[str, Any]:
    """A user allowed everything: the tests' own client (it plays every other party)."""
    return {"user": name, "password": password, "permissions": {"publish": ">", "subscribe": ">"}}


def server_config(passwords: dict[str, str], extra_users: tuple[dict[str, Any], ...] = ()) -> str:
    """The NATS server configuration's `authorization` (its value is JSON, which NATS
    configuration syntax accepts): one user per identity.
    A password of the form `$NAME` is a reference the server resolves from its environment."""
    users = [
        {"user": name, "password": passwords[name], "permissions": permissions(name)} for name in access.IDENTITIES
    ]
    text = "authorization: " + json.dumps({"users": [*users, *extra_users]}, indent=2)
    # NATS resolves `$VAR` only unquoted
    for password in passwords.values():
        if password.startswith("$"):
            text = text.replace(json.dumps(password), password)
    return text + "\n"


def password_variable(identity: str) -> str:
    """The environment variable that holds an identity's password where a Secret provides it."""
    return f"FELT_NATS_PASSWORD_{identity.upper()}"


def render() -> str:
    """The server configuration for Kubernetes and docker-compose: every password a reference
    to the NATS server's environment (filled from a Secret)."""
    return server_config({name: f"${password_variable(name)}" for name in access.IDENTITIES})


CREDENTIALS_FILE = "credentials.json"
CONFIG_FILE = "auth.conf"


def generate(directory: Path, extra_users: tuple[dict[str, Any], ...] = ()) -> tuple[Path, dict[str, str]]:
    """The server configuration and a password per identity in `directory` (mode 0600), kept
    across restarts; returns the configuration's path and the passwords."""
    directory.mkdir(parents=True, exist_ok=True)
    creds = directory / CREDENTIALS_FILE
    known: dict[str, str] = json.loads(creds.read_text()) if creds.exists() else {}
    passwords = {name: known.get(name) or secrets.token_urlsafe(24) for name in access.IDENTITIES}
    _write_private(creds, json.dumps(passwords, indent=2) + "\n")
    config = directory / CONFIG_FILE
    _write_private(config, server_config(passwords, extra_users))
    return config, passwords


def read_passwords(directory: Path) -> dict[str, str]:
    """The passwords `generate` wrote (empty when there are none)."""
    creds = directory / CREDENTIALS_FILE
    return json.loads(creds.read_text()) if creds.exists() else {}


def _write_private(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(path, 0o600)


def connect_options(settings: Settings, identity: str) -> dict[str, Any]:
    """The nats-py connection options of `identity`: its user and password (`FELT_NATS_USER` /
    `FELT_NATS_PASSWORD`; else the identity's own `FELT_NATS_PASSWORD_<IDENTITY>`, as Kubernetes
    and docker-compose hand it from a Secret; else the one `felt up` generated under
    `var/nats/`), its own inbox, TLS where configured, and an error callback that logs what the
    server refused (a denied publish is reported there, not raised where it was sent)."""
    user = settings.nats_user
    password = settings.nats_password.get_secret_value()
    if not user:
        password = os.environ.get(password_variable(identity)) or read_passwords(settings.var_dir / "nats").get(
            identity, ""
        )
        user = identity if password else ""
    options: dict[str, Any] = {"error_cb": log_refusal}
    context = tls_context(settings)
    if user:
        options.update(security=NatsUserPassword(user, password, ssl_context=context), inbox_prefix=inbox_prefix(user))
    elif context is not None:
        options["security"] = NatsSecurity(ssl_context=context)
    return options


def pull_inbox(broker: NatsBroker) -> bytes:
    """The inbox a FastStream pull consumer of `broker` fetches into: under the connection's own
    prefix (FastStream's subscribers default to the shared `_INBOX.`, which only the tests' user
    may read). Pass it as the subscriber's `inbox_prefix`."""
    return f"{broker._connection_kwargs.get('inbox_prefix', '_INBOX')}.".encode()


def tls_context(settings: Settings) -> ssl.SSLContext | None:
    """A verifying TLS context for a `tls://` URL or a configured CA/client certificate."""
    if not (settings.nats_url.startswith("tls://") or settings.nats_tls_ca_file or settings.nats_tls_cert_file):
        return None
    context = ssl.create_default_context(cafile=settings.nats_tls_ca_file or None)
    if settings.nats_tls_cert_file:
        context.load_cert_chain(settings.nats_tls_cert_file, settings.nats_tls_key_file or None)
    return context


async def log_refusal(error: Exception) -> None:
    """The server refused something this process sent or subscribed (`Permissions Violation`):
    nothing it asked for happens, and the line says what was refused."""
    text = str(error)
    if "permissions violation" in text.lower():
        log.error("bus permission denied: %s", text)


if __name__ == "__main__":  # `make docs`: the NATS users of docker-compose and Kubernetes
    import sys

    Path(sys.argv[1]).write_text(render())
