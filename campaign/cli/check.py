"""`campaign check ...`: 2d6 action checks, danger sense and hiding (docs/rules.md
"2d6 checks", "Danger sense", "Hiding").

Each command parses its options, calls one service in campaign.services.checks.action_checks and
renders the returned record: one JSON document with --json, else a Rich line or table.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated

import typer

from campaign.cli.context import state
from campaign.cli.output import DiceOption, JsonOption, emit_json
from campaign.cli.parsing import parse_int
from campaign.cli.physical import PhysicalOption
from campaign.cli.presence import AnywayOption, say_warnings
from campaign.core.followup import FOLLOW_UP, FOLLOW_UP_JA
from campaign.errors import BadInput
from campaign.i18n import N_, _, pick
from campaign.labels import outcome_label

if TYPE_CHECKING:
    from campaign.services.checks.action_checks import AbilityCheck, CooperativeCheck, OpposedCheck
    from campaign.services.checks.danger import DangerSenseCheck, HideCheck
    from campaign.services.checks.records import CheckRoll, SecretCheck, SideSpec

app = typer.Typer(
    help="2d6 action checks: ability/skill, cooperative, opposed, danger sense and hiding. "
    "Every check is logged with its dice; criticals (6-6 / 1-1) follow the campaign setting "
    "`criticals`.\n\nExample: campaign check ability 鈴音 技 --target 12 --dice 4,5",
    no_args_is_help=True,
)

TargetOption = Annotated[int, typer.Option("--target", "-t", help="Target number (目標値): the total must reach it.")]
SkillOption = Annotated[int | None, typer.Option("--skill", help="Skill level (技能レベル): makes it a skill check.")]
ModOption = Annotated[list[str], typer.Option("--mod", "-m", help="Modifier N or LABEL=N (道具=2), repeatable.")]
DiceModOption = Annotated[
    int,
    typer.Option(
        "--dice-mod", help="Change the number of dice (-1 for 1d6). At 0 dice the check fails without rolling."
    ),
]
DoubleOption = Annotated[
    int,
    typer.Option(
        "--double",
        count=True,
        help="A x2 effect on the result (倍化), repeatable; "
        "x2 effects never stack: one applies however many are given.",
    ),
]
HalveOption = Annotated[
    int,
    typer.Option(
        "--halve",
        count=True,
        help="A x1/2 effect on the result (半減, rounds down), "
        "repeatable; never stacks: one applies however many are given.",
    ),
]
OccasionOption = Annotated[
    str | None, typer.Option("--occasion", help="機会: 簡易, 標準, 作業 or 瞬間 (a label only).")
]
ReasonOption = Annotated[str | None, typer.Option("--reason", help="Why the check was made, kept in the ledger.")]
SecretOption = Annotated[
    bool,
    typer.Option(
        "--secret", help="Roll in secret: the ledger keeps a commitment, the result waits for `history reveal`."
    ),
]
CheckerArgument = Annotated[str, typer.Argument(help="The character making the check.")]
StatArgument = Annotated[str, typer.Argument(help="Stat to use: 心, 技, 体 or any stat the character has.")]

SIDE_HELP = (
    "CHAR:STAT[+MOD...][±ND], e.g. 鈴音:技+2 or 刀矢:体-1D (one die fewer); "
    "CHAR:- for a side that does not (or cannot) roll: its result is 0."
)
_SIGNS = "+-＋－−"
_MOD_RE = re.compile(rf"\s*([{_SIGNS}])\s*(\d+)\s*([dDｄＤ][6６]?)?\s*")
_SIDE_RE = re.compile(rf"^(?P<stat>.*?)(?P<mods>(?:\s*[{_SIGNS}]\s*\d+\s*(?:[dDｄＤ][6６]?)?)*)\s*$")


# --------------------------------------------------------------------------- parsing


def parse_mods(items: list[str], what: str = "--mod") -> list[tuple[str, int]]:
    """`2`, `-1` or `LABEL=N` (道具=2) -> labelled modifiers."""
    mods = []
    for item in items:
        label, sep, value = item.partition("=")
        if sep:
            if not label.strip():
                raise BadInput(_("{what}: expected N or LABEL=N, got {item!r}").format(what=what, item=item))
            mods.append((label.strip(), parse_int(value, f"{what} {label.strip()}")))
        else:
            mods.append(("mod", parse_int(item, what)))
    return mods


def parse_side(text: str, what: str, default_stat: str | None = None) -> SideSpec:
    """`CHAR:STAT[+MOD...][±ND]` or `CHAR:-` (does not roll) -> SideSpec.

    The split is at the last colon (ASCII or full-width), so a name may contain one if a
    stat follows. With a default_stat a bare `CHAR` is allowed too.
    """
    from campaign.services.checks.action_checks import SideSpec

    raw = text.strip()
    cut = max(raw.rfind(":"), raw.rfind("："))
    if cut < 0:
        if default_stat is None or not raw:
            raise BadInput(_("{what}: expected CHAR:STAT[+MOD], got {text!r}").format(what=what, text=text))
        return SideSpec(raw, default_stat)
    name, rest = raw[:cut].strip(), raw[cut + 1 :].strip()
    if not name:
        raise BadInput(
            _("{what}: no character name in {text!r} (expected CHAR:STAT[+MOD])").format(what=what, text=text)
        )
    if rest in ("-", "－", "−"):
        return SideSpec(name, None)
    match = _SIDE_RE.match(rest)
    stat = match.group("stat").strip() if match else ""
    if not stat or any(sign in stat for sign in _SIGNS):
        raise BadInput(
            _("{what}: expected CHAR:STAT[+MOD] (e.g. 鈴音:技+2) or CHAR:-, got {text!r}").format(what=what, text=text)
        )
    assert match is not None  # no match leaves no stat, refused above
    modifiers: list[tuple[str, int]] = []
    dice_modifier = 0
    for sign, digits, dice in _MOD_RE.findall(match.group("mods")):
        value = parse_int(digits, what) * (1 if sign in "+＋" else -1)
        if dice:
            dice_modifier += value
        else:
            modifiers.append(("mod", value))
    return SideSpec(name, stat, tuple(modifiers), dice_modifier)


# --------------------------------------------------------------------------- rendering

CHECK_NAMES = {
    "ability": N_("ability check"),
    "skill": N_("skill check"),
    "cooperative": N_("cooperative check"),
    "opposed": N_("opposed check"),
    "danger": N_("danger sense"),
    "hide": N_("hiding"),
}
TERM_LABELS = {
    "skill": N_("skill "),
    "cooperation": N_("cooperation "),
    "mod": "",
    # the penalty after waking (services.checks.lingering); the second spelling is older records'
    FOLLOW_UP: N_("recovering "),
    f"{FOLLOW_UP_JA} {FOLLOW_UP}": N_("recovering "),
}


def _signed(value: int, label: str = "") -> str:
    return f"{'+' if value >= 0 else '-'} {label}{abs(value)}"


def _dice_text(view: CheckRoll) -> str:
    if view.skipped == "zero_dice":
        return _("0D6 (not rolled)")
    faces = ",".join(map(str, view.dice))
    text = f"{view.dice_count}D6[{faces}]"
    if view.kept != view.dice:
        text += "→[" + ",".join(map(str, view.kept)) + "]"
    return text


def _term_label(label: str) -> str:
    """A term's label as printed: ours in the output's language ("技能Lv"), the GM's as typed."""
    if label not in TERM_LABELS:
        return label
    return _(TERM_LABELS[label]) if TERM_LABELS[label] else ""


