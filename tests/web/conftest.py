"""A demo-like campaign built through the real CLI, and the web app over it.

The campaign: two players, two PCs and a summoned NPC, a relation, rolls with fixed
dice, a failed fright check that leaves a phobia, a character named like an XSS probe,
scenario 1 in which 鈴音 goes missing, scenario 2 (open) in which 刀矢 searches for
her, a secret roll and a seal. Every die is given with --dice, so every number that a
page shows is known exactly.
"""

from __future__ import annotations

import shutil
import sqlite3
import warnings

import pytest

from tests.cli.conftest import Cli, gurps_setup

XSS = "<script>alert(1)</script>"


def build_table(cli: Cli) -> dict[str, int]:
    """The campaign above; returns the seqs the tests look for."""
    gurps_setup(cli)
    cli.run("char", "relate", "鈴音", "刀矢", "--note", "幼馴染")
    cli.run("char", "add", XSS, "--player", "Ren", "--stat", "IQ=9", "--stat", "Will=9")
    seqs = {}
    seqs["roll"] = cli.json("--as", "Aki", "roll", "3D6<=12", "回避", "--char", "鈴音", "--dice", "1,2,3")["seq"]
    seqs["xss_roll"] = cli.json("roll", "2D6", "--char", XSS, "--reason", XSS, "--dice", "2,5")["seq"]
    # 16 against Will 11 fails by 5; 6+6+6 + 5 = 23 on the fright table: a mild phobia.
    seqs["fright"] = cli.json(
        "fright", "鈴音", "--pick", "暗所恐怖症", "--reason", "屋敷の地下室", "--dice", "6,5,5,6,6,6"
    )["seq"]
    cli.run("scenario", "start", "第一話 霧の館", "--with", "鈴音", "--with", "刀矢")
    cli.run("missing", "mark", "鈴音", "--reason", "霧の中に消えた")
    cli.run("scenario", "end", "--dice", "鈴音=4")
    cli.run("scenario", "start", "第二話 捜索", "--with", "管狐", "--search", "刀矢=鈴音")
    seqs["secret"] = cli.json("roll", "S3D6<=12", "聞き耳ひみつ", "--dice", "6,5,4")["seq"]
    seqs["seal"] = cli.json("history", "seal", "--reason", "第1話 終了")["seq"]
    return seqs


@pytest.fixture(scope="module")
def built_table(tmp_path_factory):
    """The campaign on SQLite, built once per module (the CLI runs ~25 commands)."""
    directory = tmp_path_factory.mktemp("web-table")
    patch = pytest.MonkeyPatch()  # `init` selects the campaign in the user config dir
    patch.setenv("XDG_CONFIG_HOME", str(directory / "config"))
    patch.setenv("XDG_DATA_HOME", str(directory / "data"))
    try:
        seqs = build_table(Cli(str(directory / "campaign.db")))
    finally:
        patch.undo()
    with sqlite3.connect(directory / "campaign.db") as raw:
        raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return directory / "campaign.db", seqs


@pytest.fixture
def table(built_table, tmp_path):
    """A copy of the built campaign (tests may write to it): (Cli, seqs)."""
    source, seqs = built_table
    target = tmp_path / "campaign.db"
    shutil.copy(source, target)
    return Cli(str(target)), seqs


def client_for(db_url: str, token: str | None = None):
    with warnings.catch_warnings():  # Starlette 1.x prefers httpx2 for its test client; httpx works
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

        from campaign.web.app import create_app

        return TestClient(create_app(db_url, None, token, hosts=("testserver",)), follow_redirects=False)


@pytest.fixture
def client(table):
    return client_for(table[0].db)
