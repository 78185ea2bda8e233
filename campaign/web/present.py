"""What a page says about an entry: the same words as `campaign history`'s roll column.

Kept beside the templates (not imported from campaign.cli) so the web layer depends on
services only. A secret roll is shown as anyone may see it: who rolled, for whom, and
the commitment; its dice and result live in the GM-only table, which nothing here reads.
"""

from __future__ import annotations

from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from campaign import labels
from campaign.i18n import _
from campaign.labels import ops_summary

# The zone this request's times are shown in (the campaign's `timezone` as the request
# began; None: the server's zone). A context variable like campaign.i18n's language, so
# the worker threads of sync endpoints and the feed's stream read the request's own.
_zone: ContextVar[str | None] = ContextVar("page_zone", default=None)


def use_zone(zone: str | None) -> None:
    """This request shows times in `zone` (campaign.web.app sets it per request)."""
    _zone.set(zone)


def page_zone() -> str | None:
    """The zone of this request's times: the campaign's `timezone` setting, else None."""
    return _zone.get()


# How much of one entry a page shows, so that every page stays under 64 KB whatever a
# roll's dice count (`x100 100D100` records 10,000 faces, 200 KB of record): beyond these
# the page shows the total and links to the entry page, and the entry page to the
# record as JSON (/api/chain). docs/web.md "Bounded pages".
DICE_SHOWN = 60  # faces listed in a summary or on the entry page
RESULTS_SHOWN = 30  # repetitions' results listed in a summary (x100 ...)
RECORD_SHOWN = 16_000  # characters of the record the entry page prints, and a table item carries


def shown_faces(dice: list[Any]) -> str:
    """The faces as a summary lists them: the first DICE_SHOWN, then how many more."""
    text = ",".join(map(str, dice[:DICE_SHOWN]))
    if len(dice) > DICE_SHOWN:
        text += "," + _("… {count} more").format(count=len(dice) - DICE_SHOWN)
    return text


def outcome_label(kind: str | None, outcome: str | None) -> str:
    return "" if outcome is None else labels.outcome_label(kind, outcome)


def outcome_text(outcome: str | None, kind: str | None = None) -> str:
    """The `outcome_label` filter: {{ outcome|outcome_label(kind) }}."""
    return outcome_label(kind, outcome)


def commitment(entry: dict[str, Any]) -> str | None:
    secret = (entry.get("detail") or {}).get("secret")
    return secret.get("commitment") if isinstance(secret, dict) else None


def sheet_part(entry: dict[str, Any]) -> str:
    """` (回避 12 −2)`: the skill or stat a success roll was read from, as the CLI's roll
    line shows it after the expression (services.checks.skill_rolls); "" for any other."""
    detail = entry.get("detail")
    found = detail.get("from_sheet") if isinstance(detail, dict) else None
    if not isinstance(found, dict):
        return ""
    from campaign.services.checks.skill_rolls import skill_label

    return f" ({skill_label(found)})"


def roll_text(entry: dict[str, Any]) -> str:
    """The roll column: dice and result, a void's target, or what the entry changed."""
    secret = commitment(entry)
    if secret:
        return _("secret roll by {actor} (commitment {commitment}…)").format(
            actor=entry["actor"], commitment=secret[:8]
        )
    if entry.get("expression"):
        expression = entry["expression"] + sheet_part(entry)
        repeats = (entry.get("detail") or {}).get("repeats") or []
        if repeats:
            results = []
            for repetition in repeats[:RESULTS_SHOWN]:
                part = str(repetition.get("total"))
                if repetition.get("outcome"):
                    part += " " + outcome_label(None, repetition["outcome"])
                results.append(part)
            if len(repeats) > RESULTS_SHOWN:
                results.append(_("… {count} more").format(count=len(repeats) - RESULTS_SHOWN))
            text = f"{expression} → {', '.join(results)}"
        else:
            dice = "" if entry.get("dice") is None else f" [{shown_faces(entry['dice'])}]"
            text = f"{expression}{dice}={entry.get('total')}"
        if entry.get("outcome"):
            text += " " + labels.outcome_label(
                entry["kind"], entry["outcome"], (entry.get("detail") or {}).get("gurps")
            )
        if entry["kind"] == "reveal":
            text = _("reveals #{seq}: {roll}").format(seq=(entry.get("detail") or {}).get("reveals"), roll=text)
        return text
    if entry["kind"] == "void" and entry.get("voids_seq") is not None:
        voided_kind = (entry.get("detail") or {}).get("voided_kind")
        return _("voids #{seq}").format(seq=entry["voids_seq"]) + (
            f" ({labels.kind_label(voided_kind)})" if voided_kind else ""
        )
    return ops_summary(entry.get("ops"))


