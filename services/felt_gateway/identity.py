"""Identity: owner accounts (argon2 passwords, expiring bearer tokens), their one HUMAN
participant, their AGENT participants and one revocable API key per agent.

Secrets (tokens, API keys) are high-entropy random strings; only their SHA-256 is stored, so a
database leak grants nothing. Opening a participant also opens its wallet account.

Every write is one synchronous transaction on one writer (`felt_runtime.db.Transactions`): on the
async driver a transaction held SQLite's write lock across event-loop turns, so under load a
burst of sign-ups or new agents waited past the 30 s lock wait and was answered 500.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
import secrets
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from collections.abc import Sequence
from typing import Any, Final, Literal

import sqlalchemy as sa
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from faststream.nats import NatsBroker
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from felt_contracts import subjects
from felt_contracts.errors import ErrorCode
from felt_contracts.gateway import CredentialsForgotten
from felt_contracts.wallet import AccountOpened, OpenAccount
from felt_gateway import screen_names
from felt_gateway.errors import ApiError
from felt_gateway.store import api_keys, owners, participants, tokens
from felt_runtime.bus import BusError, call
from felt_runtime.db import LoopReader, Transactions

log = logging.getLogger("felt.gateway.identity")

TOKEN_PREFIX = "felt_t_"
KEY_PREFIX = "felt_ak_"
Kind = Literal["HUMAN", "AGENT"]
HUMAN: Final = "HUMAN"
AGENT: Final = "AGENT"

#: the two reads of an authentication, built once with the secret's hash as a parameter: built per
#: call, the statement's construction and SQLAlchemy's cache key for it cost twice the read itself
_TOKEN_PRINCIPAL = (
    sa.select(tokens.c.owner_id, tokens.c.expires_at, participants.c.id, participants.c.name)
    .join(participants, sa.and_(participants.c.owner_id == tokens.c.owner_id, participants.c.human_slot == HUMAN))
    .where(tokens.c.token_hash == sa.bindparam("key"))
)
_KEY_PRINCIPAL = (
    sa.select(
        participants.c.owner_id,
        participants.c.id,
        participants.c.kind,
        participants.c.name,
        api_keys.c.id.label("key_id"),
    )
    .join(api_keys, api_keys.c.participant_id == participants.c.id)
    .where(api_keys.c.key_hash == sa.bindparam("key"), api_keys.c.revoked_at.is_(None))
)

_hasher = PasswordHasher()
#: verified against when the email is unknown, so timing does not reveal which emails exist
_DUMMY_HASH = _hasher.hash("not-a-real-password")


def _now() -> datetime:
    return datetime.now(UTC)


def _first(rows: Sequence[Any]) -> Any:
    return rows[0] if rows else None


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _execute(conn: sa.Connection, *statements: sa.Executable) -> int:
    """Statements in one transaction (a `Transactions.run` body); the row count of the last."""
    rowcount = 0
    for statement in statements:
        rowcount = conn.execute(statement).rowcount
    return rowcount


def _agent_of(conn: sa.Connection, owner_id: str, agent_id: str, *statements: sa.Executable) -> int:
    """`statements` in one transaction, if `agent_id` is an agent of `owner_id` (else 404)."""
    if not (0 < len(agent_id) <= 32 and agent_id.isascii() and agent_id.isalnum()):
        raise ApiError(ErrorCode.NOT_FOUND, "no such agent of yours")
    row = conn.execute(
        sa.select(participants.c.owner_id, participants.c.kind).where(participants.c.id == agent_id)
    ).first()
    if row is None or row.owner_id != owner_id or row.kind != AGENT:
        raise ApiError(ErrorCode.NOT_FOUND, "no such agent of yours")
    return _execute(conn, *statements)


def _revoke_live_key(agent_id: str, at: datetime) -> sa.Update:
    """The agent's live key (one at most) revoked `at`."""
    return (
        api_keys.update()
        .where(api_keys.c.participant_id == agent_id, api_keys.c.revoked_at.is_(None))
        .values(revoked_at=at)
    )


def _name_taken(field: str) -> ApiError:
    return ApiError(ErrorCode.CONFLICT, "this screen name is taken", field=field, reason="taken")


def new_id() -> str:
    return uuid.uuid4().hex


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