def breakdown(view: CheckRoll) -> str:
    """`【技】3 + 2D6[4,5] + 技能Lv2 + 1`: the stat, the dice, then the other terms."""
    if view.skipped == "did_not_roll":
        return _("no roll (0)")
    first, *rest = view.terms
    parts = [f"【{first.label}】{first.value}", "+ " + _dice_text(view)]
    parts += [_signed(term.value, _term_label(term.label)) for term in rest]
    return " ".join(parts)


def _result_text(view: CheckRoll) -> str:
    if view.skipped == "zero_dice":
        return _("automatic failure (0D6)")
    if view.outcome is None:  # no outcome recorded: printed as it always was ("None")
        return str(view.outcome)
    return outcome_label("check", view.outcome)


def relation(total: int, target: int, compare: str) -> str:
    """The sign that is true of the two numbers, so a failed check never prints a false
    inequality ("9 < 10", not "9 ≥ 10"); a critical can go against it."""
    if compare == ">":
        return ">" if total > target else "≤"
    return "≥" if total >= target else "<"


def _scaling_text(view: CheckRoll) -> str:
    """` = 9 ×2 ×½` after the unscaled total; notes the extra x2/x1/2 that did not stack."""
    scaling = view.scaling
    if scaling is None:
        return ""
    text = f" = {scaling.unscaled}" + (" ×2" if scaling.doubled else "") + (" ×½" if scaling.halved else "")
    ignored = max(0, scaling.doubles - 1) + max(0, scaling.halves - 1)
    if ignored:
        text += " " + _("({ignored} more did not stack)").format(ignored=ignored)
    return text


