"""Secret rolls (BCDice's `S3D6<=12`, `check ... --secret`): committed now, revealed later.

A secret roll appends an entry that says who rolled, when, for whom, and a SHA-256
commitment (campaign.core.commitment); its expression, dice, result and comment go to
the GM-only `secret_rolls` table, never into the ledger, `history`, `--json` or an
export. `history peek` shows the GM the hidden result; `history reveal` appends a
`reveal` entry with the result and salt, and `history verify` checks every reveal
against its commitment (and every hidden row too, so editing the GM table is caught).

Export carries the hidden rows only in a separate file (`export --secrets FILE`), so a
campaign file can be shared with players without giving anything away, and `import
--secrets FILE` restores them (each checked against its commitment) so the imported
campaign can still reveal.

`peek` and `reveal` answer with record-shaped dicts on purpose: an entry's fields (the
hidden result laid over the public ones), read by the same code that shows any ledger
record, and the JSON `history --json` prints.
"""

from __future__ import annotations

import json
import secrets as random_bytes
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import select, text
from sqlalchemy.orm import Session

from campaign import ledger
from campaign.core.commitment import COMMITTED_FIELDS, SALT_HEX, canonical, commit, matches
from campaign.core.text_rule import GM_ACTOR
from campaign.db.database import Database
from campaign.errors import DataError, NotFound, RuleRefused
from campaign.i18n import N_, _, pgettext
from campaign.services.common import campaign_named, campaign_transaction

if TYPE_CHECKING:
    from campaign.db.models import Campaign


@dataclass(frozen=True, slots=True)
class SecretsCheck:
    """The reveals and hidden rows against their commitments: ok, or the first bad entry."""

    ok: bool
    seq: int | None
    problem: str | None
    unreadable: str | None = None  # what was not checked because it could not be read


@dataclass(frozen=True, slots=True)
class SecretsMatch(SecretsCheck):
    """Every reveal and hidden row matched, with how many of each (hidden None: the
    hidden rows were not read)."""

    revealed: int = 0
    hidden: int | None = None


def secret_of(record: dict[str, Any]) -> str | None:
    """The commitment of a secret roll's record, else None."""
    detail = record.get("detail")
    secret = detail.get("secret") if isinstance(detail, dict) else None
    return secret.get("commitment") if isinstance(secret, dict) else None


