"""Who is acting: `--as` after the command as well as before it, and
the shell's `as NAME`, which switches the actor of every following command (and its
prompt) until `as GM`. The one-line usage errors are checked here too."""

from __future__ import annotations

from typer.testing import CliRunner

from campaign.cli.app import app
from campaign.cli.shell import Session


def actors(cli) -> list[tuple[int, str]]:
    return [(e["seq"], e["actor"]) for e in reversed(cli.json("history", "--kind", "roll"))]


def test_as_after_the_command_is_the_same_as_before(gurps):
    gurps.run("roll", "3D6", "--dice", "1,2,3", "--as", "Aki")
    gurps.run("--as", "Ren", "roll", "3D6", "--dice", "1,2,3")
    gurps.run("roll", "3D6", "--as=Aki", "--dice", "1,2,3")
    gurps.run("--as", "Aki", "roll", "3D6", "--dice", "1,2,3", "--as", "Aki")  # the same name twice is fine
    assert [a for _, a in actors(gurps)] == ["Aki", "Ren", "Aki", "Aki"]
    assert (
        gurps.error("--as", "Ren", "roll", "3D6", "--as", "Aki", code=2)
        == "error: --as is given twice ('Ren' and 'Aki')"
    )
    assert gurps.error("roll", "3D6", "--as", code=2) == "error: --as needs a name: --as NAME"
    # after `--` it is the command's own word, not an option
    assert "'3D6 --as'" in gurps.error("roll", "3D6", "--dice", "1,2,3", "--", "--as", code=2)


def test_the_shell_switches_the_actor_and_back(gurps):
    script = (
        "\n".join(
            [
                "roll 3D6 --dice 1,1,1",
                "as Aki",
                "roll 3D6 --dice 2,2,2",
                "roll 3D6 --dice 3,3,3 --as Ren",  # this line only
                "--as Ren roll 3D6 --dice 3,3,4",  # this line only, before the command
                "roll 3D6 --dice 4,4,4",
                "as GM",
                "roll 3D6 --dice 5,5,5",
                "as",
            ]
        )
        + "\n"
    )
    result = CliRunner().invoke(app, ["--db", gurps.db, "shell"], input=script)
    assert result.exit_code == 2, result.output  # the last line: `as` without a name
    assert result.stderr == "error: as takes one name: as Aki (as GM switches back)\n"
    assert [a for _, a in actors(gurps)] == ["GM", "Aki", "Ren", "Ren", "Aki", "GM"]


def test_the_prompt_shows_who_is_acting(gurps):
    from click import Context

    from campaign.cli.context import AppState

    root = Context(app_command(), obj=AppState(db_option=gurps.db))
    session = Session(root)
    assert session.prompt == "campaign> "
    assert session.run("as Aki") == 0 and session.prompt == "campaign (Aki)> "
    assert session.run("as GM") == 0 and session.prompt == "campaign> "
    root.obj.close()


def app_command():
    import typer.main

    return typer.main.get_command(app)


def test_usage_errors_are_one_line_with_exit_2(gurps):
    for args, line in [
        (
            ("scenario", "end", "--awrd", "3"),
            "error: No such option: --awrd (Possible options: --award) (see `campaign scenario end --help`)",
        ),
        (("award",), "error: Missing argument CP (see `campaign award --help`)"),
        (("history", "--limit", "x"), None),
    ]:
        result = gurps.run(*args, expect=2)
        assert len(result.stderr.strip().splitlines()) == 1 and result.stdout == ""
        assert "╭" not in result.stderr and "Usage:" not in result.stderr
        if line is not None:
            assert result.stderr.strip() == line


def test_as_completes_players_and_join_completes_characters(gurps):
    from click import Context

    from campaign.cli.context import AppState
    from campaign.cli.shell_completion import Completer

    root = Context(app_command(), obj=AppState(db_option=gurps.db))
    try:
        complete = Completer(Session(root)).candidates
        assert "as" in complete("", "a")
        assert complete("as ", "") == ["GM", "Aki", "Ren"]
        assert complete("scenario join ", "鈴") == ["鈴音"]
    finally:
        root.obj.close()
