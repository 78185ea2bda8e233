"""Safe database defaults: a typo in --db creates nothing, an empty
--db is refused, `init` says when it switches the selected campaign, backups do not
overwrite by accident and carry the selection with them."""

from __future__ import annotations

from typer.testing import CliRunner

from campaign.cli.app import app
from tests.cli.conftest import Cli


def run(*args: str):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def test_read_only_commands_never_create_a_database(tmp_path):
    missing = tmp_path / "typo" / "x.db"
    for command in (["history"], ["char", "list"], ["history", "verify"], ["list"]):
        result = run("--db", str(missing), *command)
        assert result.exit_code == 1, command
        assert result.stderr.strip() == (
            f"error: no database at {missing}: create one with `campaign init NAME` (or check --db)"
        )
    assert not (tmp_path / "typo").exists()


def test_empty_db_is_refused(tmp_path):
    result = run("--db", "", "history")
    assert result.exit_code == 2 and "--db is empty" in result.stderr


def test_init_says_loudly_that_it_switched_the_selection(tmp_path):
    cli = Cli(str(tmp_path / "c.db"))
    first = cli.run("init", "一")
    assert "NOTE" not in first.stderr
    second = cli.run("init", "二")
    assert "NOTE: the selected campaign of this database switched from '一' to '二'" in second.stderr
    assert cli.json("init", "三")["previously_selected"] == "二"


def test_backup_refuses_to_overwrite_and_carries_the_selection(tmp_path):
    cli = Cli(str(tmp_path / "c.db"))
    cli.run("init", "一")
    cli.run("init", "二")
    cli.run("use", "一")
    target = tmp_path / "copy.db"
    cli.run("db", "backup", str(target))
    assert cli.error("db", "backup", str(target), code=1) == f"error: {target} exists; add --force to overwrite it"
    cli.run("db", "backup", str(target), "--force")
    copy = Cli(str(target))
    report = copy.json("history", "verify")  # not "several campaigns exist"
    assert report["ok"] and report["campaign"] == "一"
