"""A new campaign rolls the table's server dice provably by default (docs/fair-dice.md):
`init` stores fair_dice on, so each `scenario start` commits a seed; `init --no-fair`
(or `settings fair_dice=off` later) turns it off. The tests' own helper inits with
--no-fair (tests/cli/conftest.py `not_fair`), so `init` is invoked here as a user types it."""

from __future__ import annotations

from typer.testing import CliRunner

from campaign.cli.app import app
from campaign.cli.demo import PARTY
from tests import inprocess
from tests.cli.conftest import Cli, cli  # noqa: F401 (fixture)
from tests.web.table_server import Browser, served


def _typed_init(db: str, *options: str) -> None:
    """`campaign init テスト卓 [options]` as a user types it, then the test party."""
    with inprocess.reusing():
        result = CliRunner().invoke(app, ["--db", db, "init", "テスト卓", *options], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    for step in PARTY:
        Cli(db).run(*step)


def test_a_fresh_init_is_fair_and_its_scenarios_commit_a_seed(cli):
    _typed_init(cli.db)
    assert cli.json("settings")["settings"]["fair_dice"] is True
    started = cli.json("scenario", "start", "第一話", "--with", "鈴音")
    assert started["seed_commit"]["seq"] == started["seq"] + 1
    assert cli.json("history", "show", str(started["seed_commit"]["seq"]))["kind"] == "seed_commit"
    ended = cli.json("scenario", "end")
    assert ended["seed_reveal"]["reveals"] == started["seed_commit"]["seq"]
    assert cli.json("history", "verify")["ok"]


def test_no_fair_stores_no_setting_and_commits_nothing(cli):
    _typed_init(cli.db, "--no-fair")
    assert cli.json("settings")["settings"].get("fair_dice") is None
    started = cli.json("scenario", "start", "第一話", "--with", "鈴音")
    assert started.get("seed_commit") is None
    assert [e["kind"] for e in cli.json("history", "--limit", "1")] == ["scenario"]


def test_the_gm_turns_fair_dice_off_with_settings(cli):
    _typed_init(cli.db)
    cli.run("settings", "fair_dice=off")
    assert cli.json("settings")["settings"]["fair_dice"] is False
    assert cli.json("scenario", "start", "第一話", "--with", "鈴音").get("seed_commit") is None


def test_a_roll_at_a_fresh_tables_page_is_provable(cli):
    """No --fair anywhere: the player's share makes provable dice, and the table's state
    marks the roll so (the page's fair mark, tests/browser/test_receipts_browser.py)."""
    _typed_init(cli.db)
    cli.json("scenario", "start", "第一話", "--with", "鈴音")
    join = cli.json("invite", "Aki")["join_path"]
    with served(cli.db) as base:
        aki = Browser(base)
        assert aki.join(join).status_code == 303
        rolled = aki.post("/api/rolls", {"command": "3D6<=12", "character": "鈴音", "share": "5a" * 32}).json()
        aki.close()
    shown = cli.json("history", "show", str(rolled["seq"]))
    assert shown["detail"]["fair"]["share"] == "5a" * 32 and shown["fairness"] == "provable"
