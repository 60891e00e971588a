"""Every NATS subject Felt uses, in one place.

Naming: `felt.<service>.<verb>` for request/reply commands (queue group `felt-<service>`,
so replicas share the work), `felt.evt.<service>.<what>` for published events. Durable
event streams (JetStream) are named here too.
"""


def health(service: str) -> str:
    """Health request/reply of one service."""
    return f"felt.health.{service}"


# --- wallet: owns every chip -------------------------------------------------------------
WALLET_QUEUE = "felt-wallet"
WALLET_OPEN_ACCOUNT = "felt.wallet.open_account"
WALLET_BUY_IN = "felt.wallet.buy_in"
WALLET_COMMIT = "felt.wallet.commit"
WALLET_SETTLE = "felt.wallet.settle"
WALLET_CANCEL_HAND = "felt.wallet.cancel_hand"
WALLET_CANCEL_TABLE = "felt.wallet.cancel_table"  # restart policy: cancel open hands, clear reserves
WALLET_CASH_OUT = "felt.wallet.cash_out"
WALLET_REFILL = "felt.wallet.refill"  # the gateway, for an owner's participant: claim a refill
WALLET_REFILL_STATE = "felt.wallet.refill_state"  # the gateway: whether a refill may be claimed now
WALLET_BALANCE = "felt.wallet.balance"
WALLET_LEADERBOARD = "felt.wallet.leaderboard"
WALLET_SESSIONS = "felt.wallet.sessions"
#: tournament prize pools (wallet/pools.py): served by the wallet, sent by the tournament service
WALLET_POOL_ENTRY = "felt.wallet.pool_entry"  # a buy-in: available -> prize pool
WALLET_POOL_REFUND = "felt.wallet.pool_refund"  # one entry back: prize pool -> available
WALLET_POOL_CLOSE = "felt.wallet.pool_close"  # pay the prizes, or refund every entry; once
WALLET_POOL = "felt.wallet.pool"  # query: a pool's balance and entries
#: tournament chips (wallet/chips.py): issued at a tournament's start, retired at its end
WALLET_CHIPS_ISSUE = "felt.wallet.chips_issue"
WALLET_CHIPS_RETIRE = "felt.wallet.chips_retire"
WALLET_EVENTS_STREAM = "FELT_WALLET"
WALLET_TRANSFER_EVENTS = "felt.evt.wallet.transfer"  # one event per committed transfer

# --- limits: caps and counters -----------------------------------------------------------
LIMITS_QUEUE = "felt-limits"
LIMITS_CHECK = "felt.limits.check"  # ask before new risk
LIMITS_GET = "felt.limits.get"
LIMITS_SET_CAP = "felt.limits.set_cap"
LIMITS_FREEZE = "felt.limits.freeze"
LIMITS_SESSION_END = "felt.limits.session_end"  # a session closed without a cash-out

# --- timer: deadlines --------------------------------------------------------------------
TIMER_QUEUE = "felt-timer"
TIMER_SCHEDULE = "felt.timer.schedule"
TIMER_SCHEDULE_MANY = "felt.timer.schedule_many"  # a batch of schedules, in order (tables' turns)
TIMER_CANCEL = "felt.timer.cancel"
TIMER_GET = "felt.timer.get"  # query one pending deadline
TIMER_REFILL_BANKS = "felt.timer.refill_banks"  # time bank: +refill per hand, capped
TIMER_GET_BANKS = "felt.timer.banks"  # time bank balances of players at a table


def timer_fired(owner: str) -> str:
    """Where a fired deadline is delivered: the service (and table) that asked for it."""
    return f"felt.evt.timer.fired.{owner}"


def timer_bank_started(owner: str) -> str:
    """A turn clock expired and the player's time bank now runs (for clients to show)."""
    return f"felt.evt.timer.bank_started.{owner}"


# --- table: hand state, one actor per table ----------------------------------------------
TABLE_QUEUE = "felt-table"
TABLE_LIST = "felt.table.list"
TABLE_CREATE = "felt.table.create"  # create a table (operators: house tables; the gateway: players' tables)
TABLE_CLOSE = "felt.table.close"  # operators: close a table (after the hand in progress)
TABLE_LADDER = "felt.table.ladder"  # the gateway: every participant's settled hands, tallied
TABLE_MATCH_CREATE = "felt.table.match_create"  # the gateway: a benchmark match's table
TABLE_MATCH_GET = "felt.table.match_get"  # the gateway: a match and its result


