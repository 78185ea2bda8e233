"""The GM calls, the player rolls: pending rows a single roll resolves.

Why calls are not ledger entries: a call changes no state and rolls no die; it is a
question ("roll your fright check, Will −2"). What a dispute needs is the answer, and
the answer is an ordinary ledger entry (a fright check, a 2d6 check) made by the same
service as `campaign fright` / `campaign check`, whose record says which call it
answered (detail.via.call) and whose record holds the modifier the call set. A call
that is cancelled leaves no trace in the chain, like a question the GM took back.
The rows live in `table_calls` (migration 0011), outside the projection, not exported.

At most one roll per call: the roll's write transaction takes the campaign's append
lock, finds the call still pending, writes the entry and marks the call rolled with
its seq before committing (services.table.writes.GuardedDatabase). A second tap, a
retry or a GM's `call roll` racing the player find it rolled and are refused, or, with
the same idempotency key, get the first roll back.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import Session

from campaign import ledger
from campaign.core.dice_source import DiceSource
from campaign.db.database import Database
from campaign.db.models import Campaign, LedgerEntry, Player
from campaign.db.models_table import TableCall
from campaign.errors import NotFound, RuleRefused
from campaign.i18n import N_, _, pgettext
from campaign.services.common import active_character_named, campaign_named, clean_text
from campaign.services.results import as_json
from campaign.services.table.call_params import (
    CallParams,
    CheckCall,
    FrightCall,
    ReunionCall,
    SuccessCall,
    call_params,
    check_of,
    check_params,
)
from campaign.services.table.invites import Seat

#: The calls each ruleset has (docs/rules.md "Calls"), as (kind, check) pairs: a GURPS
#: campaign calls success rolls and fright checks, a 2d6 campaign its own three checks,
#: and either ends a scenario with the reunion roll.
CALL_KINDS: dict[str, tuple[tuple[str, str | None], ...]] = {
    "gurps3-ja": (("fright", None), ("check", "success"), ("reunion", None)),
    "2d6-ja": (("check", "ability"), ("check", "skill"), ("check", "danger"), ("reunion", None)),
}


@dataclass(frozen=True, slots=True)
class CallView:
    call_id: int
    kind: str
    character: str
    player: str | None
    params: CallParams
    reason: str | None
    state: str
    created_by: str
    created_at: str
    result_seq: int | None
    prompt: str


@dataclass(frozen=True, slots=True)
class CallRolled:
    seq: int
    call: CallView
    replayed: bool
    seed_reveal: Any = None  # a reunion call ends the scenario: its seed's reveal (services.fair.seeds)
    last_seq: int | None = None  # the last entry the tap wrote (the check's table roll, say)


def _already(call_id: int, state: str, result_seq: int | None) -> str:
    """The refusal for a call that is no longer pending, its state in words."""
    words = {"rolled": lambda: pgettext("call", "rolled"), "cancelled": lambda: pgettext("call", "cancelled")}
    shown = words[state]() if state in words else state
    if result_seq:
        return _("call #{call_id} is already {state} (entry #{seq})").format(
            call_id=call_id, state=shown, seq=result_seq
        )
    return _("call #{call_id} is already {state}").format(call_id=call_id, state=shown)


class NotYourCall(RuleRefused):
    """A player tried to answer a call made for someone else's character."""


def prompt_of(kind: str, character: str, params: CallParams | Mapping[str, Any], will: int | None = None) -> str:
    """What the player's page says, in the output's language: 「恐怖判定を振ってください:
    鈴音 修正 −2」, or with the Will the check rolls against (the table page knows the
    sheet): 「… 鈴音 意志 11 −2」. `params` as a call holds them, or as its row stores them."""
    from campaign.i18n import _

    def signed(n: int) -> str:
        return f"{n:+d}".replace("-", "−")

    if isinstance(params, Mapping):
        params = call_params(kind, params)
    if isinstance(params, FrightCall):
        mod = params.modifier
        if will is not None:
            return _("roll your fright check: {character} Will {will}{modifier}").format(
                character=character, will=will, modifier=f" {signed(mod)}" if mod else ""
            )
        if mod:
            return _("roll your fright check: {character} modifier {modifier}").format(
                character=character, modifier=signed(mod)
            )
        return _("roll your fright check: {character}").format(character=character)
    if isinstance(params, SuccessCall):
        mod = params.modifier
        return _("roll your success roll: {character} {roll}{modifier}").format(
            character=character, roll=params.roll, modifier=f" {signed(mod)}" if mod else ""
        )
    if isinstance(params, CheckCall):
        what = {"ability": _("ability check"), "skill": _("skill check"), "danger": _("danger sense")}[params.check]
        who = f"{character} {params.stat}" if params.stat else character
        if params.target is not None:
            return _("roll your {check}: {who} target {target}").format(check=what, who=who, target=params.target)
        return _("roll your {check}: {who} difficulty {difficulty}").format(
            check=what, who=who, difficulty=params.difficulty
        )
    names = _(", ").join(params.characters or [character])
    return _("roll the reunion check: {names} (end of scenario #{number})").format(names=names, number=params.scenario)


