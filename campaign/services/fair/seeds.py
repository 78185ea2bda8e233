"""Committed seeds and the dice derived from them (docs/fair-dice.md).

`scenario start --fair` (or the campaign setting fair_dice=on) draws a 256-bit seed and
appends a `seed_commit` entry with only SHA-256 of it; the seed waits in the GM-only
`fair_seeds` table (campaign.db.models_fair). While a commitment is open, the table
server's dice (a player's roll, a call's answer) are not drawn but derived from the seed,
the request's first seq, the player's share and each die's index (campaign.core.fair_dice),
and every entry records what it needs to be recomputed in detail.fair. `scenario end`
(or `history reveal-seed`) appends a `seed_reveal` entry with the seed; `history verify`
then recomputes every die (services.fair.verify).

The GM's own CLI dice stay `rng`: the GM can always type any die with --dice, so only the
server's dice, made while a player watches, have anything to prove.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from campaign import ledger
from campaign.core import fair_dice
from campaign.core.dice_source import DiceSource
from campaign.db.database import Database
from campaign.errors import BadInput, NotFound, RuleRefused
from campaign.i18n import N_, _
from campaign.services.common import campaign_named, campaign_transaction

COMMIT, REVEAL, ABANDON = "seed_commit", "seed_reveal", "seed_abandon"
GM = "GM"  # who may abandon a commitment (services.checks.secret_rolls has the same name)
SETTING = "fair_dice"
DERIVED_KINDS = ("server", "bcdice-api")  # the table server's dice and a dice bot's (services.bridges.bcdice_api)


@dataclass(frozen=True, slots=True)
class SeedCommitted:
    """A seed_commit entry: its seq, the commitment, the scenario it serves."""

    seq: int
    commitment: str
    scenario: int | None


@dataclass(frozen=True, slots=True)
class SeedRevealed:
    """A seed_reveal entry: its seq, the commitment it opens, and the seed."""

    seq: int
    reveals: int
    commitment: str
    seed: str
    scenario: int | None


def _records(session: Session, campaign_id: int, kind: str) -> list[dict[str, Any]]:
    rows = session.execute(
        text("SELECT record FROM ledger WHERE campaign_id = :c AND kind = :k ORDER BY seq"),
        {"c": campaign_id, "k": kind},
    )
    return [json.loads(raw) for (raw,) in rows]


# The newest seed_commit and every reveal or abandon written after it, in one statement
# (ix_ledger_campaign_kind): a roll with a player's share asks it, so it costs the same
# however many scenarios have committed a seed before. An end always comes after what it
# ends, so none written earlier can name the newest commitment.
_NEWEST_COMMIT_AND_ENDS = text(
    "SELECT record FROM ledger WHERE campaign_id = :c AND kind IN (:commit, :reveal, :abandon) AND seq >= "
    "(SELECT max(seq) FROM ledger WHERE campaign_id = :c AND kind = :commit) ORDER BY seq"
)


def open_commitment(session: Session, campaign_id: int) -> dict[str, Any] | None:
    """The newest seed_commit record no seed_reveal has opened (nor seed_abandon ended), else None."""
    rows = session.execute(
        _NEWEST_COMMIT_AND_ENDS, {"c": campaign_id, "commit": COMMIT, "reveal": REVEAL, "abandon": ABANDON}
    ).all()
    if not rows:
        return None
    newest, *later = (json.loads(raw) for (raw,) in rows)
    ended = {(r.get("detail") or {}).get(key) for r in later for key in ("reveals", "abandons")}
    return None if newest["seq"] in ended else newest


def abandoned_commitments(session: Session, campaign_id: int) -> frozenset[int]:
    """The seqs of the seed_commit entries a seed_abandon ended (their dice are unprovable)."""
    ends = ((r.get("detail") or {}).get("abandons") for r in _records(session, campaign_id, ABANDON))
    return frozenset(seq for seq in ends if isinstance(seq, int))


def seed_kept(session: Session, campaign_id: int, commit_seq: int) -> bool:
    """Whether this database holds the seed of commitment `commit_seq` (an import never does)."""
    from campaign.db.models_fair import FairSeed

    return session.get(FairSeed, (campaign_id, commit_seq)) is not None


SEED_GONE = N_(
    "seed #{seq} is still committed and its seed is not in this database (imported from a file?): "
    'end it with campaign history abandon-seed --reason "..."'
)


def refuse_open_seed(session: Session, campaign_id: int) -> None:
    """One committed seed at a time: a second would leave players unsure which one the
    dice come from. The refusal names the command that ends the open one: reveal-seed
    when its seed is here, abandon-seed when it is gone (an imported copy)."""
    earlier = open_commitment(session, campaign_id)
    if earlier is None:
        return
    if seed_kept(session, campaign_id, earlier["seq"]):
        raise RuleRefused(
            _("seed #{seq} is still committed: reveal it first (campaign history reveal-seed)").format(
                seq=earlier["seq"]
            )
        )
    raise RuleRefused(_(SEED_GONE).format(seq=earlier["seq"]))


def open_seed(db: Database, campaign_name: str | None) -> tuple[int, bool] | None:
    """(seq, kept here) of the open commitment, else None: `scenario start` by the setting
    starts without a new seed, and says why, rather than refusing."""
    with db.read() as session:
        campaign_id = campaign_named(session, campaign_name).id
        record = open_commitment(session, campaign_id)
        return None if record is None else (record["seq"], seed_kept(session, campaign_id, record["seq"]))


def still_open_words(seq: int, kept: bool) -> str:
    """Why `scenario start` (fair_dice=on) committed no new seed, and the command that ends the open one."""
    if kept:
        return _(
            "fair dice: seed #{seq} is still committed, no new seed: reveal it (campaign history reveal-seed)"
        ).format(seq=seq)
    return _("fair dice: no new seed: {refusal}").format(refusal=_(SEED_GONE).format(seq=seq))


@dataclass(frozen=True, slots=True)
class SeedAbandoned:
    """A seed_abandon entry: its seq, the commitment it ends, why."""

    seq: int
    abandons: int
    commitment: str
    reason: str
    scenario: int | None


def abandon_seed(db: Database, campaign_name: str | None, actor: str, reason: str | None) -> SeedAbandoned:
    """End the open commitment whose seed is gone (an imported copy never has it) with a
    seed_abandon entry: the dice derived under it are unprovable for ever, and a new
    seed may be committed. The GM's act; a seed that is here is revealed instead."""
    if str(actor) != GM:
        raise RuleRefused(_("only the GM may abandon a seed (campaign --as GM history abandon-seed)"))
    why = (reason or "").strip()
    if not why:
        raise BadInput(_('--reason: say why the seed is abandoned (--reason "the seed was lost")'))
    with campaign_transaction(db, campaign_name) as (session, campaign):
        record = open_commitment(session, campaign.id)
        if record is None:
            raise RuleRefused(_("no committed seed is open: nothing to abandon"))
        if seed_kept(session, campaign.id, record["seq"]):
            raise RuleRefused(
                _("the seed of commitment #{seq} is here: reveal it (campaign history reveal-seed)").format(
                    seq=record["seq"]
                )
            )
        commitment = record["detail"]["commitment"]
        appended = ledger.append(
            session,
            campaign,
            actor,
            ledger.NewEntry(
                kind=ABANDON,
                scenario=record.get("scenario"),
                reason=why,
                detail={"abandons": record["seq"], "commitment": commitment},
                voidable=False,
            ),
        )
        return SeedAbandoned(appended.seq, record["seq"], commitment, why, record.get("scenario"))


