"""GURPS commands: `fright`, `table ...`, `trait ...`, `condition ...`."""

from __future__ import annotations

from typing import Any

import typer

from campaign.cli.context import state
from campaign.cli.output import (
    BomOption,
    CsvOption,
    DiceOption,
    JsonOption,
    emit_json,
    print_csv,
    print_table,
    print_text,
    say,
)

table_app = typer.Typer(help="The seed roll tables (criticals, fumbles, fright): list them, roll on one.\n\n"
                             "Example: campaign table roll CRT", no_args_is_help=True)
trait_app = typer.Typer(help="A character's advantages, disadvantages and quirks; every change is logged.\n\n"
                             "Example: campaign trait rename 鈴音 '未命名の妄想 (#42)' '鏡の中に誰かいる'",
                        no_args_is_help=True)
condition_app = typer.Typer(help="A character's temporary conditions (stunned, unconscious ...), timed ones "
                                 "on the campaign clock (see `time`).\n\n"
                                 "Example: campaign condition clear 鈴音 stun", no_args_is_help=True)

OUTCOME_LABELS = {"success": "成功", "failure": "失敗", "critical_success": "クリティカル",
                  "critical_failure": "ファンブル"}  # as the seed tables name them
CATEGORY_JA = {"quirk": "癖", "delusion": "妄想", "phobia": "恐怖症", "mental": "精神的特徴",
               "physical": "肉体的特徴"}


# --- fright ---


def fright(
    ctx: typer.Context,
    char: str = typer.Argument(..., help="The character facing something frightening."),
    mod: int = typer.Option(0, "--mod", help="GM's modifier to the Will roll (+2, -3 ...)."),
    pick: str = typer.Option(None, "--pick", help="Name for the new trait (else a placeholder to rename); "
                                                  "on entry 25, the mild phobia that worsens."),
    choice: int = typer.Option(0, "--choice", help="Where the entry offers a choice (phobia or mental "
                                                   "disadvantage): 0 = the first, 1 = the second."),
    severe_phobia: bool = typer.Option(False, "--severe-phobia", help="The fright is the object of the "
                                                                      "character's severe phobia (-4)."),
    reason: str = typer.Option(None, "--reason", help="What frightened them (recorded)."),
    dice: str = DiceOption,
    json_out: bool = JsonOption,
) -> None:
    """Roll a fright check (恐怖判定): Will roll, and on failure the fright table, applied.

    The target is Will + --mod (+2 with Combat Reflexes / 戦闘即応, -4 with
    --severe-phobia), capped by the campaign setting fright_cap. On failure 3d6 plus the
    margin of failure picks an entry (4..40) whose effects are written onto the
    character: traits (lower the CP total, not counted toward the limit), conditions,
    FP/HP, attribute loss. `history void SEQ` reverses all of it.

    Example: campaign fright 鈴音 --mod -2 --pick 暗所恐怖症 --reason '屋敷の地下'
    """
    from campaign.services.fright import fright_check

    s = state(ctx)
    result = fright_check(s.db, s.campaign, s.actor, char, s.dice(dice), modifier=mod, pick=pick, choice=choice,
                          severe_phobia=severe_phobia, reason=reason)
    if json_out:
        emit_json(result)
    else:
        render_fright(result)


def _dice(faces: list[int]) -> str:
    return "[" + ",".join(map(str, faces)) + "]"


def _outcome(outcome: str | None, margin: int | None) -> str:
    if outcome is None:
        return ""
    text = f"{OUTCOME_LABELS.get(outcome, outcome)} {outcome.replace('_', ' ')}"
    return text + (f" (margin {margin:+d})" if margin is not None else "")


def _category_ja(category: str) -> str:
    severe = category.startswith("severe ")
    base = category[len("severe "):] if severe else category
    return ("強い" if severe else "") + CATEGORY_JA.get(base, base)


def _every(effect: dict[str, Any]) -> tuple[str, str]:
    """(" every turn", "毎ターン") style recovery intervals; empty when there is none."""
    if effect.get("every") is None:
        return "", ""
    units_ja = {"turn": "ターン", "minute": "分", "hour": "時間", "day": "日"}
    n, unit = effect["every"], effect["every_unit"]
    return (f" every {unit}" if n == 1 else f" every {n} {unit}s",
            f"毎{units_ja[unit]}" if n == 1 else f"{n}{units_ja[unit]}ごと")