def neutral_prompt(kind: str, character: str, params: CallParams) -> str:
    """The prompt as a call's --json holds it: in English whatever the output's language
    (--json is one document in every language), worked out in a context of its own."""
    from contextvars import copy_context

    from campaign import i18n

    def english() -> str:
        i18n.use("en")
        return prompt_of(kind, character, params)

    return copy_context().run(english)


def _view(row: TableCall) -> CallView:
    from sqlalchemy.orm import object_session

    player, session, params = row.player, object_session(row), call_params(row.kind, row.params)
    if row.player_id is not None and session is not None:  # the name they have today
        player = session.get_one(Player, row.player_id).name
    return CallView(
        call_id=row.id,
        kind=row.kind,
        character=row.character,
        player=player,
        params=params,
        reason=row.reason,
        state=row.state,
        created_by=row.created_by,
        created_at=row.created_at,
        result_seq=row.result_seq,
        prompt=neutral_prompt(row.kind, row.character, params),
    )


def make_call(
    db: Database,
    campaign_name: str | None,
    actor: str,
    kind: str,
    character: str,
    params: Mapping[str, Any] | None = None,
    reason: str | None = None,
) -> CallView:
    """A pending call for `character`, to be rolled by the character's player."""
    return make_calls(db, campaign_name, actor, kind, [character], params, reason)[0]


def make_calls(
    db: Database,
    campaign_name: str | None,
    actor: str,
    kind: str,
    characters: Sequence[str],
    params: Mapping[str, Any] | None = None,
    reason: str | None = None,
) -> tuple[CallView, ...]:
    """The same call for each of `characters` (none named: every active PC taking part in
    the open scenario, or every active PC when none is open), in one transaction: a
    refusal for one makes none."""
    from campaign.services.scenarios.missing import open_scenario

    checked = check_params(kind, params or {})
    reason = clean_text(reason, "--reason")
    with db.write() as session:
        campaign = campaign_named(session, campaign_name)
        refuse_foreign_kind(campaign.ruleset, kind, check_of(checked))
        names = list(dict.fromkeys(characters)) or _present_pcs(session, campaign, open_scenario(session, campaign))
        if not names:
            raise RuleRefused(_("nobody to call: no active PC takes part"))
        return tuple(_new_call(session, campaign, actor, kind, name, checked, reason) for name in names)


def _new_call(
    session: Session, campaign: Campaign, actor: str, kind: str, character: str, params: CallParams, reason: str | None
) -> CallView:
    """One call, checked against the character now rather than when the player taps."""
    row = active_character_named(session, campaign, character, pgettext("doing", "be called to roll"))
    waiting = session.scalar(
        select(TableCall.id).where(
            TableCall.campaign_id == campaign.id,
            TableCall.kind == kind,
            TableCall.character == row.name,
            TableCall.state == "pending",
        )
    )
    if waiting is not None:  # a double tap on the GM's button, or a call made twice
        raise RuleRefused(
            _("call #{waiting} ({kind}) for {name} is still pending: cancel it first").format(
                waiting=waiting, kind=kind, name=row.name
            )
        )
    if isinstance(params, CheckCall):
        from campaign.services.checks.records import stat_of

        stat_of(row, params.stat)
    elif isinstance(params, SuccessCall):
        from campaign.services.checks.skill_rolls import skill_roll

        if skill_roll(params.roll, row, campaign.ruleset) is None:
            raise RuleRefused(
                _("{name} has no skill or stat {roll!r} to roll against").format(name=row.name, roll=params.roll)
            )
    player = row.player.name if row.player is not None else None
    return _pending(session, campaign, actor, kind, row.name, player, params, reason)


