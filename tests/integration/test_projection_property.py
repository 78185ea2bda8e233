"""Property: whatever commands and voids a group runs, the state tables equal the
ledger's projection, and any single direct edit of a state table is caught.

Random programs of real use-cases (fright checks rolled from a seeded source, traits,
conditions timed or not, campaign time, damage and healing, settings, disappearances,
scenarios with search parties, reunion checks)
interleaved with voids (alone, cascaded, and voids of voids), through the services on a
real database. Refusals are part of the game: a refused step must change nothing.
"""

from __future__ import annotations

import json
import sqlite3
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaign.core.dice_source import SeededDice
from campaign.db.database import Database
from campaign.errors import CampaignError
from campaign.services.campaigns import clock
from campaign.services.campaigns import setup as campaigns
from campaign.services.characters import conditions, pools, traits
from campaign.services.characters import roster as characters
from campaign.services.checks.fright import fright_check
from campaign.services.disputes import voids
from campaign.services.ledger import history
from campaign.services.results import as_json
from campaign.services.scenarios import missing
from campaign.services.scenarios import runs as scenarios
from tests.conftest import FAST
from tests.inprocess import blank_at_head

# 25 programs in `make test`, 8 in `make test-fast` (derandomized too, so a run repeats
# exactly); a program is ~0.25 s: up to 25 steps, each followed by a full verify.
PROGRAMS = settings(
    derandomize=True,
    max_examples=8 if FAST else 25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
NAMES = ("鈴音", "刀矢", "千早")
TRAITS = ("好奇心", "甘党", "暗所恐怖症")

step = st.one_of(
    st.tuples(st.just("fright"), st.sampled_from(NAMES), st.integers(-12, 0), st.integers(0, 10**6)),
    st.tuples(st.just("trait_add"), st.sampled_from(NAMES), st.sampled_from(TRAITS), st.integers(-15, 15)),
    st.tuples(st.just("trait_remove"), st.sampled_from(NAMES), st.sampled_from(TRAITS)),
    st.tuples(st.just("trait_rename"), st.sampled_from(NAMES), st.sampled_from(TRAITS), st.sampled_from(TRAITS)),
    st.tuples(
        st.just("clear"),
        st.sampled_from(NAMES),
        st.sampled_from(("stun", "unconscious", "panic", "light_coma", "poisoned", "recovering")),
    ),
    st.tuples(st.just("timed"), st.sampled_from(NAMES), st.sampled_from(("10m", "6h", "2day")), st.booleans()),
    st.tuples(st.just("advance"), st.sampled_from(("1turns", "30m", "5h", "3day"))),
    st.tuples(st.just("pool"), st.sampled_from(NAMES), st.sampled_from(("HP", "FP")), st.integers(1, 6), st.booleans()),
    st.tuples(st.just("stat"), st.sampled_from(NAMES), st.sampled_from(("Will", "IQ", "FP")), st.integers(8, 14)),
    st.tuples(st.just("setting"), st.sampled_from(("none", "13", "12"))),
    st.tuples(st.just("missing"), st.sampled_from(NAMES), st.integers(2, 8)),
    st.tuples(st.just("start"), st.sampled_from(NAMES), st.sampled_from(NAMES), st.sampled_from(NAMES)),
    st.tuples(st.just("end"), st.integers(0, 10**6)),
    st.tuples(st.just("void"), st.integers(1, 60), st.booleans()),
    st.tuples(st.just("void_last_void")),
    # roster changes, recovery rolls, several voids at once, awards to PCs and searchers
    st.tuples(st.just("join"), st.sampled_from(NAMES), st.booleans()),
    st.tuples(
        st.just("recover"),
        st.sampled_from(NAMES),
        st.sampled_from(("stun", "unconscious", "panic")),
        st.integers(0, 10**6),
    ),
    st.tuples(st.just("void_last"), st.integers(1, 3), st.booleans()),
    st.tuples(st.just("end_award"), st.integers(0, 10**6), st.booleans()),
)


def _setup(db: Database) -> None:
    campaigns.create_campaign(db, "卓", "gurps3-ja", "GM")
    for player in ("Aki", "Ren", "Mio"):
        characters.add_player(db, None, player, "GM")
    for name, player in zip(NAMES, ("Aki", "Ren", "Mio")):
        characters.add_character(
            db, None, name, "GM", player=player, cp=150, stats={"Will": 11, "IQ": 12, "HT": 11, "FP": 11, "HP": 11}
        )
    characters.relate(db, None, "鈴音", "刀矢", "GM", None)
    characters.relate(db, None, "鈴音", "千早", "GM", None)
    characters.relate(db, None, "刀矢", "千早", "GM", None)


def _run(db: Database, action: tuple) -> None:  # noqa: C901 - one branch per generated action
    kind, *args = action
    if kind == "fright":
        name, modifier, seed = args
        fright_check(db, None, "GM", name, SeededDice(seed), modifier=modifier, pick="暗所恐怖症")
    elif kind == "trait_add":
        traits.add_trait(db, None, "GM", args[0], args[1], args[2])
    elif kind == "trait_remove":
        traits.remove_trait(db, None, "GM", args[0], args[1], reason="bought off")
    elif kind == "trait_rename":
        traits.rename_trait(db, None, "GM", *args)
    elif kind == "clear":
        conditions.clear_condition(db, None, "GM", *args)
    elif kind == "timed":
        name, span, follow = args
        conditions.add_condition(
            db,
            None,
            "GM",
            name,
            "poisoned",
            lasts=span,
            then_penalty=-2 if follow else None,
            then_for="1h" if follow else None,
        )
    elif kind == "advance":
        clock.advance(db, None, "GM", args[0])
    elif kind == "pool":
        name, pool, amount, heal = args
        pools.change_pool(db, None, "GM", name, pool, amount, heal=heal)
    elif kind == "stat":
        characters.set_stats(db, None, args[0], "GM", {args[1]: args[2]})
    elif kind == "setting":
        campaigns.settings(db, None, "GM", {"fright_cap": args[0]})
    elif kind == "missing":
        missing.mark_missing(db, None, args[0], "GM", faces=args[1])
    elif kind == "start":
        joining, searcher, target = args
        searches = [(searcher, target)] if searcher != target else []
        scenarios.start_scenario(db, None, "話", "GM", [joining], searches)
    elif kind == "end":
        scenarios.end_scenario(db, None, "GM", [], SeededDice(args[0]))
    elif kind == "void":
        voids.void(db, None, "GM", args[0], "property", cascade=args[1])
    elif kind == "join":
        scenarios.change_roster(db, None, "GM", args[0], join=args[1])
    elif kind == "recover":
        from campaign.services.checks.recovery import recover

        recover(db, None, "GM", args[0], args[1], SeededDice(args[2]))
    elif kind == "void_last":
        voids.void(db, None, "GM", [], "property", last=args[0], cascade=args[1])
    elif kind == "end_award":
        scenarios.end_scenario(db, None, "GM", [], SeededDice(args[0]), award=2, searchers=args[1])
    elif kind == "void_last_void":
        last_void = list(history.iter_history(db, None, history.HistoryFilter(kind="void", limit=1)))
        if last_void:
            voids.void(db, None, "GM", last_void[0]["seq"], "take it back")


def _assert_projection(db: Database) -> None:
    report = history.verify(db, None)
    assert report.ok, report


@PROGRAMS
@given(program=st.lists(step, min_size=5, max_size=25))
def test_commands_and_voids_always_leave_the_projection(tmp_path, program):
    path = tmp_path / f"{uuid.uuid4().hex}.db"
    path.write_bytes(blank_at_head())  # what the migrations make of a new file, made once
    db = Database(str(path))
    try:
        _setup(db)
        for action in program:
            try:
                _run(db, action)
            except CampaignError:
                pass  # refused: must have changed nothing, which the next check proves too
            _assert_projection(db)
    finally:
        db.close()


# Direct edits a tamperer could make to each state table of a played campaign.
EDITS = {
    "campaign": "UPDATE campaigns SET settings = '{\"fright_cap\": 20}'",
    "characters": "UPDATE characters SET cp_total = cp_total + 1 WHERE name = '鈴音'",
    "relationships": "DELETE FROM relationships WHERE id = (SELECT max(id) FROM relationships)",
    "traits": "UPDATE traits SET cp = cp - 1",
    "conditions": "UPDATE conditions SET duration = 'forever'",
    "scenarios": "UPDATE scenarios SET title = 'forged'",
    "disappearances": "UPDATE disappearances SET faces = faces + 1",
    "searches": "UPDATE searches SET ended_seq = NULL",
    "reunion_checks": "UPDATE reunion_checks SET roll = 1, success = 1",
    "players": "INSERT INTO players (campaign_id, name) VALUES (1, 'Mallory')",
}


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A campaign in which every state table has rows (a condition cleared, a search
    ended, a failed then a successful reunion), to be copied and edited."""
    path = tmp_path_factory.mktemp("played") / "played.db"
    db = Database(str(path))
    _setup(db)
    fright_check(db, None, "GM", "鈴音", SeededDice(1), modifier=-6)
    for seed in range(2, 40):  # until a condition is on someone
        if any(c.conditions for c in characters.list_characters(db, None)):
            break
        fright_check(db, None, "GM", "刀矢", SeededDice(seed), modifier=-8)
    traits.add_trait(db, None, "GM", "千早", "好奇心", -5)
    missing.mark_missing(db, None, "鈴音", "GM", faces=6)
    scenarios.start_scenario(db, None, "一話", "GM", ["千早"], [("刀矢", "鈴音")])
    from campaign.core.dice_source import ManualDice

    scenarios.end_scenario(db, None, "GM", [("鈴音", ManualDice([6]))], SeededDice(0))
    scenarios.start_scenario(db, None, "二話", "GM", ["千早"])
    scenarios.end_scenario(db, None, "GM", [("鈴音", ManualDice([1]))], SeededDice(0))
    _assert_projection(db)
    db.close()
    return path


@pytest.mark.parametrize("table", sorted(EDITS))
def test_any_direct_edit_of_a_state_table_is_named_by_verify(played, tmp_path, table):
    path = tmp_path / "edited.db"
    path.write_bytes(played.read_bytes())
    with sqlite3.connect(path) as conn:
        changed = conn.execute(EDITS[table]).rowcount
    assert changed >= 1, f"the fixture has no {table} row to edit"
    db = Database(str(path))
    try:
        report = history.verify(db, None)
        assert not report.ok and report.state.table == table, json.dumps(as_json(report), ensure_ascii=False)
    finally:
        db.close()
