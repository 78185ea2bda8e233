"""Scenarios: who takes part, who is sent searching, and the reunion checks at the end.

Ledger layout (one transaction per command):
- `scenario start`: one "scenario" entry, then one "search" entry per searcher sent
  (parent_seq = the start entry), each with its own applied ops.
- `scenario end`: one "scenario" entry, then one "reunion" entry per missing character
  (parent_seq = the end entry), each with its own applied ops, so voiding a single
  reunion roll restores exactly that character's missing status and its searchers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from campaign import ledger
from campaign.core.dice_source import DiceSource, about
from campaign.core.reunion import (
    ReunionRoll,
    check_can_join_scenario,
    check_can_roll_reunion,
    check_can_search,
    reunion_check,
    reunion_odds_text,
)
from campaign.db.database import Database
from campaign.db.models import Campaign, Character, Disappearance, ReunionCheck, Scenario, ScenarioParticipant, Search
from campaign.errors import BadInput, NotFound, RuleRefused
from campaign.i18n import _, pgettext
from campaign.services.common import (
    active_character_named,
    campaign_named,
    campaign_transaction,
    character_named,
    clean_name,
)
from campaign.services.recording import recording
from campaign.services.results import extended
from campaign.services.scenarios.missing import (
    active_searches,
    character_facts,
    missing_facts,
    open_disappearance,
    open_disappearances,
    open_scenario,
    searches_at,
)
from campaign.services.scenarios.views import (  # the result types; also importable from here
    NoteAddedResult,
    ReunionRolled,
    ReunionRolledAgain,
    RosterChanged,
    ScenarioDetail,
    ScenarioEndResult,
    ScenarioStartResult,
    ScenarioSummary,
    SearcherSent,
    scenario_summary,
    scenario_view,
)

# --------------------------------------------------------------------------- start


def start_scenario(
    db: Database,
    campaign_name: str | None,
    title: str,
    actor: str,
    participants: Sequence[str],
    searches: Sequence[tuple[str, str]] = (),
) -> ScenarioStartResult:
    """Open a scenario with its participants and send searchers (only at the start:
    docs/rules.md "Missing and reunion check")."""
    title = clean_name(title, "scenario")
    if not participants:
        raise BadInput(_("a scenario needs at least one participant: --with CHAR"))
    with campaign_transaction(db, campaign_name) as (session, campaign):
        current = open_scenario(session, campaign)
        if current is not None:
            raise RuleRefused(
                _("scenario #{number} {title!r} is still open; end it first with `campaign scenario end`").format(
                    number=current.number, title=current.title
                )
            )
        joining: list[Character] = []
        for name in participants:
            character = active_character_named(session, campaign, name, pgettext("doing", "take part in a scenario"))
            if character in joining:
                continue
            check_can_join_scenario(character_facts(session, character))
            joining.append(character)

        number = (session.scalar(select(func.max(Scenario.number)).where(Scenario.campaign_id == campaign.id)) or 0) + 1
        with recording(session, campaign, actor, "scenario", voidable=False) as entry:
            scenario = entry.start_scenario(number, title, joining)
            entry.describe(
                scenario=number,
                reason="start",
                detail={"action": "start", "number": number, "title": title, "participants": [c.name for c in joining]},
            )
        seq = entry.seq

        joining_ids = {c.id for c in joining}
        sent = []
        for searcher_name, target_name in searches:
            sent.append(
                _send_searcher(session, campaign, scenario, seq, searcher_name, target_name, joining_ids, actor)
            )
        session.flush()
        return extended(ScenarioStartResult, scenario_view(session, campaign, scenario), seq=seq, sent=tuple(sent))


def _send_searcher(
    session: Session,
    campaign: Campaign,
    scenario: Scenario,
    start_seq: int,
    searcher_name: str,
    target_name: str,
    joining_ids: set[int],
    actor: str,
) -> SearcherSent:
    """One search entry: recorded as who typed `scenario start` (the actor), on behalf of
    the searcher's player, who sends it."""
    searcher = active_character_named(session, campaign, searcher_name, pgettext("doing", "search"))
    target = character_named(session, campaign, target_name)
    disappearance = open_disappearance(session, target)
    if disappearance is None:
        raise RuleRefused(_("{name} is not missing; there is no one to search for").format(name=target.name))
    check_can_search(
        character_facts(session, searcher), missing_facts(session, target, disappearance), at_scenario_start=True
    )
    if searcher.id in joining_ids:
        raise RuleRefused(
            _(
                "{name} takes part in this scenario and cannot also search for {name2}; a searcher sits out every "
                "scenario until the reunion"
            ).format(name=searcher.name, name2=target.name)
        )
    with recording(session, campaign, actor, "search") as entry:
        entry.start_search(disappearance, searcher, scenario)
        session.flush()
        searchers = active_searches(session, disappearance)
        odds = reunion_odds_text(disappearance.faces, len(searchers))
        assert searcher.player is not None  # only a PC searches (check_can_search)
        entry.describe(
            character=searcher.name,
            scenario=scenario.number,
            parent_seq=start_seq,
            detail={
                "target": target.name,
                "player": searcher.player.name,
                "on_behalf_of": searcher.player.name,
                "since_seq": disappearance.since_seq,
                "searchers": [s.name for _, s in searchers],
            },
        )
    return SearcherSent(
        searcher=searcher.name,
        player=searcher.player.name,
        target=target.name,
        searchers=len(searchers),
        odds=odds,
        seq=entry.seq,
    )