def check_line(view: CheckRoll) -> str:
    text = f"{breakdown(view)}{_scaling_text(view)} = {view.total}"
    if view.target is not None:
        text += f" {relation(view.total, view.target, view.compare or '>=')} {view.target}"
    return f"{text} → {_result_text(view)}"


def _print(*lines: str) -> None:
    from rich.console import Console

    from campaign.cli.output import safe_text

    console = Console(highlight=False, soft_wrap=True)
    for line in lines:
        console.print(safe_text(line), markup=False)


def _table(title: str, columns: list[str], rows: list[list[str]]) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from campaign.cli.output import safe_text

    table = Table(title=Text(safe_text(title)), title_justify="left", header_style="bold")
    for column in columns:
        table.add_column(column)
    for row in rows:
        table.add_row(*(Text(safe_text(cell)) for cell in row))
    Console(highlight=False).print(table)


def _heading(view: AbilityCheck | CooperativeCheck | DangerSenseCheck, who: str) -> str:
    occasion = f" [{view.occasion}]" if view.occasion else ""
    return f"{who} {_(CHECK_NAMES[view.check])}{occasion} #{view.seq}"


def render_single(view: AbilityCheck | CooperativeCheck | DangerSenseCheck, who: str) -> None:
    from campaign.services.checks.records import DangerBandResult

    lines = [f"{_heading(view, who)}: {check_line(view)}"]
    if view.check == "danger" and isinstance(view, DangerBandResult):
        lines.append(
            "  "
            + _("margin {margin:+d} → band {band}: {words}").format(
                margin=view.margin, band=view.band, words=pick(view.band_ja, view.band_en)
            )
        )
    _print(*lines)


def _title(view: OpposedCheck | HideCheck) -> str:
    return f"{_(CHECK_NAMES[view.check])} #{view.seq}" + (f" [{view.occasion}]" if view.occasion else "")


def render_opposed(view: OpposedCheck) -> None:
    rows = [
        [
            _("active") if side.role == "active" else _("passive"),
            side.character,
            breakdown(side),
            str(side.total),
            (_("win") if side.character == view.winner else _("lose")) + critical_mark(side),
        ]
        for side in view.sides
    ]
    _table(_title(view), ["", _("character"), _("check"), _("total"), _("result")], rows)
    why: dict[str | None, str] = {
        "tie": " " + _("(a tie goes to the passive side)"),
        "critical": " " + _("(a critical decides before the totals)"),
    }
    lines = [_("winner: {winner}").format(winner=view.winner) + why.get(view.decided_by, "")]
    if view.effect:
        effect = view.effect
        how = " " + (
            _("(full)")
            if not effect.resisted
            else (_("(halved)") if effect.if_resisted == "halve" else _("(vanished)"))
        )
        lines.append(_("effect: {base} → {applied}").format(base=effect.base, applied=effect.applied) + how)
    _print(*lines)


