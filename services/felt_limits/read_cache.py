"""What checks read, kept in the process and kept in step with limits' own writes.

Limits is the one writer of its tables (one limits process per room, as holds.py already
assumes): the counters change only when it applies a batch of transfer events, caps and
freezes only by its commands. So a copy of what a check read — a scope's caps and freeze, a
daily row, a scope's reserved exposure, a session's hands and wager — stays true if every write
of limits updates it after its commit: the daily and session deltas are added to the rows the
copy holds, and what is not a plain sum (exposure, a closed session, a changed cap or freeze)
is dropped and read again. A check that finds everything here reads no database at all, and the
read is most of what a check costs (docs/benchmarks.md, "Limits check").

A read from the database is kept only if no write of limits was in flight or finished while it
ran (`generation`): its rows could miss that write's deltas, or already hold them and get them
added twice. A write that fails drops the whole copy (it may have committed before failing).
While a write is in flight a check reads the copy as it was before it: as a database read before
the commit would, and the holds cover what the write is counting (holds.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date

from felt_limits.counters import Counted
from felt_limits.store import CapRow, CheckReads

ScopeKey = tuple[str, str]  # (scope, id) as stored: "owner" / "participant" / "credential"


class ReadCache:
    """The copy, in four parts as the check's statement reads them (store.check_query)."""

    def __init__(self, most: int = 200_000) -> None:
        self.most = most  # entries in all; past it the copy starts again empty
        self.generation = 0  # moves when a write begins and when it ends
        self._writing = 0
        self._scopes: dict[ScopeKey, tuple[dict[str, CapRow], str | None]] = {}  # caps, frozen reason
        self._daily: dict[ScopeKey, tuple[int, int]] = {}  # (buy-in, wager) of `_day`
        self._day: date | None = None
        self._exposure: dict[ScopeKey, int] = {}
        self._sessions: dict[str, tuple[int, int]] = {}  # (hands, wager)

    def clear(self) -> None:
        for part in (self._scopes, self._daily, self._exposure, self._sessions):
            part.clear()

    def reads(
        self,
        keys: list[ScopeKey],
        counted: list[ScopeKey],
        day: date | None,
        session_id: str | None,
        exposure: bool,
    ) -> CheckReads | None:
        """Everything a check of this shape reads (as `store.check_reads` gives it), or None
        when any of it is not here."""
        out = CheckReads({}, {}, {}, {}, None)
        for key in keys:
            scope = self._scopes.get(key)
            if scope is None:
                return None
            out.caps[key], reason = scope
            if reason is not None:
                out.frozen[key] = reason
        if day is not None:
            if day != self._day:
                return None
            for key in counted:
                if (row := self._daily.get(key)) is None:
                    return None
                out.daily[key] = row
        if exposure:
            for key in counted:
                if (held := self._exposure.get(key)) is None:
                    return None
                out.exposure[key] = held
        if session_id is not None:
            if (session := self._sessions.get(session_id)) is None:
                return None
            out.session = session
        return out

    def learn(
        self,
        generation: int,
        keys: list[ScopeKey],
        counted: list[ScopeKey],
        day: date | None,
        session_id: str | None,
        exposure: bool,
        reads: CheckReads,
    ) -> None:
        """Keep what a database read of this shape found, if no write overlapped it."""
        if self._writing or generation != self.generation:
            return
        if len(self._scopes) + len(self._daily) + len(self._exposure) + len(self._sessions) > self.most:
            self.clear()
        for key in keys:
            self._scopes[key] = (reads.caps[key], reads.frozen.get(key))
        if day is not None:
            if day != self._day:  # a new UTC day: yesterday's rows are no check's any more
                self._daily.clear()
                self._day = day
            for key in counted:
                self._daily[key] = reads.daily.get(key, (0, 0))
        if exposure:
            for key in counted:
                self._exposure[key] = reads.exposure.get(key, 0)
        if session_id is not None:
            self._sessions[session_id] = reads.session or (0, 0)

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Around a write of limits' tables and the copy's update after its commit."""
        self._writing += 1
        self.generation += 1
        try:
            yield
        except BaseException:
            self.clear()  # it may have committed before it failed: the copy cannot know what
            raise
        finally:
            self._writing -= 1
            self.generation += 1

    def counted(self, batch: Counted) -> None:
        """A batch of transfer events is committed: add its deltas to the rows held here."""
        for (scope, scope_id, day), (buy_in, wager) in batch.days.items():
            if day == self._day and (row := self._daily.get((scope, scope_id))) is not None:
                self._daily[scope, scope_id] = (row[0] + buy_in, row[1] + wager)
        for session_id, delta in batch.sessions.items():
            if delta["bought_in"] or delta["cashed_out"] or delta["closed"]:
                self._exposure.clear()  # buy-ins and cash-outs are rare; exposure is no plain sum
            if delta["closed"]:
                self._sessions.pop(session_id, None)
            elif (session := self._sessions.get(session_id)) is not None:
                self._sessions[session_id] = (session[0] + delta["hands"], session[1] + delta["wager"])

    def scope_changed(self, scope: str, scope_id: str) -> None:
        """A cap or a freeze of this scope was written."""
        self._scopes.pop((scope, scope_id), None)

    def session_closed(self, session_id: str) -> None:
        self._sessions.pop(session_id, None)
        self._exposure.clear()
