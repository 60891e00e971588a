"""What gateway processes tell each other: a credential that must no longer be trusted from
their authentication caches (felt_gateway.identity)."""

from __future__ import annotations

from pydantic import Field

from felt_contracts.base import Event


class CredentialsForgotten(Event):
    """A key revoked or rotated (`participant_id`: every credential of that agent), or a login
    token ended (`secret_hash`: its sha256). Published by the gateway that did it, heard by all."""

    participant_id: str | None = Field(default=None, max_length=200)
    secret_hash: str | None = Field(default=None, max_length=64)
