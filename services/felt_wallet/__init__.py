"""felt_wallet: owns every chip.

A double-entry ledger in SQL (available balances, table reserves, hand escrows, the house
grant source), idempotent transfers with client-chosen ids, table sessions, and an outbox
that publishes every committed transfer to JetStream exactly once per id.
"""
