"""felt_limits: owns responsible-gaming caps and the counters they are checked against.

Caps per owner account and per participant (daily buy-in, daily gross wager, reserved buy-in
exposure, per-session hands and wager), freezes, and pending cap raises with a cool-off.
Counters come only from the wallet's `TransferEvent`s (JetStream, deduplicated by event id).
Limits says yes/no before new risk; it never blocks settlement, refunds or cash-outs.
"""
