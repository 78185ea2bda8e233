"""`campaign roll`: any dice expression, judged by the campaign's rules, logged."""

from __future__ import annotations

from typing import Any

from campaign import ledger
from campaign.core.dice import evaluate
from campaign.core.dice_source import DiceSource, ManualDice
from campaign.db.database import Database
from campaign.services.common import campaign_named, character_named, clean_text
from campaign.services.history import entry_view


def finish_dice(source: DiceSource) -> None:
    """Refuse unused --dice faces before anything commits (they usually mean a typo)."""
    if isinstance(source, ManualDice):
        source.ensure_all_used()


def roll(
    db: Database,
    campaign_name: str | None,
    actor: str,
    text: str,
    source: DiceSource,
    *,
    character: str | None = None,
    reason: str | None = None,
) -> dict[str, Any]:
    """Roll `text` and append it as one ledger entry; returns it as `history` shows it."""
    reason = clean_text(reason, "--reason")
    text = clean_text(text, "expression", limit=1000)
    with db.write() as session:
        campaign = campaign_named(session, campaign_name)
        ledger.lock_campaign(session, campaign.id)
        who = character_named(session, campaign, character).name if character else None
        result = evaluate(text, source, gurps=campaign.ruleset == "gurps3-ja")
        finish_dice(source)
        appended = ledger.append(session, campaign, actor, ledger.NewEntry(
            kind="roll",
            character=who,
            expression=result.expression,
            dice=list(result.faces),
            total=result.total,
            target=result.target,
            outcome=result.outcome,
            margin=result.margin,
            source=source.kind,
            reason=reason if reason is not None else result.comment,
            detail=result.to_detail(),
        ))
        return entry_view(appended.record, appended.prev_hash, appended.hash, voided_by=None)
