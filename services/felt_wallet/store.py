"""Tables and the unit of work the group-commit writer applies commands against.

`Work` loads the rows a batch needs in a few bulk queries, lets each command read and change
them in memory (every change is journaled so a refused command is undone without touching
the others), then flushes everything in a handful of multi-row statements inside the one
transaction. Ledger balances are flushed as deltas (`balance = balance + d`) and the CHECK
constraint refuses any negative player balance, whatever else writes the database.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

ID, KEY = 200, 500
metadata = sa.MetaData()

accounts = sa.Table(
    "wallet_accounts",
    metadata,
    sa.Column("account_id", sa.String(ID), primary_key=True),
    sa.Column("owner_id", sa.String(ID)),
    sa.Column("in_play", sa.BigInteger, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    #: chips the house ever gave the account (the starting grant and refills)
    sa.Column("granted", sa.BigInteger, nullable=False, server_default="0"),
    sa.Column("refilled", sa.BigInteger, nullable=False, server_default="0"),  # of which refills
    sa.CheckConstraint("in_play >= 0", name="ck_wallet_accounts_in_play"),
)
ledger = sa.Table(
    "wallet_ledger",
    metadata,
    sa.Column("key", sa.String(KEY), primary_key=True),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("account_id", sa.String(ID)),
    sa.Column("table_id", sa.String(ID)),
    sa.Column("hand_id", sa.String(ID)),
    sa.Column("balance", sa.BigInteger, nullable=False),
    sa.CheckConstraint("kind = 'house' OR balance >= 0", name="ck_wallet_ledger_not_negative"),
    sa.Index("ix_wallet_ledger_account", "account_id"),
)
hands = sa.Table(
    "wallet_hands",
    metadata,
    sa.Column("hand_id", sa.String(ID), primary_key=True),
    sa.Column("table_id", sa.String(ID), nullable=False),
    sa.Column("status", sa.String(10), nullable=False),
    sa.Column("opened_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("closed_at", sa.DateTime(timezone=True)),
    sa.Index("ix_wallet_hands_table_status", "table_id", "status"),
)
contributions = sa.Table(
    "wallet_contributions",
    metadata,
    sa.Column("hand_id", sa.String(ID), primary_key=True),
    sa.Column("account_id", sa.String(ID), primary_key=True),
    sa.Column("source", sa.String(10), primary_key=True),
    sa.Column("amount", sa.BigInteger, nullable=False),
    sa.Column("session_id", sa.String(64)),
)
sessions = sa.Table(
    "wallet_sessions",
    metadata,
    sa.Column("session_id", sa.String(64), primary_key=True),
    sa.Column("account_id", sa.String(ID), nullable=False),
    sa.Column("table_id", sa.String(ID), nullable=False),
    sa.Column("status", sa.String(10), nullable=False),
    sa.Column("buy_in", sa.BigInteger, nullable=False),
    sa.Column("cash_out", sa.BigInteger, nullable=False),
    sa.Column("gross_wagers", sa.BigInteger, nullable=False),
    sa.Column("hands_played", sa.Integer, nullable=False),
    sa.Column("opened_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("closed_at", sa.DateTime(timezone=True)),
    sa.Index("ix_wallet_sessions_account_status", "account_id", "status"),
    sa.Index("ix_wallet_sessions_table_status", "table_id", "status"),
)
commands = sa.Table(
    "wallet_commands",
    metadata,
    sa.Column("key", sa.String(KEY), primary_key=True),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("fingerprint", sa.String(64), nullable=False),
    sa.Column("result", sa.Text, nullable=False),
)
transfers = sa.Table(
    "wallet_transfers",
    metadata,
    sa.Column("transfer_id", sa.String(KEY), primary_key=True),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("debit", sa.String(KEY), nullable=False),
    sa.Column("credit", sa.String(KEY), nullable=False),
    sa.Column("amount", sa.BigInteger, nullable=False),
    sa.Column("account_id", sa.String(ID), nullable=False),
    sa.Column("owner_id", sa.String(ID)),
    sa.Column("session_id", sa.String(64)),
    sa.Column("table_id", sa.String(ID)),
    sa.Column("hand_id", sa.String(ID)),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint("amount > 0", name="ck_wallet_transfers_amount"),
)
table_leases = sa.Table(  # the newest lease seen per table (fencing of table replicas)
    "wallet_table_leases",
    metadata,
    sa.Column("table_id", sa.String(ID), primary_key=True),
    sa.Column("lease", sa.BigInteger, nullable=False),
)
pool_entries = sa.Table(  # tournament buy-ins into prize pools (pools.py)
    "wallet_pool_entries",
    metadata,
    sa.Column("entry_id", sa.String(ID), primary_key=True),
    sa.Column("pool_id", sa.String(ID), nullable=False),
    sa.Column("account_id", sa.String(ID), nullable=False),
    sa.Column("amount", sa.BigInteger, nullable=False),
    sa.Column("refunded", sa.Boolean, nullable=False),
    sa.Index("ix_wallet_pool_entries_pool", "pool_id"),
)

outbox = sa.Table(
    "wallet_outbox",
    metadata,
    sa.Column("seq", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("transfer_id", sa.String(KEY), nullable=False),
    sa.Column("payload", sa.Text, nullable=False),
    sqlite_autoincrement=True,
)

HOUSE = "house"


def ledger_key(kind: str, *parts: str) -> str:
    """Unambiguous ledger account key (length-prefixed parts, so ids may contain anything)."""
    return kind + "".join(f"|{len(p)}:{p}" for p in parts)


def available_key(account_id: str) -> str:
    return ledger_key("available", account_id)


def reserve_key(account_id: str, table_id: str) -> str:
    return ledger_key("reserve", account_id, table_id)


def escrow_key(hand_id: str) -> str:
    return ledger_key("escrow", hand_id)


def pool_key(pool_id: str) -> str:
    return ledger_key("pool", pool_id)


Row = dict[str, Any]
#: an outbox row as the relay publishes it: (seq, transfer id, payload)
OutboxRow = tuple[int, str, str]
_MISSING: Any = object()
_CHUNK = 500
#: fields `Work.scan` looks rows up by (kept as in-memory indexes; these never change for a row)
_INDEXED = {
    "wallet_sessions": ("account_id", "table_id"),
    "wallet_contributions": ("hand_id",),
    "wallet_hands": ("table_id",),
    "wallet_pool_entries": ("pool_id",),
}


class Cache:
    """Rows of one table seen by the current batch: `None` = known not to exist."""

    def __init__(self, table: sa.Table) -> None:
        self.table = table
        self.pk = [c.name for c in table.primary_key.columns]
        self.rows: dict[Any, Row | None] = {}
        self.new: set[Any] = set()
        self.dirty: set[Any] = set()
        self.base: dict[Any, Row] = {}  # as loaded (ledger deltas are computed from it)
        self.index: dict[str, dict[Any, set[Any]]] = {f: {} for f in _INDEXED.get(table.name, ())}

    def key_of(self, row: Row) -> Any:
        return row[self.pk[0]] if len(self.pk) == 1 else tuple(row[c] for c in self.pk)

    def set(self, key: Any, row: Row | None) -> None:
        self.rows[key] = row
        if row is not None:
            for field, idx in self.index.items():
                idx.setdefault(row[field], set()).add(key)

    def written(self, key: Any) -> Row:
        """The row the batch put under a new or dirty key (those always have one)."""
        row = self.rows[key]
        assert row is not None, key
        return row

    def seed(self, row: Row) -> None:
        """A row read from the database; never overwrites what the batch already changed."""
        key = self.key_of(row)
        if self.rows.get(key) is None and key not in self.new:
            self.set(key, row)
            self.base[key] = row


class Work:
    """The in-memory view of one transaction; see the module docstring.

    Synchronous on purpose: the writer runs a whole batch in one call (on SQLite in one
    worker-thread hop; on PostgreSQL inside `AsyncConnection.run_sync`), instead of paying an
    event-loop round trip per statement."""

    def __init__(self, conn: Connection, now: datetime) -> None:
        self.conn = conn
        self.now = now
        self.c = {t.name: Cache(t) for t in _WRITTEN}
        self.journal: list[tuple[Cache, Any, Any, bool, bool]] = []
        self.transfers: list[Row] = []
        self.outbox: list[Row] = []
        self.loaded: set[tuple[str, str]] = set()  # ("sessions-of", account) etc.
        self.outbox_done: list[int] = []  # published outbox seqs to delete
        self.outboxed: list[OutboxRow] = []  # the outbox rows flushed

    # --- reading -----------------------------------------------------------------------
    def load(self, table: sa.Table, keys: Iterable[Any]) -> None:
        """Bulk-load rows by (single-column) primary key; misses are remembered as absent."""
        cache = self.c[table.name]
        todo = [k for k in dict.fromkeys(keys) if k not in cache.rows]
        for i in range(0, len(todo), _CHUNK):
            chunk = todo[i : i + _CHUNK]
            self._seed(cache, _BY_KEY[table.name], chunk)
            for k in chunk:
                cache.rows.setdefault(k, None)

    def load_of(self, kind: str, table: sa.Table, query: sa.Select[Any], keys: Iterable[str]) -> None:
        """The rows `query` (prebuilt, with an expanding `keys` parameter) selects for each of
        `keys`, read once per (kind, key) in a batch."""
        todo = [k for k in dict.fromkeys(keys) if (kind, k) not in self.loaded]
        cache = self.c[table.name]
        for i in range(0, len(todo), _CHUNK):
            self._seed(cache, query, todo[i : i + _CHUNK])
        self.loaded.update((kind, k) for k in todo)

    def load_where(self, tag: tuple[str, str], table: sa.Table, where: Any) -> None:
        """Load the rows matching the clause `where` once per tag."""
        if tag in self.loaded:
            return
        self.loaded.add(tag)
        cache = self.c[table.name]
        for r in self.conn.execute(sa.select(table).where(where)).mappings():
            cache.seed(dict(r))

    def _seed(self, cache: Cache, query: sa.Select[Any], keys: list[Any]) -> None:
        for r in self.conn.execute(query, {"keys": keys}).mappings():
            cache.seed(dict(r))

    def get(self, table: sa.Table, key: Any) -> Row | None:
        cache = self.c[table.name]
        if key not in cache.rows:
            self.load(table, [key])
        return cache.rows[key]

    def scan(self, table: sa.Table, **match: Any) -> list[Row]:
        """Cached rows matching all fields (call the matching `load_where` first)."""
        cache = self.c[table.name]
        field = next((f for f in match if f in cache.index), None)
        keys: Iterable[Any] = cache.index[field].get(match[field], ()) if field else cache.rows
        out = []
        for k in keys:
            r = cache.rows.get(k)
            if r is not None and all(r[f] == v for f, v in match.items()):
                out.append(r)
        return out

    # --- writing (journaled) -----------------------------------------------------------
    def put(self, table: sa.Table, row: Row) -> None:
        cache = self.c[table.name]
        key = cache.key_of(row)
        old = cache.rows.get(key, _MISSING)
        self.journal.append((cache, key, old, key in cache.new, key in cache.dirty))
        cache.set(key, row)
        if old is None or old is _MISSING:
            cache.new.add(key)
        elif key not in cache.new:
            cache.dirty.add(key)

    def mark(self) -> tuple[int, int, int]:
        return len(self.journal), len(self.transfers), len(self.outbox)

    def rollback(self, mark: tuple[int, int, int]) -> None:
        j, t, o = mark
        while len(self.journal) > j:
            cache, key, old, was_new, was_dirty = self.journal.pop()
            if old is _MISSING:
                cache.rows.pop(key, None)  # a stale index entry is skipped by `scan`
            else:
                cache.rows[key] = old
            (cache.new.add if was_new else cache.new.discard)(key)
            (cache.dirty.add if was_dirty else cache.dirty.discard)(key)
        del self.transfers[t:]
        del self.outbox[o:]

    # --- flushing ----------------------------------------------------------------------
    def flush(self) -> None:
        """Write the batch: one multi-row statement per table and kind of change."""
        conn = self.conn
        for table in _WRITTEN:
            cache = self.c[table.name]
            new = [cache.written(k) for k in cache.new]
            if new:
                conn.execute(_INSERT[table.name], new)
            if not cache.dirty:
                continue
            if table is ledger:
                params = []
                for k in cache.dirty:
                    delta = cache.written(k)["balance"] - cache.base[k]["balance"]
                    if delta:
                        params.append({"k_key": k, "d": delta})
            else:
                cols = [c.name for c in table.columns if c.name not in cache.pk]
                params = []
                for k in cache.dirty:
                    row = cache.written(k)
                    params.append({**{f"k_{c}": row[c] for c in cache.pk}, **{f"v_{c}": row[c] for c in cols}})
            if params:
                conn.execute(_UPDATE[table.name], params)
        if self.transfers:
            conn.execute(_INSERT[transfers.name], self.transfers)
        if self.outbox:
            seqs = conn.execute(_INSERT_OUTBOX, self.outbox).scalars().all()
            self.outboxed = [(seq, r["transfer_id"], r["payload"]) for seq, r in zip(seqs, self.outbox, strict=True)]
        for i in range(0, len(self.outbox_done), _CHUNK):
            conn.execute(_DELETE_OUTBOX, {"keys": self.outbox_done[i : i + _CHUNK]})


# Statements built once (building and cache-keying a statement per execution was about a tenth
# of the wallet's CPU at 100 tables): the lists of keys are expanding parameters.
def _in(column: sa.Column[Any]) -> sa.ColumnElement[bool]:
    return column.in_(sa.bindparam("keys", expanding=True))


def _update(table: sa.Table) -> sa.Update:
    """By primary key (`k_<col>`): a ledger row by its balance's delta (`d`, so concurrent
    writers add up and the CHECK sees the result), any other row with every column (`v_<col>`)."""
    pk = [c.name for c in table.primary_key.columns]
    stmt = sa.update(table).where(sa.and_(*[table.c[c] == sa.bindparam(f"k_{c}") for c in pk]))
    if table is ledger:
        return stmt.values(balance=table.c.balance + sa.bindparam("d"))
    return stmt.values({c.name: sa.bindparam(f"v_{c.name}") for c in table.columns if c.name not in pk})


_WRITTEN = (accounts, sessions, hands, ledger, contributions, commands, table_leases, pool_entries)
_BY_KEY = {t.name: sa.select(t).where(_in(next(iter(t.primary_key.columns)))) for t in _WRITTEN}
_INSERT = {t.name: sa.insert(t) for t in (*_WRITTEN, transfers)}
#: with each row's seq, so that the relay gets the committed rows from the writer, not a read
_INSERT_OUTBOX = sa.insert(outbox).returning(outbox.c.seq, sort_by_parameter_order=True)
_UPDATE = {t.name: _update(t) for t in _WRITTEN}
_DELETE_OUTBOX = sa.delete(outbox).where(_in(outbox.c.seq))
#: the open sessions of some accounts; the contributions to some hands
OPEN_SESSIONS_OF = sa.select(sessions).where(_in(sessions.c.account_id) & (sessions.c.status == "open"))
CONTRIBUTIONS_TO = sa.select(contributions).where(_in(contributions.c.hand_id))
#: the entries of some prize pools
ENTRIES_OF = sa.select(pool_entries).where(_in(pool_entries.c.pool_id))
