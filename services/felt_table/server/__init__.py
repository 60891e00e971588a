"""The table service as a process: one actor per table (actor), the tables it runs (rooms),
tables over replicas (replicas, ownership) and the bus handlers (handlers)."""
