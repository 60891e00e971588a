"""What a viewer may see of a table (own hole cards and legal actions only) and the read-only
queries: view, missed events, finished hands."""

from __future__ import annotations

import json
from datetime import datetime

from felt_contracts.errors import ErrorCode
from felt_contracts.table import (
    Bounds,
    SeatStatus,
    GetEvents,
    GetHand,
    GetView,
    HandSeat,
    HandView,
    HostView,
    LegalActions,
    ListHands,
    PotView,
    SeatRequest,
    SeatSummary,
    TableResult,
    TableSummary,
    TableView,
)
from felt_engine import actions as engine
from felt_engine.views import sight
from felt_runtime import paging
from felt_runtime.bus import BusError
from felt_table.model import history, hosting
from felt_table.commands.recovery import paused
from felt_table.model.table import Handler, Table


def legal_model(legal: engine.LegalActions) -> LegalActions:
    """The engine's legal actions as the contracts' model (`bet_add` only where amounts are
    chips added now, `draw` as 0..its maximum)."""

    def bounds(engine_bounds: engine.Bounds | None) -> Bounds | None:
        return Bounds(min=engine_bounds.min, max=engine_bounds.max) if engine_bounds else None

    return LegalActions(
        fold=legal.fold,
        check=legal.check,
        call=legal.call,
        bet=bounds(legal.bet),
        raise_to=bounds(legal.raise_to),
        all_in=legal.all_in,
        draw=Bounds(min=0, max=legal.draw) if legal.draw is not None else None,
        bet_add=bounds(legal.bet_add) if legal.add_now else None,
    )


def summary(table: Table) -> TableSummary:
    return TableSummary(
        config=table.config,
        players=len(table.seats),
        hand_running=table.hand_running,
        hand_id=table.state.hand_id if table.hand_running and table.state else None,
        last_seq=table.events.seq,
        hands_played=table.hands_played,
        closed=table.closed,
        paused=table.hosting.paused,
        hands_left=hands_left(table),
    )


def hands_left(table: Table) -> int | None:
    limit = table.config.max_hands
    return None if limit is None else max(0, limit - table.hands_played)


def host_view(table: Table) -> HostView:
    return HostView(
        paused=table.hosting.paused,
        pending_requests=tuple(
            SeatRequest(participant_id=req.participant_id, name=req.name, kind=req.kind)
            for req in table.hosting.pending
        ),
        invite=table.hosting.invite_hash is not None,
        removed=tuple(table.hosting.removed),
        bots=tuple(pid for pid in table.hosting.passes.values() if pid is not None),
    )


def view(table: Table, viewer: str | None) -> TableView:
    me = table.seat_of(viewer) if viewer else None
    seats = []
    for seat in sorted(table.seats.values(), key=lambda other: other.number):
        status: SeatStatus = (
            "leaving"
            if seat.leaving
            else "sitting_out"
            if seat.sitting_out
            else (
                "playing"
                if table.in_hand(seat.number) and table.hand_participants.get(seat.number) == seat.pid
                else "waiting"
            )
        )
        seats.append(
            SeatSummary(
                seat=seat.number,
                participant_id=seat.pid,
                kind=seat.kind,
                name=seat.name,
                stack=seat.stack,
                status=status,
                ready=seat.ready,
                connected=seat.connected,
                sitting_out=seat.sitting_out,
            )
        )
    hand_view = None
    hand = table.state
    if hand is not None:
        my_seat = me.number if me is not None and table.hand_participants.get(me.number) == me.pid else None
        seen = sight(hand, my_seat)
        hand_view = HandView(
            hand_id=hand.hand_id or "",
            rules_version=seen.rules_version,
            structure=seen.structure,
            street=seen.street,
            phase=seen.phase,
            button=seen.button,
            small_blind_seat=seen.small_blind,
            big_blind_seat=seen.big_blind,
            board=list(seen.board),
            pot=seen.pot,
            pots=tuple(PotView(amount=pot["amount"], eligible=tuple(pot["eligible"])) for pot in seen.pots),
            to_match=seen.to_match,
            actor_seat_id=seen.actor_seat,
            turn_id=seen.turn_id,
            deadline=table.deadline if hand.phase != "over" else None,
            seats=[
                HandSeat(
                    seat=seen_seat.seat,
                    participant_id=table.hand_participants.get(seen_seat.seat),
                    stack=seen_seat.stack,
                    bet=seen_seat.bet,
                    committed=seen_seat.committed,
                    folded=seen_seat.folded,
                    all_in=seen_seat.all_in,
                    card_count=seen_seat.card_count,
                    cards=list(seen_seat.cards) if seen_seat.cards is not None else None,
                    shown=seen_seat.shown,
                    leaving=seen_seat.leaving,
                    payout=seen_seat.payout,
                    hand_name=seen_seat.hand_name,
                )
                for seen_seat in seen.seats
            ],
            hole_cards=list(seen.hole_cards) if seen.hole_cards is not None else None,
            legal_actions=legal_model(seen.legal_actions) if seen.legal_actions is not None else None,
            preaction=seen.preaction,
            showdown=seen.showdown,
            preactions_available=list(seen.preactions_available) if seen.preactions_available is not None else None,
            time_bank_seconds=table.banks.shown(table.hand_participants.get(hand.actor_seat))
            if hand.phase != "over" and hand.actor_seat is not None
            else None,
            in_time_bank=table.banks.run is not None and hand.phase != "over",
        )
    return TableView(
        table_id=table.tid,
        rules_version=table.config.rules_version,
        config=table.config,
        seq=table.events.seq,
        your_seat_id=me.number if me else None,
        auto_rebuy=me.auto_rebuy if me else None,
        can_show=me is not None and table.showable(me),
        seats=tuple(seats),
        hand=hand_view,
        next_hand_at=table.intermission.next_hand_at,
        paused=paused(table),
        hands_played=table.hands_played,
        closed=table.closed,
        host_id=table.config.host_id,
        hands_left=hands_left(table),
        closes_at=table.config.closes_at,
        host=host_view(table) if hosting.is_host(table, viewer) else None,
    )


async def get_view(table: Table, command: GetView) -> TableResult:
    if not hosting.may_see(table, command.viewer, command.invite_hash):
        raise hosting.unknown_table(table)
    return table.result(view=view(table, command.viewer))


async def get_events(table: Table, command: GetEvents) -> TableResult:
    return table.result(events=await table.events.since(command.after_seq, command.viewer, command.limit))


async def get_hand(table: Table, command: GetHand) -> TableResult:
    await table.events.flush()
    row = await table.deps.store.hand(table.tid, command.hand_id)
    if row is None:
        raise BusError(ErrorCode.NOT_FOUND, "no such finished hand at this table", hand_id=command.hand_id)
    return table.result(hand=history.history(json.loads(row["record"]), command.viewer, command.format))


async def list_hands(table: Table, command: ListHands) -> TableResult:
    await table.events.flush()
    after = paging.key(command.after, datetime, str)
    rows = await table.deps.store.hands(table.tid, command.participant_id, command.limit + 1, after)
    shown, more = paging.page(rows, command.limit, lambda row: (row["ended_at"], row["hand_id"]))
    return table.result(hands=tuple(history.summary(json.loads(row["record"])) for row in shown), next=more)


COMMANDS: dict[type, Handler] = {GetView: get_view, GetEvents: get_events, GetHand: get_hand, ListHands: list_hands}
