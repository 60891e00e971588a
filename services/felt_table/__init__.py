"""felt_table: owns hand state. One actor (asyncio task + ordered queue) per table drives the
pure rules engine (felt_engine), escrows every chip in the wallet before accepting a step,
publishes numbered per-table events, stores finished hands (JSON and PHH) and follows the
restart policy (cancel every open hand of its tables in the wallet, clear the seats)."""
