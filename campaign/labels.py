"""Words for codes: the one place a ledger record's codes become Japanese and English text.

Ledger records are hashed, so a sentence stored in one can never be corrected. New
records hold codes and numbers ({"kind": "condition", "condition": "stun", "duration": 3,
"unit": "turn", "recovery": "auto"}, a fright table entry by its number, a sub-roll by
its purpose); the text is made here when something is shown (a table roll's, from the
seed tables, in campaign.table_labels). Records written before
that hold the text themselves: every function keeps a text a record already has, so old
history reads as it always did.

Words are in the language of the output (campaign.i18n): English in the code, the
Japanese in the catalog (campaign/locale), one language per line.

No I/O of its own (the fright table's texts come from campaign.seeds' cached loader), so
services and the CLI both use it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from campaign.core.applied_effects import FrightNote
from campaign.core.condition_view import ConditionView
from campaign.effect_words import (  # the words of effects live there; these names stay importable here
    CASCADE_WORDS,
    cascade_words,
    condition_shown,
    condition_words,
    duration_label,
    follow_up_summary,
    is_timed,
    timed_label,
)
from campaign.effect_words import CONDITION_WORDS as CONDITION_WORDS
from campaign.effect_words import TRAIT_CATEGORY_WORDS as TRAIT_CATEGORY_WORDS
from campaign.effect_words import category_label as category_label
from campaign.effect_words import condition_label as condition_label
from campaign.i18n import N_, _, is_ja, pgettext

#: Outcome words as BCDice prints them (成功 / 失敗 / クリティカル / ファンブル) in Japanese.
OUTCOME_WORDS = {
    "success": N_("success"),
    "failure": N_("failure"),
    "critical_success": N_("critical success"),
    "critical_failure": N_("critical failure"),
}
#: GURPS outcomes in the words of the seed tables (クリティカル表 / ファンブル表).
OUTCOME_LABELS = {
    "success": "成功",
    "failure": "失敗",
    "critical_success": "クリティカル",
    "critical_failure": "ファンブル",
}
#: The 2d6 checks (docs/rules.md "2d6 checks") call their criticals 大成功 / 大失敗.
CHECK_OUTCOME_LABELS = {**OUTCOME_LABELS, "critical_success": "大成功", "critical_failure": "大失敗"}


def outcome_label(kind: str | None, outcome: str, gurps: dict[str, Any] | None = None) -> str:
    """The word for an outcome code in the output's language; a 2d6 check ("check") says
    大成功 / 大失敗 in Japanese.

    `gurps` is a success roll's judgement record: a failure it marks `automatic` (a raw 17
    at target 16 or more) is BCDice's 自動失敗 (docs/rules.md, "Success roll").
    """
    if outcome == "failure" and gurps and gurps.get("automatic"):
        return _("automatic failure")
    if kind == "check" and outcome == "critical_success":
        return pgettext("2d6", "critical success")
    if kind == "check" and outcome == "critical_failure":
        return pgettext("2d6", "critical failure")
    return _(OUTCOME_WORDS[outcome]) if outcome in OUTCOME_WORDS else outcome


SUB_ROLL_LABELS = {
    "table": N_("fright table"),
    "stun_turns": N_("stun turns"),
    "fatigue": N_("fatigue (FP)"),
    "injury": N_("injury (HP)"),
}
# The fright condition texts a record may hold; new records hold only the codes.
CONDITION_TEXT_KEYS = ("label_ja", "duration_ja", "duration_text", "recovery_en", "recovery_ja")
CASCADE_TEXT_KEYS = ("cascade_ja", "cascade_en")
TABLE_TEXT_KEYS = ("ja", "en")


#: Ledger entry kinds as a table column names them (English shows the code itself).
KIND_WORDS = {
    kind: kind
    for kind in (
        N_("campaign"),
        N_("setting"),
        N_("player"),
        N_("character"),
        N_("relation"),
        N_("roll"),
        N_("table"),
        N_("check"),
        N_("fright"),
        N_("trait"),
        N_("condition"),
        N_("missing"),
        N_("search"),
        N_("scenario"),
        N_("reunion"),
        N_("void"),
        N_("seal"),
        N_("reveal"),
        N_("seed_commit"),
        N_("seed_reveal"),
        N_("seed_abandon"),
        N_("award"),
        N_("time"),
        N_("skill"),
        N_("damage"),
        N_("heal"),
        N_("note"),
        N_("rename"),
        N_("void_request"),
        N_("void_refusal"),
        N_("status"),
    )
}
#: Where dice came from (codes: campaign.core.dice_source), in words a player understands
#: in Japanese (「GMが入力した出目」); English shows the code.
SOURCE_WORDS = {
    source: source for source in (N_("manual"), N_("rng"), N_("server"), N_("seeded"), N_("ccfolia"), N_("bcdice-api"))
}
#: Stat names a sentence spells out (the abbreviations ST, DX, IQ, HT, HP, FP stay as they are).
STAT_WORDS = {"Will": N_("Will"), "Per": N_("Per")}

#: Time zones a Japanese page names in words (the rest by their IANA name): the zone the
#: campaign's times are shown in, named on every page (campaign.web.present.zone_label).
ZONE_WORDS_JA = {
    "Asia/Tokyo": "日本時間",
    "Japan": "日本時間",
    "JST": "日本時間",
    "Asia/Seoul": "韓国時間",
    "KST": "韓国時間",
}


def zone_label(zone: str) -> str:
    """A zone's name in the output's language: 日本時間 for Asia/Tokyo on a Japanese page,
    the IANA name (or the system's abbreviation) otherwise."""
    from campaign.i18n import pick

    return pick(ZONE_WORDS_JA.get(zone, zone), zone)


def status_label(status: str) -> str:
    """A character's status in the output's language (English shows the code; "active" is
    a context of its own: an opposed check's active side is another word in Japanese)."""
    words = {
        "active": lambda: pgettext("status", "active"),
        "missing": lambda: pgettext("status", "missing"),
        "dead": lambda: pgettext("status", "dead"),
        "retired": lambda: pgettext("status", "retired"),
        "searching": lambda: pgettext("status", "searching"),
    }
    return words[status]() if status in words else status


def kind_label(kind: str) -> str:
    return _(KIND_WORDS[kind]) if kind in KIND_WORDS else kind


def source_label(source: str) -> str:
    return _(SOURCE_WORDS[source]) if source in SOURCE_WORDS else source


#: Where dice came from, as a phrase in either language (history show, stats, proofs):
#: the codes of campaign.core.dice_source, and `provable` (a committed seed and the
#: player's share, docs/fair-dice.md) as stats counts it apart.
SOURCE_PHRASES = {
    "manual": N_("dice typed by the GM"),
    "prompted": N_("physical dice, typed when asked"),
    "rng": N_("dice rolled by the GM's machine"),
    "server": N_("dice rolled by the server"),
    "bcdice-api": N_("dice rolled by BCDice-API"),
    "seeded": N_("dice from a fixed seed (demos and tests)"),
    "ccfolia": N_("dice from a CCFOLIA log"),
    "provable": N_("provably fair dice"),
    "unknown": N_("no source recorded"),
}
#: How far an entry's dice can be trusted (services.fair.seeds.fairness_of's codes).
FAIRNESS_WORDS = {
    "provable": N_("provable: a committed seed and the player's share"),
    "abandoned": N_("unprovable (seed abandoned)"),
    "server": N_("a machine's dice, not provable"),
    "typed": N_("typed in, not provable"),
    "imported": N_("read from a chat log, not provable"),
}


def source_words(source: str) -> str:
    """'manual' -> 'dice typed by the GM' / 'GMが入力した出目'; another import names itself."""
    if source in SOURCE_PHRASES:
        return _(SOURCE_PHRASES[source])
    return _("dice imported from {source}").format(source=source)


def fairness_label(fairness: str) -> str:
    return _(FAIRNESS_WORDS[fairness]) if fairness in FAIRNESS_WORDS else fairness


def stat_label(stat: str) -> str:
    return _(STAT_WORDS[stat]) if stat in STAT_WORDS else stat


#: A GURPS sheet's stats as a Japanese sheet spells them (seeds/rulesets/stats.toml's
#: gurps3-ja names): the pages show 体力 where the terminal keeps the abbreviation ST.
SHEET_STATS_JA = {
    "ST": "体力",
    "DX": "敏捷力",
    "IQ": "知力",
    "HT": "生命力",
    "Per": "知覚",
    "Speed": "基本移動速度",
    "Move": "移動力",
}


def sheet_stat_label(stat: str) -> str:
    """A stat as a page in the output's language names it: the sheet's Japanese name on a
    Japanese page (体力, 意志), else the stored name."""
    return SHEET_STATS_JA.get(stat, stat_label(stat)) if is_ja() else stat_label(stat)


#: The reasons services record when the GM gives none (older records hold them too).
DEFAULT_REASONS = {
    reason: reason
    for reason in (
        N_("added"),
        N_("created"),
        N_("settings changed"),
        N_("stats changed"),
        N_("start"),
        N_("end"),
        N_("sheet imported"),
        N_("imported without its seed (seeds are never exported)"),  # services.fair.on_import
        N_("player renamed"),
        N_("character renamed"),
        N_("renamed"),
        N_("cleared"),
        N_("recovery roll"),
        N_("faces"),
        N_("skill add"),
        N_("skill set"),
        N_("skill remove"),
        N_("item added"),
        N_("item removed"),
        N_("note added"),
        N_("note removed"),
        N_("damage"),
        N_("heal"),
    )
}


def reason_label(reason: str | None) -> str | None:
    """A recorded reason as shown: a service's default ("settings changed", "scenario #3")
    in the output's language; the GM's own words as written."""
    if reason is None:
        return None
    if reason in DEFAULT_REASONS:
        return _(DEFAULT_REASONS[reason])
    import re

    match = re.fullmatch(r"scenario #(\d+)", reason)
    if match:
        return _("scenario #{number}").format(number=match.group(1))
    # the reason an approved void request records (services.disputes.requests.approve)
    match = re.fullmatch(r"approved void request #(\d+) by (.+?)(?:: (.*))?", reason, re.S)
    if match:
        return _("approved void request #{seq} by {player}: {reason}").format(
            seq=match.group(1), player=match.group(2), reason=match.group(3) or ""
        )
    return reason


_ODDS = None


def odds_label(odds: str) -> str:
    """'needs <= 3 on 1d6 (50%)' (campaign.core.reunion's words, kept in results and
    --json) in the output's language."""
    import re

    global _ODDS
    _ODDS = _ODDS or re.compile(r"needs <= (\d+) on 1d(\d+) \(([^)]*)\)")
    match = _ODDS.fullmatch(odds or "")
    if match is None:
        return odds
    return _("needs <= {threshold} on 1d{faces} ({chance})").format(
        threshold=match.group(1), faces=match.group(2), chance=match.group(3)
    )


def sub_roll_label(purpose: str) -> str:
    """ "stun turns" (朦朧のターン数) for a fright sub-roll's purpose code."""
    if purpose in SUB_ROLL_LABELS:
        return _(SUB_ROLL_LABELS[purpose])
    kind, _sep, what = purpose.partition(":")
    if kind == "duration":
        return _("{condition} duration").format(condition=condition_label(what))
    if kind == "severity":
        return _("{condition} severity").format(condition=condition_label(what))
    if kind == "check":
        return _("{stat} roll").format(stat=what)
    return purpose


_DURATION_CODES = ("duration", "unit", "recovery", "every", "every_unit")


def condition_duration(duration: str | None, detail: Mapping[str, Any] | None) -> str:
    """How long a condition lasts in the output's language, from its codes (duration,
    unit, recovery); a condition whose codes this version does not know (or one the GM
    timed, which has none) by the words its record holds."""
    detail = detail or {}
    if is_timed(detail):  # the GM's --for, a follow-up
        return timed_label(detail)
    if detail.get("recovery") is not None or detail.get("unit") is not None:
        try:
            return duration_label({key: detail.get(key) for key in _DURATION_CODES})
        except KeyError:  # codes this version does not know: the recorded words
            pass
    return (detail.get("duration_ja") or duration or "") if is_ja() else (duration or "")


# The order older documents gave the words of a condition made from its codes.
_WORDS_ORDER = ("label_ja", "duration_ja", "duration_text", "recovery_en", "recovery_ja")


def fright_effect(effect: dict[str, Any]) -> dict[str, Any]:
    """A recorded fright effect with its words, made from its codes (an older record's
    own words stay only where its codes are unknown here)."""
    kind = effect.get("kind")
    if kind == "condition":
        try:
            words = condition_words(effect)
        except (KeyError, TypeError):
            return effect
        return {**effect, **{key: words[key] for key in _WORDS_ORDER}}
    if kind == "lose_attribute" and effect.get("cascade") in CASCADE_WORDS:
        return {**effect, **cascade_words(effect["cascade"])}
    return effect


def fright_table_entry(table: dict[str, Any] | None) -> dict[str, Any] | None:
    """The fright table's roll with the entry's own text, looked up by its number when the
    record holds only the number (the seed table is the text's one home)."""
    if not table or ("ja" in table and "en" in table) or not isinstance(table.get("entry"), int):
        return table
    from campaign.seeds import fright_table

    try:
        entry = fright_table().entry_for(table["entry"])
    except (KeyError, ValueError):
        return table
    return {**table, "ja": entry.ja, "en": entry.en}


def fright_detail(detail: dict[str, Any]) -> dict[str, Any]:
    """A fright entry's detail as shown: its table entry and effects with their words."""
    shown = dict(detail)
    if isinstance(detail.get("table"), dict):
        shown["table"] = fright_table_entry(detail["table"])
    if detail.get("purpose") == "table" and "entry" in detail:  # the table roll's own sub-entry
        shown.update(fright_table_entry(detail) or {})
    if isinstance(detail.get("effects"), list):
        shown["effects"] = [fright_effect(e) if isinstance(e, dict) else e for e in detail["effects"]]
    if isinstance(detail.get("notes"), list):
        shown["notes"] = [note_text(note) for note in detail["notes"]]
    return shown


def note_texts(notes: tuple[FrightNote, ...]) -> list[str]:
    """A fright check's notes, each said (what `--json` has always listed)."""
    return [note_text(note.record()) for note in notes]


def note_text(code: Any) -> str:
    """A fright check's note: older records hold the sentence, newer ones its code."""
    if not isinstance(code, dict):
        return str(code)
    note = code.get("note")
    if note == "pick_unused":
        return _("--pick {pick!r} names an existing trait; the new trait got a placeholder name").format(
            pick=code["pick"]
        )
    if note == "mild_phobias":
        return _(
            "{character} has the mild phobia(s) {names}: to worsen one instead of the new trait, void this "
            "check and roll again with --pick NAME, or change it with `trait` commands"
        ).format(character=code["character"], names=", ".join(code["phobias"]))
    if note == "pool_untracked":
        pool = code["pool"]
        return _(
            "{character} has no {pool} stat (nor {base} to derive it from): the loss of {amount} {pool} is "
            "recorded but no pool changed"
        ).format(character=code["character"], pool=pool, amount=code["amount"], base="ST" if pool == "FP" else "HT")
    if note == "stat_untracked":
        return _("{character} has no {stat} stat: the permanent loss is recorded only").format(
            character=code["character"], stat=code["stat"]
        )
    return str(note)


def entry_reason(record: dict[str, Any]) -> str | None:
    """The reason shown for an entry: its own, else the label its codes stand for (a
    fright sub-roll records its purpose, not the words)."""
    reason: str | None = record.get("reason")  # the ledger writes a string or null
    if reason is not None:
        return reason
    detail = record.get("detail") or {}
    if (
        record.get("kind") == "fright"
        and record.get("parent_seq") is not None
        and isinstance(detail.get("purpose"), str)
    ):
        return sub_roll_label(detail["purpose"])
    if record.get("kind") == "table" and record.get("parent_seq") is not None:
        from campaign.table_labels import sub_reason

        return sub_reason(record)
    return None


def danger_band(band: Any) -> Any:
    """A danger-sense band with its words: those it holds (older records), else by its label."""
    if not isinstance(band, dict) or ("ja" in band and "en" in band):
        return band
    from campaign.core.checks2d6 import DANGER_BANDS

    for known in DANGER_BANDS:
        if known.label == band.get("label"):
            return {**band, "ja": known.ja, "en": known.en}
    return band


def shown_detail(record: dict[str, Any], sub_records: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """An entry's detail as a person reads it: the record's codes with their words. A
    table roll's printed lines also need its sub-entries' records (`sub_records`)."""
    detail: dict[str, Any] = record.get("detail") or {}  # the ledger writes an object
    if not isinstance(detail, dict):
        return detail
    if record.get("kind") == "fright":
        return fright_detail(detail)
    if record.get("kind") == "table":
        from campaign.table_labels import table_detail

        return table_detail(record, sub_records)
    if record.get("kind") == "check" and isinstance(detail.get("band"), dict):
        return {**detail, "band": danger_band(detail["band"])}
    if record.get("kind") == "condition":
        return condition_detail(detail)
    return detail


def clock_words(reading: Mapping[str, Any]) -> str:
    """A campaign clock reading ({"clock": n, ...}) in the output's language: "day 2 06:00" / "2日目 06:00"."""
    return clock_label(int(reading["clock"]))


def clock_label(clock: int) -> str:
    """A campaign clock (seconds) in the output's language: "day 2 06:00" / "2日目 06:00"."""
    from campaign.core.gametime import clock_text

    english, japanese = clock_text(clock)
    return japanese if is_ja() else english


def named_condition(name: str, label_ja: str | None = None) -> str:
    """A condition's name in the output's language: a known one by its code, one the GM
    named as named (an older record's own Japanese label, `label_ja`, where it kept one)."""
    if name in CONDITION_WORDS or not is_ja():
        return condition_label(name)
    return label_ja or name


def condition_name(view: ConditionView) -> str:
    return named_condition(view.name, view.recorded_label_ja)


def condition_length(view: ConditionView) -> str:
    """How long a condition lasts (condition_duration of its codes)."""
    return condition_duration(view.duration, view.detail)


def condition_shown_words(view: ConditionView) -> str:
    """'stunned 6 hours until day 1 06:00': a condition put on, as `condition add` and
    `history show` say it."""
    what = " ".join(filter(None, (condition_name(view), condition_length(view))))
    if view.until is not None:
        what = _("{condition} until {time}").format(condition=what, time=clock_label(view.until))
    return what


def follow_up_words(view: ConditionView) -> str:
    """'-2 to every roll for 6 hours after light coma': a penalty after waking
    (docs/rules.md "Penalty after waking") from its codes; an older record without its
    length in seconds by the words it kept."""
    detail = view.detail or {}
    if isinstance(detail.get("seconds"), int) and "follows" in detail and "penalty" in detail:
        return follow_up_summary(detail)
    return str((detail.get("summary_ja") if is_ja() else detail.get("summary_en")) or "")


def follow_up_begun(character: str, view: ConditionView) -> str:
    """'鈴音: -2 to every roll for 6 hours after light coma (until day 1 08:00)'."""
    until = "" if view.until is None else clock_label(view.until)
    return _("{character}: {summary} (until {until})").format(
        character=character, summary=follow_up_words(view), until=until
    )


def condition_detail(detail: dict[str, Any]) -> dict[str, Any]:
    """A condition entry's detail (`condition add`, `clear`, `recover`) with the words of
    each condition it names, made from the codes the entry records."""
    shown = dict(detail)
    if isinstance(detail.get("condition"), dict):
        shown["condition"] = condition_shown(detail["condition"])
    for key in ("conditions", "follow_ups"):
        if isinstance(detail.get(key), list):
            shown[key] = [condition_shown(c) if isinstance(c, dict) else c for c in detail[key]]
    return shown


def strip_texts(effect: dict[str, Any]) -> dict[str, Any]:
    """A fright effect as a new record holds it: the codes, without the words made from them."""
    drop = (
        CONDITION_TEXT_KEYS
        if effect.get("kind") == "condition"
        else CASCADE_TEXT_KEYS
        if effect.get("kind") == "lose_attribute"
        else ()
    )
    return {key: value for key, value in effect.items() if key not in drop}


# How the roll column names a change of a character's numbers (the ops of the entry).
OP_TEXT = {
    "stat_set": lambda op: f"{op['stat']}={op['value']}",
    "stat_delta": lambda op: f"{op['stat']} {op['delta']:+d}",
    "cp_set": lambda op: f"CP={op['value']}",
    "cp_delta": lambda op: f"CP {op['delta']:+d}",
    "pool_set": lambda op: f"{op['pool']}={op['value']}",
    "pool_delta": lambda op: f"{op['pool']} {op['delta']:+d}",
    "trait_added": lambda op: f"+{op['trait']} {op['cp']:+d}",
    "trait_cp": lambda op: _("trait CP={cp}").format(cp=op["cp"]),
    "scenario_joined": lambda op: _("joins #{number}").format(number=op["number"]),
    "scenario_left": lambda op: _("leaves #{number}").format(number=op["number"]),
}


def ops_summary(ops: list[Any] | None) -> str:
    """`IQ=11 CP -10`: what an entry without dice changed, from its recorded ops."""
    parts = []
    for op in ops or []:
        render = OP_TEXT.get(str(op.get("op"))) if isinstance(op, dict) else None
        if render is not None:
            try:
                parts.append(render(op))
            except (KeyError, TypeError, ValueError):
                continue
    return " ".join(parts)


#: Success-rate families of the luck report (core.luck.FAMILIES), as a reader sees them.
FAMILY_WORDS = {
    "3d6": N_("3d6 success rolls (GURPS, criticals included)"),
    "2d6": N_("2d6 checks (criticals as the campaign set them)"),
    "plain": N_("other rolls against a target (plain comparison)"),
}


def family_label(family: str) -> str:
    """A success-rate family's code (core.luck.FAMILIES: 3d6, 2d6, plain) in the output's language."""
    return _(FAMILY_WORDS[family]) if family in FAMILY_WORDS else family


def luck_note(tests: int) -> str:
    """The explanation of the luck report's p-values (core.luck.honest_note's content,
    which core cannot translate), in the output's language."""
    if tests == 0:
        return _(
            "No test was made: too few dice (a test needs at least 5 expected per face, or 5 expected "
            "successes and failures)."
        )
    return _(
        "{tests} tests were made (each p-value is one). Even with perfectly fair dice a p-value falls below "
        "0.05 one time in 20, so about {expected} of these are expected below 0.05 by chance alone: a low "
        "p-value here and there is not evidence of unfair dice. Across {tests} tests only a p-value below "
        "{threshold} (0.05 / {tests}) stands out. Only dice the server rolled speak to the program's "
        "fairness; typed-in, seeded and imported dice are tallied apart."
    ).format(tests=tests, expected=f"{tests * 0.05:.1f}", threshold=f"{0.05 / tests:.2g}")


_OS_PROBLEMS = {2: N_("no such file"), 13: N_("permission denied"), 21: N_("it is a directory")}  # errno


def os_problem(exc: OSError) -> str:
    """Why a file could not be opened, in the output's language (the system's words otherwise)."""
    return _(_OS_PROBLEMS[exc.errno]) if exc.errno in _OS_PROBLEMS else str(exc.strerror or exc)