def table_command(table_id: str) -> str:
    """Every command for one table (join, start, act, leave, ...) goes to its owner here."""
    return f"felt.table.cmd.{table_id}"


def table_replica(replica_id: str, what: str) -> str:
    """One table-service replica's own subjects (tables over replicas: a replica that gets a
    command, timer event or lobby query for a table it does not own forwards it here, to the
    owner): `cmd`, `create`, `close`, `list`, `fired`, `bank`."""
    return f"felt.table.replica.{replica_id}.{what}"


#: the seat changes of every table (`table_seat_changes`), kept a week: chat follows who sits
#: where from them. Only they are stored in JetStream: every event is in the table's own store.
TABLE_SEATS_STREAM = "FELT_TABLE_SEATS"
#: the stream that captured every table event (`felt.evt.table.>`) before: the table service
#: deletes it at start (storing each event twice cost NATS a write per event)
LEGACY_TABLE_EVENTS_STREAM = "FELT_TABLE_EVENTS"


#: every table event, public and private (the gateway's fan-out hears them)
TABLE_EVENTS_ALL = "felt.evt.table.>"

#: the table service's JetStream KV buckets: which replica owns which table (a lease per table),
#: which table each participant sits at, and the live replicas
TABLE_LEASES_BUCKET = "felt-table-leases"
TABLE_SESSIONS_BUCKET = "felt-table-sessions"
TABLE_REPLICAS_BUCKET = "felt-table-replicas"


def table_public_events(table_id: str) -> str:
    """Numbered public events of a table (never private cards)."""
    return f"felt.evt.table.{table_id}.public"


def table_seat_changes(table_id: str) -> str:
    """A table's public events that change who sits where (`table.SEAT_CHANGES`), again, for the
    stream `TABLE_SEATS_STREAM`; not under `felt.evt.table.<id>.>`, so watchers get them once."""
    return f"felt.evt.table_seats.{table_id}"


#: every table's seat changes (the stream's subjects; chat's consumer)
TABLE_SEAT_CHANGES_ALL = "felt.evt.table_seats.*"


def table_seat_events(table_id: str, participant_id: str) -> str:
    """Private events for one participant at a table (own hole cards, legal actions)."""
    return f"felt.evt.table.{table_id}.private.{participant_id}"


# --- chat -------------------------------------------------------------------------------
CHAT_QUEUE = "felt-chat"
CHAT_POST = "felt.chat.post"
CHAT_HISTORY = "felt.chat.history"
CHAT_JOIN = "felt.chat.join"  # a watcher (ChatJoin); seats come from the table's events
CHAT_LEAVE = "felt.chat.leave"  # no longer watching (ChatLeave)


def chat_events(table_id: str) -> str:
    return f"felt.evt.chat.{table_id}"


# --- gateway: connections and identity (its HTTP API has its own OpenAPI) ---------------
#: a credential revoked, rotated or logged out (CredentialsForgotten): every gateway process
#: drops it from its authentication cache at once (no queue group: each one hears it)
GATEWAY_CREDENTIALS_FORGOTTEN = "felt.evt.gateway.credentials_forgotten"


# --- tournament: definitions, registrations, standings, payouts --------------------------
# served by the tournament service; create and cancel are sent by operators (`felt tournament`),
# the rest by the gateway for players and agents, and by operators
TOURNAMENT_QUEUE = "felt-tournament"
TOURNAMENT_CREATE = "felt.tournament.create"  # operators
TOURNAMENT_CANCEL = "felt.tournament.cancel"  # operators: refund every entry
TOURNAMENT_LIST = "felt.tournament.list"
TOURNAMENT_GET = "felt.tournament.get"
TOURNAMENT_REGISTER = "felt.tournament.register"
TOURNAMENT_UNREGISTER = "felt.tournament.unregister"


# --- bots: computer opponents (ordinary agents over the gateway) -------------------------
BOTS_QUEUE = "felt-bots"
BOTS_ADD = "felt.bots.add"  # seat more bots at a table
BOTS_STATUS = "felt.bots.status"  # every running bot and what it did
BOTS_REMOVE = "felt.bots.remove"  # stop a bot a host added (it leaves its table)
# the gateway, for an agent's benchmark match: hold a bot of the level, seat it at the match's table, free it
BOTS_MATCH_RESERVE = "felt.bots.match_reserve"
BOTS_MATCH_PLAY = "felt.bots.match_play"
BOTS_MATCH_RELEASE = "felt.bots.match_release"
