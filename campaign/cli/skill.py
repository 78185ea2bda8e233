"""`campaign skill ...`: a character's skills with their levels, as the sheet writes them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from campaign.cli.context import state
from campaign.cli.output import JsonOption, emit_json, say
from campaign.i18n import N_, _

if TYPE_CHECKING:
    from campaign.services.characters.sheets import SheetChanged

app = typer.Typer(
    help="A character's skills (回避 12, 聞き耳 14 ...); every change is logged and voidable.\n\n"
    "Example: campaign skill add 鈴音 回避 12 --attr DX --difficulty A",
    no_args_is_help=True,
)

AttrOption = Annotated[str | None, typer.Option("--attr", help="The stat the skill is based on (DX, IQ ...).")]
DifficultyOption = Annotated[str | None, typer.Option("--difficulty", help="E, A, H or VH.")]


def _done(view: SheetChanged, json_out: bool, message: str, **fields: object) -> None:
    """The confirmation `message` (marked with N_) or the view as JSON."""
    emit_json(view) if json_out else say(_(message).format(char=view.name, seq=view.seq, **fields))


@app.command("add")
def skill_add(
    ctx: typer.Context,
    char: Annotated[str, typer.Argument(help="Character name.")],
    name: Annotated[str, typer.Argument(help="Skill name as the sheet writes it.")],
    level: Annotated[int, typer.Argument(help="Skill level (the number rolled against).")],
    attr: AttrOption = None,
    difficulty: DifficultyOption = None,
    json_out: JsonOption = False,
) -> None:
    """Give a character a skill at a level; `roll 回避 --char 鈴音` then rolls 3D6 against it.

    Example: campaign skill add 鈴音 回避 12 --attr DX --difficulty A
    """
    from campaign.services.characters.sheets import change_skill

    s = state(ctx)
    view = change_skill(
        s.db, s.campaign, s.actor, char, name, action="add", level=level, attr=attr, difficulty=difficulty
    )
    _done(view, json_out, N_("{char}: skill {skill} {level} (ledger #{seq})"), skill=name, level=level)


@app.command("set")
def skill_set(
    ctx: typer.Context,
    char: Annotated[str, typer.Argument(help="Character name.")],
    name: Annotated[str, typer.Argument(help="A skill the character has.")],
    level: Annotated[int, typer.Argument(help="The new level.")],
    attr: AttrOption = None,
    difficulty: DifficultyOption = None,
    json_out: JsonOption = False,
) -> None:
    """Change a skill's level (and, when given, its stat or difficulty; else they are kept).

    Example: campaign skill set 鈴音 回避 13
    """
    from campaign.services.characters.sheets import change_skill

    s = state(ctx)
    view = change_skill(
        s.db, s.campaign, s.actor, char, name, action="set", level=level, attr=attr, difficulty=difficulty
    )
    _done(view, json_out, N_("{char}: skill {skill} {level} (ledger #{seq})"), skill=name, level=level)


@app.command("remove")
def skill_remove(
    ctx: typer.Context,
    char: Annotated[str, typer.Argument(help="Character name.")],
    name: Annotated[str, typer.Argument(help="A skill the character has.")],
    json_out: JsonOption = False,
) -> None:
    """Take a skill off the sheet (a void of this entry brings it back).

    Example: campaign skill remove 鈴音 聞き耳
    """
    from campaign.services.characters.sheets import change_skill

    s = state(ctx)
    view = change_skill(s.db, s.campaign, s.actor, char, name, action="remove")
    _done(view, json_out, N_("{char}: skill {skill} removed (ledger #{seq})"), skill=name)
