"""`campaign roll`: any dice expression, judged by the campaign's rules, logged."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from sqlalchemy.orm import Session

from campaign import ledger
from campaign.core.dice import evaluate
from campaign.core.dice_parse import spaced_expression_hint, split_comment
from campaign.core.dice_source import DiceSource
from campaign.db.database import Database
from campaign.errors import BadInput
from campaign.i18n import _
from campaign.services.common import campaign_transaction, character_named, clean_text
from campaign.services.ledger.history import entry_view

if TYPE_CHECKING:
    from campaign.services.checks.lingering import RollPenalty

_TABLE_HEAD = re.compile(r"^\s*([A-Za-z][A-Za-z0-9]*)\s*[+-]")


def _is_table_command(word: str) -> bool:
    """True for a table command; a table name with a modifier it does not take (CRT+1)
    is refused here with the same message as `table roll`, not read as dice."""
    from campaign.core.table_roll import table_for_command
    from campaign.seeds import load_tables

    if table_for_command(word, load_tables()) is not None:
        return True
    head = _TABLE_HEAD.match(word)
    if head and head.group(1).upper() in load_tables():
        from campaign.services.checks.tables import find_table

        find_table(word)  # raises: "table CRT takes no modifier (only FEAR+n and REACT±n do)"
    return False


def _reference_command(word: str) -> bool:
    """True for the command of a rollable reference table (`HIT`, any case)."""
    from campaign.seeds import load_references

    upper = word.upper()
    return any(table.rollable and table.command == upper for table in load_references().values())


def roll(
    db: Database,
    campaign_name: str | None,
    actor: str,
    text: str,
    source: DiceSource,
    *,
    character: str | None = None,
    reason: str | None = None,
    sorcery: bool = False,
    ask: Any = None,
) -> dict[str, Any]:
    """Roll `text` and append it as one ledger entry; returns it as `history` shows it.

    A repeat (`x3 3D6<=12`, `rep3`, `repeat3`, `3 3D6<=12`) is one entry a roll, all
    written in one transaction or none: see `_roll_repeat` for what it returns.

    A BCDice table command (`CRT`, `fmb`, `FEAR+5`, `REACT-1`, `HIT`) as the first word is a table roll
    (services.checks.tables): the same entry shape plus `sub_entries` for its extra rolls; the
    words after it are the comment, as for any expression.

    `sorcery` flags a GURPS success roll as sorcery (docs/rules.md "Success roll": 17 and 18 always critically
    fail); any other expression is refused with it.
    """
    reason = clean_text(reason, "--reason")
    text = clean_text(text, "expression", limit=1000)
    from campaign.core.bcdice_text import repeat_of

    repeat = repeat_of(text, count_first=True)
    if repeat is not None:
        return _roll_repeat(
            db, campaign_name, actor, repeat, source, character=character, reason=reason, sorcery=sorcery, ask=ask
        )
    secret, text = secret_prefix(text)
    words = text.split(None, 1)
    # Dice expressions mostly start with a digit; only a word starting with a letter
    # (CRT, FEAR+5, but also D66) pays for loading the seed tables.
    if (
        not secret
        and words
        and words[0][:1].isascii()
        and words[0][:1].isalpha()
        and (_reference_command(words[0]) or _is_table_command(words[0]))
    ):
        if sorcery:
            raise BadInput(_("--sorcery applies to a GURPS success roll such as 3D6<=12, not to a table"))
        comment = words[1].strip() if len(words) > 1 else None
        if _reference_command(words[0]):  # BCDice's HIT: the seed's hit location table
            from campaign.services.checks.reference import roll_reference_table

            return roll_reference_table(
                db,
                campaign_name,
                actor,
                words[0].upper(),
                source,
                character=character,
                reason=reason if reason is not None else comment or None,
            )
        from campaign.services.checks.tables import roll_table

        return roll_table(
            db,
            campaign_name,
            actor,
            words[0],
            source,
            character=character,
            reason=reason if reason is not None else comment or None,
            ask=ask,
        )
    hint = spaced_expression_hint(text)
    if hint is not None:
        rolled = split_comment(text)[0]
        raise BadInput(
            _(
                "{value!r}: words after a space are a comment, so this would roll just {rolled}; write it without "
                "spaces: {hint}"
            ).format(value=text.strip(), rolled=rolled, hint=hint)
        )
    with campaign_transaction(db, campaign_name) as (session, campaign):
        row = character_named(session, campaign, character) if character else None
        who = row.name if row is not None else None
        warnings: list[str] = []
        if row is not None:  # only then pay for the presence queries
            from campaign.services.characters.presence import roll_warnings

            warnings = roll_warnings(session, [row])
        from campaign.core.dice_source import about

        skill = None
        if row is not None:  # `roll 回避-2 --char 鈴音`: 3D6 against the sheet's level (services.checks.skill_rolls)
            from campaign.services.checks.skill_rolls import skill_roll

            found = skill_roll(text, row, campaign.ruleset)
            if found is not None:
                text, skill = found.text, found.source
        with about(source, who):
            result = evaluate(text, source, gurps=campaign.ruleset == "gurps3-ja", sorcery=sorcery)
        source.ensure_all_used()  # leftover --dice faces are a typo: refuse before writing
        penalties: list[RollPenalty] = []
        if row is not None and result.judgement is not None and not result.repeats:
            from campaign.services.checks.lingering import penalized_roll, roll_penalties

            penalties = roll_penalties(row, session)  # the -2 after waking (docs/rules.md)
            written, result = result.target, penalized_roll(result, penalties)
        detail = result.to_detail()
        if skill is not None:
            detail["from_sheet"] = skill
        if penalties:
            detail["penalties"] = penalties
            detail["written_target"] = written
        entry = ledger.NewEntry(
            kind="roll",
            character=who,
            expression=result.expression,
            dice=list(result.faces),
            # `x3 2D6` is three results, each in detail["repeats"], as BCDice shows them: no sum.
            total=None if result.repeats else result.total,
            target=result.target,
            outcome=result.outcome,
            margin=result.margin,
            source=source.kind,
            reason=reason if reason is not None else result.comment,
            detail=detail,
        )
        if secret:
            from campaign.services.checks.secret_rolls import append_secret

            appended = append_secret(session, campaign, actor, entry)
        else:
            appended = ledger.append(session, campaign, actor, entry)
        view = entry_view(appended.record, appended.prev_hash, appended.hash, voided_by=None)
        if warnings:  # logged all the same: the GM may mean it, but a slip shows at once
            view["warnings"] = warnings
        return view


def is_secret(text: str) -> bool:
    """Whether `text` rolls in secret: `S3D6<=12`, or a secret repeat (`Sx3 3D6`, `x3 S3D6`)."""
    from campaign.core.bcdice_text import repeat_of

    repeat = repeat_of(text, count_first=True)
    return repeat[1] if repeat is not None else secret_prefix(text)[0]


def secret_prefix(text: str) -> tuple[bool, str]:
    """BCDice's secret roll: `S3D6<=12` is `3D6<=12`, rolled in secret."""
    import unicodedata

    stripped = text.lstrip()
    if len(stripped) > 1 and unicodedata.normalize("NFKC", stripped[0]).upper() == "S":
        following = unicodedata.normalize("NFKC", stripped[1]).upper()
        if following.isdigit() or following in "D(":
            return True, stripped[1:]
    return False, text