# --------------------------------------------------------------------------- end


@dataclass
class _Planned:
    disappearance: Disappearance
    character: Character
    actor: str  # who typed the command
    on_behalf_of: str | None  # the missing character's player, who makes the roll
    searches: list[tuple[Search, Character]]
    result: ReunionRoll
    source: str
    odds: str
    # a re-roll for an earlier scenario: searchers sent since its end, not counted in the
    # threshold, who still come home if the character is found
    sent_since: tuple[tuple[Search, Character], ...] = ()
    counted_at: int | None = None  # the seq the searchers were counted at (a re-roll: the scenario's end)


def end_scenario(
    db: Database,
    campaign_name: str | None,
    actor: str,
    manual: Sequence[tuple[str, DiceSource]],
    default: DiceSource,
    award: int | None = None,
    elapsed: str | None = None,
    *,
    searchers: bool = False,
    npcs: bool = False,
) -> ScenarioEndResult:
    """Close the open scenario and roll one reunion check per missing character.

    `manual` gives a dice source per missing character (physical dice typed in);
    everyone else rolls from `default`. All dice are rolled before anything is written.
    `award` gives that many CP to every participating PC still active (one "award" entry
    each, a child of the end entry, each voidable alone): CP are for the players' own
    characters, so NPCs get them only with `npcs`; `searchers` adds the PCs who were out
    searching during the scenario (they sat it out for the group). `elapsed` ("1day") also
    advances campaign time, as its own voidable time entry after the reunion checks
    (services.campaigns.clock).
    """
    from campaign.core.gametime import parse_span
    from campaign.services.characters.lifecycle import check_award, record_award

    if award is not None:
        award = check_award(award)
    elapsed_seconds = parse_span(elapsed, "--elapsed").seconds if elapsed is not None else None
    with campaign_transaction(db, campaign_name) as (session, campaign):
        scenario = open_scenario(session, campaign)
        if scenario is None:
            raise RuleRefused(_("no scenario is open; start one with `campaign scenario start TITLE --with CHAR`"))
        missing = open_disappearances(session, campaign)
        missing_ids = {d.character_id for d in missing}
        sources: dict[int, DiceSource] = {}
        for name, source in manual:
            character = character_named(session, campaign, name)
            if character.id in sources:
                raise BadInput(_("--dice: {name} is given twice").format(name=character.name))
            if character.id not in missing_ids:
                raise RuleRefused(
                    _("--dice: {name} is not missing, so there is no reunion check to roll").format(name=character.name)
                )
            sources[character.id] = source

        recipients = _award_recipients(session, scenario, searchers, npcs) if award is not None else []
        planned: list[_Planned] = []
        for disappearance in missing:
            character = session.get_one(Character, disappearance.character_id)
            facts = missing_facts(session, character, disappearance)
            already = session.scalar(
                select(ReunionCheck.id).where(
                    ReunionCheck.disappearance_id == disappearance.id, ReunionCheck.scenario_id == scenario.id
                )
            )
            check_can_roll_reunion(facts, already_rolled_this_scenario=already is not None)
            source = sources.get(character.id, default)
            looking = active_searches(session, disappearance)
            with about(source, character.name):
                result = reunion_check(disappearance.faces, len(looking), source)
            planned.append(
                _Planned(
                    disappearance=disappearance,
                    character=character,
                    actor=actor,
                    on_behalf_of=facts.player,
                    searches=looking,
                    result=result,
                    source=source.kind,
                    odds=reunion_odds_text(disappearance.faces, len(looking)),
                )
            )
        for source in sources.values():
            source.ensure_all_used()  # leftover faces are a typo: refuse before writing

        with recording(session, campaign, actor, "scenario", voidable=False) as entry:
            entry.end_scenario(scenario)
            entry.describe(
                scenario=scenario.number,
                reason="end",
                detail={
                    "action": "end",
                    "number": scenario.number,
                    "title": scenario.title,
                    "reunions": [
                        {
                            "character": p.character.name,
                            "roll": p.result.roll,
                            "threshold": p.result.threshold,
                            "success": p.result.success,
                            "seq": entry.seq + 1 + i,
                        }
                        for i, p in enumerate(planned)
                    ],
                },
            )
        end_seq = entry.seq

        reunions = []
        for plan in planned:
            reunions.append(_record_reunion(session, campaign, scenario, end_seq, plan))
        awards = []
        for character in recipients:
            assert award is not None  # there are recipients only with an award
            awards.append(
                record_award(
                    session, campaign, actor, character, award, f"scenario #{scenario.number}", scenario.number, end_seq
                )
            )
        time = None
        if elapsed_seconds is not None:
            from campaign.services.campaigns.clock import advance_in

            time = advance_in(
                session, campaign, actor, elapsed_seconds, f"scenario #{scenario.number} ends", scenario=scenario.number
            )
        session.flush()
        return ScenarioEndResult(
            scenario=scenario_view(session, campaign, scenario),
            reunions=tuple(reunions),
            awards=tuple(awards),
            seq=end_seq,
            time=time,
        )