def effect_lines(name: str, effect: dict[str, Any]) -> list[tuple[str, str]]:
    """What one applied effect did to the character: (Japanese, English) line pairs."""
    from campaign.core.followup import after_texts

    kind = effect["kind"]
    if kind == "trait":
        lines = [(f"{name}: 新しい{_category_ja(effect['category'])} '{effect['name']}' ({effect['cp']} CP, "
                  "上限に数えない) を得た",
                  f"gained {effect['category']} '{effect['name']}' ({effect['cp']} CP, no points, "
                  "not counted toward the limit)")]
        if effect["placeholder"]:
            lines.append((f"仮の名前: campaign trait rename {name} '{effect['name']}' 新しい名前",
                          "a placeholder name: rename it with `trait rename`"))
        return lines
    if kind == "phobia_escalation":
        lines = [(f"{name}: '{effect['trait']}' が強い恐怖症に悪化 ({effect['old_cp']} → {effect['new_cp']} CP)",
                  f"'{effect['trait']}' worsened to a severe phobia ({effect['cp_change']:+d} CP)")]
        if "limit_cp" in effect:
            lines.append((f"    上限に数える {effect['limit_cp']} CP / 数えない {effect['unlimited_cp']} CP",
                          f"    {effect['limit_cp']} CP counts toward the limit, {effect['unlimited_cp']} CP "
                          "(from the fright check) does not"))
        return lines
    if kind == "condition":
        every_en, every_ja = _every(effect)
        if effect.get("duration") is not None:
            ja = f"{name}: {effect['label_ja']} {effect['duration_ja']}"
            en = f"{effect['condition']} for {effect['duration_text']}"
            if effect["recovery"] != "auto":
                ja += f"、以後{every_ja}の{effect['recovery_ja']}で回復"
                en += f", then {effect['recovery_en']}{every_en} to recover"
        else:
            ja = f"{name}: {effect['label_ja']} ({every_ja}の{effect['recovery_ja']}で回復)" if every_ja else \
                f"{name}: {effect['label_ja']} ({effect['recovery_ja']}で回復)"
            en = f"{effect['condition']} until recovered ({effect['recovery_en']}{every_en})"
        if effect.get("defense_penalty") is not None:
            ja += f"、能動防御{effect['defense_penalty']}"
            en += f", active defense {effect['defense_penalty']}"
        if effect.get("severity") is not None:
            ja += f" (奇行の程度 {effect['severity']})"
            en += f" (severity {effect['severity']})"
        after = after_texts(effect)
        if after is not None:
            ja += f"、回復後 {after[1]} 全判定{effect['after_penalty']}"
            en += f"; {effect['after_penalty']} to all rolls {after[0]} after recovering"
        if effect.get("timed"):
            ja += " (時間経過で終わる)"
            en += " (runs out with `time advance`)"
        return [(ja, en)]
    if kind in ("fatigue", "injury"):
        label = "疲労" if kind == "fatigue" else "負傷"
        if not effect["tracked"]:
            return [(f"{name}: {label} {effect['amount']} ({effect['pool']} がないので記録のみ)",
                     f"{kind} {effect['amount']} recorded only: no {effect['pool']} stat")]
        return [(f"{name}: {effect['pool']} {effect['before']} → {effect['after']} ({label} {effect['amount']})",
                 f"{kind}: {effect['pool']} -{effect['amount']}")]
    if kind == "lose_attribute":
        if not effect["tracked"]:
            return [(f"{name}: {effect['stat']} -{effect['amount']} (永久。能力値がないので記録のみ)",
                     f"permanent {effect['stat']} loss recorded only: no such stat")]
        lines = [(f"{name}: {effect['stat']} {effect['before']} → {effect['after']} (永久)",
                  f"{effect['stat']} permanently -{effect['amount']}")]
        if effect.get("cascade_ja"):
            lines.append((effect["cascade_ja"], effect["cascade_en"]))
        return lines
    return [(f"{name}: {kind}", kind)]


def _pad(text: str, width: int) -> str:
    """Left-align by display width (a Japanese character takes two columns)."""
    from rich.cells import cell_len

    return text + " " * max(0, width - cell_len(text))


