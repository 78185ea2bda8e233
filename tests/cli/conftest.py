"""Running the real CLI in-process (CliRunner), parsing --json output."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass

import pytest
from typer.testing import CliRunner

from campaign.cli.app import app
from campaign.cli.demo import PARTY
from tests import inprocess
from tests.conftest import party_copy


def not_fair(args: tuple[str, ...]) -> tuple[str, ...]:
    """`init` with `--no-fair` unless the test says --fair: the tests count entries, and a
    fair campaign (the default) writes a seed commitment at each scenario start and its
    reveal at the end. The default itself is tested in tests/cli/test_fair_by_default.py."""
    if args[:1] == ("init",) and "--fair" not in args and "--no-fair" not in args:
        return ("init", "--no-fair", *args[1:])
    return args


@dataclass
class Cli:
    db: str

    def run(self, *args: str, expect: int | None = 0):
        args = not_fair(args)
        with inprocess.reusing():  # one command tree, one engine per database: see tests/inprocess.py
            result = CliRunner().invoke(app, ["--db", self.db, *args], catch_exceptions=False)
        if expect is not None:
            assert result.exit_code == expect, (
                f"campaign {' '.join(args)} exited {result.exit_code}, expected {expect}\n"
                f"stdout: {result.stdout}\nstderr: {result.stderr}"
            )
        return result

    def json(self, *args: str, expect: int = 0):
        return json.loads(self.run(*args, "--json", expect=expect).stdout)

    def error(self, *args: str, code: int) -> str:
        """Run a command that must be refused; return its one-line message."""
        result = self.run(*args, expect=code)
        assert "Traceback" not in result.output
        return result.stderr.strip()


@pytest.fixture
def cli(db_url) -> Cli:
    return Cli(db_url)


def gurps_setup(cli: Cli) -> Cli:
    """A GURPS campaign with two players, two PCs and a summoned NPC."""
    cli.run("init", "テスト卓")
    for step in PARTY:
        cli.run(*step)
    cli.run("char", "add", "管狐", "--npc", "--summoner", "鈴音", "--stat", "Will=10")
    return cli


@pytest.fixture
def gurps(cli, request) -> Cli:
    """The `gurps_setup` party on the test's backend: built once per session through the
    CLI, copied per test, and selected for the test's user as its `init` would."""
    party_copy(request, "gurps", cli.db, lambda db: gurps_setup(Cli(db)), campaign="テスト卓")
    return cli


@pytest.fixture(scope="session")
def template_db(party_templates):
    """The `gurps` party on SQLite, built once per session for tests with many cases."""
    return party_templates.template("gurps", "sqlite", lambda db: gurps_setup(Cli(db)))


@pytest.fixture
def sqlite_gurps(template_db, tmp_path) -> Cli:
    """A copy of the template: the `gurps` party on SQLite only, in a file copy's time.
    Tests using it check many cases; a few of those cases also run through `gurps`."""
    target = tmp_path / "campaign.db"
    shutil.copy(template_db, target)
    return Cli(str(target))
