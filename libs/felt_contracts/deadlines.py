"""The table's deadlines: what it asks the timer to echo back in `ScheduleDeadline.payload`.

The timer treats a payload as an opaque flat dict; the table gives each of its deadlines a
model here, told apart by `k`, and dispatches on the parsed model instead of reading dict
keys. The keys on the bus are the short ones the table has always sent (`h`, `p`, `e`), so a
deadline scheduled before an upgrade still parses after it.
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import ConfigDict, Field, TypeAdapter

from felt_contracts.base import Message
from felt_contracts.timer import DeadlineKind, PayloadValue


class _TableDeadline(Message):
    model_config = ConfigDict(validate_by_name=True, validate_by_alias=True, serialize_by_alias=True)

    #: the timer's kind for this deadline (which default delay, whether a time bank may apply)
    timer_kind: ClassVar[DeadlineKind] = DeadlineKind.OTHER

    k: str  # each deadline's own Literal: the discriminator
    table_id: str

    @property
    def key(self) -> str:
        """The deadline's key within the table: scheduling the same key again replaces it."""
        return self.k

    def payload(self) -> dict[str, PayloadValue]:
        return self.model_dump()


class TurnDeadline(_TableDeadline):
    """The actor's turn clock: a stale one (another hand, turn or seat) is ignored."""

    timer_kind: ClassVar[DeadlineKind] = DeadlineKind.TURN
    k: Literal["turn"] = "turn"
    hand_id: str | None = Field(alias="h")
    turn: int
    seat: int


class GraceDeadline(_TableDeadline):
    """A disconnected player's grace; `epoch` tells this disconnect from a later one."""

    timer_kind: ClassVar[DeadlineKind] = DeadlineKind.DISCONNECT
    k: Literal["grace"] = "grace"
    participant_id: str = Field(alias="p")
    epoch: int = Field(alias="e")

    @property
    def key(self) -> str:
        return f"grace:{self.participant_id}"


class AbsentDeadline(_TableDeadline):
    """A sat-out seat leaves after `sit_out_leave_seconds`; `epoch` tells this sit-out from a later one."""

    k: Literal["absent"] = "absent"
    participant_id: str = Field(alias="p")
    epoch: int = Field(alias="e")

    @property
    def key(self) -> str:
        return f"absent:{self.participant_id}"


class IntermissionDeadline(_TableDeadline):
    """The pause before an automatic table deals its next hand."""

    timer_kind: ClassVar[DeadlineKind] = DeadlineKind.INTERMISSION
    k: Literal["intermission"] = "intermission"
    epoch: int = Field(alias="e")


class ClosesAtDeadline(_TableDeadline):
    """A time-limited table's `closes_at` came."""

    k: Literal["closes_at"] = "closes_at"


TableDeadline = Annotated[
    TurnDeadline | GraceDeadline | AbsentDeadline | IntermissionDeadline | ClosesAtDeadline,
    Field(discriminator="k"),
]
TABLE_DEADLINE: TypeAdapter[TableDeadline] = TypeAdapter(TableDeadline)