def check_can_commit(db: Database, campaign_name: str | None) -> None:
    """Refuse before `scenario start --fair` writes anything (the start is its own transaction)."""
    with db.read() as session:
        refuse_open_seed(session, campaign_named(session, campaign_name).id)


def commit_seed(db: Database, campaign_name: str | None, actor: str, scenario: int | None = None) -> SeedCommitted:
    """Draw a seed, keep it in fair_seeds, append its commitment."""
    from campaign.db.models_fair import FairSeed

    with campaign_transaction(db, campaign_name) as (session, campaign):
        refuse_open_seed(session, campaign.id)
        seed = fair_dice.new_seed()
        commitment = fair_dice.seed_commitment(seed)
        appended = ledger.append(
            session,
            campaign,
            actor,
            ledger.NewEntry(
                kind=COMMIT,
                scenario=scenario,
                detail={"commitment": commitment, "scheme": fair_dice.SCHEME},
                voidable=False,
            ),
        )
        session.add(FairSeed(campaign_id=campaign.id, seq=appended.seq, seed=seed))
        return SeedCommitted(seq=appended.seq, commitment=commitment, scenario=appended.record["scenario"])


def fair_by_setting(db: Database, campaign_name: str | None) -> bool:
    """Whether the campaign setting fair_dice is on (scenario start commits then)."""
    from campaign.db.models import Campaign

    with db.read() as session:
        campaign: Campaign = campaign_named(session, campaign_name)
        settings = getattr(campaign, "settings", None) or {}
        value = settings.get(SETTING) if isinstance(settings, dict) else None
        return str(value).lower() in ("on", "true", "1", "yes")


