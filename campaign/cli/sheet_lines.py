"""`campaign char note` and `campaign char item ...`: plain lines on a character's sheet.

They live apart from campaign.cli.char (which registers them) to keep that module short."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from campaign.cli.context import state
from campaign.cli.output import JsonOption, emit_json, say
from campaign.i18n import _

if TYPE_CHECKING:
    from campaign.projection.views import CharacterSheet

item_app = typer.Typer(
    help="Equipment lines on a character's sheet.\n\nExample: campaign char item add 鈴音 '脇差（小）'",
    no_args_is_help=True,
)


def char_note(
    ctx: typer.Context,
    char: Annotated[str, typer.Argument(help="Character name.")],
    text: Annotated[str, typer.Argument(help="The note, one line.")],
    json_out: JsonOption = False,
) -> None:
    """Add a note line to a character's sheet (logged and voidable; shown by `char show`).

    Example: campaign char note 鈴音 '祖母の形見の鏡を持ち歩く'
    """
    from campaign.services.characters.sheets import change_line

    s = state(ctx)
    view = change_line(s.db, s.campaign, s.actor, char, text, kind="note")
    emit_json(view) if json_out else say(_("{name}: note added (ledger #{seq})").format(name=view.name, seq=view.seq))


@item_app.command("add")
def item_add(
    ctx: typer.Context,
    char: Annotated[str, typer.Argument(help="Character name.")],
    text: Annotated[str, typer.Argument(help="The equipment line.")],
    json_out: JsonOption = False,
) -> None:
    """Add an equipment line.

    Example: campaign char item add 鈴音 '懐中電灯'
    """
    from campaign.services.characters.sheets import change_line

    s = state(ctx)
    view = change_line(s.db, s.campaign, s.actor, char, text, kind="item")
    emit_json(view) if json_out else say(_("{name}: item added (ledger #{seq})").format(name=view.name, seq=view.seq))


@item_app.command("remove")
def item_remove(
    ctx: typer.Context,
    char: Annotated[str, typer.Argument(help="Character name.")],
    text: Annotated[str, typer.Argument(help="The equipment line, as listed.")],
    json_out: JsonOption = False,
) -> None:
    """Remove an equipment line (the first one with this text).

    Example: campaign char item remove 鈴音 '懐中電灯'
    """
    from campaign.services.characters.sheets import change_line

    s = state(ctx)
    view = change_line(s.db, s.campaign, s.actor, char, text, kind="item", remove=True)
    emit_json(view) if json_out else say(_("{name}: item removed (ledger #{seq})").format(name=view.name, seq=view.seq))


def sheet_fields(view: CharacterSheet) -> list[tuple[str, str]]:
    """`char show` lines for the skills, items and notes of a CharacterSheet."""

    def skill(name: str, value: dict[str, Any]) -> str:
        base = "/".join(part for part in (value.get("attr"), value.get("difficulty")) if part)
        return f"{name} {value['level']}" + (f" ({base})" if base else "")

    fields = []
    if view.skills:
        fields.append((_("skills"), "  ".join(skill(name, value) for name, value in view.skills.items())))
    fields += [(_("item"), line) for line in view.items]
    fields += [(_("note"), line) for line in view.notes]
    return fields
