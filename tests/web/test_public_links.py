"""Links that work from a chat: the players' address (`--public-url`, the `public_url`
setting, or the LAN address for a wildcard --host) printed by `serve`, whole invite links
from `invite`, and the link as a QR code."""

from __future__ import annotations

import json

import pytest

from campaign.errors import BadInput
from campaign.services.table.invites import clean_public_url, join_link
from tests.cli.conftest import Cli
from tests.web.test_serve import serve  # noqa: F401 (fixture)


@pytest.mark.parametrize(
    ("given", "clean"),
    [
        ("https://table.example", "https://table.example/"),
        ("https://table.example/", "https://table.example/"),
        ("  http://192.168.1.20:8000  ", "http://192.168.1.20:8000/"),
        ("https://Table.Example/kyoto//", "https://table.example/kyoto/"),
        ("http://[::1]:8080/", "http://[::1]:8080/"),
        ("HTTPS://table.example/a/b", "https://table.example/a/b/"),
    ],
)
def test_a_public_url_is_kept_in_one_spelling_ending_in_a_slash(given, clean):
    assert clean_public_url(given, "--public-url") == clean
    assert join_link(clean, "/join/abc") == clean + "join/abc"


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "table.example",
        "ftp://table.example/",
        "javascript:alert(1)",
        "https://",
        "https://user:pw@table.example/",
        "https://table.example/?x=1",
        "https://table.example/#top",
        "https://table.example:99999/",
        "https://table example/",
        "https://table.example/" + "a" * 300,
    ],
)
def test_anything_else_is_refused_naming_the_option(bad):
    with pytest.raises(BadInput) as refused:
        clean_public_url(bad, "--public-url")
    assert str(refused.value).startswith("--public-url: ") and "\n" not in str(refused.value)


def test_without_an_address_the_link_is_the_path():
    assert join_link(None, "/join/abc") == "/join/abc"


@pytest.mark.parametrize("db_url", ["sqlite", "postgres"], indirect=True)
def test_invite_prints_the_whole_link_once_the_setting_is_there(db_url, tmp_path):
    cli = Cli(db_url)
    cli.run("init", "卓")
    cli.run("player", "add", "Aki")
    bare = cli.json("invite", "Aki")
    assert bare["url"] is None and bare["join_path"].startswith("/join/")
    assert cli.run("invite", "Aki").stdout.splitlines()[0].startswith("/join/")
    before = cli.json("history", "--limit", "1")[0]["seq"]
    for bad in ("ftp://x/", "table.example", "https://a/?q=1"):
        message = cli.error("settings", f"public_url={bad}", code=2)
        assert "setting public_url:" in message and len(message.splitlines()) == 1
    assert cli.json("history", "--limit", "1")[0]["seq"] == before  # nothing written
    cli.run("settings", "public_url=http://192.168.1.20:8000")
    made = cli.json("invite", "Aki")
    assert made["url"] == "http://192.168.1.20:8000" + made["join_path"]
    printed = cli.run("invite", "Aki").stdout.splitlines()
    assert (
        printed[0].startswith("http://192.168.1.20:8000/join/")
        and len(printed[0]) == len("http://192.168.1.20:8000/join/") + 43
    )
    # the setting travels with an export, and a void takes it back
    exported = tmp_path / "campaign.json"
    cli.run("export", str(exported))
    copy = Cli(str(tmp_path / "copy.db"))
    copy.run("import", str(exported))
    copy.run("player", "add", "Ren")
    assert copy.json("invite", "Ren")["url"].startswith("http://192.168.1.20:8000/join/")
    setting = cli.json("history", "--limit", "1", "--kind", "setting")[0]["seq"]
    cli.run("history", "void", str(setting), "--reason", "wrong address", "--yes")
    assert cli.json("invite", "Aki")["url"] is None
    cli.run("history", "verify")


def _drawn(text: str) -> list[str]:
    """The QR code of `text` drawn two modules a character (top half, bottom half), light
    border included, as a camera reads dark on light: worked out here from the matrix.
    Below an odd last row, the terminal's own background is left (drawn as dark)."""
    import segno

    code = segno.make(text, error="m")
    border = 4
    size = len(code.matrix) + 2 * border

    def dark(row: int, column: int) -> bool:
        r, c = row - border, column - border
        return 0 <= r < len(code.matrix) and 0 <= c < len(code.matrix) and bool(code.matrix[r][c])

    glyph = {(False, False): "█", (False, True): "▀", (True, False): "▄", (True, True): " "}
    lines = []
    for top in range(0, size, 2):
        lines.append("".join(glyph[(dark(top, c), top + 1 >= size or dark(top + 1, c))] for c in range(size)))
    return lines


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_invite_qr_draws_the_printed_link(db_url):
    cli = Cli(db_url)
    cli.run("init", "卓")
    cli.run("player", "add", "Aki")
    cli.run("settings", "public_url=https://table.example/")
    out = cli.run("invite", "Aki", "--qr").stdout.splitlines()
    link = out[0]
    assert link.startswith("https://table.example/join/")
    drawn = out[1 : 1 + len(_drawn(link))]
    assert [line.rstrip() for line in drawn] == [line.rstrip() for line in _drawn(link)]
    assert "--qr" not in json.dumps(cli.json("invite", "Aki", "--qr"))  # --json: the document only


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_serve_prints_the_public_url_or_a_lan_address_never_a_wildcard(db_url, serve):  # noqa: F811
    from campaign.cli.serve import lan_address

    cli = Cli(db_url)
    cli.run("init", "卓")
    wildcard = serve(db_url, "--host", "0.0.0.0", "--json")
    started = json.loads(wildcard.first_line)
    assert "0.0.0.0" not in started["url"]
    assert started["url"].startswith(f"http://{lan_address()}:{started['port']}/?token=")
    public = serve(db_url, "--public-url", "https://table.example/kyoto")
    assert public.first_line == "https://table.example/kyoto/"
    cli.run("settings", "public_url=http://gm-laptop.local:8000/")
    assert serve(db_url).first_line == "http://gm-laptop.local:8000/"
    message = cli.error("serve", "--public-url", "ftp://table.example/", code=2)
    assert message.startswith("error: --public-url: ") and len(message.splitlines()) == 1
