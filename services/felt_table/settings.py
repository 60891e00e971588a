"""Table settings (`FELT_TABLE_` prefix). Durations are settings so tests can use short ones."""

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class TableSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="FELT_TABLE_", extra="ignore")

    turn_seconds: float = Field(default=30.0, gt=0, le=3600)
    grace_seconds: float = Field(default=10.0, gt=0, le=3600)  # disconnect grace
    intermission_seconds: float = Field(default=30.0, gt=0, le=3600)  # auto-start tables
    default_tables: bool = True  # create the default lobby (lobby.DEFAULT_TABLES: every profile, fits the grant)
    tables_file: str = ""  # JSON list of TableConfig objects (added to / replacing defaults by id)
    limits: bool = True  # ask the limits service before new risk (unavailable = deny)
    timer_owner: str = "table"  # our owner name at the timer service
    call_timeout: float = Field(default=5.0, gt=0)
    # the turn deadlines of every table leave for the timer in batches: the first queued waits
    # this long for others (felt_table/turn_clocks.py; each is sent with its delay less the wait)
    turn_clock_batch_seconds: float = Field(default=0.05, ge=0, le=1)
    # a service that does not answer is asked again after retry_first_seconds, doubling up to
    # retry_max_seconds (small: the table resumes within about that long of the service's return)
    retry_first_seconds: float = Field(default=0.05, gt=0, le=60)
    retry_max_seconds: float = Field(default=1.0, gt=0, le=60)
    # absent players: this many turn timeouts in a row sit a seat out; a seat sat out this long
    # (by timeouts or by choice) leaves and is cashed out
    absent_timeouts: int = Field(default=2, ge=1, le=100)
    sit_out_leave_seconds: float = Field(default=600.0, gt=0, le=86400)
    # how long JetStream keeps the tables' events (live delivery, chat's seat consumer); the
    # table's own store keeps every event for good
    events_max_age_seconds: float = Field(default=7 * 86400.0, ge=120)  # at least the duplicate window
    recent_commands: int = Field(default=256, ge=1, le=100_000)  # per table: message ids answered again
    kv_replicas: int = Field(default=1, ge=1, le=5)  # JetStream KV buckets' replicas (3 on a 3-node cluster)
    # tables over replicas (replicas.py): 0 = this process runs every table (one replica);
    # > 0 = each table's lease lasts this long unless renewed (a dead replica's tables move)
    lease_seconds: float = Field(default=0.0, ge=0, le=300)
    replica_id: str = Field(default="", pattern=r"^[-_a-zA-Z0-9]{0,120}$")  # empty: host name and port
    # benchmark matches (felt_table/server/matches.py): the most hands of one match, matches an
    # owner may start in 24 h, and a match table's stakes, depth and pace
    match_max_hands: int = Field(default=1000, ge=2, le=100_000)
    matches_per_day: int = Field(default=10, ge=1, le=10_000)
    match_big_blind: int = Field(default=2, ge=2, le=10**6)
    match_depth: int = Field(default=100, ge=10, le=1000)  # big blinds each stack plays
    match_intermission_seconds: float = Field(default=0.2, gt=0, le=3600)
    # hosted tables (docs/rules.md "Hosting a table"): how many open tables one owner may host at
    # once, and how long a hosted table nobody sits at stays open
    max_hosted_tables: int = Field(default=3, ge=0, le=1000)
    idle_close_seconds: float = Field(default=1800.0, gt=0, le=7 * 86400)