def kind_text(entry: dict[str, Any]) -> str:
    """An entry's kind in the page's language, with where its dice came from when not from us."""
    text = labels.kind_label(entry["kind"])
    text += f" ⟨{labels.source_label(entry['source'])}⟩" if entry.get("source") in ("ccfolia", "bcdice-api") else ""
    return text + (" ⟨" + _("provably fair") + "⟩" if entry.get("fairness") == "provable" else "")


def _moment(at: str | None, zone: str | None) -> datetime | None:
    """A stored UTC time in `zone` (the campaign's `timezone`; None: the server's zone)."""
    if not at:
        return None
    try:
        moment = datetime.fromisoformat(at.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(ZoneInfo(zone)) if zone else moment.astimezone()


def short_time(at: str | None, zone: str | None = None) -> str:
    """'2026-11-29T18:52:31Z' -> '11-30 03:52' in Asia/Tokyo: a table's time column
    (its header names the zone, zone_label)."""
    moment = _moment(at, zone)
    return (at or "")[5:16].replace("T", " ") if moment is None else moment.strftime("%m-%d %H:%M")


def local_time(at: str | None, zone: str | None = None) -> str:
    """'2026-11-29T18:52:31Z' -> '2026-11-30 03:52:31 Asia/Tokyo': a time with its zone named."""
    moment = _moment(at, zone)
    return (at or "") if moment is None else f"{moment:%Y-%m-%d %H:%M:%S} {zone_label(zone, moment)}"


def zone_label(zone: str | None, moment: datetime | None = None) -> str:
    """The zone times are shown in: the campaign's setting, else the server's zone's name."""
    return labels.zone_label(zone or (moment or datetime.now(UTC).astimezone()).tzname() or "UTC")


def status_text(status: str) -> str:
    """A character's status (`missing`, `active`) in the page's language."""
    return labels.status_label(status)


def condition_text(condition: str) -> str:
    """A condition's code (`stun`, `panic`) in the page's language; a GM's own word as named."""
    return labels.condition_label(condition)


def duration_text(condition: Any) -> str:
    """How long a condition lasts in the page's language, from its codes (a ConditionLine)."""
    return labels.condition_duration(condition.duration, condition.detail)


def category_text(category: str) -> str:
    """A trait category (`quirk`, `severe phobia`) in the page's language."""
    return labels.category_label(category)


def percent(value: float | None, digits: int = 1) -> str:
    """A rate as a percentage; never "0%" or "100%" for a chance that is neither."""
    if value is None:
        return "—"
    shown = f"{value * 100:.{digits}f}"
    if 0 < value < 1 and float(shown) in (0.0, 100.0):
        shown = f"{'<' if value < 0.5 else '>'}{shown}"
    return shown + "%"


def bars(
    values: list[float],
    expected: float | None = None,
    *,
    width: int = 320,
    height: int = 160,
    labels: list[str] | None = None,
    peak: float | None = None,
    suffix: str = "",
) -> dict[str, Any]:
    """Geometry of a bar chart (the SVG markup itself is the `bar_chart` macro): one bar
    per value, scaled so the tallest bar or the expected line fits, with a 20 px band
    below for the labels and 14 px above for the counts. `peak` fixes the top of the
    scale (100 for percentages, so two rates compare at a glance)."""
    top, bottom = 14, 20
    plot = height - top - bottom
    peak = peak or max([*values, expected or 0, 1])
    step = width / max(len(values), 1)
    out = []
    for index, value in enumerate(values):
        h = plot * value / peak
        out.append(
            {
                "x": round(index * step + step * 0.15, 1),
                "y": round(top + plot - h, 1),
                "w": round(step * 0.7, 1),
                "h": round(h, 1),
                "value": (f"{value:g}" if float(value).is_integer() else f"{value:.1f}") + suffix,
                "label": labels[index] if labels else str(index + 1),
                "cx": round(index * step + step / 2, 1),
            }
        )
    line = None if expected is None else round(top + plot - plot * expected / peak, 1)
    return {
        "width": width,
        "height": height,
        "bars": out,
        "expected_y": line,
        "expected": expected,
        "base_y": top + plot,
        "label_y": height - 5,
    }


def source_text(source: str) -> str:
    """Where an entry's dice came from (`manual`, `server`) in the page's language."""
    return labels.source_label(source)


def kind_word(kind: str) -> str:
    """An entry kind's code (`fright`, `roll`) as the history filter lists it."""
    return labels.kind_label(kind)


def family_text(row: dict[str, Any]) -> str:
    """A success-rate row's family (core.luck.FAMILIES) in the page's language."""
    family = row.get("family")
    return labels.family_label(family) if isinstance(family, str) else str(row.get("label", ""))


def luck_note(tests: int) -> str:
    """The luck page's explanation of its p-values (labels.luck_note)."""
    return labels.luck_note(tests)
