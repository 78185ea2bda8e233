"""`campaign scenario ...`: start a scenario with its search parties, end it with the
reunion checks (docs/rules.md "Missing and reunion check")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

import typer

from campaign.cli.context import state
from campaign.cli.output import (
    CSV,
    BomOption,
    Column,
    CsvOption,
    JsonOption,
    emit_json,
    local_time,
    output_format,
    print_fields,
    print_text,
    render_rows,
    say,
    warn,
)
from campaign.cli.physical import PhysicalOption
from campaign.errors import BadInput
from campaign.i18n import N_, _, pgettext
from campaign.labels import odds_label

app = typer.Typer(
    help="Scenarios: start one with its participants and search parties, end it with the reunion checks.\n\n"
    "Example: campaign scenario start '霧の館' --with 刀矢 --search 刀矢=鈴音",
    no_args_is_help=True,
)


def _pairs(items: list[str], what: str, shape: str) -> list[tuple[str, str]]:
    """`A=B` options; the part after the last '=' is B (names rarely contain '=')."""
    pairs = []
    for item in items:
        left, sep, right = item.rpartition("=")
        if not sep or not left.strip() or not right.strip():
            raise BadInput(f"{what}: expected {shape}, got {item!r}")
        pairs.append((left.strip(), right.strip()))
    return pairs


@app.command("start")
def scenario_start(
    ctx: typer.Context,
    title: Annotated[str, typer.Argument(help="Scenario title.")],
    with_: Annotated[list[str], typer.Option("--with", "-w", help="A participating character, repeatable.")] = [],
    search: Annotated[
        list[str],
        typer.Option("--search", help="SEARCHER=TARGET: send a PC to search for a missing character, repeatable."),
    ] = [],
    fair: Annotated[
        bool | None,
        typer.Option(
            "--fair/--no-fair",
            help="Commit a seed for provably fair server dice "
            "(docs/fair-dice.md); default: the fair_dice "
            "setting, off unless set.",
        ),
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """Open a scenario with its participants, and send searchers for missing characters.

    Example: campaign scenario start '霧の館' --with 刀矢 --with 管狐 --search 鈴音=白露 --fair
    """
    from campaign.services.fair import seeds as fair_seeds
    from campaign.services.scenarios.runs import start_scenario

    s = state(ctx)
    if fair:  # asked for: a seed still open is refused, naming the command that ends it
        fair_seeds.check_can_commit(s.db, s.campaign)
    # By the setting, a seed still open (kept, or gone with an import) never locks the
    # start: the scenario starts without a new one, and the GM is told how to end it.
    still_open = fair_seeds.open_seed(s.db, s.campaign) if fair is None else None
    if fair is None:
        fair = fair_seeds.fair_by_setting(s.db, s.campaign) and still_open is None
    view = start_scenario(s.db, s.campaign, title, s.actor, with_, _pairs(search, "--search", "SEARCHER=TARGET"))
    committed = fair_seeds.commit_seed(s.db, s.campaign, s.actor, view.number) if fair else None
    if still_open is not None and fair_seeds.fair_by_setting(s.db, s.campaign):
        warn(fair_seeds.still_open_words(*still_open))
    if json_out:
        from campaign.services.results import as_json

        emit_json({**as_json(view), "seed_commit": None if committed is None else as_json(committed)})
        return
    say(
        _("scenario #{number} {title} started with {names} (ledger #{seq})").format(
            number=view.number, title=view.title, names=", ".join(view.participants), seq=view.seq
        )
    )
    if committed is not None:
        say(
            _("fair dice: seed committed (ledger #{seq}, SHA-256 {commitment})").format(
                seq=committed.seq, commitment=committed.commitment
            )
        )
    for sent in view.sent:
        say(
            _("{searcher} ({player}) searches for {target}: now {odds}").format(
                searcher=sent.searcher, player=sent.player, target=sent.target, odds=odds_label(sent.odds)
            )
        )


def reunion_line(character: str, odds: str, roll: int, success: bool, searchers: Sequence[str], seq: int) -> str:
    """One reunion check as `scenario end` and an answered reunion call print it."""
    from campaign.cli.missing import reunion_verdict

    return _("{character}: {odds} → rolled {roll}: {verdict} (ledger #{seq})").format(
        character=character, odds=odds_label(odds), roll=roll, verdict=reunion_verdict(success, searchers), seq=seq
    )


def award_line(character: str, cp: int, total: int, seq: int) -> str:
    """One PC's award at a scenario's end."""
    return _("{character}: +{cp} CP → {total} (ledger #{seq})").format(character=character, cp=cp, total=total, seq=seq)


@app.command("end")
def scenario_end(
    ctx: typer.Context,
    dice: Annotated[
        list[str],
        typer.Option(
            "--dice", help="CHAR=FACE: the physical reunion die of a missing character, repeatable; others are rolled."
        ),
    ] = [],
    award: Annotated[
        int | None, typer.Option("--award", help="Give every participating PC still in play this many CP.")
    ] = None,
    searchers: Annotated[
        bool, typer.Option("--searchers", help="The award also goes to the PCs out searching during the scenario.")
    ] = False,
    npcs: Annotated[bool, typer.Option("--npcs", help="The award also goes to the participating NPCs.")] = False,
    elapsed: Annotated[
        str | None,
        typer.Option(
            "--elapsed",
            help="Also advance campaign time by this much (6h, 1day, "
            "1day6h), as its own voidable entry: timed conditions "
            "run out, see `time advance`.",
        ),
    ] = None,
    physical: PhysicalOption = False,
    call: Annotated[
        bool,
        typer.Option(
            "--call",
            help="Let the missing character's player roll the reunion check "
            "on the table server: the scenario ends when they tap it.",
        ),
    ] = False,
    json_out: JsonOption = False,
) -> None:
    """End the open scenario and roll the reunion check of every missing character.

    Example: campaign scenario end --dice 鈴音=2 --award 3 --searchers --elapsed 1day
    """
    from campaign.services.scenarios.runs import end_scenario

    s = state(ctx)
    if (searchers or npcs) and award is None:
        raise BadInput(_("--searchers and --npcs say who gets the award: give it with --award N"))
    if call:
        from campaign.cli.call import call_made
        from campaign.services.table.calls import call_scenario_end

        if dice or physical:
            raise BadInput(_("--call lets the player roll on the table server: it takes no --dice"))
        made = call_scenario_end(s.db, s.campaign, s.actor, award, elapsed, searchers=searchers, npcs=npcs)
        call_made(made, json_out)
        return
    manual = [(name, s.dice(face)) for name, face in _pairs(dice, "--dice", "CHAR=FACE")]
    ended = end_scenario(
        s.db,
        s.campaign,
        s.actor,
        manual,
        s.dice(None, physical),
        award,
        elapsed=elapsed,
        searchers=searchers,
        npcs=npcs,
    )
    from campaign.services.fair.seeds import reveal_seed

    revealed = reveal_seed(s.db, s.campaign, s.actor, ended.scenario.number, quiet=True)
    if json_out:
        from campaign.services.results import as_json

        emit_json({**as_json(ended), "seed_reveal": None if revealed is None else as_json(revealed)})
        return
    scenario = ended.scenario
    say(
        _("scenario #{number} {title} ended (ledger #{seq})").format(
            number=scenario.number, title=scenario.title, seq=ended.seq
        )
    )
    if revealed is not None:
        say(_("fair dice: seed revealed (ledger #{seq}): {seed}").format(seq=revealed.seq, seed=revealed.seed))
    for r in ended.reunions:
        print_text(reunion_line(r.character, r.odds, r.roll, r.success, r.searchers, r.seq))
    if not ended.reunions:
        say(_("no one is missing: no reunion checks"))
    for a in ended.awards:
        say(award_line(a.character, a.cp, a.cp_total, a.seq))
    if ended.time is not None:
        from campaign.cli.time import render_advance

        render_advance(ended.time)


def _roster(ctx: typer.Context, name: str, json_out: bool, *, join: bool) -> None:
    from campaign.services.scenarios.runs import change_roster

    s = state(ctx)
    done = change_roster(s.db, s.campaign, s.actor, name, join=join)
    if json_out:
        emit_json(done)
        return
    line = (
        _("{character} joins scenario #{number} {title} (ledger #{seq}); taking part: {names}")
        if join
        else _("{character} leaves scenario #{number} {title} (ledger #{seq}); taking part: {names}")
    )
    say(
        line.format(
            character=done.character,
            number=done.scenario,
            title=done.title,
            seq=done.seq,
            names=", ".join(done.participants) or _("no one"),
        )
    )


@app.command("join")
def scenario_join(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The character joining the open scenario.")],
    json_out: JsonOption = False,
) -> None:
    """A character joins the open scenario late (recorded, voidable); `scenario end
    --award` then counts them.

    Example: campaign scenario join 鈴音
    """
    _roster(ctx, name, json_out, join=True)


@app.command("leave")
def scenario_leave(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The character leaving the open scenario.")],
    json_out: JsonOption = False,
) -> None:
    """A character leaves the open scenario before its end (recorded, voidable); they
    get no share of `scenario end --award`.

    Example: campaign scenario leave 管狐
    """
    _roster(ctx, name, json_out, join=False)


@app.command("list")
def scenario_list(
    ctx: typer.Context, json_out: JsonOption = False, csv_out: CsvOption = False, bom: BomOption = False
) -> None:
    """List scenarios with their status and participants.

    Example: campaign scenario list --csv
    """
    from campaign.services.scenarios.runs import list_scenarios

    fmt = output_format(json_out, csv_out)
    s = state(ctx)
    rows = list_scenarios(s.db, s.campaign)
    if fmt == CSV:  # a spreadsheet gets the stored UTC time and the codes, which it can convert
        columns: list[str | Column] = ["#", "title", "status", "participants", "started (UTC)"]
        table = [[r.number, r.title, r.status, ", ".join(r.participants), r.started_at] for r in rows]
    else:  # headers are messages (print_table shows them through the catalog)
        zone = s.time_zone
        columns = ["#", Column(N_("title"), keep=True), N_("status"), N_("participants"), N_("started")]
        table = [
            [r.number, r.title, _status(r.status), ", ".join(r.participants), local_time(r.started_at, zone)]
            for r in rows
        ]
    render_rows(_("scenarios"), columns, table, fmt, bom=bom, records=rows, empty=_("no scenarios yet"))


def _status(status: str) -> str:
    """A scenario's status (`open`, `ended`) in the output's language."""
    return pgettext("scenario", "open") if status == "open" else pgettext("scenario", "ended")


def _at(seq: int, voided_by: int | None = None) -> str:
    """Which ledger entry recorded a line of `scenario show`, and what voided it."""
    if voided_by:
        return _("ledger #{seq}, voided by #{voided}").format(seq=seq, voided=voided_by)
    return _("ledger #{seq}").format(seq=seq)


@app.command("show")
def scenario_show(
    ctx: typer.Context,
    title: Annotated[
        str | None, typer.Argument(help="Title or number (#3); default: the open or latest scenario.")
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """Show a scenario: participants, searchers out during it, who went missing, reunion rolls, notes.

    Example: campaign scenario show '霧の館'
    """
    from campaign.services.scenarios.runs import show_scenario

    s = state(ctx)
    view = show_scenario(s.db, s.campaign, title)
    if json_out:
        emit_json(view)
        return
    zone = s.time_zone
    fields = [
        (_("status"), _status(view.status)),
        (
            _("started"),
            _("{time} ({entry})").format(time=local_time(view.started_at, zone), entry=_at(view.started_seq)),
        ),
        (
            _("ended"),
            _("{time} ({entry})").format(time=local_time(view.ended_at, zone), entry=_at(view.ended_seq))
            if view.ended_seq
            else None,
        ),
        (_("participants"), ", ".join(view.participants)),
    ]
    for sent in view.searches:
        words = _("{searcher} ({player}) → {target} (carried over, {entry})") if sent.carried_over else None
        words = words or _("{searcher} ({player}) → {target} ({entry})")
        line = words.format(searcher=sent.searcher, player=sent.player, target=sent.target, entry=_at(sent.seq))
        fields.append((_("searcher"), line))
    for gone in view.went_missing:
        fields.append((_("went missing"), _("{name} ({entry})").format(name=gone.character, entry=_at(gone.seq))))
    for r in view.reunions:
        words = (
            _("{name}: {roll} on 1d{faces} vs <= {threshold}: reunited ({entry})")
            if r.success
            else _("{name}: {roll} on 1d{faces} vs <= {threshold}: still missing ({entry})")
        )
        line = words.format(
            name=r.character, roll=r.roll, faces=r.faces, threshold=r.threshold, entry=_at(r.seq, r.voided_by)
        )
        fields.append((_("reunion"), line))
    for change in view.roster:
        label = pgettext("scenario", "joined") if change.action == "join" else pgettext("scenario", "left")
        fields.append(
            (label, _("{name} ({entry})").format(name=change.character, entry=_at(change.seq, change.voided_by)))
        )
    for note in view.notes:
        fields.append((_("note"), _("{name} ({entry})").format(name=note.note, entry=_at(note.seq, note.voided_by))))
    print_fields(f"#{view.number} {view.title}", fields)


@app.command("note")
def scenario_note(
    ctx: typer.Context,
    text: Annotated[str, typer.Argument(help="The note.")],
    scenario: Annotated[
        str | None, typer.Option("--scenario", help="Title or number (default: the open or latest one).")
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """Add a GM note to a scenario (dated and hashed in the ledger; shown by `scenario show`).

    Example: campaign scenario note '刀矢が祠の鍵を持ち帰った'
    """
    from campaign.services.scenarios.runs import add_note

    s = state(ctx)
    done = add_note(s.db, s.campaign, text, s.actor, scenario)
    emit_json(done) if json_out else say(
        _("noted on scenario #{number} (ledger #{seq})").format(number=done.scenario, seq=done.seq)
    )