def critical_mark(side: CheckRoll) -> str:
    """` (大成功)` / ` (大失敗)` after a contest result decided or flagged by the dice."""
    return (
        f" ({outcome_label('check', side.critical)})"
        if side.critical in ("critical_success", "critical_failure")
        else ""
    )


def render_hide(view: HideCheck) -> None:
    from campaign.services.checks.danger import ObserverRoll

    rows = [
        [
            _("hides"),
            view.character,
            breakdown(view.hider),
            str(view.total),
            "",
            (_("hidden") if view.hidden else _("found")) + critical_mark(view.hider),
        ]
    ]
    for obs in view.observers:
        if obs.skipped == "zero_dice":
            rows.append(
                [_("watches"), obs.character, _("not rolled (the hider failed automatically)"), "", "", _("noticed")]
            )
            continue
        assert isinstance(obs, ObserverRoll)  # an unrolled observer is the zero-dice case above
        rows.append(
            [
                _("watches"),
                obs.character,
                breakdown(obs),
                str(obs.total),
                obs.band,
                (_("noticed") if obs.noticed else _("missed")) + critical_mark(obs),
            ]
        )
    _table(_title(view), ["", _("character"), _("check"), _("total"), _("band"), _("result")], rows)
    if view.hidden:
        _print("→ " + _("hidden (no observer beat the hider)"))
    else:
        _print("→ " + _("noticed by: {names}").format(names=", ".join(view.noticed_by)))


# --------------------------------------------------------------------------- commands


@app.command("ability")
def ability(
    ctx: typer.Context,
    character: CheckerArgument,
    stat: StatArgument,
    target: TargetOption,
    skill: SkillOption = None,
    mod: ModOption = [],
    dice_mod: DiceModOption = 0,
    double: DoubleOption = 0,
    halve: HalveOption = 0,
    occasion: OccasionOption = None,
    dice: DiceOption = None,
    physical: PhysicalOption = False,
    anyway: AnywayOption = False,
    reason: ReasonOption = None,
    secret: SecretOption = False,
    json_out: JsonOption = False,
) -> None:
    """能力判定: STAT + 2d6 + modifiers >= target (技能判定 with --skill). 6-6 is a critical
    success and 1-1 a critical failure whatever the total (campaign setting `criticals`).

    Example: campaign check ability 鈴音 技 --target 12 --skill 2 --mod 1 --dice 4,5
    """
    from campaign.services.checks.action_checks import CheckOptions, ability_check

    s = state(ctx)
    options = CheckOptions(
        target=target,
        skill=skill,
        modifiers=parse_mods(mod),
        dice_modifier=dice_mod,
        doubles=double,
        halves=halve,
        occasion=occasion,
        reason=reason,
        secret=secret,
        anyway=anyway,
    )
    view = ability_check(
        s.db, s.campaign, s.actor, s.dice(dice, physical), character=character, stat=stat, options=options
    )
    say_warnings(view)
    emit_json(view) if json_out else _render(view)


@app.command("skill")
def skill_check(
    ctx: typer.Context,
    character: CheckerArgument,
    stat: StatArgument,
    skill_name: Annotated[str, typer.Argument(help="The skill; its level comes from the sheet (`skill add`).")],
    target: TargetOption,
    skill: Annotated[int | None, typer.Option("--skill", help="The level, when the sheet records none.")] = None,
    mod: ModOption = [],
    dice: DiceOption = None,
    physical: PhysicalOption = False,
    anyway: AnywayOption = False,
    reason: ReasonOption = None,
    json_out: JsonOption = False,
) -> None:
    """技能判定 with the skill level read off the sheet: STAT + 2d6 + level + modifiers >= target.

    Example: campaign check skill 鈴音 技 運転 --target 10 --dice 4,5
    """
    from campaign.services.checks.action_checks import CheckOptions, ability_check

    s = state(ctx)
    options = CheckOptions(target=target, skill=skill, modifiers=parse_mods(mod), reason=reason, anyway=anyway)
    view = ability_check(
        s.db,
        s.campaign,
        s.actor,
        s.dice(dice, physical),
        character=character,
        stat=stat,
        options=options,
        skill_name=skill_name,
    )
    say_warnings(view)
    emit_json(view) if json_out else _render(view)