def _award_recipients(session: Session, scenario: Scenario, searchers: bool, npcs: bool) -> list[Character]:
    """Who `scenario end --award` pays, read before the reunion checks end any search:
    the active participants (PCs; NPCs with `npcs`), then with `searchers` the active PCs
    whose search was under way at some moment of the scenario."""
    chosen = [
        c
        for c in session.scalars(
            select(Character)
            .join(ScenarioParticipant, ScenarioParticipant.character_id == Character.id)
            .where(ScenarioParticipant.scenario_id == scenario.id)
            .order_by(Character.id)
        )
        if c.status == "active" and (npcs or c.kind == "pc")
    ]
    if searchers:
        out = session.scalars(
            select(Character)
            .join(Search, Search.searcher_id == Character.id)
            .join(Disappearance, Disappearance.id == Search.disappearance_id)
            .where(
                Disappearance.campaign_id == scenario.campaign_id,
                (Search.ended_seq.is_(None)) | (Search.ended_seq > scenario.started_seq),
            )
            .order_by(Search.started_seq)
        ).all()
        for character in out:
            if character.status == "active" and character.kind == "pc" and character not in chosen:
                chosen.append(character)
    return chosen


def change_roster(db: Database, campaign_name: str | None, actor: str, name: str, *, join: bool) -> RosterChanged:
    """`scenario join` / `scenario leave`: one voidable "scenario" entry changing who takes
    part in the open scenario (a late arrival, someone called away)."""
    with campaign_transaction(db, campaign_name) as (session, campaign):
        scenario = open_scenario(session, campaign)
        if scenario is None:
            raise RuleRefused(_("no scenario is open; start one with `campaign scenario start TITLE --with CHAR`"))
        character = (
            active_character_named(session, campaign, name, pgettext("doing", "take part in a scenario"))
            if join
            else character_named(session, campaign, name)
        )
        taking_part = session.get(ScenarioParticipant, (scenario.id, character.id)) is not None
        if join:
            if taking_part:
                raise RuleRefused(
                    _("{name} already takes part in scenario #{number}").format(
                        name=character.name, number=scenario.number
                    )
                )
            check_can_join_scenario(character_facts(session, character))
        elif not taking_part:
            raise RuleRefused(
                _("{name} does not take part in scenario #{number}").format(name=character.name, number=scenario.number)
            )
        action = "join" if join else "leave"
        with recording(session, campaign, actor, "scenario") as entry:
            if join:
                entry.join_scenario(scenario, character)
            else:
                entry.leave_scenario(scenario, character)
            entry.describe(
                character=character.name,
                scenario=scenario.number,
                reason=action,
                detail={"action": action, "number": scenario.number, "title": scenario.title},
            )
        session.flush()
        participants = tuple(
            session.scalars(
                select(Character.name)
                .join(ScenarioParticipant, ScenarioParticipant.character_id == Character.id)
                .where(ScenarioParticipant.scenario_id == scenario.id)
                .order_by(Character.id)
            )
        )
        return RosterChanged(
            action=action,
            scenario=scenario.number,
            title=scenario.title,
            character=character.name,
            participants=participants,
            seq=entry.seq,
        )


