"""SQLite-only variants of the `gurps` fixture for tests parametrised over many cases.

conftest.py runs every test that uses `db_url` on SQLite and PostgreSQL; a test that
checks, say, every fright table entry runs on SQLite from a template database built
once per module and copied per test (a file copy instead of six commands), and a few
of its cases also run through `gurps` on both backends. Import the fixtures with
`from tests.cli.sqlite_party import sqlite_gurps, template_db`.
"""

from __future__ import annotations

import shutil
import sqlite3

import pytest

from tests.cli.conftest import Cli


def gurps_setup(cli: Cli) -> Cli:
    """The same party as the `gurps` fixture (tests/cli/conftest.py)."""
    cli.run("init", "テスト卓")
    cli.run("player", "add", "Aki")
    cli.run("player", "add", "Ren")
    cli.run("char", "add", "鈴音", "--player", "Aki", "--stat", "IQ=12", "--stat", "HT=11",
            "--stat", "Will=11", "--stat", "FP=11", "--stat", "HP=11", "--cp", "100")
    cli.run("char", "add", "刀矢", "--player", "Ren", "--stat", "IQ=10", "--stat", "HT=12",
            "--stat", "Will=13", "--cp", "100")
    cli.run("char", "add", "管狐", "--npc", "--summoner", "鈴音", "--stat", "Will=10")
    return cli


@pytest.fixture(scope="module")
def template_db(tmp_path_factory):
    directory = tmp_path_factory.mktemp("gurps-template")
    patch = pytest.MonkeyPatch()  # `init` selects the campaign in the user config dir
    patch.setenv("XDG_CONFIG_HOME", str(directory / "config"))
    patch.setenv("XDG_DATA_HOME", str(directory / "data"))
    try:
        gurps_setup(Cli(str(directory / "campaign.db")))
    finally:
        patch.undo()
    with sqlite3.connect(directory / "campaign.db") as raw:
        raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return directory / "campaign.db"


@pytest.fixture
def sqlite_gurps(template_db, tmp_path) -> Cli:
    target = tmp_path / "campaign.db"
    shutil.copy(template_db, target)
    return Cli(str(target))
