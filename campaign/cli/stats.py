"""`campaign stats` (alias `luck`): are the dice fair, and has anyone been luckier than the odds?"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from campaign.cli.context import state
from campaign.cli.output import JsonOption, emit_json, print_table, print_text

if TYPE_CHECKING:
    from campaign.services.stats import LuckReport

SHORT_FAMILIES = {"3d6": "3d6 success rolls", "2d6": "2d6 checks", "plain": "other targets"}
BAR_WIDTH = 40
_EIGHTHS = " ▏▎▍▌▋▊▉"


def stats(
    ctx: typer.Context,
    char: Annotated[str | None, typer.Option("--char", help="Only this character's entries.")] = None,
    player: Annotated[str | None, typer.Option("--player", help="Only entries of this player's characters.")] = None,
    kind: Annotated[
        str | None, typer.Option("--kind", help="Only entries of this kind (roll, fright, check, table ...).")
    ] = None,
    scenario: Annotated[
        int | None, typer.Option("--scenario", help="Only entries made during scenario number N.")
    ] = None,
    since: Annotated[
        str | None, typer.Option("--since", help="From this date (YYYY-MM-DD) or ISO time, in the campaign's timezone.")
    ] = None,
    until: Annotated[
        str | None, typer.Option("--until", help="Up to this date (inclusive) or ISO time, in the campaign's timezone.")
    ] = None,
    include_voided: Annotated[
        bool, typer.Option("--include-voided", help="Count voided entries too (their dice were rolled all the same).")
    ] = False,
    fair_only: Annotated[
        bool,
        typer.Option(
            "--fair-only", help="Only provably fair dice (a committed seed and the player's share, docs/fair-dice.md)."
        ),
    ] = False,
    json_out: JsonOption = False,
) -> None:
    """Luck statistics (alias: luck): face counts per die size and source, a chi-square test
    against a fair die, the mean against the expected mean, and success rates against the
    rates the targets predicted (exact 3d6/2d6 odds, criticals included).

    Only dice the OS rolled (`rng`) speak to the program's fairness; each other source is
    counted apart and never mixed in: typed (--dice), prompted (--physical), the table's
    server, provably fair dice (a committed seed and the player's share; --fair-only counts
    only them), seeded, imported (ccfolia). Filters are history's. Voided entries are left
    out unless --include-voided.

    Example: campaign stats --player Aki --scenario 2
    """
    from campaign.services.history import HistoryFilter
    from campaign.services.stats import luck_report

    s = state(ctx)
    flt = HistoryFilter(character=char, player=player, kind=kind, scenario=scenario, since=since, until=until)
    found = luck_report(s.db, s.campaign, flt, include_voided, fair_only)
    if json_out:
        emit_json(found)
    else:
        render(found)


def _num(value: float | None, spec: str) -> str:
    return "—" if value is None else format(value, spec)


def render(found: LuckReport) -> None:
    shown = ", ".join(f"{key} {value}" for key, value in found.filter.items() if value is not None)
    voided = (
        " (voided ones included)"
        if found.include_voided
        else f" ({found.voided_left_out:,} voided left out; --include-voided counts them)"
        if found.voided_left_out
        else ""
    )
    print_text(f"{found.campaign}: {found.entries:,} entries" + (f" ({shown})" if shown else "") + voided)
    if not found.sources:
        print_text("no dice in these entries")
    for source in found.sources:
        name = source["source"]
        label = source["words"]
        print_text("")
        print_table(
            f"{name} dice ({label}): {source['dice']:,} dice in {source['entries']:,} entries",
            ["die", "dice", "mean (fair)", "mean z", "p (mean)", "chi² (df)", "p (chi²)"],
            (
                [
                    f"d{row['sides']}",
                    f"{row['dice']:,}",
                    f"{row['mean']:.3f} ({row['expected_mean']:g})",
                    _num(row["mean_z"], "+.2f"),
                    _num(row["mean_p"], ".3g"),
                    "—" if row["chi_square"] is None else f"{row['chi_square']:.2f} ({row['df']})",
                    _num(row["p_value"], ".3g") if row["tested"] else "too few dice",
                ]
                for row in source["die_sizes"]
            ),
        )
        for row in source["die_sizes"]:
            if row["dice"] >= row["sides"]:  # fewer would draw mostly empty bars
                for line in histogram(row["sides"], row["faces"]):
                    print_text(line)
        if source["success_rolls"]:
            print_table(
                f"{name} success rolls",
                ["kind", "rolls", "successes", "observed", "predicted", "z", "p"],
                (
                    [
                        SHORT_FAMILIES.get(row["family"], row["family"]),
                        f"{row['rolls']:,}",
                        f"{row['successes']:,}",
                        f"{row['observed_rate']:.1%}",
                        f"{row['expected_rate']:.1%}",
                        _num(row["z"], "+.2f"),
                        _num(row["p_value"], ".3g") if row["tested"] else "too few rolls",
                    ]
                    for row in source["success_rolls"]
                ),
            )
        if source["not_scored"]:
            print_text(
                f"  {source['not_scored']:,} rolls against a target not scored (opposed checks, hiding, "
                "shapes without an exact rule here)"
            )
        if source["unclassified_entries"]:
            print_text(
                f"  {source['unclassified_dice']:,} dice in {source['unclassified_entries']:,} entries not "
                "counted: their expression does not say which die each face came from"
            )
    if found.shared_entries:
        print_text(
            f"({found.shared_entries:,} cooperative-check entries repeat a shared roll, counted once "
            "on the first participant's entry)"
        )
    print_text("")
    print_text(found.note)


def histogram(sides: int, faces: list[int], width: int = BAR_WIDTH) -> list[str]:
    """A few lines of bars: one per face up to d20, else faces grouped into ten bins."""
    total = sum(faces)
    if not total:
        return []
    if sides <= 20:
        bins = [(str(face), [count]) for face, count in enumerate(faces, start=1)]
    else:
        size = -(-sides // 10)
        bins = [(f"{lo + 1}-{min(lo + size, sides)}", faces[lo : lo + size]) for lo in range(0, sides, size)]
    peak = max(sum(counts) for _, counts in bins)
    label_width = max(len(label) for label, _ in bins)
    lines = [f"  d{sides}: {total:,} dice; a fair die gives {total / sides:,.1f} per face"]
    for label, counts in bins:
        count = sum(counts)
        expected = total * len(counts) / sides
        eighths = round(count / peak * width * 8) if peak else 0
        bar = "█" * (eighths // 8) + (_EIGHTHS[eighths % 8] if eighths % 8 else "")
        lines.append(f"  {label:>{label_width}} {bar:<{width}} {count:>9,} {count / expected - 1:+6.1%}")
    return lines
