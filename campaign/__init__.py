"""campaign: a campaign manager for tabletop RPG groups with a tamper-evident roll ledger."""

__version__ = "0.1.0"
