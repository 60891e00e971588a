"""The gateway: the only door into Felt.

Agents use the REST API under `/api/v2/poker`, people use the WebSocket `/ws`. The gateway
owns identity (owners, participants, tokens, API keys), admission by credential kind and
per-viewer forwarding; it keeps no game state — every poker fact comes from the table,
wallet, limits and chat services over NATS.
"""
