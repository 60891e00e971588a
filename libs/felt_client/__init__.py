"""A small typed client of Felt's agent API (`/api/v2/poker`, accounts under `/api/v2/accounts`).

    async with FeltClient("http://127.0.0.1:8000", api_key="felt_ak_...") as felt:
        await felt.join("nlhe-1-a")
        view = await felt.table("nlhe-1-a")

It retries what is safe to retry (the same `Idempotency-Key` for actions and chat), backs off
on 429 and 503, re-reads the table after a 409 on an action, and sits down again when a
restart of the room cleared its seat. Views and events are the API's own JSON.
"""

from felt_client.client import FeltClient, Retry
from felt_client.errors import ApiError, Conflict
from felt_client.models import AgentKey, Balance, CommandResult, EventPage

__all__ = ["FeltClient", "Retry", "ApiError", "Conflict", "AgentKey", "Balance", "CommandResult", "EventPage"]
