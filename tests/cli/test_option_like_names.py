"""A campaign name that begins with '-' would read as an option: `init -- --help` made a
campaign named `--help` that `-c` and `use` could never name again. init refuses such a
name in one line and import agrees (the file's name, or --as-name)."""

from __future__ import annotations

import json

import pytest

from tests.cli.conftest import Cli


@pytest.mark.parametrize("name", ["--help", "-x", "-", "  -c"])
def test_init_refuses_a_name_that_reads_as_an_option(cli, name):
    message = cli.error("init", "--", name, code=2)
    assert message == f"error: campaign name must not begin with '-' (it would read as an option): {name.strip()!r}"
    cli.run("init", "卓")  # the database is usable, and holds only this one
    assert [row["name"] for row in cli.json("list")] == ["卓"]


def test_a_dash_inside_a_name_is_fine(cli):
    cli.run("init", "第1話-前編")
    assert [row["name"] for row in cli.json("list")] == ["第1話-前編"]


def test_import_refuses_the_same_names(cli, tmp_path):
    cli.run("init", "卓")
    cli.run("roll", "2D6", "--dice", "3,4")
    exported = tmp_path / "party.jsonl"
    cli.run("export", str(exported))
    lines = exported.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    assert header["type"] == "header"
    # A file (from an older version, or edited) whose campaign is called '-卓': its chain
    # was written as '卓', as an `import --as-name` campaign's export says.
    header["campaign"] = {**header["campaign"], "name": "-卓", "chain_name": "卓"}
    dashed = tmp_path / "dashed.jsonl"
    dashed.write_text("\n".join([json.dumps(header, ensure_ascii=False), *lines[1:]]) + "\n", encoding="utf-8")
    other = Cli(cli.db)
    message = other.error("import", str(dashed), code=1)
    assert "begins with '-'" in message and "--as-name" in message
    assert "-卓" not in [row["name"] for row in cli.json("list")]
    assert "must not begin with '-'" in other.error("import", str(dashed), "--as-name", "--写し", code=2)
    done = other.json("import", str(dashed), "--as-name", "写し")
    assert (done["campaign"], done["chain_name"]) == ("写し", "卓")
    assert sorted(row["name"] for row in cli.json("list")) == ["写し", "卓"]
    assert cli.json("-c", "写し", "history", "verify")["ok"]
