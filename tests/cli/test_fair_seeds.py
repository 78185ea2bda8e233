"""Committed seeds from the CLI (SQLite and PostgreSQL): `scenario start --fair` or the
fair_dice setting commits, `scenario end` and `history reveal-seed` reveal; the GM's own
dice stay `rng` or typed, labelled honestly."""

from __future__ import annotations

from campaign.core.fair_dice import seed_commitment


def test_the_setting_commits_and_scenario_end_reveals(gurps):
    gurps.run("settings", "fair_dice=on")
    started = gurps.json("scenario", "start", "第一話", "--with", "鈴音")
    commit = started["seed_commit"]
    assert commit["seq"] == started["seq"] + 1 and commit["scenario"] == 1
    typed = gurps.json("roll", "3D6", "--dice", "1,2,3")
    rolled = gurps.json("roll", "3D6")
    assert (typed["source"], typed["fairness"]) == ("manual", "typed")
    assert (rolled["source"], rolled["fairness"]) == ("rng", "server") and "fair" not in rolled["detail"]
    ended = gurps.json("scenario", "end")
    reveal = ended["seed_reveal"]
    assert reveal["reveals"] == commit["seq"] and seed_commitment(reveal["seed"]) == commit["commitment"]
    assert [e["kind"] for e in gurps.json("history", "--kind", "seed_reveal")] == ["seed_reveal"]
    report = gurps.json("history", "verify")
    assert report["ok"] and report["fair"]["revealed"] == 1


def test_no_fair_overrides_the_setting_and_reveal_seed_needs_an_open_seed(gurps):
    gurps.run("settings", "fair_dice=on")
    assert gurps.json("scenario", "start", "第一話", "--with", "鈴音", "--no-fair")["seed_commit"] is None
    assert gurps.json("scenario", "end")["seed_reveal"] is None
    assert gurps.error("history", "reveal-seed", code=1) == "error: no committed seed is open"
    human = gurps.run("scenario", "start", "第二話", "--with", "鈴音", "--fair").stdout
    assert "fair dice: seed committed (ledger #" in human
    assert gurps.error("history", "reveal-seed", "1", code=1) == "error: no committed seed is open for scenario #1"
    revealed = gurps.json("history", "reveal-seed", "2")
    assert revealed["scenario"] == 2 and len(revealed["seed"]) == 64
    assert gurps.json("scenario", "end")["seed_reveal"] is None  # already revealed
    assert gurps.json("history", "verify")["ok"]


def test_fair_is_off_by_default(gurps):
    assert gurps.json("scenario", "start", "第一話", "--with", "鈴音")["seed_commit"] is None
    assert "not true or false" in gurps.error("settings", "fair_dice=maybe", code=2)


def test_a_scenario_ended_by_its_reunion_call_reveals_its_seed(gurps):
    commit = gurps.json("scenario", "start", "第一話", "--with", "鈴音", "--fair")["seed_commit"]
    gurps.run("missing", "mark", "鈴音")
    call = gurps.json("scenario", "end", "--call")
    assert gurps.json("history", "--limit", "1")[0]["kind"] != "seed_reveal"  # the call waits: nothing ended yet
    gurps.run("call", "roll", str(call["call_id"]), "--dice", "1")
    assert gurps.json("scenario", "list")[0]["status"] != "open"
    reveal = gurps.json("history", "--limit", "1")[0]
    assert reveal["kind"] == "seed_reveal" and reveal["detail"]["reveals"] == commit["seq"]
    assert seed_commitment(reveal["detail"]["seed"]) == commit["commitment"] and reveal["actor"] == "GM"
    assert gurps.json("history", "verify")["fair"]["revealed"] == 1
    assert gurps.json("scenario", "start", "第二話", "--with", "鈴音", "--fair")["seed_commit"] is not None


def test_an_import_with_a_seed_still_open_never_locks_the_next_fair_start(gurps, tmp_path):
    """A campaign imported while its seed was committed has no seed to reveal (seeds are
    never exported): the import abandons the commitment and says so, so the next fair
    start commits a new seed instead of being refused for ever."""
    from tests.cli.conftest import Cli

    commit = gurps.json("scenario", "start", "第一話", "--with", "鈴音", "--fair")["seed_commit"]
    gurps.run("export", str(tmp_path / "open.jsonl"))
    copy = Cli(str(tmp_path / "copy.db"))
    imported = copy.json("import", str(tmp_path / "open.jsonl"))
    assert imported["abandoned_seed"] == commit["seq"] + 1
    assert copy.json("history", "show", str(commit["seq"] + 1))["detail"]["abandons"] == commit["seq"]
    assert copy.json("scenario", "end")["seed_reveal"] is None
    again = copy.json("scenario", "start", "第二話", "--with", "鈴音", "--fair")["seed_commit"]
    assert again["seq"] > commit["seq"] + 1
    # while a seed is open, a second fair start is refused, naming the command that ends it
    message = copy.error("scenario", "start", "第三話", "--with", "鈴音", "--fair", code=1)
    assert message == f"error: seed #{again['seq']} is still committed: reveal it first (campaign history reveal-seed)"
