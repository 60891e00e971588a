"""The Python client of Felt's agent API (`/api/v2/poker`, accounts under `/api/v2/accounts`).

    async with FeltClient("http://127.0.0.1:8000", api_key="felt_ak_...") as felt:
        await felt.join("nlhe-1-a", buy_in=200)
        async for event in felt.events("nlhe-1-a"):
            view = await felt.table_view("nlhe-1-a")

It retries what is safe to retry (every POST it may send twice carries an `Idempotency-Key`),
backs off on 429 and 503, re-reads the table after a 409 on an action, and sits down again when
a restart of the room cleared its seat. It depends on httpx and pydantic only.
"""

from felt_client.client import FeltClient, Retry, new_key
from felt_client.errors import ApiError, Conflict
from felt_client.models import AgentKey, Balance, CommandResult, Event, EventPage, Hand, LegalActions, TableView

__all__ = [
    "FeltClient",
    "Retry",
    "new_key",
    "ApiError",
    "Conflict",
    "AgentKey",
    "Balance",
    "CommandResult",
    "Event",
    "EventPage",
    "Hand",
    "LegalActions",
    "TableView",
]
