"""What a viewer may see of a table (own hole cards and legal actions only) and the read-only
queries: view, missed events, finished hands."""

from __future__ import annotations

import json

from felt_contracts.errors import ErrorCode
from felt_contracts.table import (
    Bounds,
    SeatStatus,
    GetEvents,
    GetHand,
    GetView,
    HandSeat,
    HandView,
    LegalActions,
    ListHands,
    PotView,
    SeatSummary,
    TableResult,
    TableSummary,
    TableView,
)
from felt_engine import actions as engine
from felt_engine.views import sight
from felt_runtime.bus import BusError
from felt_table.model import history
from felt_table.commands.recovery import paused
from felt_table.model.table import Handler, Table


def legal_model(la: engine.LegalActions) -> LegalActions:
    """The engine's legal actions as the contracts' model (`bet_add` only where amounts are
    chips added now, `draw` as 0..its maximum)."""

    def b(x: engine.Bounds | None) -> Bounds | None:
        return Bounds(min=x.min, max=x.max) if x else None

    return LegalActions(
        fold=la.fold,
        check=la.check,
        call=la.call,
        bet=b(la.bet),
        raise_to=b(la.raise_to),
        all_in=la.all_in,
        draw=Bounds(min=0, max=la.draw) if la.draw is not None else None,
        bet_add=b(la.bet_add) if la.add_now else None,
    )


def summary(t: Table) -> TableSummary:
    return TableSummary(
        config=t.config,
        players=len(t.seats),
        hand_running=t.hand_running,
        hand_id=t.state.hand_id if t.hand_running and t.state else None,
        last_seq=t.events.seq,
        hands_played=t.hands_played,
        closed=t.closed,
    )


def view(t: Table, viewer: str | None) -> TableView:
    me = t.seat_of(viewer) if viewer else None
    seats = []
    for s in sorted(t.seats.values(), key=lambda x: x.seat):
        status: SeatStatus = (
            "leaving"
            if s.leaving
            else "sitting_out"
            if s.sitting_out
            else ("playing" if t.in_hand(s.seat) and t.hand_participants.get(s.seat) == s.pid else "waiting")
        )
        seats.append(
            SeatSummary(
                seat=s.seat,
                participant_id=s.pid,
                kind=s.kind,
                name=s.name,
                stack=s.stack,
                status=status,
                ready=s.ready,
                connected=s.connected,
                sitting_out=s.sitting_out,
            )
        )
    hand = None
    st = t.state
    if st is not None:
        my_seat = me.seat if me is not None and t.hand_participants.get(me.seat) == me.pid else None
        v = sight(st, my_seat)
        hand = HandView(
            hand_id=st.hand_id or "",
            rules_version=v.rules_version,
            structure=v.structure,
            street=v.street,
            phase=v.phase,
            button=v.button,
            small_blind_seat=v.small_blind,
            big_blind_seat=v.big_blind,
            board=list(v.board),
            pot=v.pot,
            pots=tuple(PotView(amount=p["amount"], eligible=tuple(p["eligible"])) for p in v.pots),
            to_match=v.to_match,
            actor_seat_id=v.actor_seat,
            turn_id=v.turn_id,
            deadline=t.deadline if st.phase != "over" else None,
            seats=[
                HandSeat(
                    seat=x.seat,
                    participant_id=t.hand_participants.get(x.seat),
                    stack=x.stack,
                    bet=x.bet,
                    committed=x.committed,
                    folded=x.folded,
                    all_in=x.all_in,
                    card_count=x.card_count,
                    cards=list(x.cards) if x.cards is not None else None,
                    shown=x.shown,
                    leaving=x.leaving,
                    payout=x.payout,
                    hand_name=x.hand_name,
                )
                for x in v.seats
            ],
            hole_cards=list(v.hole_cards) if v.hole_cards is not None else None,
            legal_actions=legal_model(v.legal_actions) if v.legal_actions is not None else None,
            preaction=v.preaction,
            showdown=v.showdown,
            preactions_available=list(v.preactions_available) if v.preactions_available is not None else None,
            time_bank_seconds=t.bank_of(t.hand_participants.get(st.actor_seat))
            if st.phase != "over" and st.actor_seat is not None
            else None,
            in_time_bank=t.bank_run is not None and st.phase != "over",
        )
    return TableView(
        table_id=t.tid,
        rules_version=t.config.rules_version,
        config=t.config,
        seq=t.events.seq,
        your_seat_id=me.seat if me else None,
        auto_rebuy=me.auto_rebuy if me else None,
        can_show=me is not None and t.showable(me),
        seats=tuple(seats),
        hand=hand,
        next_hand_at=t.next_hand_at,
        paused=paused(t),
        hands_played=t.hands_played,
        closed=t.closed,
    )


async def get_view(t: Table, c: GetView) -> TableResult:
    return t.result(view=view(t, c.viewer))


async def get_events(t: Table, c: GetEvents) -> TableResult:
    return t.result(events=await t.events.since(c.after_seq, c.viewer, c.limit))


async def get_hand(t: Table, c: GetHand) -> TableResult:
    await t.events.flush()
    row = await t.deps.store.hand(t.tid, c.hand_id)
    if row is None:
        raise BusError(ErrorCode.NOT_FOUND, "no such finished hand at this table", hand_id=c.hand_id)
    return t.result(hand=history.history(json.loads(row["record"]), c.viewer, c.format))


async def list_hands(t: Table, c: ListHands) -> TableResult:
    await t.events.flush()
    rows = await t.deps.store.hands(t.tid, c.participant_id, c.limit)
    return t.result(hands=tuple(history.summary(json.loads(r["record"])) for r in rows))


COMMANDS: dict[type, Handler] = {GetView: get_view, GetEvents: get_events, GetHand: get_hand, ListHands: list_hands}