def append_secret(session: Session, campaign: Campaign, actor: str, entry: ledger.NewEntry) -> ledger.Appended:
    """Append `entry` as a secret: the ledger gets the commitment, the table the rest."""
    from campaign.db.models import SecretRoll

    if entry.ops:
        raise RuleRefused(_("a roll that changes state cannot be secret: the change would show its result"))
    result = json.loads(canonical({name: getattr(entry, name) for name in COMMITTED_FIELDS}))
    salt = random_bytes.token_hex(SALT_HEX // 2)
    commitment = commit(salt, result)
    appended = ledger.append(
        session,
        campaign,
        actor,
        ledger.NewEntry(
            kind=entry.kind,
            character=entry.character,
            scenario=entry.scenario,
            parent_seq=entry.parent_seq,
            source=entry.source,
            detail={"secret": {"commitment": commitment}},
            voidable=entry.voidable,
        ),
    )
    session.add(SecretRoll(campaign_id=campaign.id, seq=appended.seq, salt=salt, result=canonical(result)))
    return appended


def _reveal_of(session: Session, campaign_id: int, seq: int) -> int | None:
    rows = session.execute(
        text("SELECT seq, record FROM ledger WHERE campaign_id = :c AND kind = 'reveal'"), {"c": campaign_id}
    )
    for reveal_seq, record in rows:
        if (json.loads(record).get("detail") or {}).get("reveals") == seq:
            return int(reveal_seq)
    return None


def _secret_record(session: Session, campaign: Campaign, seq: int) -> dict[str, Any]:
    from campaign.services.ledger.history import record_of

    record = record_of(session, campaign.id, seq)
    if secret_of(record) is None:
        raise RuleRefused(_("entry #{seq} is not a secret roll").format(seq=seq))
    return record


def _hidden(session: Session, campaign: Campaign, seq: int) -> tuple[str, dict[str, Any]]:
    from campaign.db.models import SecretRoll

    row = session.get(SecretRoll, (campaign.id, seq))
    if row is None:
        raise NotFound(
            _(
                "the hidden result of secret roll #{seq} is not in this database (imported without its --secrets file?)"
            ).format(seq=seq)
        )
    return row.salt, json.loads(row.result)


GM = GM_ACTOR


def _may_see(record: dict[str, Any], actor: str, doing: str) -> None:
    """The one who rolled in secret (the GM, by default) peeks and reveals; nobody else."""
    if actor not in (GM, record.get("actor")):
        raise RuleRefused(
            _("only {value} (who rolled it) or the GM may {doing} secret roll #{value2}").format(
                value=record.get("actor"), doing=doing, value2=record.get("seq")
            )
        )


def peek(db: Database, campaign_name: str | None, seq: int, actor: str = GM) -> dict[str, Any]:
    """The hidden result, for the GM's eyes; writes nothing."""
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        record = _secret_record(session, campaign, seq)
        _may_see(record, actor, pgettext("doing", "peek at"))
        salt, result = _hidden(session, campaign, seq)
        # The public fields of the entry (its kind, who rolled, when) with the hidden
        # result over them: everything a roll's rendering reads, as the reveal will show it.
        return {
            "seq": seq,
            "at": record.get("at"),
            "actor": record.get("actor"),
            "kind": record.get("kind"),
            "character": record.get("character"),
            "scenario": record.get("scenario"),
            "parent_seq": record.get("parent_seq"),
            "source": record.get("source"),
            "commitment": secret_of(record),
            "revealed_by": _reveal_of(session, campaign.id, seq),
            **result,
        }


def reveal(db: Database, campaign_name: str | None, actor: str, seq: int) -> dict[str, Any]:
    """Append a `reveal` entry disclosing the result and salt of secret roll `seq`."""
    from campaign.services.ledger.history import entry_view

    with campaign_transaction(db, campaign_name) as (session, campaign):
        record = _secret_record(session, campaign, seq)
        _may_see(record, actor, pgettext("doing", "reveal"))
        earlier = _reveal_of(session, campaign.id, seq)
        if earlier is not None:
            raise RuleRefused(
                _("secret roll #{seq} was already revealed (entry #{earlier})").format(seq=seq, earlier=earlier)
            )
        salt, result = _hidden(session, campaign, seq)
        appended = ledger.append(
            session,
            campaign,
            actor,
            ledger.NewEntry(
                kind="reveal",
                character=record["character"],
                scenario=record["scenario"],
                source=record["source"],
                **{name: result[name] for name in COMMITTED_FIELDS if name != "detail"},
                detail={"reveals": seq, "commitment": secret_of(record), "salt": salt, "result": result},
                voidable=False,
            ),
        )
        return entry_view(appended.record, appended.prev_hash, appended.hash, voided_by=None)


UNREADABLE = N_("the hidden results of secret rolls (this role may not read them)")


def check(session: Session, campaign: Campaign, *, hidden_rows: bool = True) -> SecretsCheck:
    """Every reveal matches its commitment and repeats what it discloses; with
    `hidden_rows`, every hidden row matches the commitment of its entry (`history
    verify`). The reveals need the ledger alone; a role refused the GM's table (a
    player's) gets the reveals checked and `unreadable` saying what was not."""

    def failed(seq: int, problem: str) -> SecretsCheck:
        return SecretsCheck(ok=False, seq=seq, problem=problem)

    def record_at(seq: Any) -> dict[str, Any] | None:
        if isinstance(seq, bool) or not isinstance(seq, int):
            return None
        row = session.execute(
            text("SELECT record FROM ledger WHERE campaign_id = :c AND seq = :s"), {"c": campaign.id, "s": seq}
        ).first()
        return None if row is None else json.loads(row[0])

    revealed: dict[int, int] = {}
    for reveal_seq, raw in session.execute(
        text("SELECT seq, record FROM ledger WHERE campaign_id = :c AND kind = 'reveal' ORDER BY seq"),
        {"c": campaign.id},
    ):
        record = json.loads(raw)
        detail = record.get("detail") if isinstance(record.get("detail"), dict) else {}
        target = detail.get("reveals")
        secret = record_at(target)
        commitment = None if secret is None else secret_of(secret)
        if commitment is None or not isinstance(target, int) or target >= reveal_seq:
            return failed(reveal_seq, f"reveal #{reveal_seq} names #{target}, which is no earlier secret roll")
        if target in revealed:
            return failed(reveal_seq, f"secret roll #{target} is revealed twice (#{revealed[target]}, #{reveal_seq})")
        if detail.get("commitment") != commitment or not matches(commitment, detail.get("salt"), detail.get("result")):
            return failed(
                reveal_seq, f"reveal #{reveal_seq} does not match the commitment of #{target} (wrong result or salt)"
            )
        result = detail["result"]
        for name in COMMITTED_FIELDS:
            if name != "detail" and record.get(name) != result.get(name):
                return failed(reveal_seq, f"reveal #{reveal_seq} shows a {name} other than the one committed")
        revealed[target] = reveal_seq
    if not hidden_rows:
        return SecretsMatch(ok=True, seq=None, problem=None, revealed=len(revealed), hidden=None)
    rows = _hidden_rows(session, campaign.id)
    if rows is None:
        return SecretsMatch(ok=True, seq=None, problem=None, unreadable=UNREADABLE, revealed=len(revealed), hidden=None)
    hidden = 0
    for row in rows:
        secret = record_at(row.seq)
        commitment = None if secret is None else secret_of(secret)
        try:
            result = json.loads(row.result)
        except ValueError:
            result = None
        if commitment is None or not matches(commitment, row.salt, result):
            return failed(row.seq, f"the hidden result of secret roll #{row.seq} does not match its commitment")
        hidden += 1
    return SecretsMatch(ok=True, seq=None, problem=None, revealed=len(revealed), hidden=hidden)


def _hidden_rows(session: Session, campaign_id: int) -> list[Any] | None:
    """The GM's hidden rows, or None when this role is refused them (PostgreSQL grants):
    read inside a savepoint, so the refusal does not end the caller's transaction."""
    from sqlalchemy.exc import DBAPIError

    from campaign.db.models import SecretRoll

    try:
        with session.begin_nested():
            return list(
                session.scalars(
                    select(SecretRoll).where(SecretRoll.campaign_id == campaign_id).order_by(SecretRoll.seq)
                )
            )
    except DBAPIError as exc:
        if getattr(exc.orig, "sqlstate", None) == "42501":  # insufficient_privilege
            return None
        raise


# --------------------------------------------------------------------------- transfer

SECRETS_FORMAT = "campaign-secrets"


def secret_lines(session: Session, campaign: Campaign) -> Iterator[str]:
    """The hidden rows as JSON Lines, for `export --secrets FILE` (GM only)."""
    from campaign.db.models import SecretRoll

    yield (
        json.dumps(
            {"type": "header", "format": SECRETS_FORMAT, "version": 1, "campaign": campaign.ledger_name},
            ensure_ascii=False,
        )
        + "\n"
    )
    for row in session.scalars(
        select(SecretRoll).where(SecretRoll.campaign_id == campaign.id).order_by(SecretRoll.seq)
    ):
        yield (
            json.dumps({"type": "secret", "seq": row.seq, "salt": row.salt, "result": row.result}, ensure_ascii=False)
            + "\n"
        )


def count_secrets(session: Session, campaign: Campaign) -> int:
    count: int = session.execute(
        text("SELECT count(*) FROM secret_rolls WHERE campaign_id = :c"), {"c": campaign.id}
    ).scalar_one()
    return count


def load_secret_lines(session: Session, campaign: Campaign, lines: Iterable[str]) -> int:
    """Restore hidden rows into an imported campaign; each must match its commitment."""
    from campaign.db.models import SecretRoll

    count = 0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError:
            raise DataError(_("secrets line {number}: not JSON; nothing imported").format(number=number)) from None
        if not isinstance(item, dict):
            raise DataError(_("secrets line {number}: not a JSON object; nothing imported").format(number=number))
        if item.get("type") == "header":
            if item.get("format") != SECRETS_FORMAT or item.get("campaign") != campaign.ledger_name:
                raise DataError(
                    _("secrets line {number}: not the secrets of campaign {name!r}; nothing imported").format(
                        number=number, name=campaign.name
                    )
                )
            continue
        seq, salt, result = item.get("seq"), item.get("salt"), item.get("result")
        row = (
            None
            if isinstance(seq, bool) or not isinstance(seq, int)
            else session.execute(
                text("SELECT record FROM ledger WHERE campaign_id = :c AND seq = :s"), {"c": campaign.id, "s": seq}
            ).first()
        )
        commitment = None if row is None else secret_of(json.loads(row[0]))
        try:
            parsed = json.loads(result) if isinstance(result, str) else None
        except (ValueError, RecursionError):  # nested past any commitment's depth: not one
            parsed = None
        if (
            commitment is None
            or not isinstance(salt, str)
            or len(salt) > 64
            or not matches(commitment, salt, parsed)
            or not isinstance(parsed, dict)  # it matched: the object committed
            or canonical(parsed) != result
        ):
            raise DataError(
                _("secrets line {number}: does not match the commitment of entry #{seq}; nothing imported").format(
                    number=number, seq=seq
                )
            )
        session.add(SecretRoll(campaign_id=campaign.id, seq=seq, salt=salt, result=result))
        count += 1
    session.flush()
    return count
