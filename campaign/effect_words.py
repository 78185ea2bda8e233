"""Words for effects: the one place a typed effect (campaign.core.applied_effects) or one
of its codes becomes a sentence, through the catalog only.

One table per code family maps a code to its English msgid (trait category, condition,
unit, recovery, what a lost attribute drags down); the Japanese of each lives in the
catalog (campaign/locale) and nowhere else, so a translation fixed there reaches every
entry that holds the code, old ones too. `fright`, `char show`, `char timeline`,
`history show` and the web all take their words from here, so one effect reads the same
everywhere. tests/unit/test_effect_words.py fails when a code of any family has no words
in either language.

Adding a kind of lasting disadvantage: an entry of a seed table that gives it, its line in
core.effects_vocabulary.TRAIT_CATEGORY_WORDS (code and English words), its Japanese in the
catalog (tests/cli/test_effect_words_everywhere.py does exactly that).
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Mapping
from typing import Any, TypedDict, overload

from campaign.core import effects_vocabulary as vocabulary
from campaign.core.applied_effects import (
    AppliedAttribute,
    AppliedCondition,
    AppliedEffect,
    AppliedEscalation,
    AppliedPool,
    AppliedTrait,
)
from campaign.core.condition_view import ConditionView
from campaign.core.followup import FOLLOW_UP, SAME
from campaign.core.gametime import Span, clock_text, span_text, unit_seconds
from campaign.i18n import N_, Nn_, _, is_ja, ngettext, speaking

#: Trait categories: the sheet's own two, and the lasting disadvantages a table entry can
#: give (core.effects_vocabulary.TRAIT_CATEGORY_WORDS, read live: a new kind is its line there).
TRAIT_CATEGORY_WORDS: ChainMap[str, str] = ChainMap(
    {"advantage": N_("advantage"), "disadvantage": N_("disadvantage")}, vocabulary.TRAIT_CATEGORY_WORDS
)
#: Conditions (core.effects_vocabulary.CONDITIONS, the follow-up and medical care).
CONDITION_WORDS = {
    "stun": N_("stunned"),
    "unconscious": N_("unconscious"),
    "faint": N_("fainted"),
    "panic": N_("panic"),
    "major_panic": N_("major panic"),
    "light_coma": N_("light coma"),
    "coma": N_("coma"),
    "catatonia": N_("catatonia"),
    "seizure": N_("seizure"),
    "heart_attack": N_("heart attack"),
    FOLLOW_UP: N_("recovering"),
    "medical_care": N_("medical care"),  # stops catatonia's HP drain (services.checks.lingering)
}
#: How a condition ends (core.effects_vocabulary.RECOVERIES).
RECOVERY_WORDS = {
    "auto": N_("recovers by itself"),
    "will_ignoring_penalties": N_("Will roll ignoring penalties"),
    "will": N_("Will roll"),
    "ht": N_("HT roll"),
    "iq": N_("IQ roll"),
    "iq_ignoring_penalties": N_("IQ roll ignoring penalties"),
    "gm": N_("as the GM rules"),
}
#: Units of a rolled length (core.effects_vocabulary.UNITS): a count of them ...
UNIT_COUNT_WORDS = {
    "turn": Nn_("{n} turn", "{n} turns"),
    "minute": Nn_("{n} minute", "{n} minutes"),
    "hour": Nn_("{n} hour", "{n} hours"),
    "day": Nn_("{n} day", "{n} days"),
}
#: ... a recovery roll's interval of one of them ...
UNIT_EVERY_WORDS = {
    "turn": N_("every turn"),
    "minute": N_("every minute"),
    "hour": N_("every hour"),
    "day": N_("every day"),
}
#: ... of several ...
UNIT_EVERY_N_WORDS = {
    "turn": Nn_("every {n} turn", "every {n} turns"),
    "minute": Nn_("every {n} minute", "every {n} minutes"),
    "hour": Nn_("every {n} hour", "every {n} hours"),
    "day": Nn_("every {n} day", "every {n} days"),
}
#: ... and a follow-up as long as the condition lasted (core.followup.SAME).
UNIT_SAME_WORDS = {
    "turn": N_("for as many turns as it lasted"),
    "minute": N_("for as many minutes as it lasted"),
    "hour": N_("for as many hours as it lasted"),
    "day": N_("for as many days as it lasted"),
}
#: What a lost attribute drags down with it (core.effects_vocabulary.AttributeLoss.cascade).
CASCADE_WORDS = {"mental": N_("mental skills, spells and psionic powers drop by as much (adjust them by hand)")}

#: Every code family and its table: tests/unit/test_effect_words.py holds each to the catalog.
FAMILIES: Mapping[str, Mapping[str, str | tuple[str, str]]] = {
    "trait category": TRAIT_CATEGORY_WORDS,
    "condition": CONDITION_WORDS,
    "recovery": RECOVERY_WORDS,
    "unit": UNIT_COUNT_WORDS,
    "unit interval": UNIT_EVERY_WORDS,
    "unit intervals": UNIT_EVERY_N_WORDS,
    "unit as long": UNIT_SAME_WORDS,
    "cascade": CASCADE_WORDS,
}

# --- single codes


def condition_label(condition: str) -> str:
    """'stun' -> 'stunned' / '朦朧'; a condition the GM named is shown as named."""
    return _(CONDITION_WORDS[condition]) if condition in CONDITION_WORDS else condition


def category_label(category: str) -> str:
    """'severe phobia' -> 'severe phobia' / '強い恐怖症'; an unknown category as it is."""
    severe = category.startswith("severe ")
    base = category[len("severe ") :] if severe else category
    word = _(TRAIT_CATEGORY_WORDS[base]) if base in TRAIT_CATEGORY_WORDS else base
    return _("severe {category}").format(category=word) if severe else word


def placeholder_name(category: str, severity: str | None = None) -> str:
    """The name a new trait gets until the GM renames it: a name, so always Japanese
    ("未命名の強い恐怖症 (恐怖判定)"), whatever language the output is in."""
    with speaking("ja"):
        label = category_label(f"severe {category}" if severity == "severe" else category)
    return f"未命名の{label} (恐怖判定)"


def count_label(amount: int, unit: str) -> str:
    """(4, 'turn') -> '4 turns' / '4ターン'."""
    singular, plural = UNIT_COUNT_WORDS[unit]
    return ngettext(singular, plural, amount).format(n=amount)


def recovery_label(recovery: str, every: int | None = None, every_unit: str | None = None) -> str:
    """'Will roll every turn' / '毎ターンの意思判定': how a condition ends."""
    words = _(RECOVERY_WORDS[recovery])
    if every is None or every_unit is None:
        return words
    if every == 1:
        interval = _(UNIT_EVERY_WORDS[every_unit])
    else:
        singular, plural = UNIT_EVERY_N_WORDS[every_unit]
        interval = ngettext(singular, plural, every).format(n=every)
    return _("{recovery} {every}").format(recovery=words, every=interval)


def duration_label(codes: Mapping[str, Any]) -> str:
    """A condition's length from its codes: '4 turns', or 'until recovered (HT roll every
    30 minutes)'. KeyError for a code this version does not know."""
    duration = codes.get("duration")
    if duration is not None:
        return count_label(duration, codes["unit"])
    how = recovery_label(codes["recovery"], codes.get("every"), codes.get("every_unit"))
    return _("until recovered ({how})").format(how=how)


