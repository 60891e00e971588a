"""A request's content fingerprint, the one definition every service's idempotency uses: a
message id (or `Idempotency-Key`) reused with other content is refused, the same content gets
the stored result. The ids that carry no content (`message_id`, `correlation_id`) are left out;
`scope` keeps apart requests whose bodies could be equal (an operation, a subject, a path)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel

#: `lease` is a table replica's fencing token (felt_contracts.wallet.TableScoped): a new
#: owner's retry of a stored command is the same command
NOT_CONTENT = frozenset({"message_id", "correlation_id", "lease"})


def fingerprint(request: BaseModel | Any, scope: str = "") -> str:
    """32 hex digits over `scope` and the request's content (a model, or plain JSON data)."""
    if isinstance(request, BaseModel):
        body = request.model_dump_json(exclude=set(NOT_CONTENT))
    else:
        body = json.dumps(request, sort_keys=True, default=str)
    return hashlib.sha256(f"{scope}\n{body}".encode()).hexdigest()[:32]