def reveal_seed(
    db: Database, campaign_name: str | None, actor: str, scenario: int | None = None, *, quiet: bool = False
) -> SeedRevealed | None:
    """Append a seed_reveal entry for the open commitment (of `scenario`, if given).

    `quiet`: nothing to reveal is no error (scenario end reveals only if a seed is open and
    kept here; a campaign imported from a file never has the seed of an open commitment)."""
    from campaign.db.models_fair import FairSeed

    with campaign_transaction(db, campaign_name) as (session, campaign):
        record = open_commitment(session, campaign.id)
        if record is None or (scenario is not None and record.get("scenario") != scenario):
            if quiet:
                return None
            if scenario is None:
                raise RuleRefused(_("no committed seed is open"))
            raise RuleRefused(_("no committed seed is open for scenario #{scenario}").format(scenario=scenario))
        row = session.get(FairSeed, (campaign.id, record["seq"]))
        if row is None and quiet:
            return None
        if row is None:
            raise NotFound(_(SEED_GONE).format(seq=record["seq"]))
        commitment = record["detail"]["commitment"]
        appended = ledger.append(
            session,
            campaign,
            actor,
            ledger.NewEntry(
                kind=REVEAL,
                scenario=record.get("scenario"),
                detail={"reveals": record["seq"], "commitment": commitment, "seed": row.seed},
                voidable=False,
            ),
        )
        return SeedRevealed(
            seq=appended.seq,
            reveals=record["seq"],
            commitment=commitment,
            seed=row.seed,
            scenario=record.get("scenario"),
        )


def share_of(value: Any) -> str | None:
    """A request's `share`: None when absent, else exactly 64 hex digits (BadInput otherwise)."""
    if value is None:
        return None
    cleaned = fair_dice.clean_share(value)
    if cleaned is None:
        raise BadInput(_("share: exactly 64 hex digits (32 bytes from crypto.getRandomValues)"))
    return cleaned


class ShareReused(RuleRefused):
    """The share was used before under the same commitment: its dice would repeat (409)."""


def claim_share(session: Session, campaign_id: int, commit_seq: int, share: str, seq: int) -> None:
    """Record `share` as used under commitment `commit_seq` by the request starting at `seq`,
    in the request's own transaction; a second use is refused here, and by the primary
    key of fair_shares should any other code try (models_fair.FairShare)."""
    from campaign.db.models_fair import FairShare

    earlier = session.get(FairShare, (campaign_id, commit_seq, share))
    if earlier is not None:
        raise ShareReused(
            _("this share was already used under seed #{commit} (entry #{seq}): send a fresh one").format(
                commit=commit_seq, seq=earlier.seq
            )
        )
    session.add(FairShare(campaign_id=campaign_id, commit_seq=commit_seq, share=share, seq=seq))
    session.flush()


