"""The timer as a process: deadlines survive stop and kill -9, replicas fire each deadline
exactly once, a replica dying between claim and publish is covered by the lease, health."""

from __future__ import annotations

import asyncio
import uuid

import httpx

from felt_contracts import subjects
from felt_contracts.timer import ScheduleDeadline
from felt_timer.store import Schedule, TimerStore
from tests.timer.conftest import schedule, start_timer


def prefix() -> str:
    return f"d-{uuid.uuid4().hex[:8]}"


async def test_deadlines_survive_timer_stop_and_kill9(services, broker, listen, owner) -> None:
    """One timer process through a graceful stop and a kill -9 (process starts are slow on a
    busy machine, so the three restart cases share one test): every deadline fires once."""
    timer = start_timer(services, prefix())
    ready = httpx.get(f"{timer.url}/readyz").json()
    assert ready["status"] == "ok" and ready["checks"] == {"nats": "ok", "redis": "ok"}
    fired = await listen(subjects.timer_fired(owner))

    # 1. graceful stop; one deadline due after the restart, one due while the timer is down
    later = await schedule(broker, owner=owner, key="tb:turn", kind="turn", delay_seconds=2.0, payload={"turn_id": 9})
    await schedule(broker, owner=owner, key="tb:grace", kind="disconnect", delay_seconds=0.3)
    timer.stop()
    assert timer.process is not None and timer.process.returncode in (0, -15)
    assert "Application shutdown complete" in timer.tail() and '"level": "ERROR"' not in timer.tail()
    await asyncio.sleep(0.5)
    assert fired.events == []
    timer.start()
    await asyncio.to_thread(timer.wait_ready)
    await fired.wait_for(2, timeout=6)
    await asyncio.sleep(0.5)
    assert sorted(e["key"] for e in fired.events) == ["tb:grace", "tb:turn"]
    turn = next(e for e in fired.events if e["key"] == "tb:turn")
    assert turn["deadline_id"] == later.deadline_id and turn["payload"] == {"turn_id": 9}

    # 2. kill -9: no shutdown hooks at all
    crashed = await schedule(broker, owner=owner, key="tb:intermission", kind="intermission", delay_seconds=2.0)
    timer.kill9()
    timer.start()
    await asyncio.to_thread(timer.wait_ready)
    await fired.wait_for(3, timeout=6)
    await asyncio.sleep(0.5)
    assert len(fired.events) == 3 and fired.events[2]["deadline_id"] == crashed.deadline_id


async def test_three_replicas_fire_each_deadline_exactly_once(services, broker, listen, owner) -> None:
    p = prefix()
    replicas = [services.start("timer", ready=False, felt_timer_prefix=p) for _ in range(3)]
    for r in replicas:
        await asyncio.to_thread(r.wait_ready)
    fired = await listen(subjects.timer_fired(owner))
    for i in range(50):
        await schedule(broker, owner=owner, key=f"k{i}", kind="other", delay_seconds=0.3 + (i % 10) * 0.07)
    await fired.wait_for(50, timeout=6)
    await asyncio.sleep(0.8)  # give duplicates time to show up
    keys = [e["key"] for e in fired.events]
    assert len(keys) == 50 and sorted(keys) == sorted(f"k{i}" for i in range(50))
    assert all(e["attempt"] == 1 for e in fired.events)


async def test_replica_dying_between_claim_and_publish_is_redelivered_after_lease(
    services, broker, listen, owner, redis_url
) -> None:
    """A claim that is never acknowledged (its replica died) is fired by another replica once
    the lease runs out: deadlines are never lost (at-least-once), with the same event_id."""
    from felt_runtime.redis import make_redis

    p = prefix()
    redis = make_redis(redis_url)
    store = TimerStore(redis, p, bank_ttl_s=3600, idempotency_ttl_s=60)
    request = ScheduleDeadline(owner=owner, key="k", kind="turn", delay_seconds=0.05)
    await store.schedule(
        Schedule(
            request, deadline_id="dl-1", owner=owner, key="k", kind="turn", delay_ms=50, payload_json="{}", bank=None
        )
    )
    await asyncio.sleep(0.1)
    _, claimed = await store.claim(10, 1000, "dead-replica")  # claimed, then "crashed": no publish, no ack
    assert [c.deadline_id for c in claimed] == ["dl-1"]
    assert (await store.claim(10, 1000, "other"))[1] == []  # nobody else may take it during the lease
    fired = await listen(subjects.timer_fired(owner))
    start_timer(services, p)
    await fired.wait_for(1, timeout=5)
    assert fired.events[0]["deadline_id"] == fired.events[0]["event_id"] == "dl-1"
    assert fired.events[0]["attempt"] == 2
    await asyncio.sleep(0.3)
    assert len(fired.events) == 1
    await redis.aclose()


def test_bad_timer_setting_is_one_line(services) -> None:
    timer = services.start("timer", ready=False, felt_timer_poll_seconds="-1")
    assert timer.process is not None and timer.process.wait(30) == 2
    lines = timer.tail().strip().splitlines()
    assert lines[-1].startswith("felt-timer: FELT_TIMER_POLL_SECONDS")
