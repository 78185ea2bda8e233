"""`campaign trait ...`: a character's advantages, disadvantages and quirks."""

from __future__ import annotations

from typing import Annotated

import typer

from campaign.cli.context import state
from campaign.cli.output import BomOption, Column, CsvOption, JsonOption, emit_json, output_format, render_rows, say
from campaign.i18n import N_, _
from campaign.labels import category_label

app = typer.Typer(
    help="A character's advantages, disadvantages and quirks; every change is logged.\n\n"
    "Example: campaign trait rename 鈴音 '未命名の妄想 (#42)' '鏡の中に誰かいる'",
    no_args_is_help=True,
)


@app.command("list")
def trait_list(
    ctx: typer.Context,
    char: Annotated[str, typer.Argument(help="Character name.")],
    json_out: JsonOption = False,
    csv_out: CsvOption = False,
    bom: BomOption = False,
) -> None:
    """List a character's active traits with their CP and where they came from.

    Example: campaign trait list 鈴音
    """
    from campaign.services.characters.traits import list_traits

    fmt = output_format(json_out, csv_out)
    listed = list_traits(state(ctx).db, state(ctx).campaign, char)
    columns: list[str | Column] = [
        Column(N_("name"), keep=True),
        N_("category"),
        "CP",
        N_("toward limit"),
        N_("outside limit"),
        N_("from #"),
    ]
    shown = category_label if fmt == "table" else str  # CSV keeps the category's code
    rows = [[t.name, shown(t.category), t.cp, t.limit_cp, t.unlimited_cp, t.source_seq] for t in listed.traits]
    render_rows(
        _("{character} (CP total {total})").format(character=listed.character, total=listed.cp_total),
        columns,
        rows,
        fmt,
        bom=bom,
        records=listed,
        empty=_("{character} has no traits (CP total {total})").format(
            character=listed.character, total=listed.cp_total
        ),
    )


@app.command("add")
def trait_add(
    ctx: typer.Context,
    char: Annotated[str, typer.Argument(help="Character name.")],
    name: Annotated[str, typer.Argument(help="Trait name (unique among the character's traits).")],
    cp: Annotated[int, typer.Option("--cp", help="CP value: negative for a disadvantage, -1 for a quirk.")],
    category: Annotated[
        str | None,
        typer.Option(
            "--category",
            help="advantage, disadvantage, quirk, phobia, delusion, mental, physical ... (default from --cp).",
        ),
    ] = None,
    counts: Annotated[bool, typer.Option("--counts/--no-counts", help="Counts toward the disadvantage limit.")] = True,
    reason: Annotated[str | None, typer.Option("--reason", help="Why (recorded).")] = None,
    paid: Annotated[
        bool,
        typer.Option(
            "--paid",
            "--no-cp",
            help="The sheet's CP total already includes it (entering a finished sheet): no CP change.",
        ),
    ] = False,
    json_out: JsonOption = False,
) -> None:
    """Give a character a trait; its CP is added to the CP total (a -10 CP one lowers it by 10),
    unless --paid says the total already includes it.

    Example: campaign trait add 鈴音 戦闘即応 --cp 15 --category advantage
    """
    from campaign.services.characters.traits import add_trait

    s = state(ctx)
    done = add_trait(
        s.db,
        s.campaign,
        s.actor,
        char,
        name,
        cp,
        category=category,
        counts_toward_limit=counts,
        reason=reason,
        paid=paid,
    )
    if json_out:
        emit_json(done)
    else:
        t = done.trait
        say(
            _("{character}: added '{trait}' [{category}] {cp} CP; CP total {total} (ledger #{seq})").format(
                character=done.character,
                trait=t.name,
                category=category_label(t.category),
                cp=t.cp,
                total=done.cp_total,
                seq=done.seq,
            )
        )


@app.command("rename")
def trait_rename(
    ctx: typer.Context,
    char: Annotated[str, typer.Argument(help="Character name.")],
    old: Annotated[str, typer.Argument(help="Current trait name (e.g. a placeholder).")],
    new: Annotated[str, typer.Argument(help="New name.")],
    reason: Annotated[str | None, typer.Option("--reason", help="Why (recorded).")] = None,
    json_out: JsonOption = False,
) -> None:
    """Rename a trait, e.g. the placeholder a fright check left for the GM to name.

    Example: campaign trait rename 鈴音 '未命名の妄想 (#42)' '鏡の中に誰かいる'
    """
    from campaign.services.characters.traits import rename_trait

    s = state(ctx)
    done = rename_trait(s.db, s.campaign, s.actor, char, old, new, reason=reason)
    if json_out:
        emit_json(done)
    else:
        say(
            _("{character}: renamed '{old}' to '{new}' (ledger #{seq})").format(
                character=done.character, old=done.before, new=done.trait.name, seq=done.seq
            )
        )


@app.command("remove")
def trait_remove(
    ctx: typer.Context,
    char: Annotated[str, typer.Argument(help="Character name.")],
    name: Annotated[str, typer.Argument(help="Trait to remove.")],
    reason: Annotated[str, typer.Option("--reason", help="Why (required): bought off, cured ...")],
    json_out: JsonOption = False,
) -> None:
    """Remove (buy off) a trait: its CP comes back out of the CP total (-10 CP -> +10).

    Example: campaign trait remove 鈴音 暗所恐怖症 --reason '10CPで買い戻し'
    """
    from campaign.services.characters.traits import remove_trait

    s = state(ctx)
    done = remove_trait(s.db, s.campaign, s.actor, char, name, reason=reason)
    if json_out:
        emit_json(done)
    else:
        say(
            _("{character}: removed '{trait}' ({cp} CP); CP total {total} (ledger #{seq})").format(
                character=done.character, trait=done.trait.name, cp=done.trait.cp, total=done.cp_total, seq=done.seq
            )
        )
