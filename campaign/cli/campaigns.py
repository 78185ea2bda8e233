"""`campaign init`, `use`, `list`."""

from __future__ import annotations

import typer

from campaign.cli.context import state
from campaign.cli.output import JsonOption, emit_json, print_table, say


def init(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="Campaign name (any text, Japanese welcome)."),
    ruleset: str = typer.Option("gurps3-ja", "--ruleset", help="gurps3-ja or 2d6-ja."),
    json_out: bool = JsonOption,
) -> None:
    """Create a campaign and select it.

    Example: campaign init '百鬼夜翔 第二部' --ruleset gurps3-ja
    """
    from campaign.selection import select_campaign
    from campaign.services.campaigns import create_campaign

    app_state = state(ctx)
    created = create_campaign(app_state.db, name, ruleset, app_state.actor)
    select_campaign(app_state.db.url, created["name"])
    if json_out:
        emit_json(created)
    else:
        say(f"created campaign {created['name']} ({created['ruleset']}) and selected it")


def use(ctx: typer.Context, name: str = typer.Argument(..., help="Campaign to select."),
        json_out: bool = JsonOption) -> None:
    """Select the campaign later commands act on (per user, per database).

    Example: campaign use 'Night Parade'
    """
    from campaign.selection import select_campaign
    from campaign.services.common import campaign_named

    app_state = state(ctx)
    with app_state.db.read() as session:
        found = campaign_named(session, name).name
    select_campaign(app_state.db.url, found)
    if json_out:
        emit_json({"selected": found})
    else:
        say(f"now using campaign {found}")


def list_(ctx: typer.Context, json_out: bool = JsonOption) -> None:
    """List the campaigns in this database; the selected one is starred.

    Example: campaign list --json
    """
    from campaign.services.campaigns import list_campaigns

    app_state = state(ctx)
    rows = list_campaigns(app_state.db)
    selected = app_state.campaign
    for row in rows:
        row["selected"] = row["name"] == selected
    if json_out:
        emit_json(rows)
        return
    print_table("campaigns", ["", "name", "ruleset", "players", "characters", "ledger entries"], (
        ["*" if r["selected"] else "", r["name"], r["ruleset"], r["players"], r["characters"], r["entries"]]
        for r in rows
    ))


def register(app: typer.Typer) -> None:
    app.command("init")(init)
    app.command("use")(use)
    app.command("list")(list_)
