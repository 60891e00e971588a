"""Scripted random players over the bus (tests and the benchmark)."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from felt_contracts.table import Act, GetView, Join, Leave, Start, TableView
from felt_runtime.bus import BusError

from tests.table.conftest import balance, cmd, player


def pick(rng: random.Random, v: TableView, ante: bool) -> Act | None:
    h = v.hand
    la = h.legal_actions if h else None
    if h is None or la is None:
        return None
    pid = next(s.participant_id for s in h.seats if s.seat == v.your_seat_id)
    mine = next(s.bet for s in h.seats if s.seat == v.your_seat_id)
    options: list[Act] = []
    if la.draw is not None:
        cards = list(h.hole_cards or ())
        return Act(
            participant_id=pid, action="draw", cards=tuple(rng.sample(cards, rng.randint(0, min(3, len(cards)))))
        )
    if ante:
        options.append(Act(participant_id=pid, action="hit"))
        if la.fold and not la.check:
            options.append(Act(participant_id=pid, action="fold"))
        b = la.bet or la.raise_to
        if b is not None and rng.random() < 0.5:
            add = rng.randint(b.min, min(b.max, b.min * 3)) - mine
            options.append(Act(participant_id=pid, action="bet", amount=add))
        if la.all_in is not None and rng.random() < 0.1:
            options.append(Act(participant_id=pid, action="allIn"))
        return rng.choice(options)
    if la.check:
        options += [Act(participant_id=pid, action="check")] * 3
    if la.call is not None:
        options += [Act(participant_id=pid, action="call")] * 3
    if la.fold and not la.check:
        options.append(Act(participant_id=pid, action="fold"))
    if la.bet is not None:
        options.append(
            Act(participant_id=pid, action="bet", amount=rng.randint(la.bet.min, min(la.bet.max, la.bet.min * 3)))
        )
    if la.raise_to is not None:
        options.append(
            Act(
                participant_id=pid,
                action="raiseTo",
                amount=rng.randint(la.raise_to.min, min(la.raise_to.max, la.raise_to.min * 2)),
            )
        )
    if la.all_in is not None and rng.random() < 0.1:
        options.append(Act(participant_id=pid, action="allIn"))
    return rng.choice(options)


async def play_table(
    bus: Any,
    table_id: str,
    n_players: int,
    hands: int,
    *,
    ante: bool,
    seed: int,
    min_buy: int = 20,
    buy_in: int = 100,
    timeouts: float = 0.01,
    leaves: float = 0.01,
    accounts: list[str] | None = None,
) -> dict[str, int]:
    """Play `hands` complete hands with random legal actions, timeouts, leaves and rejoins."""
    rng = random.Random(seed)
    accounts = accounts if accounts is not None else []
    slots: list[str | None] = [None] * n_players
    stats = {"hands": 0, "actions": 0, "timeouts": 0, "leaves": 0, "rejoins": 0}
    last_hand = None
    seen_hands: set[str] = set()
    cached = None
    while stats["hands"] < hands:
        view = cached or (await cmd(bus, table_id, GetView())).view
        cached = None
        seated = {s.participant_id for s in view.seats}
        running = view.hand is not None and view.hand.phase != "over"
        if view.hand is not None and view.hand.phase == "over" and view.hand.hand_id not in seen_hands:
            seen_hands.add(view.hand.hand_id)
            stats["hands"] += 1
            continue
        # (re)seat players between hands
        if not running:
            for k in range(n_players):
                pid = slots[k]
                if pid is not None and pid in seated:
                    if not ante or next(x.stack for x in view.seats if x.participant_id == pid) >= 10:
                        continue
                    await cmd(bus, table_id, Leave(participant_id=pid))
                    pid = None
                if pid is not None:
                    b = await balance(bus, pid)
                    if b.in_play or b.available < (10 if ante else min_buy):
                        pid = None
                if pid is None:
                    pid, _ = await player(bus)
                    accounts.append(pid)
                try:
                    await cmd(
                        bus,
                        table_id,
                        Join(
                            participant_id=pid,
                            owner_id=f"o-{pid}",
                            kind="agent",
                            buy_in=None if ante else min(buy_in, (await balance(bus, pid)).available),
                        ),
                    )
                    stats["rejoins"] += 1
                    slots[k] = pid
                except BusError:
                    slots[k] = None
            if not ante:
                first = next((p for p in slots if p), None)
                for p in slots:
                    if p:
                        try:
                            await cmd(bus, table_id, Start(participant_id=p))
                            break
                        except BusError:
                            continue
                _ = first
            else:
                await asyncio.sleep(0.02)
            continue
        actor = view.hand.actor_seat_id
        pid = next((s.participant_id for s in view.seats if s.seat == actor), None)
        if pid is None:
            await asyncio.sleep(0.01)
            continue
        r = rng.random()
        if r < timeouts:
            stats["timeouts"] += 1
            turn = view.hand.turn_id
            for _ in range(200):
                await asyncio.sleep(0.05)
                v2 = (await cmd(bus, table_id, GetView())).view
                if v2.hand is None or v2.hand.turn_id != turn or v2.hand.hand_id != view.hand.hand_id:
                    break
            continue
        if r < timeouts + leaves:
            stats["leaves"] += 1
            await cmd(bus, table_id, Leave(participant_id=pid))
            continue
        mine = (await cmd(bus, table_id, GetView(viewer=pid))).view
        act = pick(rng, mine, ante)
        if act is None:
            continue
        try:
            r = await cmd(
                bus, table_id, act.model_copy(update={"hand_id": mine.hand.hand_id, "turn_id": mine.hand.turn_id})
            )
            stats["actions"] += 1
            cached = r.view
        except BusError as exc:
            if exc.code.value not in ("stale_turn", "hand_closed", "not_your_turn"):
                raise
        last_hand = mine.hand.hand_id
    _ = last_hand
    # everyone leaves: stacks go back to the accounts
    view = (await cmd(bus, table_id, GetView())).view
    for s in view.seats:
        await cmd(bus, table_id, Leave(participant_id=s.participant_id))
    return stats
