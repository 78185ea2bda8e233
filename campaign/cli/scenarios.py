"""`campaign missing ...` and `campaign scenario ...` (RULES R4)."""

from __future__ import annotations

import typer

from campaign.cli.context import state
from campaign.cli.output import (
    BomOption,
    CsvOption,
    JsonOption,
    emit_json,
    print_csv,
    print_fields,
    print_table,
    print_text,
    say,
)
from campaign.errors import BadInput

missing_app = typer.Typer(
    help="Missing characters (行方不明): mark them, set their reunion die, list them.\n\n"
         "Example: campaign missing mark 鈴音 --reason '霧の中で'",
    no_args_is_help=True,
)
scenario_app = typer.Typer(
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


def _when(at: str | None) -> str | None:
    """'2026-11-29T18:52:31.964013Z' -> '2026-11-29 18:52' for tables."""
    return at[:16].replace("T", " ") if at else None


# --------------------------------------------------------------------------- missing


@missing_app.command("mark")
def missing_mark(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="The character that went missing."),
    faces: int = typer.Option(6, "--faces", help="Faces of its reunion die (default 6)."),
    reason: str = typer.Option(None, "--reason", help="What happened, for the record."),
    json_out: bool = JsonOption,
) -> None:
    """Mark a character missing; it is rolled for at the end of every scenario until it returns.

    Example: campaign missing mark 鈴音 --faces 8 --reason '異界に迷い込んだ'
    """
    from campaign.services.missing import mark_missing

    s = state(ctx)
    view = mark_missing(s.db, s.campaign, name, s.actor, faces=faces, reason=reason)
    if json_out:
        emit_json(view)
    else:
        say(f"{view['character']} is missing: {view['odds']} at each scenario end (ledger #{view['seq']})")


@missing_app.command("faces")
def missing_faces(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="A missing character."),
    faces: int = typer.Argument(..., help="New number of faces of its reunion die."),
    json_out: bool = JsonOption,
) -> None:
    """Change the reunion die of a missing character (the GM's call).

    Example: campaign missing faces 鈴音 10
    """
    from campaign.services.missing import set_faces

    s = state(ctx)
    view = set_faces(s.db, s.campaign, name, s.actor, faces)
    if json_out:
        emit_json(view)
    else:
        say(f"{view['character']}: reunion die is now 1d{view['faces']}, {view['odds']} (ledger #{view['seq']})")


@missing_app.command("reunion")
def missing_reunion(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="The missing character."),
    scenario: str = typer.Option(None, "--scenario", help="Title or number of the ended scenario "
                                                          "(default: the last one that ended)."),
    dice: str = typer.Option(None, "--dice", help="The physical die's face."),
    json_out: bool = JsonOption,
) -> None:
    """Roll a reunion check again for an ended scenario whose roll was voided.

    Example: campaign missing reunion 鈴音 --dice 2
    """
    from campaign.services.scenarios import roll_reunion_again

    s = state(ctx)
    rolled = roll_reunion_again(s.db, s.campaign, name, s.dice(dice), scenario)
    if json_out:
        emit_json(rolled)
        return
    verdict = "reunited" if rolled["success"] else "still missing"
    if rolled["success"] and rolled["searchers"]:
        verdict += f"; {', '.join(rolled['searchers'])} {'returns' if len(rolled['searchers']) == 1 else 'return'}"
    print_text(f"{rolled['character']} (scenario #{rolled['scenario']}): {rolled['odds']} → rolled "
               f"{rolled['roll']}: {verdict} (ledger #{rolled['seq']})")