def _roll_repeat(
    db: Database,
    campaign_name: str | None,
    actor: str,
    repeat: tuple[int, bool, str],
    source: DiceSource,
    *,
    character: str | None,
    reason: str | None,
    sorcery: bool,
    ask: Any,
) -> dict[str, Any]:
    """Roll a repeat's command `count` times, each its own entry, as BCDice repeats it.

    Returns {"kind": "repeat", "seq" (the first entry's), "count", "secret", "text"
    (BCDice's `#1 ... #N` text; None for a secret repeat, whose results are hidden),
    "entries" (each as `roll` returns it)}. A count outside 1..REPEAT_LIMIT, a repeat of
    a repeat, a refused roll or leftover --dice faces write nothing."""
    from campaign.core.bcdice_text import REPEAT_LIMIT, entry_answer, repeat_of, repeat_text, system_of

    count, secret, command = repeat
    if not 1 <= count <= REPEAT_LIMIT:
        raise BadInput(_("repeat count must be 1..{limit}, not {repeat}").format(limit=REPEAT_LIMIT, repeat=count))
    if repeat_of(command, count_first=True) is not None:
        raise BadInput(_("a repeat cannot repeat another repeat: {command}").format(command=command))
    each = _LeftoversAtTheEnd(source)
    with db.write() as session:
        shared = _OneTransaction(db, session)
        entries = [
            roll(
                shared,
                campaign_name,
                actor,
                ("S" if secret else "") + command,
                each,
                character=character,
                reason=reason,
                sorcery=sorcery,
                ask=ask,
            )
            for _ in range(count)
        ]
        source.ensure_all_used()  # before the commit: a typo in --dice writes nothing
        from campaign.services.common import campaign_named

        system = system_of(campaign_named(session, campaign_name).ruleset)
    text = None if secret else repeat_text([entry_answer(system, entry).text for entry in entries])
    return {
        "kind": "repeat",
        "seq": entries[0]["seq"],
        "count": count,
        "secret": secret,
        "text": text,
        "entries": entries,
    }


class _OneTransaction(Database):
    """`db` whose every write() and read() is one open transaction: the rolls of a repeat
    share it, so the repeat is written whole or not at all (and a guarded request of the
    table page, which writes once, gets all of its entries). A Database by type so the
    services take it; it opens no engine of its own."""

    def __init__(self, db: Database, session: Session) -> None:
        self._db, self._session = db, session

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db, name)

    @contextmanager
    def write(self) -> Iterator[Session]:
        yield self._session

    @contextmanager
    def read(self) -> Iterator[Session]:
        yield self._session


class _LeftoversAtTheEnd:
    """The dice source as each roll of a repeat sees it: --dice faces are the whole
    repeat's, so only after the last roll can a leftover face be told from the next roll's."""

    def __init__(self, source: DiceSource) -> None:
        object.__setattr__(self, "_source", source)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._source, name)

    def __setattr__(self, name: str, value: Any) -> None:  # core.dice_source.about names the subject
        setattr(self._source, name, value)

    def ensure_all_used(self) -> None:
        return None
