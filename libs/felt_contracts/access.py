"""Who may say what on the bus: for every subject in `subjects`, who serves or hears it and who
sends or publishes it, and which JetStream streams and KV buckets each service owns or reads.

This is the one declaration the NATS permissions are generated from (`felt_runtime.nats_access`):
each identity below connects as its own NATS user and may publish and subscribe only what it is
named for here. docs/operations.md ("Who may say what on the bus") explains the rules:
only the table asks the wallet to move chips (the tournament service, for prize pools only), only
the wallet publishes transfer events, only the
table publishes table events, the gateway sends only what a client's request becomes (a benchmark
match too: it holds the bot, has the table made and seats the bot), and the bots serve their own
subjects and send nothing (they play through the gateway's REST API).
"""

from __future__ import annotations

from dataclasses import dataclass

from felt_contracts import subjects as s

#: the services, each a NATS user of the same name
SERVICES = ("wallet", "limits", "timer", "table", "chat", "gateway", "bots", "tournament")
#: the `felt` command of an operator (tables, bots, health): a NATS user too
OPERATOR = "operator"
IDENTITIES = (*SERVICES, OPERATOR)


@dataclass(frozen=True)
class Requests:
    """Request/reply subjects one service serves (subscribes, in its queue group) and others send."""

    served_by: str
    sent_by: tuple[str, ...]
    subjects: tuple[str, ...]


@dataclass(frozen=True)
class Events:
    """Event subjects one service publishes and others hear (directly or through a stream)."""

    published_by: str
    heard_by: tuple[str, ...]
    subjects: tuple[str, ...]


@dataclass(frozen=True)
class Stream:
    """A JetStream stream: its owner declares (and may delete) it; readers read it with a durable
    consumer (and may create it if it is missing, `felt_runtime.streams.ensure`)."""

    name: str
    owner: str
    readers: tuple[str, ...] = ()


@dataclass(frozen=True)
class Bucket:
    """A JetStream KV bucket, used by its owner only."""

    name: str
    owner: str


_TABLE_MONEY = (s.WALLET_BUY_IN, s.WALLET_COMMIT, s.WALLET_SETTLE, s.WALLET_CANCEL_HAND, s.WALLET_CANCEL_TABLE)