#: A call's name in words, for refusals that list what a ruleset calls.
CALL_WORDS = {
    ("fright", None): N_("fright check"),
    ("check", "success"): N_("success roll"),
    ("check", "ability"): N_("ability check"),
    ("check", "skill"): N_("skill check"),
    ("check", "danger"): N_("danger sense"),
    ("reunion", None): N_("reunion check"),
}


def refuse_foreign_kind(ruleset: str, kind: str, check: str | None = None) -> None:
    """A call the campaign's ruleset does not have is refused (a 2d6 check in a GURPS
    campaign would be recorded as 2D6+20>=10)."""
    kinds = CALL_KINDS.get(ruleset)
    asked = (kind, check if kind == "check" else None)
    if kinds is None or asked in kinds:
        return
    raise RuleRefused(
        _("a {ruleset} campaign has no {kind} call; it calls: {kinds}").format(
            ruleset=ruleset, kind=_(CALL_WORDS[asked]), kinds=_(", ").join(_(CALL_WORDS[k]) for k in kinds)
        )
    )


def _present_pcs(session: Session, campaign: Campaign, scenario: Any) -> list[str]:
    """The active PCs taking part in `scenario` (every active PC without one), oldest first."""
    from campaign.db.models import Character, ScenarioParticipant

    query = select(Character.name).where(
        Character.campaign_id == campaign.id, Character.status == "active", Character.kind == "pc"
    )
    if scenario is not None:
        query = query.join(ScenarioParticipant, ScenarioParticipant.character_id == Character.id).where(
            ScenarioParticipant.scenario_id == scenario.id
        )
    return list(session.scalars(query.order_by(Character.id)))


def _pending(
    session: Session,
    campaign: Campaign,
    actor: str,
    kind: str,
    character: str,
    player: str | None,
    params: CallParams,
    reason: str | None,
) -> CallView:
    """A new call, pending until its player taps it: stored, and shown as a view."""
    player_id = None
    if player is not None:  # the name is today's (the caller just read it): whose call it is
        player_id = session.scalar(select(Player.id).where(Player.campaign_id == campaign.id, Player.name == player))
    call = TableCall(
        campaign_id=campaign.id,
        kind=kind,
        character=character,
        player_id=player_id,
        player=player,
        params=as_json(params),
        reason=reason,
        created_by=str(actor),
        created_at=ledger.utc_now(),
        state="pending",
    )
    session.add(call)
    session.flush()
    return _view(call)


def call_scenario_end(
    db: Database,
    campaign_name: str | None,
    actor: str,
    award: int | None = None,
    elapsed: str | None = None,
    *,
    searchers: bool = False,
    npcs: bool = False,
) -> CallView:
    """`scenario end --call`: the open scenario ends when the missing characters' player
    taps the call, which rolls their reunion checks with the server's dice
    (docs/rules.md "Missing and reunion check": the missing character's player rolls). One
    call for the whole end, since the end and its reunion checks are one transaction; so
    the missing characters must share a player. The award reaches the same PCs as
    `scenario end` without --call: `searchers` and `npcs` are kept with the call."""
    from campaign.services.scenarios.missing import open_disappearances, open_scenario, playing_player

    params = check_params("reunion", {"award": award, "elapsed": elapsed, "searchers": searchers, "npcs": npcs})
    assert isinstance(params, ReunionCall)
    with db.write() as session:
        campaign = campaign_named(session, campaign_name)
        scenario = open_scenario(session, campaign)
        if scenario is None:
            raise RuleRefused(_("no scenario is open; start one with `campaign scenario start TITLE --with CHAR`"))
        from campaign.db.models import Character

        missing = [session.get_one(Character, d.character_id) for d in open_disappearances(session, campaign)]
        if not missing:
            raise RuleRefused(_("nobody is missing, so there is no reunion roll to call for: end it without --call"))
        players = {playing_player(character) for character in missing}
        if len(players) != 1 or None in players:
            raise RuleRefused(
                _(
                    "--call: the missing characters have different players (or none); one call ends the scenario, "
                    "so roll with `scenario end` (--dice CHAR=FACE) instead"
                )
            )
        pending = session.scalar(
            select(TableCall.id).where(
                TableCall.campaign_id == campaign.id, TableCall.kind == "reunion", TableCall.state == "pending"
            )
        )
        if pending is not None:
            raise RuleRefused(_("call #{pending} already ends this scenario").format(pending=pending))
        made = replace(params, scenario=scenario.number, characters=tuple(c.name for c in missing))
        return _pending(session, campaign, actor, "reunion", missing[0].name, players.pop(), made, None)


