"""A hosted table's state besides its configuration (docs/rules.md "Hosting a table"): dealing
paused by the host, the hash of the invite code that works, who was removed, the requests to
sit waiting for the host, and whether it closed for good. It is kept with the table's definition
(`Store.save_hosted`) after every change, so a restart or another replica runs it as it was."""

from __future__ import annotations

from typing import TYPE_CHECKING

from felt_contracts.errors import ErrorCode
from felt_contracts.table import Join, Visibility
from felt_runtime.bus import BusError
from felt_table.model.host_state import Hosting
from felt_table.model.lobby import stakes_of

if TYPE_CHECKING:
    from felt_table.model.table import Table


def is_host(table: Table, pid: str | None) -> bool:
    return pid is not None and table.config.host_id is not None and pid == table.config.host_id


def may_see(table: Table, viewer: str | None, invite: str | None) -> bool:
    """A private table is seen by its host, those seated or asking to sit, and with its invite."""
    if table.config.visibility is not Visibility.PRIVATE or is_host(table, viewer):
        return True
    if viewer is not None and (table.seat_of(viewer) is not None or table.hosting.pending_of(viewer) is not None):
        return True
    return invite is not None and (invite == table.hosting.invite_hash or invite in table.hosting.passes)


def by_pass(table: Table, command: Join) -> bool:
    """A Felt bot the host added: its pass seats it (and only it) with no invite or approval."""
    hashed = command.invite_hash
    if hashed is None or hashed not in table.hosting.passes:
        return False
    return table.hosting.passes[hashed] in (None, command.participant_id)


def unknown_table(table: Table) -> BusError:
    """What a private table answers those who may not see it: the same as no table at all."""
    return BusError(ErrorCode.NOT_FOUND, "unknown table", table_id=table.tid)


def admit(table: Table, command: Join) -> None:
    """A join at a hosted table: the invite of a private table, and no removed player."""
    if is_host(table, command.participant_id) or table.config.host_id is None:
        return
    if by_pass(table, command):
        return
    if table.config.visibility is Visibility.PRIVATE and table.hosting.pending_of(command.participant_id) is None:
        if command.invite_hash is None:
            raise unknown_table(table)
        if command.invite_hash != table.hosting.invite_hash:
            raise BusError(ErrorCode.INVITE_INVALID, "this invite code is wrong or was revoked", field="inviteCode")
    if command.participant_id in table.hosting.removed or command.owner_id in table.hosting.removed:
        raise BusError(ErrorCode.FORBIDDEN, "the host removed you from this table", reason="removed")


async def seated(table: Table, command: Join) -> None:
    """A bot's pass is its own once it sat down with it."""
    if by_pass(table, command) and command.invite_hash is not None:
        table.hosting.passes[command.invite_hash] = command.participant_id
        await save(table)


async def save(table: Table) -> None:
    """Keep a hosted table's configuration and state (nothing to keep for a house table)."""
    if table.config.host_id is None:
        return
    await table.deps.store.save_hosted(
        table.tid,
        (table.next_config or table.config).model_dump_json(),
        table.hosting.model_dump_json(),
        table.hosting.closed,
    )


async def load(table: Table) -> None:
    if table.config.host_id is not None and (raw := await table.deps.store.host_state(table.tid)):
        table.hosting = Hosting.model_validate_json(raw)


def apply_next(table: Table) -> None:
    """Between hands: the forced bets the host set take effect."""
    if table.next_config is not None:
        table.config, table.next_config = table.next_config, None
        table.stakes = stakes_of(table.config)