def _aligned(rows: list[list[str]]) -> list[str]:
    from rich.cells import cell_len

    widths = [max(cell_len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return ["  ".join(_pad(cell, widths[i]) for i, cell in enumerate(row[:-1])) + "  " + row[-1] for row in rows]


def render_fright(result: dict[str, Any]) -> None:
    """A few aligned lines: the check, the table roll and its entry, every sub-roll, then
    what was written onto the character."""
    from campaign.services.fright import sub_roll_label

    check, table = result["check"], result["table"]
    mods = [f"Will {check['will']}" + (f" (={check['will_derived_from']})" if check.get("will_derived_from") else "")]
    if check["modifier"]:
        mods.append(f"{check['modifier']:+d}")
    if check["combat_reflexes"]:
        mods.append("+2 戦闘即応")
    if check["severe_phobia"]:
        mods.append("-4 強い恐怖症")
    if check["cap"] is not None:
        mods.append(f"上限/cap {check['cap']}")
    rows = [[f"#{result['seq']}", "恐怖判定 / fright check", f"3D6<={check['target']}",
             f"{_dice(check['dice'])}={check['total']}",
             _outcome(check["outcome"], check["margin"]) + f"  [{' '.join(mods)}]"]]
    for sub in result["sub_rolls"]:
        if sub["purpose"] == "table":
            raw = f" (raw {table['raw']})" if table["raw"] != table["entry"] else ""
            rows.append([f"#{sub['seq']}", "恐怖判定表 / fright table", sub["expression"],
                         f"{_dice(sub['dice'])}={table['entry']}", f"→ {table['entry']}{raw}"])
        else:
            rows.append([f"#{sub['seq']}", sub_roll_label(sub["purpose"]), sub["expression"],
                         f"{_dice(sub['dice'])}={sub['total']}", _outcome(sub["outcome"], sub["margin"])])
    lines = _aligned(rows)
    if table is not None:  # the entry's summary under the table roll
        lines[1:2] = [lines[1], f"      {table['ja']}", f"      {table['en']}"]
    for line in lines:
        print_text(line.rstrip())
    name = result["character"]
    if table is None:
        print_text(f"{name}: 恐怖判定に成功、何も起きない / passed the fright check: nothing happens")
    for effect in result["effects"]:
        for ja, en in effect_lines(name, effect):
            print_text(ja)
            print_text("    " + en)
    delta = sum(t["cp"] for t in result["traits_added"]) + sum(
        e["cp_change"] for e in result["effects"] if e["kind"] == "phobia_escalation")
    if delta:
        after = result["character_after"]["cp_total"]
        print_text(f"{name}: CP総計 / CP total {after - delta} → {after}")
    for note in result["notes"]:
        say(f"note: {note}")


# --- tables ---


@table_app.command("list")
def table_list(ctx: typer.Context, json_out: bool = JsonOption,
               csv_out: bool = CsvOption, bom: bool = BomOption) -> None:
    """List the roll tables: BCDice command, names, dice, range and number of entries.

    Example: campaign table list
    """
    from campaign.services.tables import list_tables

    rows = list_tables()
    if json_out:
        emit_json(rows)
        return
    columns = ["command", "name", "name_en", "dice", "range", "entries"]
    table = [[r["command"] + ("+n" if r["modifiable"] else ""), r["name"], r["name_en"], r["dice"],
              f"{r['range'][0]}..{r['range'][1]}", r["entries"]] for r in rows]
    print_csv(columns, table) if csv_out else print_table("tables", columns, table)


@table_app.command("roll")
def table_roll(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="BCDice command (CRT, FMB, HCRT, GFMB, YSCRT, YSFMB, YFMB, FEAR, "
                                         "FEAR+5) or the table's Japanese name."),
    char: str = typer.Option(None, "--char", help="Character the roll is for (recorded)."),
    mod: int = typer.Option(0, "--mod", help="Added to the roll (the fright table only), clamped to its range."),
    reason: str = typer.Option(None, "--reason", help="Why the roll is made."),
    gm_reroll: bool = typer.Option(True, "--reroll/--no-reroll", help="The GM's choice where a table leaves a "
                                   "reroll to the GM (YFMB 14, YSFMB 13): --no-reroll declines it. Default: reroll."),
    dice: str = DiceOption,
    json_out: bool = JsonOption,
) -> None:
    """Roll 3d6 on a table and log it; extra rolls (roll twice, reroll) and the dice an entry
    names ("1d-3 turns") are rolled and logged too, as sub-entries.

    A table lookup changes no character: apply the result by hand or with other commands.

    Example: campaign table roll 百鬼夜翔・スペシャルファンブル表 --char 刀矢
    """
    from campaign.cli.history import render_roll
    from campaign.services.tables import roll_table

    s = state(ctx)
    entry = roll_table(s.db, s.campaign, s.actor, name, s.dice(dice), character=char, modifier=mod, reason=reason,
                       gm_reroll=gm_reroll)
    emit_json(entry) if json_out else render_roll(entry)


# --- traits ---


@trait_app.command("list")
def trait_list(ctx: typer.Context, char: str = typer.Argument(..., help="Character name."),
               json_out: bool = JsonOption, csv_out: bool = CsvOption, bom: bool = BomOption) -> None:
    """List a character's active traits with their CP and where they came from.

    Example: campaign trait list 鈴音
    """
    from campaign.services.traits import list_traits

    listed = list_traits(state(ctx).db, state(ctx).campaign, char)
    if json_out:
        emit_json(listed)
        return
    columns = ["name", "category", "CP", "toward limit", "outside limit", "from #"]
    rows = [[t["name"], t["category"], t["cp"], t["limit_cp"], t["unlimited_cp"], t["source_seq"]]
            for t in listed["traits"]]
    if csv_out:
        print_csv(columns, rows)
    else:
        print_table(f"{listed['character']} (CP total {listed['cp_total']})", columns, rows)


@trait_app.command("add")
def trait_add(
    ctx: typer.Context,
    char: str = typer.Argument(..., help="Character name."),
    name: str = typer.Argument(..., help="Trait name (unique among the character's traits)."),
    cp: int = typer.Option(..., "--cp", help="CP value: negative for a disadvantage, -1 for a quirk."),
    category: str = typer.Option(None, "--category", help="advantage, disadvantage, quirk, phobia, delusion, "
                                                          "mental, physical ... (default from --cp)."),
    counts: bool = typer.Option(True, "--counts/--no-counts", help="Counts toward the disadvantage limit."),
    reason: str = typer.Option(None, "--reason", help="Why (recorded)."),
    json_out: bool = JsonOption,
) -> None:
    """Give a character a trait; its CP is added to the CP total (a -10 CP one lowers it by 10).

    Example: campaign trait add 鈴音 戦闘即応 --cp 15 --category advantage
    """
    from campaign.services.traits import add_trait

    s = state(ctx)
    done = add_trait(s.db, s.campaign, s.actor, char, name, cp, category=category, counts_toward_limit=counts,
                     reason=reason)
    if json_out:
        emit_json(done)
    else:
        t = done["trait"]
        say(f"{done['character']}: added '{t['name']}' [{t['category']}] {t['cp']} CP; "
            f"CP total {done['cp_total']} (ledger #{done['seq']})")


@trait_app.command("rename")
def trait_rename(
    ctx: typer.Context,
    char: str = typer.Argument(..., help="Character name."),
    old: str = typer.Argument(..., help="Current trait name (e.g. a placeholder)."),
    new: str = typer.Argument(..., help="New name."),
    reason: str = typer.Option(None, "--reason", help="Why (recorded)."),
    json_out: bool = JsonOption,
) -> None:
    """Rename a trait, e.g. the placeholder a fright check left for the GM to name.

    Example: campaign trait rename 鈴音 '未命名の妄想 (#42)' '鏡の中に誰かいる'
    """
    from campaign.services.traits import rename_trait

    s = state(ctx)
    done = rename_trait(s.db, s.campaign, s.actor, char, old, new, reason=reason)
    if json_out:
        emit_json(done)
    else:
        say(f"{done['character']}: renamed '{done['before']}' to '{done['trait']['name']}' (ledger #{done['seq']})")


@trait_app.command("remove")
def trait_remove(
    ctx: typer.Context,
    char: str = typer.Argument(..., help="Character name."),
    name: str = typer.Argument(..., help="Trait to remove."),
    reason: str = typer.Option(..., "--reason", help="Why (required): bought off, cured ..."),
    json_out: bool = JsonOption,
) -> None:
    """Remove (buy off) a trait: its CP comes back out of the CP total (-10 CP -> +10).

    Example: campaign trait remove 鈴音 暗所恐怖症 --reason '10CPで買い戻し'
    """
    from campaign.services.traits import remove_trait

    s = state(ctx)
    done = remove_trait(s.db, s.campaign, s.actor, char, name, reason=reason)
    if json_out:
        emit_json(done)
    else:
        say(f"{done['character']}: removed '{done['trait']['name']}' ({done['trait']['cp']} CP); "
            f"CP total {done['cp_total']} (ledger #{done['seq']})")


# --- conditions ---


def _condition_row(c: dict[str, Any]) -> list[Any]:
    if c["until"] is not None:
        until = f"{c['until']['text_ja']} (残り{c['remaining_ja']})"
    elif c["recovery_due"] is not None:
        until = f"roll due {c['recovery_due']['text_ja']}"
    else:
        until = "until cleared"
    name = f"{c['label_ja']} {c['name']}" if c["label_ja"] else c["name"]
    return [name, c["duration"] or "", c["since"]["text_ja"], until, c["source_seq"]]


@condition_app.command("list")
def condition_list(ctx: typer.Context,
                   char: str = typer.Argument(None, help="Character name (default: every character)."),
                   json_out: bool = JsonOption, csv_out: bool = CsvOption, bom: bool = BomOption) -> None:
    """List active conditions, how long they last and, for timed ones, until when (campaign time).

    Example: campaign condition list 鈴音
    """
    from campaign.services.conditions import list_conditions

    listed = list_conditions(state(ctx).db, state(ctx).campaign, char)
    if json_out:
        emit_json(listed)
        return
    columns = ["condition", "duration", "since", "until", "from #"]
    if listed["character"] is None:
        columns = ["character", *columns]
        rows = [[c["character"], *_condition_row(c)] for c in listed["conditions"]]
    else:
        rows = [_condition_row(c) for c in listed["conditions"]]
    if csv_out:
        print_csv(columns, rows)
        return
    who = listed["character"] or "all characters"
    print_table(f"{who}: conditions (now {listed['now']['text_ja']})", columns, rows)


@condition_app.command("add")
def condition_add(
    ctx: typer.Context,
    char: str = typer.Argument(..., help="Character name."),
    name: str = typer.Argument(..., help="Condition (stun, unconscious, poisoned, 毒 ...)."),
    lasts: str = typer.Option(None, "--for", help="Timed: runs out after this much campaign time (6h, 3d, "
                                                  "2turns; a turn is a second). Without it, until cleared."),
    then_penalty: int = typer.Option(None, "--then-penalty", help="A penalty to every roll that follows "
                                                                  "once it ends (e.g. -2); needs --then-for."),
    then_for: str = typer.Option(None, "--then-for", help="How long that penalty lasts (6h, 2d)."),
    reason: str = typer.Option(None, "--reason", help="What caused it (recorded)."),
    json_out: bool = JsonOption,
) -> None:
    """Put a condition on a character, optionally timed on the campaign clock; logged and voidable.

    Example: campaign condition add 鈴音 poisoned --for 3d --reason '毒蛇'
    """
    from campaign.services.conditions import add_condition

    s = state(ctx)
    done = add_condition(s.db, s.campaign, s.actor, char, name, lasts=lasts, then_penalty=then_penalty,
                         then_for=then_for, reason=reason)
    if json_out:
        emit_json(done)
        return
    c = done["condition"]
    until = f" until {c['until']['text_ja']}" if c["until"] else ""
    say(f"{done['character']}: {c['name']}{' ' + c['duration'] if c['duration'] else ''}{until} "
        f"(ledger #{done['seq']})")


@condition_app.command("clear")
def condition_clear(
    ctx: typer.Context,
    char: str = typer.Argument(..., help="Character name."),
    name: str = typer.Argument(..., help="Condition (stun, unconscious ... or 朦朧, 気絶 ...)."),
    reason: str = typer.Option(None, "--reason", help="E.g. 'made the Will roll'."),
    lasted: str = typer.Option(None, "--lasted", help="How long it really lasted (e.g. 5d), for a penalty "
                                                      "that lasts as long (catatonia); default: the campaign "
                                                      "time since it began, at least its rolled time."),
    json_out: bool = JsonOption,
) -> None:
    """End a condition (every active one of that name); logged, so it can be voided.

    A penalty that follows recovery (fright table 28-30: -2 for 6 hours, or for as many days as a catatonia lasted) begins now as a timed condition.

    Example: campaign condition clear 鈴音 朦朧 --reason '意思判定に成功'
    """
    from campaign.services.conditions import clear_condition

    s = state(ctx)
    done = clear_condition(s.db, s.campaign, s.actor, char, name, reason=reason, lasted=lasted)
    if json_out:
        emit_json(done)
        return
    say(f"{done['character']}: cleared {', '.join(c['name'] for c in done['cleared'])} (ledger #{done['seq']})")
    for follow in done["follow_ups"]:
        print_text(f"{done['character']}: {follow['detail']['summary_ja']} (until {follow['until']['text_ja']})")
        print_text(f"    {follow['detail']['summary_en']}")