class FairDice:
    """The server's dice for one request: derived while a seed is open and the request
    brought a share, else `fallback`.

    `arm(session, campaign_id)` runs in the request's write transaction after the campaign
    lock (GuardedDatabase's `before`): it claims the share under the open commitment
    (refused when used before). Dice then derive from the seed, the share and the die's
    index in the request's run (fair dice version 2: nothing the server chooses goes in),
    and each ledger entry of the request takes the draws made since the previous one
    (`entry_fair`, which ledger.append reads from the actor) as its detail.fair.
    Only the table server's dice (kind `server`) are derived: typed faces stay typed."""

    def __init__(self, fallback: DiceSource, share: str | None) -> None:
        self.fallback, self.share = fallback, share
        self.kind = fallback.kind
        self.seed: str | None = None
        self.commit_seq = 0
        self.draws: list[list[int]] = []
        self.recorded = 0

    def arm(self, session: Session, campaign_id: int) -> None:
        from campaign.db.models_fair import FairSeed

        if self.share is None:  # nothing of the player's goes in: the server's own dice, labelled so
            return
        record = open_commitment(session, campaign_id)
        row = None if record is None else session.get(FairSeed, (campaign_id, record["seq"]))
        if row is None or record is None:
            return
        claim_share(session, campaign_id, record["seq"], self.share, ledger.head(session, campaign_id)[0] + 1)
        self.seed, self.commit_seq = row.seed, record["seq"]
        self.draws, self.recorded = [], 0

    def roll(self, sides: int) -> int:
        if self.seed is None or self.share is None:
            return self.fallback.roll(sides)
        face = fair_dice.face_v2(self.seed, self.share, len(self.draws), sides)
        self.draws.append([sides, face])
        return face

    def ensure_all_used(self) -> None:
        self.fallback.ensure_all_used()

    def entry_fair(self, dice: Any) -> dict[str, Any] | None:
        """detail.fair of the next entry: the request's inputs and the entry's own draws.

        A service often rolls a check and its sub-rolls before appending any of them
        (the fright check and its table), so an entry claims as many draws as it
        records dice, when their faces agree in order; otherwise (an expression whose
        recorded dice are not its draws one for one) it takes every draw left, and the
        checkers, which require dice and draws to agree one for one, refuse it."""
        count = len(dice) if isinstance(dice, (list, tuple)) else 0
        if self.seed is None or not count:  # an entry without dice (the scenario's end before its reunions)
            return None
        first = self.recorded
        claimed = self.draws[first : first + count]
        if [face for _, face in claimed] != list(dice):
            claimed = self.draws[first:]
        self.recorded = first + len(claimed)
        return {"v": 2, "commit": self.commit_seq, "share": self.share, "from": first, "draws": claimed}


def fair_request(
    source: DiceSource, share: Any, actor: Any, campaign_id: int, before: Any = None
) -> tuple[DiceSource, Any]:
    """(the request's FairDice, a `before` that runs `before` then arms it); ties the
    source to `actor` so each entry of the request records its draws."""
    share = share_of(share)
    if source.kind not in DERIVED_KINDS:  # typed faces, the GM's own rng: nothing to derive
        return source, before
    fair = FairDice(source, share)
    actor.fair = fair.entry_fair

    def armed(session: Session) -> None:
        if before is not None:
            before(session)
        fair.arm(session, campaign_id)

    return fair, armed


FAIRNESS = ("provable", "abandoned", "server", "typed", "imported")


def fair_version(record: dict[str, Any]) -> int | None:
    """The derivation an entry's fair dice used (docs/fair-dice.md): 2, 1 (no "v"), or None."""
    detail = record.get("detail")
    fair = detail.get("fair") if isinstance(detail, dict) else None  # a forged row's detail may be anything
    if not isinstance(fair, dict):
        return None
    version = fair.get("v", 1)
    return version if isinstance(version, int) and not isinstance(version, bool) else None


def fairness_of(record: dict[str, Any], abandoned: Collection[int] = ()) -> str | None:
    """How far an entry's dice can be trusted: provable (committed seed and the player's
    share), abandoned (derived from a seed that was abandoned: unprovable for ever), server
    (a machine's RNG, or a seed without a share), typed (--dice), imported (read from a
    chat log); None for an entry without dice. `abandoned`: the commitments ended so."""
    source = record.get("source")
    detail = raw if isinstance(raw := record.get("detail"), dict) else {}
    fair = detail.get("fair")
    if isinstance(fair, dict):
        if fair.get("commit") in abandoned:
            return "abandoned"
        return "provable" if fair.get("share") else "server"
    if source is None:
        return None
    if source == "manual":
        return "typed"
    if source in IMPORTED_SOURCES or source.startswith("import"):
        return "imported"
    return "server"  # rng, server, seeded, a dice bot's API roll: some machine's RNG


IMPORTED_SOURCES = ("ccfolia",)  # dice read from another tool's log (campaign.bridges)
