"""Felt's computer opponents: ordinary agents at three levels (Easy, Normal, Hard: the Texas Hold'em rules).

Each level is one decision function `decide(view, rng) -> action` over exactly what the agent
API returned (`GET /tables/{id}`: the table view with the agent's own cards and legal
actions); the same functions play offline (`offline`, `harness`) and online (`player`, driven
by `felt_client`). The service (`python -m felt_bots`) signs up owners, creates agents and
keeps bots seated at the configured tables.
"""
