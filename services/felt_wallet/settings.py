"""Wallet-only settings (`FELT_WALLET_` prefix)."""

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class WalletSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="FELT_WALLET_", extra="ignore")

    grant: int = Field(default=200, ge=0, le=10**9)  # starting chips of a new account
    group_commit: bool = True  # False: one transaction per command (the benchmark baseline)
    batch_max: int = Field(default=256, ge=1, le=10_000)  # commands per group transaction
    # how long JetStream keeps the transfer events limits counts (a limits outage longer than
    # this loses counts; the ledger in the database is the record of every chip)
    events_max_age_seconds: float = Field(default=7 * 86400.0, ge=600)  # at least the duplicate window