def add_note(
    db: Database, campaign_name: str | None, text: str, actor: str, scenario_title: str | None = None
) -> NoteAddedResult:
    """A GM note on a scenario (the open one by default): a ledger entry that changes
    nothing, so it is dated, hashed, and shown by `scenario show`."""
    from campaign.services.common import clean_text

    text = clean_text(text, "note") or ""  # a string stays a string; "" is refused below
    if not text or not text.strip():
        raise BadInput(_("a note needs some text"))
    with campaign_transaction(db, campaign_name) as (session, campaign):
        scenario = _find_scenario(session, campaign, scenario_title)
        appended = ledger.append(
            session,
            campaign,
            actor,
            ledger.NewEntry(kind="note", scenario=scenario.number, reason=text, detail={"note": text}, voidable=True),
        )
        return NoteAddedResult(scenario=scenario.number, note=text, seq=appended.seq)


def _record_reunion(
    session: Session, campaign: Campaign, scenario: Scenario, parent_seq: int | None, plan: _Planned
) -> ReunionRolled:
    """One reunion entry. Its actor is who typed the command (the ledger says
    who acted); detail.on_behalf_of names the missing character's player, who makes
    the roll (docs/rules.md "Missing and reunion check"), absent for the GM's own NPCs."""
    result = plan.result
    with recording(session, campaign, plan.actor, "reunion") as entry:
        entry.record_reunion_check(
            plan.disappearance, scenario, result.roll, result.threshold, result.success, plan.counted_at
        )
        if result.success:
            entry.end_missing(plan.disappearance)
            for search, searcher in (*plan.searches, *plan.sent_since):
                if search.ended_seq is None:  # a counted searcher may have come back since
                    entry.end_search(search, searcher)
        names = [searcher.name for _, searcher in plan.searches]
        later = {"sent_since": [searcher.name for _, searcher in plan.sent_since]} if plan.sent_since else {}
        entry.describe(
            character=plan.character.name,
            scenario=scenario.number,
            parent_seq=parent_seq,
            expression=f"1d{result.faces}",
            dice=[result.roll],
            total=result.roll,
            target=result.threshold,
            outcome="success" if result.success else "failure",
            margin=result.threshold - result.roll,
            source=plan.source,
            detail={
                "faces": result.faces,
                "roll": result.roll,
                "threshold": result.threshold,
                "searchers": names,
                "success": result.success,
                "since_seq": plan.disappearance.since_seq,
                **later,
                **({"on_behalf_of": plan.on_behalf_of} if plan.on_behalf_of else {}),
            },
        )
    return ReunionRolled(
        character=plan.character.name,
        faces=result.faces,
        roll=result.roll,
        threshold=result.threshold,
        searchers=tuple(names),
        success=result.success,
        odds=plan.odds,
        actor=plan.actor,
        on_behalf_of=plan.on_behalf_of,
        seq=entry.seq,
    )


# --------------------------------------------------------------------------- read


def list_scenarios(db: Database, campaign_name: str | None) -> list[ScenarioSummary]:
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        scenarios = session.scalars(
            select(Scenario).where(Scenario.campaign_id == campaign.id).order_by(Scenario.number)
        ).all()
        return [scenario_summary(session, s) for s in scenarios]


