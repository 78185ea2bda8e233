"""`campaign char ...`: characters (PCs and NPCs), their stats, pools, status and relationships."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

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
    render_rows,
    say,
    warn,
)
from campaign.cli.parsing import parse_stat_assignments
from campaign.i18n import N_, _, pgettext
from campaign.labels import stat_label, status_label

if TYPE_CHECKING:
    from campaign.projection.views import CharacterSheet, MissingLine
    from campaign.services.characters.timetravel import TimelineRow

app = typer.Typer(
    help="Characters (PCs and NPCs), their stats and relationships.\n\n"
    "Example: campaign char add 鈴音 --player Aki --stat 心=3",
    no_args_is_help=True,
)


@app.command("add")
def char_add(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Character name.")],
    player: Annotated[str | None, typer.Option("--player", "-p", help="The player who owns this PC.")] = None,
    npc: Annotated[bool, typer.Option("--npc", help="A non-player character.")] = False,
    summoner: Annotated[str | None, typer.Option("--summoner", help="The PC who summoned this NPC.")] = None,
    stat: Annotated[
        list[str], typer.Option("--stat", "-s", help="KEY=VALUE, repeatable (IQ=12, 心=3, Speed=5.25).")
    ] = [],
    cp: Annotated[int, typer.Option("--cp", help="Character point total.")] = 0,
    new_stat: Annotated[
        bool,
        typer.Option(
            "--new-stat",
            help="Allow a stat the ruleset does not know (without it such a name is refused as a likely typo).",
        ),
    ] = False,
    reading: Annotated[
        str | None,
        typer.Option(
            "--reading",
            help="How the name is read, in kana (すずね): listings sort by it and a mistyped name is matched by it.",
        ),
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """Add a PC (with --player) or an NPC (with --npc, optionally --summoner).

    Stat names are canonical (意志力, ＷＩＬＬ and 意思 are Will); Basic Speed takes quarters.

    Example: campaign char add 鈴音 --player Aki --stat IQ=12 --stat HT=11 --stat Will=12 --cp 100
    """
    from campaign.services.characters.roster import add_character

    s = state(ctx)
    added = add_character(
        s.db,
        s.campaign,
        name,
        s.actor,
        player=player,
        npc=npc,
        summoner=summoner,
        stats=parse_stat_assignments(stat, "--stat"),
        cp=cp,
        new_stat=new_stat,
        reading=reading,
    )
    if json_out:
        emit_json(added)
    else:
        say((_("added PC {name}") if added.kind == "pc" else _("added NPC {name}")).format(name=added.name))


@app.command("list")
def char_list(
    ctx: typer.Context,
    status: Annotated[
        str | None, typer.Option("--status", help="Only active, missing, searching, dead or retired characters.")
    ] = None,
    all_: Annotated[bool, typer.Option("--all", help="Also dead and retired characters.")] = False,
    json_out: JsonOption = False,
    csv_out: CsvOption = False,
    bom: BomOption = False,
) -> None:
    """List characters with their player, status and CP (dead and retired ones with --all).

    With --csv, every stat has its own column (a spreadsheet can sum them).

    Example: campaign char list --all --csv --bom > party.csv
    """
    from campaign.services.characters.roster import list_characters

    fmt = output_format(json_out, csv_out)
    s = state(ctx)
    rows = list_characters(s.db, s.campaign, status, include_gone=all_)

    def player(r: CharacterSheet) -> str:
        return r.player or (_("(summoner {name})").format(name=r.summoner) if r.summoner else "")

    def status_text(r: CharacterSheet) -> str:
        return status_label(r.status) + (f" → {r.searching_for}" if r.searching_for else "")

    if fmt == CSV:
        stats = list(dict.fromkeys(k for r in rows for k in r.stats))
        columns: list[str | Column] = ["name", "kind", "player", "status", "CP", "CP awarded", *stats]
        table = [
            [
                r.name,
                r.kind.upper(),
                r.player or (f"(summoner {r.summoner})" if r.summoner else ""),
                r.status + (f" → {r.searching_for}" if r.searching_for else ""),
                r.cp_total,
                r.cp_awarded,
                *(r.stats.get(k) for k in stats),
            ]
            for r in rows
        ]  # CSV: codes, as before
    else:
        columns = [
            Column(N_("name"), keep=True),
            N_("kind"),
            N_("player"),
            N_("status"),
            Column("CP", justify="right"),
            N_("stats"),
        ]
        table = [
            [
                r.name,
                r.kind.upper(),
                player(r),
                status_text(r),
                r.cp_total,
                " ".join(f"{stat_label(k)}={v}" for k, v in r.stats.items()),
            ]
            for r in rows
        ]
    render_rows(_("characters"), columns, table, fmt, bom=bom, records=rows, empty=_("no characters"))


def _missing_text(missing: MissingLine, zone: str | None) -> str:
    """Since when, at what odds, who is out looking: what the GM asks of a missing PC."""
    from campaign.labels import odds_label

    searchers = _(", ").join(missing.searchers) or _("no one")
    when = local_time(missing.since_at, zone) + (_(", ") + missing.reason if missing.reason else "")
    return _("since #{seq} ({when}); {odds} at the next scenario end; searching: {searchers}").format(
        seq=missing.since_seq, when=when, odds=odds_label(missing.odds), searchers=searchers
    )


def render_character(view: CharacterSheet, zone: str | None) -> None:
    """A CharacterSheet (services.characters.roster) as key/value lines."""
    from campaign.labels import category_label, condition_duration, condition_label, stat_label

    status = status_label(view.status)
    if view.searching_for:
        status = _("{status} (searching for {name})").format(status=status, name=view.searching_for)
    fields = [
        (_("reading"), view.reading),
        (_("kind"), view.kind.upper()),
        (_("player"), view.player),
        (_("summoner"), view.summoner),
        (_("status"), status),
        (_("missing"), _missing_text(view.missing, zone) if view.missing else None),
        (_("CP total"), view.cp_total),
        (_("CP awarded"), view.cp_awarded or None),
        (_("stats"), "  ".join(f"{stat_label(k)} {v}" for k, v in view.stats.items())),
    ]
    fields += sheet_lines.sheet_fields(view)
    if view.derived:  # a 3e sheet: Will = IQ, FP = ST, HP = HT (docs/rules.md "Derived stats")
        fields.append(
            (
                _("derived"),
                "  ".join(f"{stat_label(k)} {d.value} (= {stat_label(d.from_)})" for k, d in view.derived.items()),
            )
        )
    for pool, values in view.pools.items():
        derived = view.derived.get(pool)
        level = f"{values.current}/{values.max}"
        if derived:
            level = _("{level} (max = {stat})").format(level=level, stat=stat_label(derived.from_))
        fields.append((pool, level))
    for trait in view.traits:
        if trait.unlimited_cp == 0:
            flag = ""
        elif trait.limit_cp == 0:
            flag = _(" (not counted toward the limit)")
        else:
            flag = _(" ({limited} CP toward the limit, {outside} CP outside)").format(
                limited=trait.limit_cp, outside=trait.unlimited_cp
            )
        fields.append((_("trait"), f"{trait.name} [{category_label(trait.category)}] {trait.cp} CP{flag}"))
    for condition in view.conditions:
        line = f"{condition_label(condition.name)} {condition_duration(condition.duration, condition.detail)}".rstrip()
        if condition.until_clock is not None:
            from campaign.labels import clock_label

            line = _("{condition} until {time}").format(condition=line, time=clock_label(condition.until_clock))
        fields.append((pgettext("sheet", "condition"), line))
    for relation in view.relations:
        fields.append((_("related to"), relation.name + (f" — {relation.note}" if relation.note else "")))
    print_fields(view.name, [(key, value) for key, value in fields if value is not None])


@app.command("show")
def char_show(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Character name.")],
    at: Annotated[
        int | None, typer.Option("--at", help="As the ledger stood right after entry SEQ (later voids not applied).")
    ] = None,
    before: Annotated[int | None, typer.Option("--before", help="As it stood just before entry SEQ.")] = None,
    json_out: JsonOption = False,
) -> None:
    """Show a character: stats, CP, status, traits, conditions, pools, relations.

    --at SEQ / --before SEQ replay the ledger to that point: the sheet the table saw
    then. A void made later is not applied (it is an entry of its own).

    Example: campaign char show 鈴音 --before 42 --json
    """
    s = state(ctx)
    if at is None and before is None:
        from campaign.services.characters.roster import show_character

        view = show_character(s.db, s.campaign, name)
    else:
        from campaign.services.characters.timetravel import character_at

        view = character_at(s.db, s.campaign, name, at=at, before=before)
    if json_out:
        emit_json(view)
        return
    if at is not None or before is not None:
        from campaign.services.characters.timetravel import CharacterAsOf

        assert isinstance(view, CharacterAsOf)  # character_at's
        say(_("as the ledger stood after entry #{seq}").format(seq=view.as_of))
    render_character(view, s.time_zone)


TIMELINE_COLUMNS = ["seq", "at", "actor", "kind", "voided_by", "what", "name", "before", "after", "change"]


@app.command("timeline")
def char_timeline(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Character name.")],
    json_out: JsonOption = False,
    csv_out: CsvOption = False,
    bom: BomOption = False,
) -> None:
    """Every entry that changed the character, with the change (CP 150 → 140, +暗所恐怖症 -10, FP 11 → 8).

    Changes are as the ledger stood at each entry; an entry voided later is marked with
    the void, and the void appears as the change that undid it. --csv gives one row per change.

    Example: campaign char timeline 鈴音 --csv
    """
    from campaign.services.characters.timetravel import timeline

    fmt = output_format(json_out, csv_out)
    s = state(ctx)
    rows = timeline(s.db, s.campaign, name)
    if fmt == CSV:
        render_rows(
            None,
            TIMELINE_COLUMNS,
            (
                [r.seq, r.at, r.actor, r.kind, r.voided_by, c["what"], c["name"], c["before"], c["after"], c["text"]]
                for r in rows
                for c in r.changes
            ),
            fmt,
            bom=bom,
        )
        return
    zone = s.time_zone
    from campaign.labels import kind_label

    def kind(r: TimelineRow) -> str:
        if r.voids_seq:
            return _("{kind} of #{seq}").format(kind=kind_label(r.kind), seq=r.voids_seq)
        return kind_label(r.kind)

    render_rows(
        _("{name}: timeline").format(name=name),
        ["#", N_("when"), N_("kind"), N_("change")],
        (
            [
                str(r.seq) + (f" ✗#{r.voided_by}" if r.voided_by else ""),
                local_time(r.at, zone),
                kind(r),
                "; ".join(c["text"] for c in r.changes),
            ]
            for r in rows
        ),
        fmt,
        records=rows,
        empty=_("no entry changed {name}").format(name=name),
    )


@app.command("set")
def char_set(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Character name.")],
    stat: Annotated[list[str], typer.Option("--stat", "-s", help="KEY=VALUE, repeatable.")] = [],
    unset: Annotated[list[str], typer.Option("--unset", help="Remove this stat, repeatable.")] = [],
    new_stat: Annotated[
        bool,
        typer.Option(
            "--new-stat",
            help="Allow a stat the sheet and the ruleset do not know "
            "(without it such a name is refused as a likely typo).",
        ),
    ] = False,
    cp: Annotated[int | None, typer.Option("--cp", help="New CP total.")] = None,
    json_out: JsonOption = False,
) -> None:
    """Change or remove stats (or the CP total) of a character; logged so it can be voided.

    Stat names are canonical: will, WILL and 意思 all write the sheet's Will.

    Example: campaign char set 鈴音 --stat 技=4 --stat HP=12 --unset Luck
    """
    from campaign.services.characters.roster import set_stats

    s = state(ctx)
    view = set_stats(s.db, s.campaign, name, s.actor, parse_stat_assignments(stat, "--stat"), cp, unset, new_stat)
    emit_json(view) if json_out else say(_("updated {name} (ledger #{seq})").format(name=view.name, seq=view.seq))


@app.command("rename")
def char_rename(
    ctx: typer.Context,
    old: Annotated[str, typer.Argument(help="The character's present name.")],
    new: Annotated[str, typer.Argument(help="The new name.")],
    json_out: JsonOption = False,
) -> None:
    """Rename a character; history keeps the old name in old entries, `history --char NEW` finds both.

    Example: campaign char rename 名無しの狐 管狐
    """
    from campaign.services.characters.lifecycle import rename_character

    s = state(ctx)
    done = rename_character(s.db, s.campaign, old, new, s.actor)
    emit_json(done) if json_out else say(
        _("{old} is now {new} (ledger #{seq})").format(old=done.from_, new=done.to, seq=done.seq)
    )


def _set_status(ctx: typer.Context, name: str, status: str, reason: str | None, json_out: bool) -> None:
    from campaign.services.characters.lifecycle import set_status

    s = state(ctx)
    done = set_status(s.db, s.campaign, name, s.actor, status, reason)
    emit_json(done) if json_out else say(
        _("{character} is {status} (ledger #{seq})").format(
            character=done.character, status=status_label(done.status), seq=done.seq
        )
    )


@app.command("kill")
def char_kill(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Character name.")],
    reason: Annotated[str, typer.Option("--reason", help="How they died, for the record.")],
    json_out: JsonOption = False,
) -> None:
    """Mark a character dead: kept in history and `char list --all`, out of scenarios and searches.

    Example: campaign char kill 刀矢 --reason '館の崩落'
    """
    _set_status(ctx, name, "dead", reason, json_out)


@app.command("retire")
def char_retire(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Character name.")],
    reason: Annotated[str | None, typer.Option("--reason", help="Why, for the record.")] = None,
    json_out: JsonOption = False,
) -> None:
    """Retire a character: kept in history and `char list --all`, out of scenarios and searches.

    Example: campaign char retire 鈴音 --reason '故郷に帰った'
    """
    _set_status(ctx, name, "retired", reason, json_out)


@app.command("relate")
def char_relate(
    ctx: typer.Context,
    a: Annotated[str, typer.Argument(help="One character.")],
    b: Annotated[str, typer.Argument(help="The other character.")],
    note: Annotated[str | None, typer.Option("--note", help="What ties them (幼馴染, 師匠 ...).")] = None,
    json_out: JsonOption = False,
) -> None:
    """Record that two characters are related (both ways); needed to search for each other.

    Example: campaign char relate 鈴音 刀矢 --note 幼馴染
    """
    from campaign.services.characters.roster import relate

    s = state(ctx)
    made = relate(s.db, s.campaign, a, b, s.actor, note)
    emit_json(made) if json_out else say(_("related {one} and {other}").format(one=made.from_, other=made.to))


@app.command("export")
def char_export(
    ctx: typer.Context,
    names: Annotated[list[str] | None, typer.Argument(help="Character names (or --all).")] = None,
    all_: Annotated[bool, typer.Option("--all", help="Every character of the campaign.")] = False,
    ccfolia: Annotated[bool, typer.Option("--ccfolia", help="As ココフォリア pieces (clipboard JSON).")] = False,
    copy: Annotated[bool, typer.Option("--copy", help="Also put the piece on the clipboard (one character).")] = False,
    fmt: Annotated[
        str | None,
        typer.Option(
            "--format",
            help="csv or json: the sheet template `char import` reads (docs/sheets.md); ccfolia: as --ccfolia.",
        ),
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """Print characters as ココフォリア pieces: paste a line onto the board to make the piece;
    or, with --format csv|json, as sheets in the template `char import` reads.

    Each line is one piece's clipboard JSON (status HP/FP, params for every stat, a chat
    palette of the character's rolls in BCDice syntax); --json prints them as one list.

    Example: campaign char export 鈴音 --ccfolia --copy
    """
    import json

    from campaign.errors import BadInput
    from campaign.services.bridges.ccfolia import export_pieces

    if fmt == "ccfolia":  # the name `char import --format ccfolia` reads it back by
        ccfolia, fmt = True, None
    if not ccfolia and fmt is None:
        raise BadInput(_("say which format: --ccfolia, or --format csv|json"))
    if all_ == bool(names):
        raise BadInput(_("name characters or give --all (not both)"))
    if fmt is not None:
        if ccfolia or copy or json_out:
            raise BadInput(_("--format writes a sheet file: not with --ccfolia, --copy or --json"))
        return sheet_io.write_sheets(ctx, fmt, None if all_ else names)
    if copy and (all_ or len(names or []) != 1):
        raise BadInput(_("--copy takes one character: a paste makes one piece"))
    s = state(ctx)
    pieces = export_pieces(s.db, s.campaign, None if all_ else names)
    if json_out:
        emit_json(pieces)
    else:
        for piece in pieces:
            print(json.dumps(piece, ensure_ascii=False, separators=(",", ":")))
    if copy:
        from campaign.cli.clipboard import copy_text

        tool = copy_text(json.dumps(pieces[0], ensure_ascii=False, separators=(",", ":")))
        warn(
            _("copied with {tool}").format(tool=tool)
            if tool
            else _("no clipboard tool found (pbcopy, wl-copy, xclip, xsel, clip.exe); copy the line above instead")
        )


def _pool_command(
    ctx: typer.Context, name: str, pool: str, amount: int, reason: str | None, json_out: bool, *, heal: bool
) -> None:
    from campaign.services.characters.pools import change_pool

    s = state(ctx)
    done = change_pool(s.db, s.campaign, s.actor, name, pool, amount, heal=heal, reason=reason)
    if json_out:
        emit_json(done)
        return
    level = f"{done.pool} {done.before} → {done.after}/{done.max}"
    if heal and done.change != done.requested:
        level = _("{level} (capped at the maximum; {asked} asked)").format(level=level, asked=done.requested)
    say(_("{character}: {level} (ledger #{seq})").format(character=done.character, level=level, seq=done.seq))
    for note in done.notes:
        say("  " + _("GURPS: {note}").format(note=injury_note(done.character, note)))


def injury_note(name: str, note: dict[str, object]) -> str:
    """The words for an HP threshold a loss crossed (codes: campaign.core.injury)."""
    if note["code"] == "unconscious_rolls":
        return _("{name} is at 0 HP or below: an HT roll at the start of each turn to stay conscious").format(name=name)
    if note["code"] == "death_roll":
        times = "" if note["multiple"] == 1 else f"{note['multiple']}×"
        return _("{name} reached −{times}HT ({at}): an HT roll ({ht}) now, or die; another at each further −HT").format(
            name=name, times=times, at=note["at"], ht=note["ht"]
        )
    return _("{name} reached −5×HT ({at}): dead (`campaign char kill {name}` records it)").format(
        name=name, at=note["at"]
    )


@app.command("damage", context_settings={"ignore_unknown_options": True})  # -3 is an amount, refused there
def char_damage(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Character name.")],
    pool: Annotated[str, typer.Argument(help="HP (injury) or FP (fatigue).")],
    amount: Annotated[int, typer.Argument(help="How much is lost (1 or more; to give HP back, `char heal`).")],
    reason: Annotated[str | None, typer.Option("--reason", help="What did it (recorded).")] = None,
    json_out: JsonOption = False,
) -> None:
    """Take HP or FP off a character (may go below zero, as in GURPS); logged and voidable.

    On a 3rd-edition sheet without an HP (FP) stat the maximum is HT (ST). HP falling to
    0, to −HT (and each further −HT) or to −5×HT prints what GURPS says happens there.

    Example: campaign char damage 鈴音 HP 4 --reason '爪'
    """
    _pool_command(ctx, name, pool, amount, reason, json_out, heal=False)


@app.command("heal", context_settings={"ignore_unknown_options": True})  # -3: refused, pointing to damage
def char_heal(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Character name.")],
    pool: Annotated[str, typer.Argument(help="HP or FP.")],
    amount: Annotated[int, typer.Argument(help="How much is regained (stops at the maximum).")],
    reason: Annotated[str | None, typer.Option("--reason", help="How (recorded): rest, first aid ...")] = None,
    json_out: JsonOption = False,
) -> None:
    """Give HP or FP back, up to the maximum; a full pool is refused. Logged and voidable.

    Example: campaign char heal 鈴音 FP 3 --reason '休息'
    """
    _pool_command(ctx, name, pool, amount, reason, json_out, heal=True)


# Sheet lines, defined in campaign.cli.sheet_lines.
from campaign.cli import sheet_io, sheet_lines  # noqa: E402

app.command("note")(sheet_lines.char_note)
app.add_typer(sheet_lines.item_app, name="item")
app.command("import")(sheet_io.char_import)
