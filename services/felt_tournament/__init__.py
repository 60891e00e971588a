"""felt_tournament: owns tournaments — definitions, registrations, standings and payouts.

Buy-ins go into a prize pool in the wallet (limits' buy-in caps apply first); unregistering
before the start and cancelling refund them; the prizes empty the pool. docs/tournaments.md.
"""