@dataclass(frozen=True)
class Principal:
    """Who is calling: the owner behind it, the participant acting, and how it proved it."""

    owner_id: str
    participant_id: str
    kind: Kind
    via: Literal["token", "api_key"]
    name: str = ""
    #: which credential: the API key's id, or `token-` and a prefix of the token's hash (its limits policy)
    credential_id: str | None = None


@dataclass(frozen=True)
class ParticipantRow:
    id: str
    owner_id: str
    kind: Kind
    name: str
    created_at: datetime


class Identity:
    def __init__(
        self, engine: AsyncEngine, broker: NatsBroker, *, token_ttl: float, timeout: float, cache_seconds: float = 5.0
    ) -> None:
        self.engine = engine
        self.broker = broker
        self.token_ttl = token_ttl
        self.timeout = timeout
        #: sha256(secret) -> (monotonic expiry, principal): successful authentications only, for at
        #: most `cache_seconds` (at least half of it; never past a token's own expiry). Logging out, rotating or
        #: revoking through any gateway process drops the entries of every process at once
        #: (`CredentialsForgotten` on the bus); straight in the database, or with that message
        #: lost, it takes effect within `cache_seconds`.
        self.cache_seconds = cache_seconds
        self._cache: dict[str, tuple[float, Principal]] = {}

        @broker.subscriber(subjects.GATEWAY_CREDENTIALS_FORGOTTEN)
        async def credentials_forgotten(event: CredentialsForgotten) -> None:
            self.forget(participant_id=event.participant_id, secret_hash=event.secret_hash)

        #: every credential is read again each `cache_seconds`: with a thousand agents, hundreds
        #: of reads a second, in the loop's thread on SQLite (one hand-off each cost more)
        self.reader = LoopReader(engine, "an authentication")
        self.writes = Transactions(engine, "gateway-identity")

    def close(self) -> None:
        self.reader.close()
        self.writes.close()

    async def _write(self, *statements: sa.Executable) -> int:
        """`statements` in one transaction on the writer; the row count of the last."""
        return await self.writes.run(_execute, *statements)

    # --- owners ---------------------------------------------------------------------------

    async def sign_up(self, email: str, password: str, screen_name: str | None = None) -> tuple[str, str, str]:
        """Create an owner and its HUMAN participant (with a wallet account) seen by `screen_name`,
        or by a generated name when it names none. Returns (owner, human, screen name)."""
        email = email.strip().lower()
        chosen = screen_names.check(screen_name, email) if screen_name is not None else None
        password_hash = await asyncio.to_thread(_hasher.hash, password)
        owner_id, human_id, now = new_id(), new_id(), _now()
        for _ in range(8):  # a generated name that clashes is drawn again
            name = chosen or screen_names.generated()
            try:
                await self._write(
                    owners.insert().values(id=owner_id, email=email, password_hash=password_hash, created_at=now),
                    participants.insert().values(
                        id=human_id,
                        owner_id=owner_id,
                        kind=HUMAN,
                        name=name,
                        name_key=screen_names.key(name),
                        human_slot=HUMAN,
                        created_at=now,
                    ),
                )
                break
            except IntegrityError:
                if await self._email_taken(email):
                    raise ApiError(ErrorCode.CONFLICT, "an account with this email exists", field="email") from None
                if chosen:
                    raise _name_taken("screenName") from None
        else:
            raise ApiError(ErrorCode.UNAVAILABLE, "no free screen name was found: retry")
        try:
            await self._open_wallet(human_id, owner_id)
        except BusError:
            await self._write(
                participants.delete().where(participants.c.owner_id == owner_id),
                owners.delete().where(owners.c.id == owner_id),
            )
            raise
        return owner_id, human_id, name

    async def _email_taken(self, email: str) -> bool:
        async with self.engine.connect() as conn:
            return (await conn.execute(sa.select(owners.c.id).where(owners.c.email == email))).first() is not None

    async def rename(self, who: Principal, name: str) -> str:
        """Change the name `who` is seen by: a person's screen name (the screen-name rules,
        unique), an agent's name (its own rules). Seats taken from now on carry it."""
        if who.kind == HUMAN:
            async with self.engine.connect() as conn:
                email = (await conn.execute(sa.select(owners.c.email).where(owners.c.id == who.owner_id))).scalar()
            name = screen_names.check(name, email or "", field="name")
            values = {"name": name, "name_key": screen_names.key(name)}
        else:
            name = screen_names.check_agent_name(name)
            values = {"name": name}
        try:
            await self._write(participants.update().where(participants.c.id == who.participant_id).values(**values))
        except IntegrityError:
            raise _name_taken("name") from None
        await self._forget_everywhere(participant_id=who.participant_id)
        return name

    async def log_in(self, email: str, password: str) -> tuple[str, datetime, str]:
        """Check the password; a new bearer token (shown once) with its expiry, and the owner id."""
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    sa.select(owners.c.id, owners.c.password_hash).where(owners.c.email == email.strip().lower())
                )
            ).first()
        stored = row.password_hash if row else _DUMMY_HASH
        try:
            await asyncio.to_thread(_hasher.verify, stored, password)
            ok = row is not None
        except (VerificationError, InvalidHashError):
            ok = False
        if not ok:
            raise ApiError(ErrorCode.UNAUTHORIZED, "wrong email or password")
        assert row is not None
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        now = _now()
        expires = now + timedelta(seconds=self.token_ttl)
        await self._write(
            tokens.delete().where(tokens.c.owner_id == row.id, tokens.c.expires_at < now),
            tokens.insert().values(token_hash=digest(token), owner_id=row.id, created_at=now, expires_at=expires),
        )
        return token, expires, row.id

    async def log_out(self, token: str) -> None:
        await self._write(tokens.delete().where(tokens.c.token_hash == digest(token)))
        await self._forget_everywhere(secret_hash=digest(token))

    # --- authentication -------------------------------------------------------------------

    async def authenticate(self, secret: str) -> Principal:
        """A bearer token -> the owner's HUMAN participant; an API key -> that AGENT."""
        key = digest(secret)
        hit = self._cache.get(key)
        mono = time.monotonic()
        if hit is not None:
            if hit[0] > mono:
                return hit[1]
            del self._cache[key]
        principal, valid_for = await self._authenticate(secret, key)
        if self.cache_seconds > 0 and valid_for > 0:
            if len(self._cache) >= 50_000:
                self._cache = {k: v for k, v in self._cache.items() if v[0] > mono}
                if len(self._cache) >= 50_000:
                    self._cache.clear()
            # each entry trusted for a random half to all of the TTL: credentials first used
            # together (a room opening, a reconnect storm) are not all read again in the same
            # second (such a burst of reads would be the tail of every request waiting behind it)
            ttl = self.cache_seconds * random.uniform(0.5, 1.0)
            self._cache[key] = (mono + min(ttl, valid_for), principal)
        return principal

    async def _forget_everywhere(self, *, participant_id: str | None = None, secret_hash: str | None = None) -> None:
        """Drop the cached authentications here and tell every other gateway process to. Best
        effort: if the bus cannot take the message, the others stop trusting it within their TTL."""
        self.forget(participant_id=participant_id, secret_hash=secret_hash)
        try:
            await self.broker.publish(
                CredentialsForgotten(participant_id=participant_id, secret_hash=secret_hash),
                subjects.GATEWAY_CREDENTIALS_FORGOTTEN,
            )
        except Exception:  # the revocation itself is done; the TTL bounds the rest
            log.warning("credentials forgotten here only: the bus did not take the message", exc_info=True)

    def forget(self, *, participant_id: str | None = None, secret_hash: str | None = None) -> None:
        """Drop cached authentications in this process (a key revoked or rotated, a token logged out)."""
        if secret_hash is not None:
            self._cache.pop(secret_hash, None)
        if participant_id is not None:
            for k in [k for k, (_, p) in self._cache.items() if p.participant_id == participant_id]:
                del self._cache[k]

    async def _authenticate(self, secret: str, key: str) -> tuple[Principal, float]:
        """The principal and for how many seconds it may be trusted without asking again."""
        now = _now()
        if secret.startswith(TOKEN_PREFIX):
            row = _first(await self.reader.all(_TOKEN_PRINCIPAL, {"key": key}))
            if row is None or _aware(row.expires_at) <= now:
                raise ApiError(ErrorCode.UNAUTHORIZED, "token unknown or expired")
            return (
                Principal(row.owner_id, row.id, HUMAN, "token", row.name, f"token-{key[:24]}"),
                (_aware(row.expires_at) - now).total_seconds(),
            )
        if secret.startswith(KEY_PREFIX):
            agent = _first(await self.reader.all(_KEY_PRINCIPAL, {"key": key}))
            if agent is None or agent.kind != AGENT:
                raise ApiError(ErrorCode.UNAUTHORIZED, "API key unknown or revoked")
            return Principal(
                agent.owner_id, agent.id, AGENT, "api_key", agent.name, f"key-{agent.key_id}"
            ), self.cache_seconds
        raise ApiError(ErrorCode.UNAUTHORIZED, "credentials not recognised")

    # --- participants and keys ------------------------------------------------------------

    async def participants_of(self, owner_id: str) -> list[ParticipantRow]:
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(
                    sa.select(participants)
                    .where(participants.c.owner_id == owner_id)
                    .order_by(participants.c.created_at, participants.c.id)
                )
            ).all()
        return [ParticipantRow(r.id, r.owner_id, r.kind, r.name, _aware(r.created_at)) for r in rows]

    async def participant(self, participant_id: str) -> ParticipantRow | None:
        async with self.engine.connect() as conn:
            r = (await conn.execute(sa.select(participants).where(participants.c.id == participant_id))).first()
        return ParticipantRow(r.id, r.owner_id, r.kind, r.name, _aware(r.created_at)) if r else None

    async def create_agent(self, owner_id: str, name: str) -> tuple[ParticipantRow, str]:
        """A new AGENT participant of `owner_id` with its wallet account and first API key."""
        name = screen_names.check_agent_name(name)
        agent_id, now = new_id(), _now()
        await self._write(
            participants.insert().values(
                id=agent_id, owner_id=owner_id, kind=AGENT, name=name, human_slot=None, created_at=now
            ),
        )
        try:
            await self._open_wallet(agent_id, owner_id)
        except BusError:
            await self._write(participants.delete().where(participants.c.id == agent_id))
            raise
        key = await self.issue_key(owner_id, agent_id)
        return ParticipantRow(agent_id, owner_id, AGENT, name, now), key

    async def issue_key(self, owner_id: str, agent_id: str) -> str:
        """Revoke the agent's current key and issue a new one (one live key per agent)."""
        key = KEY_PREFIX + secrets.token_urlsafe(32)
        now = _now()
        await self.writes.run(
            _agent_of,
            owner_id,
            agent_id,
            _revoke_live_key(agent_id, now),
            api_keys.insert().values(
                id=new_id(),
                key_hash=digest(key),
                participant_id=agent_id,
                prefix=key[: len(KEY_PREFIX) + 4],
                created_at=now,
            ),
        )
        await self._forget_everywhere(participant_id=agent_id)
        return key

    async def revoke_key(self, owner_id: str, agent_id: str) -> int:
        revoked = await self.writes.run(
            _agent_of,
            owner_id,
            agent_id,
            _revoke_live_key(agent_id, _now()),
        )
        await self._forget_everywhere(participant_id=agent_id)
        return revoked or 0

    async def key_state(self, agent_id: str) -> str | None:
        """The live key's visible prefix, or None when the agent has no live key."""
        async with self.engine.connect() as conn:
            return (
                await conn.execute(
                    sa.select(api_keys.c.prefix).where(
                        api_keys.c.participant_id == agent_id, api_keys.c.revoked_at.is_(None)
                    )
                )
            ).scalar()

    async def _open_wallet(self, participant_id: str, owner_id: str) -> AccountOpened:
        return await call(
            self.broker,
            subjects.WALLET_OPEN_ACCOUNT,
            OpenAccount(account_id=participant_id, owner_id=owner_id, message_id=f"open:{participant_id}"),
            AccountOpened,
            timeout=self.timeout,
        )


async def names_of(engine: AsyncEngine, ids: list[str]) -> dict[str, tuple[str, str]]:
    """participant id -> (name, kind) for the ids that exist."""
    if not ids:
        return {}
    async with engine.connect() as conn:
        rows = (
            await conn.execute(
                sa.select(participants.c.id, participants.c.name, participants.c.kind).where(participants.c.id.in_(ids))
            )
        ).all()
    return {r.id: (r.name, r.kind) for r in rows}
