"""Every command explains itself with an example (a command without help is a bug)."""

from __future__ import annotations

import re

import pytest
import typer
import typer.main
from typer.testing import CliRunner

from campaign.cli.app import app
from tests import inprocess


def _help(*path: str):
    """`campaign <path> --help`, on the command tree built once (see tests/inprocess.py)."""
    with inprocess.reusing():
        return CliRunner().invoke(app, [*path, "--help"])


def _walk(command, path: tuple[str, ...] = ()):
    """Every command under `command`, through Click's group interface (the root builds its
    commands lazily, so only list_commands/get_command see them all)."""
    yield path, command
    if hasattr(command, "list_commands"):
        ctx = typer.Context(command)
        for name in command.list_commands(ctx):
            yield from _walk(command.get_command(ctx, name), path + (name,))


def test_every_command_has_help_with_an_example():
    root = typer.main.get_command(app)
    commands = list(_walk(root))
    assert len(commands) > 10
    for path, _command in commands:
        result = _help(*path)
        assert result.exit_code == 0, path
        assert "Example" in result.stdout, f"`campaign {' '.join(path)} --help` shows no example"


def test_every_leaf_command_takes_json():
    root = typer.main.get_command(app)
    for path, command in _walk(root):
        if hasattr(command, "list_commands") or path == ("demo",):
            continue
        options = {opt for param in command.params for opt in getattr(param, "opts", [])}
        assert "--json" in options, f"`campaign {' '.join(path)}` lacks --json"


# A type shown where a GM expects a value name: Typer's own labels (<bool>, <str>,
# <list[str]>, <int>) and Click's (BOOLEAN, TEXT, INTEGER).
_PLACEHOLDER = re.compile(r"<(bool|str|int|float|list\[\w+\])>|\b(BOOLEAN|TEXT|INTEGER)\b")


def test_help_shows_no_type_placeholders_and_reflows_at_80_columns(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    root = typer.main.get_command(app)
    for path, _command in _walk(root):
        result = _help(*path)
        assert result.exit_code == 0, path
        found = _PLACEHOLDER.search(result.stdout)
        assert found is None, f"`campaign {' '.join(path)} --help` shows {found.group()!r}"
        for line in result.stdout.splitlines():
            assert len(line) <= 80, f"`campaign {' '.join(path)} --help`: a line wider than 80 columns"


def test_help_paragraphs_flow_instead_of_keeping_source_line_breaks(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    out = CliRunner().invoke(app, ["history", "verify", "--help"]).stdout
    text = " ".join(line.strip(" │") for line in out.splitlines())
    # the docstring breaks "... a prefix of 16" / "or more hex digits ..." in the source
    assert "a prefix of 16 or more hex digits must name" in " ".join(text.split())
    lines = [line.rstrip() for line in out.splitlines()]
    # no prose line ends after a lone word that the source broke at (the old "do. A")
    assert not any(line.endswith(" A") for line in lines)


def test_flags_show_no_value_and_options_name_their_value(monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    out = CliRunner().invoke(app, ["char", "add", "--help"]).stdout
    option_lines = {line.split()[1]: line for line in out.splitlines() if line.startswith("│ --")}
    assert "PLAYER" in option_lines["--player"]
    assert " N " in option_lines["--cp"]
    assert option_lines["--json"].split()[2] == "Print"  # nothing between the flag and its help


def _cells(line: str) -> int:
    from rich.cells import cell_len

    return cell_len(line)


def _prose_paragraphs(out: str) -> list[list[str]]:
    """The description's paragraphs (the lines above the first box), each a list of lines."""
    paragraphs: list[list[str]] = [[]]
    for line in out.splitlines():
        if line.startswith("╭"):
            break
        text = line.strip()
        if text:
            paragraphs[-1].append(text)
        elif paragraphs[-1]:
            paragraphs.append([])
    return [paragraph for paragraph in paragraphs if paragraph]


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_help_fits_80_terminal_cells_and_breaks_japanese_where_it_may(monkeypatch, lang):
    """East Asian width: a kanji takes two cells, so `len(line) <= 80` would let a Japanese
    line run to 160 cells. No line may start with closing punctuation (行頭禁則), and a
    description line is cut short only at the end of its paragraph (Japanese breaks between
    characters, so nothing forces an early break)."""
    from campaign.cli.help_wrap import NO_LINE_START

    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("CAMPAIGN_LANG", lang)
    root = typer.main.get_command(app)
    japanese_lines = 0
    for path, _command in _walk(root):
        result = _help(*path)
        where = f"`campaign --lang {lang} {' '.join(path)} --help`"
        assert result.exit_code == 0, where
        for line in result.stdout.splitlines():
            assert _cells(line) <= 80, f"{where}: {line!r} is wider than 80 cells"
            text = line.strip(" │╭╮╰╯─")
            japanese = any(_cells(ch) == 2 for ch in text)
            assert not japanese or text[0] not in NO_LINE_START, f"{where}: a line starts with {text[0]!r}"
            japanese_lines += japanese
        for paragraph in _prose_paragraphs(result.stdout):
            example = paragraph[0].startswith(("例:", "Example:"))  # a command line breaks at spaces only
            if lang == "ja" and not example and any(_cells(ch) == 2 for ch in "".join(paragraph)):
                for line, following in zip(paragraph, paragraph[1:]):
                    word = re.match(
                        r"[（「『【]*[!-~]*", following
                    ).group()  # a Latin run (and its bracket) never breaks
                    assert _cells(line) >= 70 or _cells(line) + _cells(word) > 78, f"{where}: {line!r} breaks early"
    assert japanese_lines > (1000 if lang == "ja" else 0)


def test_japanese_help_is_shown_in_japanese(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("CAMPAIGN_LANG", "ja")
    out = _help("history", "verify").stdout
    assert "ハッシュチェーンを計算し直し、台帳を再生して状態テーブルと比べます。" in out.replace("\n ", "")
    assert " --head を付けると、保管しておいた封印がまだチェーンにあることも確かめ、" in out
    assert "例: campaign history verify --head 3f1c9a07e2b4d5c6" in out
