"""felt_timer owns deadlines: turn clocks (30 s), disconnect grace (10 s), intermissions (30 s)
and the per-player time bank. Deadlines live in Redis, survive restarts, and are claimed
atomically so several replicas never fire one deadline twice (see docs/timer.md)."""