def after_label(codes: Mapping[str, Any]) -> str | None:
    """How long the penalty after recovering lasts ('for 6 hours'); None without one."""
    from campaign.core.followup import after_texts

    if codes.get("after_penalty") is None:
        return None
    if codes.get("after_duration") == SAME:
        return _(UNIT_SAME_WORDS[codes.get("after_unit") or "day"])
    english, japanese = after_texts(codes) or ("", "")  # a span of campaign time (core.gametime)
    return japanese if is_ja() else english


def both(render: Any, *args: Any) -> tuple[str, str]:
    """(Japanese, English) of one rendering: what `--json` keeps of older documents."""
    with speaking("ja"):
        japanese = render(*args)
    with speaking("en"):
        english = render(*args)
    return japanese, english


def condition_words(codes: Mapping[str, Any]) -> dict[str, str]:
    """The words `--json` has always given a fright condition beside its codes (both
    languages, language-neutral as the document is): label, length and recovery."""
    label_ja, _label_en = both(condition_label, codes["condition"])
    duration_ja, duration_en = both(duration_label, codes)
    recovery_ja, recovery_en = both(recovery_label, codes["recovery"])
    return {
        "label_ja": label_ja,
        "duration_ja": duration_ja,
        "recovery_en": recovery_en,
        "recovery_ja": recovery_ja,
        "duration_text": duration_en,
    }


