"""A host's controls of a hosted table (docs/rules.md "Hosting a table"): pause and resume dealing,
the forced bets of the next hand, requests to sit, removing a player, the invite code, closing.

Each takes effect between hands: one sent while a hand runs (or its end is unanswered) is
queued and applied when it ends, and answers `next_hand` (else `now`). Each is announced to the
table as an event and kept with the table's definition. The host never sees anyone's cards
(the host's view is an ordinary seat's or spectator's) and moves no chips: a removed player is
cashed out by the table as if they had left."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from felt_contracts.errors import ErrorCode
from felt_contracts.table import BlindsChange, Host, TableResult
from felt_runtime.bus import BusError
from felt_table.commands import closing, hands, requests, seating
from felt_table.model import hosting
from felt_table.model.lobby import check_config, rescale_buy_in
from felt_table.model.table import Handler, Table


def _when(table: Table) -> str:
    return "next_hand" if table.hand_running or table.ending is not None else "now"


async def pause(table: Table, command: Host) -> str:
    if not table.hosting.paused:
        table.hosting.paused = True
        table.intermission.next_hand_at = None  # a scheduled deal finds the table paused and waits
        table.emit("table_paused", participant_id=command.participant_id)
        await hosting.save(table)
    return _when(table)


async def resume(table: Table, command: Host) -> str:
    if table.hosting.paused:
        table.hosting.paused = False
        table.emit("table_resumed", participant_id=command.participant_id)
        await hosting.save(table)
        await hands.schedule_next_hand(table)
    return "now"


async def hold(table: Table, command: Host) -> str:
    """From the end of the hand in progress the table deals a hand only on the host's `go`, one
    hand per go: a host deciding between hands (a tournament) never races the next deal."""
    table.hosting.go = False
    table.intermission.next_hand_at = None  # a scheduled deal finds the table held and waits
    if not table.hosting.held:
        table.hosting.held = True
        table.emit("table_held", participant_id=command.participant_id)
    await hosting.save(table)
    return _when(table)


async def go(table: Table, command: Host) -> str:
    """One hand at a held table, dealt as soon as it may be; the table holds again once it is dealt."""
    if not table.hosting.held:
        raise BusError(ErrorCode.CONFLICT, "the table is not held", reason="not_held")
    if not table.hosting.go:
        table.hosting.go = True
        table.emit("table_go", participant_id=command.participant_id)
        await hosting.save(table)
        await hands.schedule_next_hand(table)
    return _when(table)


async def blinds(table: Table, command: Host) -> str:
    """The forced bets of the next hand; the buy-in range keeps its size in big blinds (antes)."""
    update = {
        name: value
        for name in ("small_blind", "big_blind", "ante", "ante_mode", "level")
        if (value := getattr(command, name)) is not None
    }
    if not update.keys() - {"level"}:
        raise BusError(ErrorCode.MALFORMED, "name the small and big blind (or the ante)", field="big_blind")
    base = table.next_config or table.config
    config = rescale_buy_in(base, base.model_copy(update=update))
    problem = check_config(config)
    if problem:
        raise BusError(ErrorCode.MALFORMED, problem.message, field=problem.field)
    applied = _when(table)
    table.next_config = config
    change = BlindsChange(
        small_blind=config.small_blind,
        big_blind=config.big_blind,
        ante=config.ante,
        ante_mode=config.ante_mode,
        from_hand=table.hands_played + (2 if applied == "next_hand" else 1),
    )
    if applied == "now":
        hosting.apply_next(table)
    table.emit("blinds_changed", participant_id=command.participant_id, blinds=change)
    await hosting.save(table)
    return applied


async def approve(table: Table, command: Host) -> str:
    request = await requests.take(table, command.participant)
    try:
        await seating.take_seat(table, request)
    except BusError as exc:
        table.emit("seat_declined", participant_id=request.participant_id, detail=exc.code.value)
        raise
    table.emit("seat_approved", participant_id=request.participant_id)
    return "now"


async def decline(table: Table, command: Host) -> str:
    request = await requests.take(table, command.participant)
    table.emit("seat_declined", participant_id=request.participant_id)
    return "now"


async def remove(table: Table, command: Host) -> str:
    """Out for the table's life (until a new invite): a seat leaves by the profile's policy and
    is cashed out once, like any leave; a request to sit is dropped."""
    pid = command.participant
    seat = table.seat_of(pid) if pid is not None else None
    request = table.hosting.pending_of(pid) if pid is not None else None
    if pid is None or hosting.is_host(table, pid) or (seat is None and request is None):
        raise BusError(ErrorCode.NOT_FOUND, "nobody to remove by this id", field="participantId")
    owner = seat.owner if seat is not None else request.owner_id if request is not None else pid
    table.hosting.removed.extend(who for who in dict.fromkeys((pid, owner)) if who not in table.hosting.removed)
    if request is not None:
        table.hosting.pending.remove(request)
    applied = "now"
    if seat is not None:
        status = "leaving" if seat.leaving else await seating.leave_seat(table, seat, "removed")
        applied = "now" if status == "left" else "next_hand"
    table.emit("player_removed", participant_id=pid)
    await hosting.save(table)
    return applied


async def unseat(table: Table, command: Host) -> str:
    """A seat leaves, cashed out like any leave, and may sit again (here or at another table)."""
    seat = table.seat_of(command.participant) if command.participant is not None else None
    if seat is None:
        raise BusError(ErrorCode.NOT_FOUND, "nobody seated by this id", field="participantId")
    if seat.leaving:
        return "next_hand"
    return "now" if await seating.leave_seat(table, seat, "moved") == "left" else "next_hand"


async def bot_pass(table: Table, command: Host) -> str:
    """A code that seats one Felt bot (its hash): the bots service joins with it."""
    if command.invite_hash is None:
        raise BusError(ErrorCode.MALFORMED, "bot_pass needs the code's hash", field="invite_hash")
    table.hosting.passes.setdefault(command.invite_hash, None)
    await hosting.save(table)
    return "now"


async def remove_bot(table: Table, command: Host) -> str:
    """A bot the host added leaves (cashed out like any leave) and may not come back; the bots'
    owner, shared by every Felt bot, is not banned."""
    passes = table.hosting.passes
    used = next((code for code, pid in passes.items() if pid is not None and pid == command.participant), None)
    if used is None or command.participant is None:
        raise BusError(ErrorCode.NOT_FOUND, "no bot of yours by this id", field="participantId")
    del passes[used]
    if command.participant not in table.hosting.removed:
        table.hosting.removed.append(command.participant)
    seat = table.seat_of(command.participant)
    applied = "now"
    if seat is not None and not seat.leaving:
        applied = "now" if await seating.leave_seat(table, seat, "removed") == "left" else "next_hand"
    table.emit("player_removed", participant_id=command.participant)
    await hosting.save(table)
    return applied


async def close(table: Table, command: Host) -> str:
    await closing.request(table, "host")
    return "now" if table.closed else "next_hand"


async def invite(table: Table, command: Host) -> str:
    """A new invite code (its hash): the old one stops working; removed players may come back."""
    if command.invite_hash is None:
        raise BusError(ErrorCode.MALFORMED, "invite needs the new code's hash", field="invite_hash")
    table.hosting.invite_hash, table.hosting.removed = command.invite_hash, []
    await hosting.save(table)
    return "now"


async def revoke(table: Table, command: Host) -> str:
    table.hosting.invite_hash = None
    await hosting.save(table)
    return "now"


CONTROLS: dict[str, Callable[[Table, Host], Awaitable[str]]] = {
    "pause": pause,
    "resume": resume,
    "hold": hold,
    "go": go,
    "blinds": blinds,
    "approve": approve,
    "decline": decline,
    "remove": remove,
    "unseat": unseat,
    "close": close,
    "invite": invite,
    "revoke": revoke,
    "bot_pass": bot_pass,
    "remove_bot": remove_bot,
}


async def host(table: Table, command: Host) -> TableResult:
    if not hosting.is_host(table, command.participant_id):
        raise BusError(ErrorCode.NOT_HOST, "only the table's host may do this")
    closing.refuse_if_closing(table)
    return table.result(await CONTROLS[command.control](table, command))


COMMANDS: dict[type, Handler] = {Host: host}