def list_calls(
    db: Database, campaign_name: str | None, *, player: int | None = None, pending: bool = True
) -> tuple[CallView, ...]:
    """The calls of the campaign (pending ones by default), oldest first; `player` (an
    id: a seat's player, whatever their name is now): only the calls for them."""
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        query = select(TableCall).where(TableCall.campaign_id == campaign.id)
        if pending:
            query = query.where(TableCall.state == "pending")
        if player is not None:
            query = query.where(TableCall.player_id == player)
        return tuple(_view(row) for row in session.scalars(query.order_by(TableCall.id)))


def _call(session: Session, campaign_id: int, call_id: int) -> TableCall:
    row = session.get(TableCall, call_id)
    if row is None or row.campaign_id != campaign_id:
        raise NotFound(_("no call #{call_id}").format(call_id=call_id))
    return row


def cancel_call(db: Database, campaign_name: str | None, call_id: int, actor: str) -> CallView:
    with db.write() as session:
        campaign = campaign_named(session, campaign_name)
        ledger.lock_campaign(session, campaign.id)
        row = _call(session, campaign.id, call_id)
        if row.state != "pending":
            raise RuleRefused(_already(call_id, row.state, None))
        row.state, row.resolved_by, row.resolved_at = "cancelled", str(actor), ledger.utc_now()
        session.flush()
        return _view(row)


def roll_call(
    db: Database,
    campaign_id: int,
    campaign_name: str | None,
    call_id: int,
    actor: str,
    source: DiceSource,
    *,
    seat: Seat | None = None,
    key: str | None = None,
    share: Any = None,
) -> CallRolled:
    """Roll call `call_id` through its service: the entry's seq and the call, now rolled
    (server dice derived from the committed seed and the player's `share` while one is open).

    `seat` (the table server) must be the GM or the call's player; without one the
    caller is the CLI, i.e. the GM rolling for an absent player."""
    from campaign.services.table.writes import GuardedDatabase, Replayed, seat_actor

    with db.read() as session:
        row = _call(session, campaign_id, call_id)
        kind, character, params = row.kind, row.character, call_params(row.kind, row.params)
        # Ending a scenario is the GM's act (its awards, its time): the end and its reunion
        # entries keep the GM who called as actor, and the reunion its player as
        # on_behalf_of (docs/rules.md "Missing and reunion check", services.scenarios.runs), while
        # detail.via names the tap's session.
        ender = row.created_by if kind == "reunion" else None

    def before(session: Session) -> None:
        call = _call(session, campaign_id, call_id)
        if seat is not None and not seat.gm and (call.player_id is None or call.player_id != seat.player_id):
            raise NotYourCall(
                _("call #{call_id} is for {character}, not a character of {player}").format(
                    call_id=call_id, character=call.character, player=seat.player
                )
            )
        if call.state != "pending":
            raise RuleRefused(_already(call_id, call.state, call.result_seq))
        if call.kind == "reunion":
            from campaign.db.models import Campaign
            from campaign.services.scenarios.missing import open_scenario

            scenario = open_scenario(session, session.get_one(Campaign, campaign_id))
            if scenario is None or scenario.number != call.params.get("scenario"):
                raise RuleRefused(
                    _("call #{call_id} ends scenario #{value}, which is no longer the open one: cancel it").format(
                        call_id=call_id, value=call.params.get("scenario")
                    )
                )

    def after(session: Session, first: int, last: int) -> None:
        call = _call(session, campaign_id, call_id)
        call.state, call.result_seq = "rolled", first
        call.resolved_by, call.resolved_at = str(actor), ledger.utc_now()

    from campaign.services.fair.seeds import fair_request

    via = {"call": call_id, **({"session": seat.session_id} if seat is not None else {})}
    who = seat_actor(db, ender or str(actor), via)
    source, armed = fair_request(source, share, who, campaign_id, before)
    guarded = GuardedDatabase(db, campaign_id, seat, key, before=armed, after=after, route=f"calls/{call_id}/roll")
    replayed = False
    try:
        seq = _dispatch(guarded, campaign_name, who, source, kind, character, params)
        last = guarded.span[1] if guarded.span is not None else seq
    except Replayed as done:  # the same request again: its roll, not a second one
        seq, last, replayed = done.first_seq, done.last_seq, True
    revealed = None
    if (
        isinstance(params, ReunionCall) and not replayed
    ):  # the scenario ended: its seed is revealed, as `scenario end` does
        from campaign.services.fair.seeds import reveal_seed

        revealed = reveal_seed(db, campaign_name, ender or str(actor), params.scenario, quiet=True)
    with db.read() as session:
        return CallRolled(
            seq=seq,
            call=_view(_call(session, campaign_id, call_id)),
            replayed=replayed,
            seed_reveal=revealed,
            last_seq=last,
        )


