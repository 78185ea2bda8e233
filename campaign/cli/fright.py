"""`campaign fright`: a GURPS fright check, its table results written onto the character."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Annotated, Any

import typer

from campaign.cli.context import state
from campaign.cli.output import DiceOption, JsonOption, emit_json, print_text, say
from campaign.cli.physical import PhysicalOption
from campaign.cli.presence import AnywayOption, say_warnings
from campaign.i18n import _, pick
from campaign.labels import note_texts, outcome_label

if TYPE_CHECKING:
    from campaign.services.checks.fright import FrightCheckResult


def fright(
    ctx: typer.Context,
    char: Annotated[str, typer.Argument(help="The character facing something frightening.")],
    mod: Annotated[int, typer.Option("--mod", help="GM's modifier to the Will roll (+2, -3 ...).")] = 0,
    pick: Annotated[
        str | None,
        typer.Option(
            "--pick",
            help="Name for the new trait (else a placeholder to rename); on entry 25, the mild phobia that worsens.",
        ),
    ] = None,
    choice: Annotated[
        int,
        typer.Option(
            "--choice",
            help="Where the entry offers a choice (phobia or mental disadvantage): 0 = the first, 1 = the second.",
        ),
    ] = 0,
    severe_phobia: Annotated[
        bool, typer.Option("--severe-phobia", help="The fright is the object of the character's severe phobia (-4).")
    ] = False,
    reason: Annotated[str | None, typer.Option("--reason", help="What frightened them (recorded).")] = None,
    dice: DiceOption = None,
    physical: PhysicalOption = False,
    anyway: AnywayOption = False,
    json_out: JsonOption = False,
) -> None:
    """Roll a fright check (恐怖判定): Will roll, and on failure the fright table, applied.

    The target is Will + --mod (+2 with Combat Reflexes / 戦闘即応, -4 with
    --severe-phobia), capped by the campaign setting fright_cap. On failure 3d6 plus the
    margin of failure picks an entry (4..40) whose effects are written onto the
    character: traits (lower the CP total, not counted toward the limit), conditions,
    FP/HP, attribute loss. `history void SEQ` reverses all of it.

    Example: campaign fright 鈴音 --mod -2 --pick 暗所恐怖症 --reason '屋敷の地下'
    """
    from campaign.services.checks.fright import fright_check

    s = state(ctx)
    result = fright_check(
        s.db,
        s.campaign,
        s.actor,
        char,
        s.dice(dice, physical),
        modifier=mod,
        pick=pick,
        choice=choice,
        severe_phobia=severe_phobia,
        reason=reason,
        anyway=anyway,
    )
    say_warnings(result)
    if json_out:
        emit_json(result)
    else:
        render_fright(result)


def _dice(faces: Iterable[int]) -> str:
    return "[" + ",".join(map(str, faces)) + "]"


def _outcome(outcome: str | None, margin: int | None) -> str:
    if outcome is None:
        return ""
    text = outcome_label(None, outcome)
    return text + (" " + _("(margin {margin:+d})").format(margin=margin) if margin is not None else "")


def _pad(text: str, width: int) -> str:
    """Left-align by display width (a Japanese character takes two columns)."""
    from rich.cells import cell_len

    return text + " " * max(0, width - cell_len(text))


def _aligned(rows: list[list[str]]) -> list[str]:
    from rich.cells import cell_len

    widths = [max(cell_len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return ["  ".join(_pad(cell, widths[i]) for i, cell in enumerate(row[:-1])) + "  " + row[-1] for row in rows]


def will_modifiers(check: Any) -> list[str]:
    """`意志 11 -3 上限 13`: the Will and what moved the target, as the check line and
    `history show` print them (a FrightCheck's fields, or a record's as attributes)."""
    derived = check.will_derived_from
    mods = [_("Will {will}").format(will=check.will) + (f" (={derived})" if derived else "")]
    if check.modifier:
        mods.append(f"{check.modifier:+d}")
    if check.combat_reflexes:
        mods.append(_("+2 Combat Reflexes"))
    if check.severe_phobia:
        mods.append(_("-4 severe phobia"))
    for penalty in check.penalties:  # docs/rules.md "Penalty after waking"
        mods.append(_("{penalty:+d} recovering").format(penalty=penalty["penalty"]))
    if check.cap is not None:
        mods.append(_("cap {cap}").format(cap=check.cap))
    return mods


def render_fright(result: FrightCheckResult) -> None:
    """A few aligned lines: the check, the table roll and its entry, every sub-roll, then
    what was written onto the character (a FrightCheckResult, services.checks.fright)."""
    from campaign.core.applied_effects import AppliedEscalation, AppliedTrait
    from campaign.effect_words import effect_lines
    from campaign.labels import sub_roll_label
    from campaign.services.checks.fright import TableSubRoll

    check, table = result.check, result.table
    mods = will_modifiers(check)
    rows = [
        [
            f"#{result.seq}",
            _("fright check"),
            f"3D6<={check.target}",
            f"{_dice(check.dice)}={check.total}",
            _outcome(check.outcome, check.margin) + f"  [{' '.join(mods)}]",
        ]
    ]
    for sub in result.sub_rolls:
        if isinstance(sub, TableSubRoll):  # purpose "table"
            assert table is not None  # a table roll comes with its table
            raw = " " + _("(raw {raw})").format(raw=table.raw) if table.raw != table.entry else ""
            rows.append(
                [
                    f"#{sub.seq}",
                    _("fright table"),
                    sub.expression,
                    f"{_dice(sub.dice)}={table.entry}",
                    f"→ {table.entry}{raw}",
                ]
            )
        else:
            rows.append(
                [
                    f"#{sub.seq}",
                    sub_roll_label(sub.purpose),
                    sub.expression,
                    f"{_dice(sub.dice)}={sub.total}",
                    _outcome(sub.outcome, sub.margin),
                ]
            )
    lines = _aligned(rows)
    if table is not None:  # the entry's summary under the table roll
        lines[1:2] = [lines[1], f"      {pick(table.ja, table.en)}"]
    for line in lines:
        print_text(line.rstrip())
    name = result.character
    if table is None:
        print_text(_("{name}: passed the fright check: nothing happens").format(name=name))
    for effect in result.effects:
        for line in effect_lines(name, effect):
            print_text(line)
    delta = sum(e.cp_change for e in result.effects if isinstance(e, (AppliedTrait, AppliedEscalation)))
    if delta:
        after = result.character_after.cp_total
        print_text(_("{name}: CP total {before} → {after}").format(name=name, before=after - delta, after=after))
    for note in note_texts(result.notes):
        say(_("note: {note}").format(note=note))