REQUESTS: tuple[Requests, ...] = (
    # chips move only when the table asks (reserve, escrow, settle, cancel, cash out)
    Requests("wallet", ("table",), (*_TABLE_MONEY, s.WALLET_CASH_OUT)),
    # a client's own account: opening it, the house's daily refill of a short account, views
    Requests(
        "wallet",
        ("gateway",),
        (s.WALLET_OPEN_ACCOUNT, s.WALLET_REFILL, s.WALLET_REFILL_STATE, s.WALLET_LEADERBOARD, s.WALLET_SESSIONS),
    ),
    Requests("wallet", ("gateway", "table"), (s.WALLET_BALANCE,)),
    # tournament buy-ins, refunds and prizes move between available chips and a prize pool
    Requests(
        "wallet", ("tournament",), (s.WALLET_POOL_ENTRY, s.WALLET_POOL_REFUND, s.WALLET_POOL_CLOSE, s.WALLET_POOL)
    ),
    # tournament chips: issued to the entrants at the start, retired at the end
    Requests("wallet", ("tournament",), (s.WALLET_CHIPS_ISSUE, s.WALLET_CHIPS_RETIRE)),
    Requests("limits", ("table", "tournament"), (s.LIMITS_CHECK,)),
    Requests("limits", ("table",), (s.LIMITS_SESSION_END,)),
    Requests("limits", ("gateway",), (s.LIMITS_GET, s.LIMITS_SET_CAP, s.LIMITS_FREEZE)),
    Requests("timer", ("tournament",), (s.TIMER_SCHEDULE,)),  # its level clocks
    Requests(
        "timer",
        ("table",),
        (
            s.TIMER_SCHEDULE,
            s.TIMER_SCHEDULE_MANY,
            s.TIMER_CANCEL,
            s.TIMER_GET,
            s.TIMER_REFILL_BANKS,
            s.TIMER_GET_BANKS,
        ),
    ),
    # the tournament service seats its entrants and sets its tables' blinds (as their host)
    Requests("table", ("gateway", "tournament"), (s.table_command("*"),)),
    Requests("table", ("gateway", OPERATOR), (s.TABLE_LIST,)),
    # players create (and host) tables through the gateway; operators create house tables; the
    # tournament service creates and closes its tournaments' tables
    Requests("table", ("gateway", OPERATOR, "tournament"), (s.TABLE_CREATE,)),
    Requests("table", (OPERATOR, "tournament"), (s.TABLE_CLOSE,)),
    # the ladder and benchmark matches: the gateway has a match's table made for the bot it holds
    Requests("table", ("gateway",), (s.TABLE_LADDER, s.TABLE_MATCH_CREATE, s.TABLE_MATCH_GET)),
    # replicas forward what another replica owns to it (tables over replicas)
    Requests("table", ("table",), (s.table_replica("*", "*"),)),
    Requests("chat", ("gateway",), (s.CHAT_POST, s.CHAT_HISTORY, s.CHAT_JOIN, s.CHAT_LEAVE)),
    # a host adds bots to a table of theirs through the gateway, and removes them
    Requests("bots", ("gateway", OPERATOR), (s.BOTS_ADD, s.BOTS_REMOVE)),
    Requests("bots", ("gateway", OPERATOR), (s.BOTS_STATUS,)),
    # a benchmark match: the gateway holds a bot of the level, then seats it (or frees it)
    Requests("bots", ("gateway",), (s.BOTS_MATCH_RESERVE, s.BOTS_MATCH_PLAY, s.BOTS_MATCH_RELEASE)),
    Requests("tournament", (OPERATOR,), (s.TOURNAMENT_CREATE, s.TOURNAMENT_CANCEL)),
    Requests("tournament", ("gateway", OPERATOR), (s.TOURNAMENT_LIST, s.TOURNAMENT_GET)),
    Requests("tournament", ("gateway",), (s.TOURNAMENT_REGISTER, s.TOURNAMENT_UNREGISTER)),
    # every service answers its own health; the table waits for the services it calls
    *(
        Requests(name, (OPERATOR, "table") if name in ("wallet", "limits", "timer") else (OPERATOR,), (s.health(name),))
        for name in SERVICES
    ),
)

EVENTS: tuple[Events, ...] = (
    Events("wallet", ("limits",), (s.WALLET_TRANSFER_EVENTS,)),
    Events("table", ("gateway",), (s.TABLE_EVENTS_ALL,)),
    Events("table", ("chat",), (s.TABLE_SEAT_CHANGES_ALL,)),
    Events("timer", ("table",), (s.timer_fired("*"), s.timer_bank_started("*"))),
    Events("timer", ("tournament",), (s.timer_fired("tournament"),)),
    Events("chat", ("gateway",), (s.chat_events("*"),)),
    # each gateway process drops a forgotten credential from its cache
    Events("gateway", ("gateway",), (s.GATEWAY_CREDENTIALS_FORGOTTEN,)),
)

STREAMS: tuple[Stream, ...] = (
    Stream(s.WALLET_EVENTS_STREAM, "wallet", ("limits",)),
    Stream(s.TABLE_SEATS_STREAM, "table", ("chat",)),
    Stream(s.LEGACY_TABLE_EVENTS_STREAM, "table"),
)

BUCKETS: tuple[Bucket, ...] = (
    Bucket(s.TABLE_LEASES_BUCKET, "table"),
    Bucket(s.TABLE_SESSIONS_BUCKET, "table"),
    Bucket(s.TABLE_REPLICAS_BUCKET, "table"),
)
