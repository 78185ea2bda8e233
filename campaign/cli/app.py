"""The `campaign` command: global options, error handling, and the sub-apps.

Commands only translate: parse options, call one service, render. Expected errors
(CampaignError) become one line on stderr with exit 1 or 2, never a traceback.
"""

from __future__ import annotations

import sys

import typer
from typer.core import TyperGroup

from campaign import __version__
from campaign.cli import coercion
from campaign.cli.context import AppState
from campaign.errors import CampaignError

coercion.install()  # plain option values skip Typer's Pydantic adapters (~80 ms per run)


class CampaignGroup(TyperGroup):
    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except CampaignError as exc:
            sys.stderr.write(f"error: {exc}\n")
            raise typer.Exit(exc.exit_code) from None


app = typer.Typer(
    cls=CampaignGroup,
    name="campaign",
    help="A campaign manager for tabletop RPG groups: characters, fright checks, missing "
    "characters and search parties, with every roll in a tamper-evident ledger.\n\n"
    "Example: campaign init 'Night Parade' && campaign roll 3D6<=12",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    add_completion=False,
)


def _version(value: bool) -> None:
    if value:
        print(f"campaign {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    ctx: typer.Context,
    db: str = typer.Option(None, "--db", envvar="CAMPAIGN_DB", help="Database file path or SQLAlchemy URL "
                           "(postgresql+psycopg://...). Default: a file in your user data directory."),
    campaign: str = typer.Option(None, "--campaign", "-c", envvar="CAMPAIGN",
                                 help="Campaign to act on (default: the one chosen with `use`)."),
    actor: str = typer.Option("GM", "--as", envvar="CAMPAIGN_ACTOR", help="Who is acting, recorded in the ledger."),
    seed: int = typer.Option(None, "--seed", envvar="CAMPAIGN_SEED", hidden=True,
                             help="Roll from a fixed seed (demos and tests only; recorded as 'seeded')."),
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version."),
) -> None:
    """Global options come before the command: campaign --db group.db -c 'Night Parade' char list"""
    from campaign.services.common import clean_name

    try:
        actor = clean_name(actor, "--as")
    except CampaignError as exc:
        sys.stderr.write(f"error: {exc}\n")
        raise typer.Exit(exc.exit_code) from None
    ctx.obj = AppState(db_option=db, campaign_option=campaign, actor=actor, seed=seed)


def _register() -> None:
    from campaign.cli import campaigns, characters, checks, dbcmd, demo, gurps, history, scenarios, transfer

    campaigns.register(app)
    app.command("roll")(history.roll)
    app.add_typer(history.history_app, name="history")
    app.add_typer(characters.player_app, name="player")
    app.add_typer(characters.char_app, name="char")
    app.add_typer(dbcmd.db_app, name="db")
    app.add_typer(checks.check_app, name="check")
    app.add_typer(scenarios.missing_app, name="missing")
    app.add_typer(scenarios.scenario_app, name="scenario")
    transfer.register(app)
    app.command("fright")(gurps.fright)
    app.add_typer(gurps.table_app, name="table")
    app.add_typer(gurps.trait_app, name="trait")
    app.add_typer(gurps.condition_app, name="condition")
    demo.register(app)


_register()


def main() -> None:
    app()