def cascade_words(cascade: str) -> dict[str, str]:
    japanese, english = both(lambda: _(CASCADE_WORDS[cascade]))
    return {"cascade_ja": japanese, "cascade_en": english}


# --- an applied effect


def effect_document(effect: AppliedEffect) -> dict[str, Any]:
    """An applied effect as `--json` prints it: its record, with the words the document
    has always carried for a condition and a cascade (in both languages)."""
    record = effect.record()
    if isinstance(effect, AppliedCondition):
        return _before(record, "origin", condition_words(record))
    if isinstance(effect, AppliedAttribute) and effect.cascade in CASCADE_WORDS:
        return _before(record, "tracked", cascade_words(effect.cascade))
    return record


def effect_documents(effects: tuple[AppliedEffect, ...]) -> list[dict[str, Any]]:
    return [effect_document(effect) for effect in effects]


def _before(record: dict[str, Any], key: str, extra: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in record.items():
        if name == key:
            out.update(extra)
        out[name] = value
    return out


def effect_lines(name: str, effect: AppliedEffect) -> list[str]:
    """What one applied effect did to the character `name`, a sentence a line."""
    if isinstance(effect, AppliedTrait):
        return _trait_lines(name, effect)
    if isinstance(effect, AppliedEscalation):
        return _escalation_lines(name, effect)
    if isinstance(effect, AppliedCondition):
        return [_condition_line(name, effect)]
    if isinstance(effect, AppliedPool):
        return [_pool_line(name, effect)]
    return _attribute_lines(name, effect)


def _trait_lines(name: str, effect: AppliedTrait) -> list[str]:
    lines = [
        _("{name}: gained {category} '{trait}' ({cp} CP, no points, not counted toward the limit)").format(
            name=name, category=category_label(effect.category), trait=effect.name, cp=effect.cp
        )
    ]
    if effect.placeholder:
        lines.append(
            _("a placeholder name: campaign trait rename {name} '{trait}' NEW_NAME").format(
                name=name, trait=effect.name
            )
        )
    return lines


def _escalation_lines(name: str, effect: AppliedEscalation) -> list[str]:
    lines = [
        _("{name}: '{trait}' worsened to a severe phobia ({old} → {new} CP)").format(
            name=name, trait=effect.trait, old=effect.old_cp, new=effect.new_cp
        )
    ]
    if effect.limit_cp is not None:
        lines.append(
            "    "
            + _("{limit} CP counts toward the limit, {unlimited} CP (from the fright check) does not").format(
                limit=effect.limit_cp, unlimited=effect.unlimited_cp
            )
        )
    return lines


def _condition_line(name: str, effect: AppliedCondition) -> str:
    spec = effect.spec
    codes = effect.codes()
    condition = condition_label(spec.condition)
    how = recovery_label(spec.recovery, spec.every, spec.every_unit)
    if spec.duration is not None:
        line = _("{name}: {condition} for {duration}").format(
            name=name, condition=condition, duration=duration_label(codes)
        )
        if spec.recovery != "auto":
            line += _(", then {how} to recover").format(how=how)
    else:
        line = _("{name}: {condition} until recovered ({how})").format(name=name, condition=condition, how=how)
    if spec.defense_penalty is not None:
        line += _(", active defense {penalty}").format(penalty=spec.defense_penalty)
    if spec.severity is not None:
        line += _(" (severity {severity})").format(severity=spec.severity)
    after = after_label(codes)
    if after is not None:
        line += _("; {penalty} to all rolls {span} after recovering").format(penalty=spec.after_penalty, span=after)
    if effect.timed:
        line += _(" (runs out with `time advance`)")
    return line


def _pool_line(name: str, effect: AppliedPool) -> str:
    if not effect.tracked:
        words = (
            _("{name}: fatigue {amount} recorded only: no {pool} stat")
            if effect.kind == "fatigue"
            else _("{name}: injury {amount} recorded only: no {pool} stat")
        )
        return words.format(name=name, amount=effect.amount, pool=effect.pool)
    words = (
        _("{name}: {pool} {before} → {after} (fatigue {amount})")
        if effect.kind == "fatigue"
        else _("{name}: {pool} {before} → {after} (injury {amount})")
    )
    return words.format(name=name, pool=effect.pool, before=effect.before, after=effect.after, amount=effect.amount)


def _attribute_lines(name: str, effect: AppliedAttribute) -> list[str]:
    if not effect.tracked:
        return [
            _("{name}: permanent {stat} -{amount} recorded only: no such stat").format(
                name=name, stat=effect.stat, amount=effect.amount
            )
        ]
    lines = [
        _("{name}: {stat} {before} → {after} (permanent)").format(
            name=name, stat=effect.stat, before=effect.before, after=effect.after
        )
    ]
    for lowered in effect.with_it:  # a listed Will / HP falls with its attribute
        lines.append(
            _("{name}: {stat} {before} → {after} (with {attribute})").format(
                name=name, stat=lowered.stat, before=lowered.before, after=lowered.after, attribute=effect.stat
            )
        )
    if effect.cascade in CASCADE_WORDS:
        lines.append(_(CASCADE_WORDS[effect.cascade]))
    return lines


def condition_label_ja(condition: str) -> str | None:
    """The Japanese name of a known condition (`condition clear` takes it as well as the
    code); None for one the GM named."""
    if condition not in CONDITION_WORDS:
        return None
    with speaking("ja"):
        return condition_label(condition)


#: The words a fright condition's row held beside its codes before rows held codes only.
ROW_WORDS = ("label_ja", "duration_ja", "recovery_en", "recovery_ja")


def span_label(seconds: int) -> str:
    """A span of campaign time ('6 hours' / '6時間') in the output's language."""
    english, japanese = span_text(seconds)
    return japanese if is_ja() else english


def timed_words(codes: Mapping[str, Any]) -> tuple[str, str]:
    """(English, Japanese) of a timed condition's length: the span as the GM typed it
    (`span`: [[3, "turn"]] reads '3 turns'), else its `seconds`, largest units first."""
    if isinstance(codes.get("span"), list):
        parts = tuple((int(n), str(unit)) for n, unit in codes["span"])
        span = Span(sum(n * unit_seconds(unit) for n, unit in parts), parts)
        return span.text, span.text_ja
    return span_text(int(codes["seconds"]))


def is_timed(codes: Mapping[str, Any]) -> bool:
    """Whether a condition's detail holds the codes of a length the GM gave or a follow-up's."""
    return (isinstance(codes.get("span"), list) or isinstance(codes.get("seconds"), int)) and "recovery" not in codes


def timed_label(codes: Mapping[str, Any]) -> str:
    english, japanese = timed_words(codes)
    return japanese if is_ja() else english


def follow_up_summary(codes: Mapping[str, Any]) -> str:
    """'-2 to every roll for 6 hours after light coma' / '浅い昏睡から回復後 6時間 全判定-2':
    a penalty after waking (docs/rules.md "Penalty after waking") from its codes."""
    return _("{penalty} to every roll for {span} after {condition}").format(
        penalty=f"{codes['penalty']:+d}", span=span_label(codes["seconds"]), condition=condition_label(codes["follows"])
    )


def _timed_words(name: str | None, codes: Mapping[str, Any]) -> dict[str, str]:
    """The words `--json` has always given a condition the GM timed (`condition add --for`)
    or a follow-up penalty beside its codes, made from its length (timed_words)."""
    words: dict[str, str] = {}
    label = condition_label_ja(name) if name is not None else None
    if label is not None:
        words["label_ja"] = label
    words["duration_ja"] = timed_words(codes)[1]
    if "follows" in codes and "penalty" in codes:
        words["summary_ja"], words["summary_en"] = both(follow_up_summary, codes)
    return words


def shown_condition(
    duration: str | None, detail: dict[str, Any] | None, name: str | None = None
) -> tuple[str | None, dict[str, Any] | None]:
    """A condition row's length and detail as `--json` has always shown them: a row that
    holds the codes of a fright condition, or the length of a timed one (`seconds`), gets
    its words made from them (rows written before kept the words themselves, which the
    codes give again where there are codes; `name` gives a known condition's label)."""
    if not detail or "duration_ja" in detail:
        return duration, detail
    if is_timed(detail):
        return duration or timed_words(detail)[0], {**detail, **_timed_words(name, detail)}
    if "recovery" not in detail or "condition" not in detail:
        if name is not None and condition_label_ja(name) is not None:  # a known condition, untimed
            return duration, {**detail, "label_ja": condition_label_ja(name)}
        return duration, detail
    try:
        words = condition_words(detail)
    except (KeyError, TypeError):
        return duration, detail
    return duration or words["duration_text"], {**detail, **{key: words[key] for key in ROW_WORDS}}


def effect_summary(effect: AppliedEffect) -> str:
    """One short line of an effect for a phone (the table page's latest entries): the
    same words as `effect_lines`, fewer of them."""
    if isinstance(effect, AppliedTrait):
        return _("gained {trait} ({cp})").format(trait=effect.name, cp=_signed_cp(effect.cp))
    if isinstance(effect, AppliedEscalation):
        return _("{trait} worsened to a severe phobia ({old} → {new} CP)").format(
            trait=effect.trait, old=effect.old_cp, new=effect.new_cp
        )
    if isinstance(effect, AppliedCondition):
        return f"{condition_label(effect.spec.condition)} {duration_label(effect.codes())}".strip()
    if isinstance(effect, AppliedPool):
        return _("{pool} −{amount}").format(pool=effect.pool, amount=effect.amount)
    return _("{stat} lowered by {amount}").format(stat=effect.stat, amount=effect.amount)


def _signed_cp(value: int) -> str:
    return f"{value:+d} CP".replace("-", "−")


# --- a condition as a ledger record holds it, and as it is shown

_CLOCKS = ("since", "until", "recovery_due")
#: The words a condition's view carries beside its codes (made again from them when shown).
VIEW_WORDS = ("label_ja", "duration", "remaining", "remaining_ja")


class ClockReading(TypedDict):
    """A campaign clock reading as `--json` has always shown it."""

    clock: int
    text: str  # "day 2 06:00"
    text_ja: str  # "2日目 06:00"


@overload
def clock_reading(clock: int) -> ClockReading: ...
@overload
def clock_reading(clock: int | None) -> ClockReading | None: ...
def clock_reading(clock: int | None) -> ClockReading | None:
    """A campaign clock (seconds) as `--json` shows it, with its words in both languages."""
    if clock is None:
        return None
    english, japanese = clock_text(clock)
    return {"clock": clock, "text": english, "text_ja": japanese}


def span_document(seconds: int) -> dict[str, Any]:
    """A span of campaign time as `--json` shows it: its seconds, then its words."""
    english, japanese = span_text(seconds)
    return {"seconds": seconds, "span": english, "span_ja": japanese}


def condition_shown(codes: Mapping[str, Any]) -> dict[str, Any]:
    """A condition as a ledger entry records it (its name, its row's detail codes, clock
    readings as {"clock": n}, `remaining_seconds`) with the words `--json` has always
    shown beside them, in the same order. Older records, which kept the words, get them
    made again from their codes where the codes allow, so both read alike."""
    name = codes.get("name")
    duration, detail = shown_condition(codes.get("duration"), codes.get("detail"), name)
    shown: dict[str, Any] = {}
    for key, value in codes.items():
        if key in VIEW_WORDS:
            continue
        if key == "name":
            shown["name"] = value
            shown["label_ja"] = condition_label_ja(value) or (detail or {}).get("label_ja")  # code first
            shown["duration"] = duration
        elif key == "detail":
            shown["detail"] = detail
        elif key in _CLOCKS:
            shown[key] = clock_reading(value["clock"]) if isinstance(value, dict) and "clock" in value else value
        elif key == "remaining_seconds":
            shown[key] = value
            shown["remaining"], shown["remaining_ja"] = span_text(value)
        else:
            shown[key] = value
    return shown


def condition_document(view: ConditionView) -> dict[str, Any]:
    """A condition view as `--json` prints it (condition_shown of its record)."""
    return condition_shown(view.record())


def condition_documents(views: tuple[ConditionView, ...]) -> list[dict[str, Any]]:
    return [condition_document(view) for view in views]


def condition_document_or_none(view: ConditionView | None) -> dict[str, Any] | None:
    return None if view is None else condition_document(view)