@missing_app.command("found")
def missing_found(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="The missing character."),
    reason: str = typer.Option(..., "--reason", help="How the story brings them back."),
    json_out: bool = JsonOption,
) -> None:
    """End a missing status for story reasons, at any time (its searchers return); voidable.

    Example: campaign missing found 鈴音 --reason '祠で眠っていた'
    """
    from campaign.services.missing import found_missing

    s = state(ctx)
    done = found_missing(s.db, s.campaign, name, s.actor, reason)
    if json_out:
        emit_json(done)
        return
    back = f"; {', '.join(done['searchers'])} {'returns' if len(done['searchers']) == 1 else 'return'}" \
        if done["searchers"] else ""
    say(f"{done['character']} is found{back} (ledger #{done['seq']})")


@missing_app.command("list")
def missing_list(ctx: typer.Context, json_out: bool = JsonOption,
                 csv_out: bool = CsvOption, bom: bool = BomOption) -> None:
    """List missing characters: reunion die, searchers, since when, and the current chance.

    Example: campaign missing list --json
    """
    from campaign.services.missing import list_missing

    s = state(ctx)
    rows = list_missing(s.db, s.campaign)
    if json_out:
        emit_json(rows)
        return
    columns = ["character", "player", "searchers", "since", "reunion"]
    table = [
        [r["character"], r["player"], ", ".join(x["name"] for x in r["searchers"]),
         f"#{r['since_seq']}" + (f" (S{r['since_scenario']})" if r["since_scenario"] else ""), r["odds"]]
        for r in rows
    ]
    print_csv(columns, table) if csv_out else print_table("missing", columns, table)


# --------------------------------------------------------------------------- scenario


@scenario_app.command("start")
def scenario_start(
    ctx: typer.Context,
    title: str = typer.Argument(..., help="Scenario title."),
    with_: list[str] = typer.Option([], "--with", "-w", help="A participating character, repeatable."),
    search: list[str] = typer.Option([], "--search", help="SEARCHER=TARGET: send a PC to search for a "
                                                          "missing character, repeatable."),
    json_out: bool = JsonOption,
) -> None:
    """Open a scenario with its participants, and send searchers for missing characters.

    Example: campaign scenario start '霧の館' --with 刀矢 --with 管狐 --search 鈴音=白露
    """
    from campaign.services.scenarios import start_scenario

    s = state(ctx)
    view = start_scenario(s.db, s.campaign, title, s.actor, with_, _pairs(search, "--search", "SEARCHER=TARGET"))
    if json_out:
        emit_json(view)
        return
    say(f"scenario #{view['number']} {view['title']} started with {', '.join(view['participants'])} "
        f"(ledger #{view['seq']})")
    for sent in view["sent"]:
        say(f"{sent['searcher']} ({sent['player']}) searches for {sent['target']}: now {sent['odds']}")


@scenario_app.command("end")
def scenario_end(
    ctx: typer.Context,
    dice: list[str] = typer.Option([], "--dice", help="CHAR=FACE: the physical reunion die of a missing "
                                                      "character, repeatable; others are rolled."),
    award: int = typer.Option(None, "--award", help="Give every participant still in play this many CP."),
    elapsed: str = typer.Option(None, "--elapsed", help="Also advance campaign time by this much (6h, 1d, "
                                                       "1d6h), as its own voidable entry: timed conditions "
                                                       "run out, see `time advance`."),
    json_out: bool = JsonOption,
) -> None:
    """End the open scenario and roll the reunion check of every missing character.

    Example: campaign scenario end --dice 鈴音=2 --award 3 --elapsed 1d
    """
    from campaign.services.scenarios import end_scenario

    s = state(ctx)
    manual = [(name, s.dice(face)) for name, face in _pairs(dice, "--dice", "CHAR=FACE")]
    ended = end_scenario(s.db, s.campaign, s.actor, manual, s.dice(None), award, elapsed=elapsed)
    if json_out:
        emit_json(ended)
        return
    scenario = ended["scenario"]
    say(f"scenario #{scenario['number']} {scenario['title']} ended (ledger #{ended['seq']})")
    for r in ended["reunions"]:
        if r["success"]:
            verb = "returns" if len(r["searchers"]) == 1 else "return"
            back = f"; {', '.join(r['searchers'])} {verb}" if r["searchers"] else ""
            verdict = f"reunited{back}"
        else:
            verdict = "still missing"
        print_text(f"{r['character']}: {r['odds']} → rolled {r['roll']}: {verdict} (ledger #{r['seq']})")
    if not ended["reunions"]:
        say("no one is missing: no reunion checks")
    for a in ended["awards"]:
        say(f"{a['character']}: +{a['cp']} CP → {a['cp_total']} (ledger #{a['seq']})")
    if ended.get("time") is not None:
        from campaign.cli.time import render_advance

        render_advance(ended["time"])


