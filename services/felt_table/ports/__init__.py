"""The table's ports: its clients of the wallet (escrow), limits and the session registry
(sessions), the timer (deadlines, turn_clocks), the event stream and the store (events, store),
the process-wide things they share (deps), and the retry helpers for a service that does not
answer (retry). They know nothing of `Table`: every one is keyed by a table id."""
