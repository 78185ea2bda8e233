"""`campaign init`, `use`, `list`."""

from __future__ import annotations

from typing import Annotated

import typer

from campaign.cli.context import state
from campaign.cli.output import (
    BomOption,
    Column,
    CsvOption,
    JsonOption,
    emit_json,
    output_format,
    print_table,
    render_rows,
    say,
    warn,
)
from campaign.i18n import N_, _


def init(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Campaign name (any text, Japanese welcome).")],
    ruleset: Annotated[str, typer.Option("--ruleset", help="gurps3-ja or 2d6-ja.")] = "gurps3-ja",
    fair: Annotated[
        bool,
        typer.Option(
            "--fair/--no-fair",
            help="Provably fair server dice at the table from the first scenario on (docs/fair-dice.md; "
            "the setting fair_dice, which the GM can turn off later).",
        ),
    ] = True,
    json_out: JsonOption = False,
) -> None:
    """Create a campaign and select it.

    Example: campaign init '百鬼夜翔 第二部' --ruleset gurps3-ja
    """
    from campaign.selection import select_campaign, selected_campaign
    from campaign.services.campaigns.setup import create_campaign

    app_state = state(ctx)
    app_state.may_create = True
    created = create_campaign(app_state.db, name, ruleset, app_state.actor, fair=fair)
    previous = selected_campaign(app_state.db.url)
    select_campaign(app_state.db.url, created.name)
    switched = previous is not None and previous != created.name
    if json_out:
        from campaign.services.results import as_json

        emit_json({**as_json(created), "selected": created.name, "previously_selected": previous})
    else:
        say(_("created campaign {name} ({ruleset}) and selected it").format(name=created.name, ruleset=created.ruleset))
    if switched:
        warn(
            _(
                "NOTE: the selected campaign of this database switched from {previous!r} to {name!r}; commands "
                "without --campaign now act on {name!r} (`campaign use {previous}` to go back)"
            ).format(previous=previous, name=created.name)
        )


def use(
    ctx: typer.Context, name: Annotated[str, typer.Argument(help="Campaign to select.")], json_out: JsonOption = False
) -> None:
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
        say(_("now using campaign {name}").format(name=found))


def list_(ctx: typer.Context, json_out: JsonOption = False, csv_out: CsvOption = False, bom: BomOption = False) -> None:
    """List the campaigns in this database; the selected one is starred.

    Example: campaign list --json
    """
    from campaign.services.campaigns.setup import list_campaigns

    fmt = output_format(json_out, csv_out)
    app_state = state(ctx)
    rows = list_campaigns(app_state.db, selected=app_state.campaign)
    columns: list[str | Column] = [
        "",
        Column(N_("name"), keep=True),
        N_("ruleset"),
        N_("players"),
        N_("characters"),
        N_("ledger entries"),
    ]
    table = [["*" if r.selected else "", r.name, r.ruleset, r.players, r.characters, r.entries] for r in rows]
    if fmt == "csv":
        columns[0] = "selected"
    render_rows(
        _("campaigns"),
        columns,
        table,
        fmt,
        bom=bom,
        records=rows,
        empty=_("no campaigns: start one with `campaign init NAME`"),
    )


def settings(
    ctx: typer.Context,
    assignments: Annotated[
        list[str] | None, typer.Argument(help="KEY=VALUE pairs to change; none: show the settings.")
    ] = None,
    reason: Annotated[str | None, typer.Option("--reason", help="Why (recorded in the ledger).")] = None,
    json_out: JsonOption = False,
) -> None:
    """Show or change the campaign's settings (fright_cap; criticals, default_stats).

    A change is a ledger entry that `history void` can reverse. `fright_cap=none` removes
    the cap; GURPS 4e's Rule of 14 is `fright_cap=13`.

    Example: campaign settings fright_cap=13
    """
    from campaign.errors import BadInput
    from campaign.services.campaigns.setup import settings as settings_service

    changes: dict[str, str] = {}
    for item in assignments or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise BadInput(_("expected KEY=VALUE, got {item!r}").format(item=item))
        changes[key.strip()] = value.strip()
    app_state = state(ctx)
    shown = settings_service(app_state.db, app_state.campaign, app_state.actor, changes, reason)
    if json_out:
        emit_json(shown)
        return
    if "lang" in changes:  # the campaign's new language speaks from this line on
        from campaign.i18n import campaign_known

        campaign_known(shown.settings.get("lang"), shown.ruleset)
    if shown.seq is not None:
        say(_("settings changed (ledger #{seq})").format(seq=shown.seq))
    print_table(
        _("settings of {name}").format(name=shown.name),
        [_("key"), _("value")],
        ([key, _as_typed(value)] for key, value in shown.settings.items()),
    )


def _as_typed(value: object) -> str:
    """A setting's value as `settings KEY=VALUE` takes it (on/off, names joined by
    commas, none), never Python's repr of it."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, list):
        return ",".join(map(str, value))
    return str(value)
