"""Runtime helpers every Felt service shares: settings, bus, database, redis, logging, main."""