@scenario_app.command("list")
def scenario_list(ctx: typer.Context, json_out: bool = JsonOption,
                  csv_out: bool = CsvOption, bom: bool = BomOption) -> None:
    """List scenarios with their status and participants.

    Example: campaign scenario list --csv
    """
    from campaign.services.scenarios import list_scenarios

    s = state(ctx)
    rows = list_scenarios(s.db, s.campaign)
    if json_out:
        emit_json(rows)
        return
    columns = ["#", "title", "status", "participants", "started (UTC)"]
    table = [[r["number"], r["title"], r["status"], ", ".join(r["participants"]), _when(r["started_at"])]
             for r in rows]
    print_csv(columns, table) if csv_out else print_table("scenarios", columns, table)


@scenario_app.command("show")
def scenario_show(
    ctx: typer.Context,
    title: str = typer.Argument(None, help="Title or number (#3); default: the open or latest scenario."),
    json_out: bool = JsonOption,
) -> None:
    """Show a scenario: participants, searchers out during it, who went missing, reunion rolls, notes.

    Example: campaign scenario show '霧の館'
    """
    from campaign.services.scenarios import show_scenario

    s = state(ctx)
    view = show_scenario(s.db, s.campaign, title)
    if json_out:
        emit_json(view)
        return
    fields = [
        ("status", view["status"]),
        ("started", f"{view['started_at']} (ledger #{view['started_seq']})"),
        ("ended", f"{view['ended_at']} (ledger #{view['ended_seq']})" if view["ended_seq"] else None),
        ("participants", ", ".join(view["participants"])),
    ]
    for sent in view["searches"]:
        since = "carried over, " if sent["carried_over"] else ""
        fields.append(("searcher", f"{sent['searcher']} ({sent['player']}) → {sent['target']} "
                                   f"({since}ledger #{sent['seq']})"))
    for gone in view["went_missing"]:
        fields.append(("went missing", f"{gone['character']} (ledger #{gone['seq']})"))
    for r in view["reunions"]:
        verdict = "reunited" if r["success"] else "still missing"
        voided = f", voided by #{r['voided_by']}" if r["voided_by"] else ""
        fields.append(("reunion", f"{r['character']}: {r['roll']} on 1d{r['faces']} vs <= {r['threshold']}: "
                                  f"{verdict} (ledger #{r['seq']}{voided})"))
    for note in view["notes"]:
        voided = f", voided by #{note['voided_by']}" if note["voided_by"] else ""
        fields.append(("note", f"{note['note']} (ledger #{note['seq']}{voided})"))
    print_fields(f"#{view['number']} {view['title']}", fields)


@scenario_app.command("note")
def scenario_note(
    ctx: typer.Context,
    text: str = typer.Argument(..., help="The note."),
    scenario: str = typer.Option(None, "--scenario", help="Title or number (default: the open or latest one)."),
    json_out: bool = JsonOption,
) -> None:
    """Add a GM note to a scenario (dated and hashed in the ledger; shown by `scenario show`).

    Example: campaign scenario note '刀矢が祠の鍵を持ち帰った'
    """
    from campaign.services.scenarios import add_note

    s = state(ctx)
    done = add_note(s.db, s.campaign, text, s.actor, scenario)
    emit_json(done) if json_out else say(f"noted on scenario #{done['scenario']} (ledger #{done['seq']})")
