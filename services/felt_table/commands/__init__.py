"""What a table does, as functions on a `Table` run in its actor's queue: seating, play, hands,
the end of a hand (ending), closing, views, a seat's wallet session (seat_sessions) and waiting
for a service that does not answer (recovery)."""
