"""The global options, resolved once per invocation and handed to every command."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import typer

from campaign.db.database import Database

if TYPE_CHECKING:
    from campaign.core.dice_source import DiceSource


@dataclass
class AppState:
    db_option: str | None = None
    campaign_option: str | None = None
    actor_option: str | None = None
    seed: int | None = None
    # Only commands that make a campaign (init, import) may create the database file:
    # anything else on a mistyped --db says "no database at ..." and creates nothing.
    may_create: bool = False
    # A SQLite file this process cannot write (read-only, or on a full disk) is opened
    # read-only as it is: reads work, a write is refused in one line (campaign.db.storage).
    read_only_ok: bool = True
    db_in_argv: bool = False  # --db typed on the command line (not CAMPAIGN_DB): a password in it shows in ps
    _db: Database | None = field(default=None, repr=False)
    _actor: str | None = field(default=None, repr=False)

    @property
    def actor(self) -> str:
        """Who the ledger records: --as (default GM) in single-GM mode; in group mode
        (PostgreSQL) the signed-in role decides (services.campaigns.group.acting_name)."""
        if self._actor is None:
            if self.db.dialect != "postgresql":  # SQLite: single-GM mode, --as as typed
                self._actor = self.actor_option or "GM"
            else:
                from campaign.services.campaigns.group import acting_name

                self._actor = acting_name(self.db, self.actor_option)
        return self._actor

    @property
    def db(self) -> Database:
        """Opened (and migrated) on first use, so `--help` never touches a database."""
        if self._db is None:
            if not self.may_create:
                from campaign.db.engine import refuse_missing_database

                refuse_missing_database(self.db_option)
            self._db = Database(self.db_option, read_only_ok=self.read_only_ok)
            if self.db_in_argv:
                _warn_password_in_argv(self._db.url)
                self.db_in_argv = False  # once per process (the shell opens it once too)
        from campaign import i18n

        # The campaign's `lang` and ruleset, read before any transaction, once per command:
        # a shell keeps its database across lines, and each line may act on another campaign.
        if not i18n.decided() and not i18n.campaign_asked():
            from campaign.selection import selected_campaign
            from campaign.services.common import language_facts

            campaign = self.campaign_option or selected_campaign(self._db.url)
            i18n.campaign_known(*language_facts(self._db, campaign))
        return self._db

    def learn_language(self) -> None:
        """A command that reads no campaign (`ref list`, `ref show`) still prints in the
        campaign's language when there is a database (docs/i18n.md "Which language");
        without one the locale decides, as for `--help`."""
        from campaign import i18n
        from campaign.errors import NotFound

        if i18n.decided() or i18n.campaign_asked():
            return
        try:
            self.db  # noqa: B018 - opening it asks the campaign (above)
        except NotFound:  # no database at all: nothing to ask
            return

    def close(self) -> None:
        """Close the database when the command ends (Click calls this on the root context):
        SQLite checkpoints its write-ahead log when the last connection closes, and the
        console script lets the interpreter exit without collecting garbage (cli.app.main),
        so nothing must be left for the collector to close."""
        if self._db is not None:
            self._db.close()
            self._db = None

    @property
    def campaign(self) -> str | None:
        """--campaign, else the campaign chosen with `use` for this database, else None
        (services then take the only campaign there is)."""
        if self.campaign_option:
            return self.campaign_option
        from campaign.selection import selected_campaign

        return selected_campaign(self.db.url)

    @property
    def time_zone(self) -> str | None:
        """The zone this command shows ledger times in: the campaign's `timezone` setting,
        None for the system's. Asked on each use, never kept: a shell line may switch the
        campaign (`use`) or change the setting, and the next line shows the new zone."""
        from campaign.services.campaigns.setup import time_zone_of

        return time_zone_of(self.db, self.campaign)

    def dice(self, manual: str | None, physical: bool = False) -> DiceSource:
        """The dice source for a rolling command: --dice faces, else --physical (asks for
        each die on a terminal, cli.physical), else --seed, else the OS.

        Services call ensure_all_used() on a manual source after rolling, so leftover
        faces (a typo) refuse the command before it commits.
        """
        from campaign.core.dice_source import ManualDice, SeededDice, SystemDice

        if physical:
            from campaign.cli.physical import PromptDice, refuse_off_terminal

            refuse_off_terminal(manual)
            return PromptDice()
        if manual is not None:
            return ManualDice.parse(manual)
        if self.seed is not None:
            return SeededDice(self.seed)
        return SystemDice()


def _warn_password_in_argv(url: str) -> None:
    """Every user of the machine can read a process's arguments (ps, /proc/PID/cmdline)."""
    from campaign.db.engine import has_password

    if has_password(url):
        from campaign.cli.output import warn

        warn(
            "warning: the password in --db can be read by every user of this machine (ps); give the URL in "
            "CAMPAIGN_DB instead, or leave the password out of it and keep it in a PGPASSFILE (~/.pgpass)"
        )


def state(ctx: typer.Context) -> AppState:
    root = ctx.find_root()
    if not isinstance(root.obj, AppState):
        root.obj = AppState()
    return root.obj