@app.command("coop")
def coop(
    ctx: typer.Context,
    stat: Annotated[str, typer.Argument(help="The stat everyone uses; the highest among them counts.")],
    *,
    with_: Annotated[list[str], typer.Option("--with", "-w", help="A participant, repeatable (2 or more).")] = [],
    target: TargetOption,
    skill: Annotated[
        int | None, typer.Option("--skill", help="One participant's skill level (only one counts).")
    ] = None,
    mod: ModOption = [],
    dice_mod: DiceModOption = 0,
    double: DoubleOption = 0,
    halve: HalveOption = 0,
    occasion: OccasionOption = None,
    dice: DiceOption = None,
    physical: PhysicalOption = False,
    anyway: AnywayOption = False,
    reason: ReasonOption = None,
    json_out: JsonOption = False,
) -> None:
    """協力判定: the highest STAT among the participants, +1 per participant beyond the
    first, (n+1)d6 keeping the best two. --dice takes all n+1 faces in order.
    Criticals look at the two dice kept: 6,6,x is 大成功 whatever x, 1,1,1 (kept 1,1) 大失敗.

    Example: campaign check coop 体 --with 鈴音 --with 刀矢 --target 12 --dice 2,5,6
    """
    from campaign.services.checks.action_checks import CheckOptions, cooperative_check

    s = state(ctx)
    options = CheckOptions(
        target=target,
        skill=skill,
        modifiers=parse_mods(mod),
        dice_modifier=dice_mod,
        doubles=double,
        halves=halve,
        occasion=occasion,
        reason=reason,
        anyway=anyway,
    )
    view = cooperative_check(
        s.db, s.campaign, s.actor, s.dice(dice, physical), participants=with_, stat=stat, options=options
    )
    say_warnings(view)
    if json_out:
        emit_json(view)
    else:
        render_single(view, "・".join(p.character for p in view.participants))


@app.command("oppose")
def oppose(
    ctx: typer.Context,
    active: Annotated[str, typer.Option("--active", "-a", help="The acting side (rolls first): " + SIDE_HELP)],
    passive: Annotated[
        list[str], typer.Option("--passive", "-p", help="A responding side, repeatable: " + SIDE_HELP)
    ] = [],
    effect: Annotated[
        int | None,
        typer.Option(
            "--effect", help="The active skill's numeric effect (damage ...), applied in full if the active side wins."
        ),
    ] = None,
    if_resisted: Annotated[
        str,
        typer.Option(
            "--if-resisted", help="When the active side loses: halve (半減, rounds down) or vanish (消滅, no effect)."
        ),
    ] = "vanish",
    occasion: OccasionOption = None,
    dice: DiceOption = None,
    physical: PhysicalOption = False,
    anyway: AnywayOption = False,
    reason: ReasonOption = None,
    json_out: JsonOption = False,
) -> None:
    """対抗判定: each side's result is STAT + 2d6 + MOD; the highest wins and a tie goes to
    the passive side. A side written CHAR:- does not roll and has result 0. --dice takes
    the active side's faces first, then each passive side's in the order given.

    Example: campaign check oppose --active 鈴音:技+2 --passive 刀矢:体 --passive 管狐:- --dice 4,5,3,3
    """
    from campaign.services.checks.action_checks import opposed_check

    s = state(ctx)
    active_side = parse_side(active, "--active")
    passive_sides = [parse_side(item, "--passive") for item in passive]
    rule = {"半減": "halve", "消滅": "vanish"}.get(if_resisted.strip(), if_resisted.strip().lower())
    view = opposed_check(
        s.db,
        s.campaign,
        s.actor,
        s.dice(dice, physical),
        active=active_side,
        passives=passive_sides,
        effect=effect,
        if_resisted=rule,
        occasion=occasion,
        reason=reason,
        anyway=anyway,
    )
    say_warnings(view)
    emit_json(view) if json_out else render_opposed(view)


