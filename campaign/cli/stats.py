"""`campaign stats` (alias `luck`): are the dice fair, and has anyone been luckier than the odds?"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from campaign.cli.context import state
from campaign.cli.output import JsonOption, SinceOption, UntilOption, emit_json, print_table, print_text
from campaign.i18n import N_, _, ngettext
from campaign.labels import source_words

if TYPE_CHECKING:
    from campaign.services.ledger.luck_stats import LuckReport

SHORT_FAMILIES = {"3d6": N_("3d6 success rolls"), "2d6": N_("2d6 checks"), "plain": N_("other targets")}
FILTER_WORDS = {
    "character": N_("character {value}"),
    "player": N_("player {value}"),
    "kind": N_("kind {value}"),
    "scenario": N_("scenario #{value}"),
    "since": N_("since {value}"),
    "until": N_("until {value}"),
}
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
    since: SinceOption = None,
    until: UntilOption = None,
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
    from campaign.services.ledger.history import HistoryFilter
    from campaign.services.ledger.luck_stats import luck_report

    s = state(ctx)
    flt = HistoryFilter(character=char, player=player, kind=kind, scenario=scenario, since=since, until=until)
    found = luck_report(s.db, s.campaign, flt, include_voided, fair_only)
    if json_out:
        emit_json(found)
    else:
        render(found)


def _num(value: float | None, spec: str) -> str:
    return "—" if value is None else format(value, spec)


def _filter_text(found: LuckReport) -> str:
    return _(", ").join(
        _(FILTER_WORDS[key]).format(value=value) if key in FILTER_WORDS else f"{key} {value}"
        for key, value in found.filter.items()
        if value is not None
    )


def _headline(found: LuckReport) -> str:
    """ "夜桜: 12 entries (player Aki) (3 voided left out; ...)" in the output's language."""
    line = ngettext("{campaign}: {n:,} entry", "{campaign}: {n:,} entries", found.entries).format(
        campaign=found.campaign, n=found.entries
    )
    shown = _filter_text(found)
    if shown:
        line += " " + _("({filters})").format(filters=shown)
    if found.include_voided:
        line += " " + _("(voided ones included)")
    elif found.voided_left_out:
        line += " " + ngettext(
            "({n:,} voided left out; --include-voided counts it)",
            "({n:,} voided left out; --include-voided counts them)",
            found.voided_left_out,
        ).format(n=found.voided_left_out)
    return line


def honest_note(tests: int) -> str:
    """core.luck.honest_note in the output's language (the --json note stays English)."""
    if tests == 0:
        return _(
            "No test was made: too few dice (a test needs at least 5 expected per face, or 5 expected "
            "successes and failures)."
        )
    return ngettext(
        "{tests} test was made (its p-value is one). Even with perfectly fair dice a p-value falls below "
        "0.05 one time in 20: a low p-value is not evidence of unfair dice. Only dice rolled by the GM's "
        "machine speak to the program's fairness; typed-in, seeded and imported dice are tallied apart.",
        "{tests} tests were made (each p-value is one). Even with perfectly fair dice a p-value falls below "
        "0.05 one time in 20, so about {expected:.1f} of these are expected below 0.05 by chance alone: "
        "a low p-value here and there is not evidence of unfair dice. Across {tests} tests only a p-value "
        "below {threshold:.2g} (0.05 / {tests}) stands out. Only dice rolled by the GM's machine speak to "
        "the program's fairness; typed-in, seeded and imported dice are tallied apart.",
        tests,
    ).format(tests=tests, expected=tests * 0.05, threshold=0.05 / tests)


def render(found: LuckReport) -> None:
    print_text(_headline(found))
    if not found.sources:
        print_text(_("no dice in these entries"))
    for source in found.sources:
        name = source["source"]
        print_text("")
        print_table(
            ngettext(
                "{source}: {dice:,} dice in {entries:,} entry",
                "{source}: {dice:,} dice in {entries:,} entries",
                source["entries"],
            ).format(source=source_words(name), dice=source["dice"], entries=source["entries"]),
            [N_("die"), N_("count"), N_("mean (fair)"), N_("mean z"), N_("p (mean)"), N_("chi² (df)"), N_("p (chi²)")],
            (
                [
                    f"d{row['sides']}",
                    f"{row['dice']:,}",
                    f"{row['mean']:.3f} ({row['expected_mean']:g})",
                    _num(row["mean_z"], "+.2f"),
                    _num(row["mean_p"], ".3g"),
                    "—" if row["chi_square"] is None else f"{row['chi_square']:.2f} ({row['df']})",
                    _num(row["p_value"], ".3g") if row["tested"] else _("too few dice"),
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
                _("{source}: success rolls").format(source=source_words(name)),
                [N_("kind"), N_("rolls"), N_("successes"), N_("observed"), N_("predicted"), N_("z"), N_("p")],
                (
                    [
                        _(SHORT_FAMILIES[row["family"]]) if row["family"] in SHORT_FAMILIES else row["family"],
                        f"{row['rolls']:,}",
                        f"{row['successes']:,}",
                        f"{row['observed_rate']:.1%}",
                        f"{row['expected_rate']:.1%}",
                        _num(row["z"], "+.2f"),
                        _num(row["p_value"], ".3g") if row["tested"] else _("too few rolls"),
                    ]
                    for row in source["success_rolls"]
                ),
            )
        if source["not_scored"]:
            print_text(
                "  "
                + _(
                    "{n:,} rolls against a target not scored (opposed checks, hiding, "
                    "shapes without an exact rule here)"
                ).format(n=source["not_scored"])
            )
        if source["unclassified_entries"]:
            print_text(
                "  "
                + _(
                    "{dice:,} dice in {entries:,} entries not counted: their expression does not say "
                    "which die each face came from"
                ).format(dice=source["unclassified_dice"], entries=source["unclassified_entries"])
            )
    if found.shared_entries:
        print_text(
            _(
                "({n:,} cooperative-check entries repeat a shared roll, counted once on the first participant's entry)"
            ).format(n=found.shared_entries)
        )
    print_text("")
    print_text(honest_note(found.tests))


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
    lines = [
        "  "
        + _("d{sides}: {total:,} dice; a fair die gives {each:,.1f} per face").format(
            sides=sides, total=total, each=total / sides
        )
    ]
    for label, counts in bins:
        count = sum(counts)
        expected = total * len(counts) / sides
        eighths = round(count / peak * width * 8) if peak else 0
        bar = "█" * (eighths // 8) + (_EIGHTHS[eighths % 8] if eighths % 8 else "")
        lines.append(f"  {label:>{label_width}} {bar:<{width}} {count:>9,} {count / expected - 1:+6.1%}")
    return lines
