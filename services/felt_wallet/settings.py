"""Wallet-only settings (`FELT_WALLET_` prefix)."""

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from felt_wallet.refills import Grants


class WalletSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="FELT_WALLET_", extra="ignore")

    grant: int = Field(default=200, ge=0, le=10**9)  # starting chips of a new account
    #: a refill may be claimed when available + reserved + in play is below this: the smallest
    #: minimum buy-in of the default lobby's blind tables (docs/wallet.md "Refills")
    refill_below: int = Field(default=40, ge=0, le=10**9)
    refill_to: int | None = Field(default=None, ge=1, le=10**9)  # a refill tops up to this; None: `grant`
    group_commit: bool = True  # False: one transaction per command (the benchmark baseline)
    batch_max: int = Field(default=256, ge=1, le=10_000)  # commands per group transaction
    # how long JetStream keeps the transfer events limits counts (a limits outage longer than
    # this loses counts; the ledger in the database is the record of every chip)
    events_max_age_seconds: float = Field(default=7 * 86400.0, ge=600)  # at least the duplicate window

    @model_validator(mode="after")
    def _refill_reaches_the_threshold(self) -> "WalletSettings":
        if self.refill_below > (self.refill_to or self.grant):
            raise ValueError("refill_to (or grant) must be at least refill_below")
        return self

    def grants(self) -> Grants:
        return Grants(grant=self.grant, refill_below=self.refill_below, refill_to=self.refill_to or self.grant)