def _dispatch(
    db: Database,
    campaign_name: str | None,
    actor: str,
    source: DiceSource,
    kind: str,
    character: str,
    params: CallParams,
) -> int:
    if isinstance(params, FrightCall):
        from campaign.services.checks.fright import fright_check

        return fright_check(
            db, campaign_name, actor, character, source, modifier=params.modifier, severe_phobia=params.severe_phobia
        ).seq
    if isinstance(params, SuccessCall):
        from campaign.services.checks.rolls import roll

        mod = params.modifier
        word = f"{params.roll}{mod:+d}" if mod else params.roll
        seq: int = roll(db, campaign_name, actor, word, source, character=character)["seq"]
        return seq
    if isinstance(params, CheckCall):
        mods = [("GM", params.modifier)] if params.modifier else []
        if params.check == "danger":
            from campaign.services.checks.action_checks import danger_sense

            assert params.difficulty is not None  # check_params gives danger sense one
            return danger_sense(
                db,
                campaign_name,
                actor,
                source,
                character=character,
                difficulty=params.difficulty,
                stat=params.stat,
                modifiers=mods,
            ).seq
        from campaign.services.checks.action_checks import CheckOptions, ability_check

        assert params.target is not None  # check_params gives ability and skill checks one
        options = CheckOptions(target=params.target, skill=params.skill, modifiers=mods)
        return ability_check(
            db, campaign_name, actor, source, character=character, stat=params.stat, options=options
        ).seq
    from campaign.services.scenarios.runs import end_scenario

    return end_scenario(
        db,
        campaign_name,
        actor,
        [],
        source,
        params.award,
        elapsed=params.elapsed,
        searchers=params.searchers,
        npcs=params.npcs,
    ).seq


# The live feed's probe: each campaign's ledger head and calls signature (newest pending
# call id, pending count) in one statement, built once. It runs at every wake-up of the
# open pages' streams (a write, a poll, a notification on PostgreSQL), for one campaign
# or, in a server of many, for every campaign with an open page at once. Each part is a
# correlated subquery on an index (ix_ledger seq, ix_table_calls_campaign_state).
_PENDING = (TableCall.campaign_id == Campaign.id) & (TableCall.state == "pending")
_HEADS_AND_CALLS = select(
    Campaign.id,
    select(LedgerEntry.seq)
    .where(LedgerEntry.campaign_id == Campaign.id)
    .order_by(LedgerEntry.seq.desc())
    .limit(1)
    .scalar_subquery(),
    select(func.max(TableCall.id)).where(_PENDING).scalar_subquery(),
    select(func.count()).select_from(TableCall).where(_PENDING).scalar_subquery(),
).where(Campaign.id.in_(bindparam("ids", expanding=True)))


def heads_and_calls(db: Database, campaign_ids: Iterable[int]) -> dict[int, tuple[int, tuple[int, int]]]:
    """{campaign id: (the ledger's head seq, (newest pending call id, pending count))} in
    one read (0s for a campaign that is gone). The pair changes whenever an entry is
    appended or a call is made, rolled or cancelled, so the live feed can tell pages to
    look again (calls are no entries)."""
    wanted = sorted(set(campaign_ids))
    if not wanted:
        return {}
    with db.read() as session:
        found = {
            cid: (head or 0, (newest or 0, count))
            for cid, head, newest, count in session.execute(_HEADS_AND_CALLS, {"ids": wanted})
        }
    return {cid: found.get(cid, (0, (0, 0))) for cid in wanted}


def head_and_calls(db: Database, campaign_id: int) -> tuple[int, tuple[int, int]]:
    """heads_and_calls of one campaign: a feed's probe of its own head."""
    return heads_and_calls(db, (campaign_id,))[campaign_id]
