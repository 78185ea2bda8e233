"""The pure halves of the ココフォリア bridge: reading the HTML, reading BCDice's answers."""

from __future__ import annotations

import pytest

from campaign.bridges.bcdice_lines import classify
from campaign.bridges.ccfolia_log import MAX_FIELD, LogReader
from campaign.seeds import load_tables
from tests.ccfolia_logs import GURPS_SESSION, build

TABLES = load_tables()


def read(html: str, size: int = 64):
    data = html.encode("utf-8")
    reader = LogReader(data[i:i + size] for i in range(0, len(data), size))
    return list(reader), reader


@pytest.mark.parametrize("size", [1, 7, 4096])
def test_chunk_boundaries_never_change_what_is_read(size):
    # chunks of 1 and 7 bytes split UTF-8 characters, entities and tags
    whole, _ = read(build(GURPS_SESSION), 1 << 20)
    split, reader = read(build(GURPS_SESSION), size)
    assert split == whole
    assert (len(split), reader.malformed, reader.repaired) == (17, 1, 1)


def test_messages_keep_tab_speaker_lines_and_decode_entities():
    messages, _ = read(build(GURPS_SESSION))
    assert (messages[0].tab, messages[0].speaker, messages[0].text) == \
        ("main", "GM", "霧が出てきた。\n遠くで鐘が鳴っている。")
    assert messages[1].color == "#e91e63"
    assert messages[6].text.startswith("3D6<=10 (3D6<=10)")  # &lt; in the file
    assert [m.index for m in messages] == list(range(17))


def test_broken_html_is_counted_never_raised():
    html = ("<p><span>[main]</span><span>A</span> : <span>x<b>bold</span></b></p>"  # misnested
            "<p><span>[main]</span></p>"  # tab only
            "<p><span>[main]</span><span>B</span> : <span>" + "z" * (MAX_FIELD + 5) + "</span></p>"  # runaway
            "<p><span>[main]</span><span>C</span> : <span>after <![CDATA[junk]]> &bogus; &#xZZ;</span></p>"
            "<p><span>[main]</span><span>D</span> : <span>open span</p>"
            "</span></span></p></p><p")
    messages, reader = read(html, 5)
    assert [(m.speaker, m.text) for m in messages] == \
        [("A", "xbold"), ("C", "after  &bogus; &#xZZ;"), ("D", "open span")]
    assert (reader.paragraphs, reader.malformed, reader.repaired) == (5, 2, 1)


def line(text: str, gurps: bool = True):
    return classify(text, TABLES, gurps=gurps)


def test_gurps_success_rolls_and_their_outcomes():
    cases = {
        "3d6<=11 (3D6<=11) ＞ 3[1,1,1] ＞ 3 ＞ クリティカル(成功度：8)": ("critical_success", 8),
        "3d6<=17 (3D6<=17) ＞ 17[6,6,5] ＞ 17 ＞ 自動失敗(失敗度：0)": ("failure", 0),
        "3d6<=15 (3D6<=15) ＞ 16[5,6,5] ＞ 16 ＞ 失敗(失敗度：-1)": ("failure", -1),
        "3d6<=5 (3D6<=5) ＞ 15[6,6,3] ＞ 15 ＞ ファンブル(失敗度：-10)": ("critical_failure", -10),
    }
    for text, (outcome, margin) in cases.items():
        found = line(text)
        assert found.kind == "roll", text
        assert (found.line.outcome, found.line.margin, found.line.rules_outcome) == (outcome, margin, outcome)


def test_sums_comparisons_and_lone_dice():
    sum_ = line("2d6+3 (2D6+3) ＞ 7[3,4]+3 ＞ 10").line
    assert (sum_.expression, sum_.faces, sum_.total, sum_.outcome) == ("2D6+3", (3, 4), 10, None)
    compare = line("2D6>=7 (2D6>=7) ＞ 9[4,5] ＞ 9 ＞ 成功").line
    assert (compare.comparison, compare.target, compare.margin, compare.outcome) == (">=", 7, 2, "success")
    lone = line("1d100 (1D100) ＞ 42").line
    assert (lone.faces, lone.total) == ((42,), 42)
    nested = line("(2D6+1D4)*2 (（2D6+1D4)*2) ＞ (8[5,3]+4[4])*2 ＞ 24").line
    assert (nested.faces, nested.total) == ((5, 3, 4), 24)


def test_full_width_and_missing_echo():
    found = line("３Ｄ６＜＝１２ (3D6<=12) ＞ １７[６,６,５] ＞ １７ ＞ ファンブル(失敗度：-5)").line
    assert (found.expression, found.faces, found.total, found.outcome) == \
        ("3D6<=12", (6, 6, 5), 17, "critical_failure")
    bare = line("(3D6<=12) ＞ 11[1,4,6] ＞ 11 ＞ 成功(成功度：1)").line
    assert (bare.command, bare.total) == (None, 11)


def test_tables():
    fear = line("FEAR+5 恐怖表(23)：...").line
    assert (fear.command, fear.modifier, fear.result) == ("FEAR", 5, 23)
    crt = line("crt 膝を狙う クリティカル表(18)：...").line
    assert (crt.command, crt.result, crt.comment) == ("CRT", 18, "膝を狙う")
    assert line("妖魔夜行スペシャルファンブル表(3)：...").line.command == "YSFMB"
    assert line("CRT").kind == "chat"  # typed, but the bot did not answer
    # BCDice's reaction table is a table of this ruleset now (seeds/react.toml), no other system's
    react = line("REACT 反応表(18)：とても良い")
    assert (react.kind, react.line.command, react.line.result) == ("table", "REACT", 18)


@pytest.mark.parametrize(("text", "kind"), [
    ("Secret dice 🎲", "secret"),
    ("シークレットダイス", "secret"),
    ("s3d6<=10 (3D6<=10) ＞ 9[1,4,4] ＞ 9 ＞ 成功(成功度：1)", "secret"),
    ("CCB<=50 (1D100<=50) ＞ 6 ＞ スペシャル", "other_system"),
    ("CC<=95 【知識】 (1D100<=95) ボーナス・ペナルティダイス[0] ＞ 92 ＞ 92 ＞ レギュラー成功", "other_system"),
    ("K20 KeyNo.20c[10] ＞ 2D:[5,3]=8 ＞ 6", "other_system"),
    ("choice[右,左] (choice[右,左]) ＞ 左", "other_system"),
    ("x2 2d6 #1 (2D6) ＞ 5[1,4] ＞ 5 #2 (2D6) ＞ 7[3,4] ＞ 7", "other_system"),
    ("3d6<=12 (3D6<=12) ＞ 11[1,4,5] ＞ 11 ＞ 成功(成功度：1)", "unreadable"),
    ("3d6<=12 (3D6<=12) ＞ 11[1,4,6,1] ＞ 11 ＞ 成功(成功度：1)", "unreadable"),
    ("2d6 (2D6) ＞ 14[7,7] ＞ 14", "unreadable"),
    ("こんにちは", "chat"),
    ("HPが減った (残り5) ＞ 次", "chat"),
    ("[ 鈴音 ] HP : 11 → 8", "chat"),
    ("", "chat"),
])
def test_what_is_not_recorded(text, kind):
    assert line(text).kind == kind