_NUMBER = re.compile(r"#?(\d+)")


def _find_scenario(session: Session, campaign: Campaign, title: str | None) -> Scenario:
    base = select(Scenario).where(Scenario.campaign_id == campaign.id)
    if title is None:
        found = open_scenario(session, campaign) or session.scalar(base.order_by(Scenario.number.desc()).limit(1))
        if found is None:
            raise NotFound(_("no scenario yet: start one with `campaign scenario start TITLE --with CHAR`"))
        return found
    title = clean_name(title, "scenario")
    matches = session.scalars(base.where(Scenario.title == title).order_by(Scenario.number)).all()
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        numbers = ", ".join(f"#{s.number}" for s in matches)
        raise RuleRefused(
            _("several scenarios are titled {title!r} ({numbers}); give the number instead").format(
                title=title, numbers=numbers
            )
        )
    number = _NUMBER.fullmatch(title)
    if number and len(number.group(1)) <= 9:
        found = session.scalar(base.where(Scenario.number == int(number.group(1))))
        if found is not None:
            return found
    raise NotFound(_("no scenario titled {title!r}").format(title=title))


def show_scenario(db: Database, campaign_name: str | None, title: str | None) -> ScenarioDetail:
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        return scenario_view(session, campaign, _find_scenario(session, campaign, title))


def roll_reunion_again(
    db: Database,
    campaign_name: str | None,
    name: str,
    source: DiceSource,
    scenario_title: str | None = None,
    actor: str = "GM",
) -> ReunionRolledAgain:
    """Roll a missing character's reunion check for an ended scenario that has none, e.g.
    after its roll was voided (a die fell off the table). Recorded like the original."""
    with campaign_transaction(db, campaign_name) as (session, campaign):
        character = character_named(session, campaign, name)
        disappearance = open_disappearance(session, character)
        if disappearance is None:
            raise RuleRefused(_("{name} is not missing; there is no reunion check to roll").format(name=character.name))
        if scenario_title is None:
            scenario = session.scalar(
                select(Scenario)
                .where(Scenario.campaign_id == campaign.id, Scenario.ended_seq.is_not(None))
                .order_by(Scenario.number.desc())
                .limit(1)
            )
            if scenario is None:
                raise RuleRefused(_("no scenario has ended yet: reunion checks are rolled at a scenario's end"))
        else:
            scenario = _find_scenario(session, campaign, scenario_title)
            if scenario.ended_seq is None:
                raise RuleRefused(
                    _("scenario #{number} has not ended; its end rolls the reunion checks").format(
                        number=scenario.number
                    )
                )
        if scenario.ended_seq < disappearance.since_seq:
            raise RuleRefused(
                _("{name} went missing after scenario #{number} ended").format(
                    name=character.name, number=scenario.number
                )
            )
        done = session.scalar(
            select(ReunionCheck.seq).where(
                ReunionCheck.disappearance_id == disappearance.id, ReunionCheck.scenario_id == scenario.id
            )
        )
        if done is not None:
            raise RuleRefused(
                _(
                    "{name}'s reunion check for scenario #{number} was rolled (#{done}); void it first to roll again"
                ).format(name=character.name, number=scenario.number, done=done)
            )
        facts = missing_facts(session, character, disappearance)
        # the threshold of scenario N's end: its searchers, not those sent since
        searchers = searches_at(session, disappearance, scenario.ended_seq)
        counted = {search.id for search, _ in searchers}
        since = tuple(row for row in active_searches(session, disappearance) if row[0].id not in counted)
        with about(source, character.name):
            result = reunion_check(disappearance.faces, len(searchers), source)
        plan = _Planned(
            disappearance=disappearance,
            character=character,
            actor=actor,
            on_behalf_of=facts.player,
            searches=searchers,
            result=result,
            source=source.kind,
            odds=reunion_odds_text(disappearance.faces, len(searchers)),
            sent_since=since,
            counted_at=scenario.ended_seq,
        )
        source.ensure_all_used()
        return extended(
            ReunionRolledAgain, _record_reunion(session, campaign, scenario, None, plan), scenario=scenario.number
        )