@app.command("danger")
def danger(
    ctx: typer.Context,
    character: Annotated[str, typer.Argument(help="The character sensing danger.")],
    difficulty: Annotated[int, typer.Option("--difficulty", "-d", help="Difficulty: the result must EXCEED it.")],
    stat: Annotated[str, typer.Option("--stat", help="Stat to use.")] = "感",
    mod: ModOption = [],
    dice_mod: DiceModOption = 0,
    double: DoubleOption = 0,
    halve: HalveOption = 0,
    occasion: OccasionOption = None,
    dice: DiceOption = None,
    physical: PhysicalOption = False,
    anyway: AnywayOption = False,
    reason: ReasonOption = None,
    secret: SecretOption = False,
    json_out: JsonOption = False,
) -> None:
    """危険感知: 感 + 2d6 + modifiers must exceed the difficulty (a tie fails). Prints which
    band the difference falls in: <=-3, -2..0, 1..3, 4..6, >=7.

    Example: campaign check danger 鈴音 --difficulty 10 --dice 3,5
    """
    from campaign.services.checks.action_checks import danger_sense

    s = state(ctx)
    mods = parse_mods(mod)
    view = danger_sense(
        s.db,
        s.campaign,
        s.actor,
        s.dice(dice, physical),
        character=character,
        difficulty=difficulty,
        stat=stat,
        modifiers=mods,
        dice_modifier=dice_mod,
        doubles=double,
        halves=halve,
        occasion=occasion,
        reason=reason,
        secret=secret,
        anyway=anyway,
    )
    say_warnings(view)
    emit_json(view) if json_out else _render(view)


def _render(view: AbilityCheck | DangerSenseCheck | SecretCheck) -> None:
    from campaign.services.checks.records import SecretCheck

    if isinstance(view, SecretCheck):
        from campaign.cli.roll import render_secret

        assert view.commitment is not None  # a secret entry holds its commitment
        render_secret(view.seq, view.actor, view.character, view.commitment)
    else:
        render_single(view, view.character)


@app.command("hide")
def hide(
    ctx: typer.Context,
    character: Annotated[str, typer.Argument(help="The character hiding.")],
    observer: Annotated[
        list[str],
        typer.Option(
            "--observer",
            "-o",
            help="Someone who might notice, repeatable: "
            "NAME (uses --observer-stat), NAME:STAT[+MOD] or NAME:- (does not roll).",
        ),
    ] = [],
    stat: Annotated[str, typer.Option("--stat", help="The hider's stat.")] = "技",
    observer_stat: Annotated[str, typer.Option("--observer-stat", help="The observers' stat (danger sense).")] = "感",
    mod: ModOption = [],
    dice_mod: DiceModOption = 0,
    occasion: OccasionOption = None,
    dice: DiceOption = None,
    physical: PhysicalOption = False,
    anyway: AnywayOption = False,
    reason: ReasonOption = None,
    json_out: JsonOption = False,
) -> None:
    """隠れる: the hider's 技 + 2d6 against each observer's danger sense (感 + 2d6); an
    observer notices only by exceeding the hider's result. --dice takes the hider's
    faces first, then each observer's in order. --mod and --dice-mod apply to the hider.

    Example: campaign check hide 鈴音 --observer 刀矢 --observer 管狐:感+1 --dice 4,5,3,3,6,2
    """
    from campaign.services.checks.action_checks import SideSpec, clean_stat_name, hide_check

    s = state(ctx)
    hider = SideSpec(character, clean_stat_name(stat), tuple(parse_mods(mod)), dice_mod)
    default = clean_stat_name(observer_stat)
    observers = [parse_side(item, "--observer", default_stat=default) for item in observer]
    view = hide_check(
        s.db,
        s.campaign,
        s.actor,
        s.dice(dice, physical),
        hider=hider,
        observers=observers,
        occasion=occasion,
        reason=reason,
        anyway=anyway,
    )
    say_warnings(view)
    emit_json(view) if json_out else render_hide(view)
