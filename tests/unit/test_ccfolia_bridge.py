"""The pure halves of the ココフォリア bridge: reading every export format, reading BCDice's answers."""

from __future__ import annotations

import io

import pytest

from campaign.bridges.bcdice_judge import bcdice_gurps_outcome
from campaign.bridges.bcdice_lines import classify, read_message
from campaign.bridges.ccfolia_export import Export
from campaign.bridges.ccfolia_log import MAX_FIELD, LogReader
from campaign.errors import BadInput
from campaign.seeds import load_tables
from tests.ccfolia_logs import GURPS_SESSION, build, build_articles, build_compact, json_log, zip_parts

TABLES = load_tables()


def read(html: str, size: int = 64):
    data = html.encode("utf-8")
    reader = LogReader(data[i : i + size] for i in range(0, len(data), size))
    return list(reader), reader


def export(data: bytes, size: int = 1 << 16):
    class Slow(io.BytesIO):  # a file that hands out `size` bytes at a time
        def read(self, n=-1):
            return super().read(min(n, size) if n and n > 0 else size)

    found = Export(Slow(data))
    return list(found), found


@pytest.mark.parametrize("size", [1, 7, 4096])
def test_chunk_boundaries_never_change_what_is_read(size):
    # chunks of 1 and 7 bytes split UTF-8 characters, entities and tags
    whole, _ = read(build(GURPS_SESSION), 1 << 20)
    split, reader = read(build(GURPS_SESSION), size)
    assert split == whole
    assert (len(split), reader.malformed, reader.repaired, reader.incomplete) == (17, 1, 1, 0)


def test_messages_keep_tab_speaker_lines_and_decode_entities():
    messages, _ = read(build(GURPS_SESSION))
    assert (messages[0].tab, messages[0].speaker, messages[0].text) == (
        "main",
        "GM",
        "霧が出てきた。\n遠くで鐘が鳴っている。",
    )
    assert messages[1].color == "#e91e63"
    assert messages[6].text.startswith("3D6<=10 (3D6<=10)")  # &lt; in the file
    assert [m.index for m in messages] == list(range(17))
    assert [m.legacy_index for m in messages] == list(range(17))


def test_both_paragraph_indentations_read_alike():
    items = GURPS_SESSION[:5]
    spread, _ = read(build(items))
    compact, _ = read(build_compact(items))
    assert [(m.tab, m.speaker, m.text) for m in compact] == [(m.tab, m.speaker, m.text) for m in spread]


def test_broken_html_is_counted_never_raised():
    html = (
        "<p><span>[main]</span><span>A</span> : <span>x<b>bold</span></b></p>"  # misnested
        "<p><span>[main]</span></p>"  # tab only
        "<p><span>[main]</span><span>B</span> : <span>" + "z" * (MAX_FIELD + 5) + "</span></p>"  # runaway
        "<p><span>[main]</span><span>C</span> : <span>after <![CDATA[junk]]> &bogus; &#xZZ;</span></p>"
        "<p><span>[main]</span><span>D</span> : <span>open span</p>"
        "<p><span>[main]</span><span></span> : <span>empty speaker</span></p>"
        "</span></span></p></p><p"
    )
    messages, reader = read(html, 5)
    assert [(m.speaker, m.text) for m in messages] == [
        ("A", "xbold"),
        ("C", "after  &bogus; &#xZZ;"),
        ("D", "open span"),
        ("", "empty speaker"),
    ]
    assert [m.legacy_index for m in messages] == [0, 1, 2, None]  # the old reader skipped the empty speaker
    assert (reader.paragraphs, reader.malformed, reader.repaired) == (6, 2, 1)


def test_a_file_cut_inside_its_last_message_marks_it_incomplete():
    html = build(GURPS_SESSION[:3]).rsplit("</p>", 1)[0][:-40]  # cut inside the last text, no </body>
    messages, reader = read(html)
    assert [m.incomplete for m in messages] == [False, False, True] and reader.incomplete == 1


ARTICLES = [
    ("main", "鈴音", "3d6<=12 回避", "(3D6<=12) ＞ 11[1,4,6] ＞ 11 ＞ 成功(成功度：1)", "2025-04-12T12:00:01.250Z"),
    ("雑談", "ソウ", "おつかれ\nさまでした", None, "2025-04-12T21:00:02+09:00", "p"),
    ("main", "", "FEAR+3", "恐怖表(15)：1Dターン朦朧。", "2025-04-12T12:00:03Z"),
]


@pytest.mark.parametrize("size", [3, 1 << 16])
def test_article_export(size):
    messages, found = export(build_articles(ARTICLES).encode("utf-8"), size)
    assert found.format == "html-article" and found.encoding == "utf-8"
    assert [(m.tab, m.speaker, m.text, m.result, m.timestamp) for m in messages] == [
        ("main", "鈴音", "3d6<=12 回避", "(3D6<=12) ＞ 11[1,4,6] ＞ 11 ＞ 成功(成功度：1)", "2025-04-12T12:00:01Z"),
        ("雑談", "ソウ", "おつかれ\nさまでした", None, "2025-04-12T12:00:02Z"),
        ("main", "", "FEAR+3", "恐怖表(15)：1Dターン朦朧。", "2025-04-12T12:00:03Z"),
    ]
    cut, found = export(build_articles(ARTICLES).encode("utf-8").split(b"</article>")[0][:-20])
    assert [m.incomplete for m in cut] == [True] and found.incomplete == 1


@pytest.mark.parametrize("size", [5, 1 << 16])
def test_json_export(size):
    items = [
        ("main", "鈴音", "3d6<=12", "(3D6<=12) ＞ 11[1,4,6] ＞ 11 ＞ 成功(成功度：1)", 1744459201250),
        ("main", "GM", "s3d6<=10", "(3D6<=10) ＞ 9[1,4,4] ＞ 9 ＞ 成功(成功度：1)", 1744459202000, True),
        ("main", "ミオ", "", None, 1744459203000),
    ]  # an image only
    messages, found = export(json_log(items).encode("utf-8"), size)
    assert found.format == "json"
    assert [(m.speaker, m.text, m.result, m.timestamp, m.secret) for m in messages] == [
        ("鈴音", "3d6<=12", "(3D6<=12) ＞ 11[1,4,6] ＞ 11 ＞ 成功(成功度：1)", "2025-04-12T12:00:01Z", False),
        ("GM", "s3d6<=10", "(3D6<=10) ＞ 9[1,4,4] ＞ 9 ＞ 成功(成功度：1)", "2025-04-12T12:00:02Z", True),
        ("ミオ", "", None, "2025-04-12T12:00:03Z", False),
    ]
    data = json_log(items).encode("utf-8")
    cut, found = export(data[: data.index(b'"GM"') + 10])
    assert [m.incomplete for m in cut] == [False, True] and found.incomplete == 1
    with pytest.raises(BadInput, match="this is not a ココフォリア export"):
        export(b'{"pieces": []}')


def test_zip_parts_are_read_in_order_as_one_log(tmp_path):
    first, second = build(GURPS_SESSION[:3]), build(GURPS_SESSION[3:6])
    path = tmp_path / "room.zip"
    zip_parts(path, [first, second])
    messages, found = export(path.read_bytes())
    assert found.format == "zip:html-p" and found.parts == 2
    assert [m.index for m in messages] == list(range(6))
    assert [m.text for m in messages] == [item[2] for item in GURPS_SESSION[:6]]


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-16-be", "cp932"])
def test_encodings(encoding):
    html = build(GURPS_SESSION[:3]).replace("🎲", "")
    data = html.encode(encoding)
    if encoding == "utf-16-be":
        data = b"\xfe\xff" + data
    messages, found = export(data)
    assert [m.text for m in messages] == [item[2] for item in GURPS_SESSION[:3]]
    assert not found.undecodable


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"", "empty"),
        (bytes(range(256)) * 50, "binary"),
        ("ただのメモ 3D6<=12".encode(), "expected the HTML log"),
        ("ただのメモ".encode("utf-16-le"), "not text"),
        ("ただのメモ <p><span>".encode("utf-16-le"), "binary"),
        (b"\x82\xa0\xff\xfe\x80\x81" * 100, "not text"),
        (b"PK\x03\x04broken", "damaged ZIP"),
    ],
)
def test_what_is_not_an_export_is_refused_in_one_line(data, why):
    with pytest.raises(BadInput, match=f"^this is not a ココフォリア export; .*{why}"):
        export(data)


def line(text: str, gurps: bool = True):
    return classify(text, TABLES, gurps=gurps)


def test_gurps_success_rolls_and_their_outcomes():
    cases = {
        "3d6<=11 (3D6<=11) ＞ 3[1,1,1] ＞ 3 ＞ クリティカル(成功度：8)": ("critical_success", 8),
        "3d6<=17 (3D6<=17) ＞ 17[6,6,5] ＞ 17 ＞ 自動失敗(失敗度：0)": ("failure", 0),
        "3d6<=15 (3D6<=15) ＞ 16[5,6,5] ＞ 16 ＞ 失敗(失敗度：-1)": ("failure", -1),
        "3d6<=15 (3D6<=15) ＞ 16[5,6,5] ＞ 16 ＞ 失敗(失敗度：1)": ("failure", -1),  # an older bot's positive degree
        "3d6<=5 (3D6<=5) ＞ 15[6,6,3] ＞ 15 ＞ ファンブル(失敗度：-10)": ("critical_failure", -10),
        "12-3d6 (3D6<=12) ＞ 12[6,5,1] ＞ 12 ＞ 成功(成功度：0)": ("success", 0),
        "12-3D6+1 (3D6+1<=12) ＞ 12[6,5,1]+1 ＞ 13 ＞ 失敗(失敗度：-1)": ("failure", -1),
    }
    for text, (outcome, margin) in cases.items():
        found = line(text)
        assert found.kind == "dice", (text, found.why)
        roll = found.line
        assert (roll.outcome, roll.margin, roll.rules_outcome) == (outcome, margin, outcome)
        assert roll.detail["gurps"]["rule"] == "R1" and roll.detail["gurps"]["outcome"] == outcome


def test_sums_comparisons_and_lone_dice():
    sum_ = line("2d6+3 (2D6+3) ＞ 7[3,4]+3 ＞ 10").line
    assert (sum_.expression, sum_.faces, sum_.total, sum_.outcome) == ("2D6+3", (3, 4), 10, None)
    compare = line("2D6>=7 (2D6>=7) ＞ 9[4,5] ＞ 9 ＞ 成功").line
    assert (compare.comparison, compare.target, compare.margin, compare.outcome) == (">=", 7, 2, "success")
    lone = line("1d100 (1D100) ＞ 42").line
    assert (lone.faces, lone.total) == ((42,), 42)
    nested = line("(2D6+1D4)*2 (（2D6+1D4)*2) ＞ (8[5,3]+4[4])*2 ＞ 24").line
    assert (nested.faces, nested.total) == ((5, 3, 4), 24)


def test_full_width_missing_echo_next_line_and_no_dice():
    found = line("３Ｄ６＜＝１２ (3D6<=12) ＞ １７[６,６,５] ＞ １７ ＞ ファンブル(失敗度：-5)").line
    assert (found.expression, found.faces, found.total, found.outcome) == ("3D6<=12", (6, 6, 5), 17, "critical_failure")
    bare = line("(3D6<=12) ＞ 11[1,4,6] ＞ 11 ＞ 成功(成功度：1)").line
    assert (bare.command, bare.total) == (None, 11)
    below = line("3d6<=12 回避\n(3D6<=12) ＞ 11[1,4,6] ＞ 11 ＞ 成功(成功度：1)").line
    assert (below.command, below.comment, below.total) == ("3d6<=12", "回避", 11)
    apart = read_message("3d6<=12 回避", TABLES, gurps=True, result="(3D6<=12) ＞ 11[1,4,6] ＞ 11 ＞ 成功(成功度：1)")
    assert apart.line == below
    faceless = line("3d6<=12 (3D6<=12) ＞ 4 ＞ クリティカル(成功度：8)").line
    assert (faceless.faces, faceless.total, faceless.rules_outcome) == (None, 4, "critical_success")
    assert faceless.detail["gurps"]["raw"] == 4
    spaced = line("3d6<=12 回避 ＞ 頼む (3D6<=12) ＞ 8[1,3,4] ＞ 8 ＞ 成功(成功度：4)").line
    assert (spaced.comment, spaced.total) == ("回避 ＞ 頼む", 8)


def test_repeats_record_each_answer():
    found = line(
        "x3 3d6<=12 回避\n#1\n(3D6<=12) ＞ 11[1,4,6] ＞ 11 ＞ 成功(成功度：1)\n\n#2\n"
        "(3D6<=12) ＞ 13[6,6,1] ＞ 13 ＞ 失敗(失敗度：-1)\n\n#3\n(3D6<=12) ＞ 4[1,1,2] ＞ 4 ＞ クリティカル(成功度：8)"
    )
    assert found.kind == "dice" and found.repeat == 3
    assert [(r.total, r.outcome, r.comment) for r in found.lines] == [
        (11, "success", "回避"),
        (13, "failure", "回避"),
        (4, "critical_success", "回避"),
    ]
    ten = line("x10 1d6 " + " ".join(f"#{k} (1D6) ＞ {k % 6 + 1}" for k in range(1, 11)))
    assert [r.total for r in ten.lines] == [k % 6 + 1 for k in range(1, 11)]
    secret = line(
        "sx2 3d6<=10 #1 (3D6<=10) ＞ 9[1,4,4] ＞ 9 ＞ 成功(成功度：1) #2 (3D6<=10) ＞ 5[1,1,3] ＞ 5 ＞ 成功(成功度：5)"
    )
    assert [r.secret for r in secret.lines] == [True, True]
    tables = line("x2 CRT #1 クリティカル表(5) ＞ ダメージ2倍。 #2 クリティカル表(12) ＞ 相手の防御点を無視。")
    assert [(t.command, t.result) for t in tables.lines] == [("CRT", 5), ("CRT", 12)]
    assert line("x3 2d6 #1 (2D6) ＞ 5[1,4] ＞ 5 #2 (2D6) ＞ 7[3,4] ＞ 7").kind == "contradictory"


@pytest.mark.parametrize("count", [2, 10])
def test_another_system_s_repeat_is_one_other_system_line(count):
    """`x10 CCB<=50` (Cthulhu's): none of its answers is recorded, whatever words they
    carry (plain 成功/失敗 would read as our 1D100 rolls), and the message is one line."""
    words = ["成功", "失敗", "スペシャル", "決定的成功", "致命的失敗"] * 2
    answers = "\n\n".join(f"#{k}\n(1D100<=50) ＞ {k * 9} ＞ {words[k - 1]}" for k in range(1, count + 1))
    found = line(f"x{count} CCB<=50\n{answers}")
    assert (found.kind, found.lines, found.repeat) == ("other_system", (), count)
    assert found.why is not None and found.why.code == "not_command"
    tables = line("x2 FEAR+3 #1 恐怖表(9) ＞ 朦朧。 #2 恐怖表(18) ＞ 気絶。")
    assert [(t.command, t.result) for t in tables.lines] == [("FEAR", 9), ("FEAR", 18)]


def test_tables_are_bcdice_s_own():
    fear = line("FEAR+5 恐怖表(23)：...").line
    assert (fear.command, fear.modifier, fear.result, fear.seed) == ("FEAR", 5, 23, "FEAR")
    crt = line("crt 膝を狙う クリティカル表(18)：...").line
    assert (crt.command, crt.result, crt.comment, crt.seed) == ("CRT", 18, "膝を狙う", "CRT")
    ysfmb = line("妖魔夜行スペシャルファンブル表(3)：...").line
    assert (ysfmb.command, ysfmb.seed, ysfmb.text) == ("YSFMB", None, "...")  # 妖魔夜行's, not the seed's 百鬼夜翔
    for text, command in (
        ("HIT 命中部位表(10)：胴体", "HIT"),
        ("MFMB 呪文ファンブル表(8)：...", "MFMB"),
        ("YFMB\n妖術ファンブル表(3)：...", "YFMB"),
    ):
        found = line(text).line
        assert (found.command, found.seed) == (command, None), text
    assert line("REACT-2 反応表(1)：最悪").line.modifier == -2
    assert line("CRT").kind == "chat"  # typed, but the bot did not answer
    assert line("FEAR+3 恐怖表(25)：...").kind == "contradictory"  # 3D6+3 never makes 25
    assert line("CRT ファンブル表(7)：...").kind == "contradictory"
    # BCDice's reaction table is a table of this ruleset now (seeds/react.toml), no other system's
    react = line("REACT 反応表(18)：とても良い")
    assert (react.kind, react.line.command, react.line.result, react.line.seed) == ("dice", "REACT", 18, "REACT")


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Secret dice 🎲", "secret"),
        ("シークレットダイス", "secret"),
        ("CCB<=50 (1D100<=50) ＞ 6 ＞ スペシャル", "other_system"),
        ("CC<=95 【知識】 (1D100<=95) ボーナス・ペナルティダイス[0] ＞ 92 ＞ 92 ＞ レギュラー成功", "other_system"),
        ("K20 KeyNo.20c[10] ＞ 2D:[5,3]=8 ＞ 6", "other_system"),
        ("choice[右,左] (choice[右,左]) ＞ 左", "other_system"),
        ("3d6<=12 (3D6<=12) ＞ 11[1,4,5] ＞ 11 ＞ 成功(成功度：1)", "contradictory"),
        ("3d6<=12 (3D6<=12) ＞ 11[1,4,6,1] ＞ 11 ＞ 成功(成功度：1)", "contradictory"),
        ("2d6 (2D6) ＞ 14[7,7] ＞ 14", "contradictory"),
        ("3D6<=12 (3D6<=12) ＞ 18[6,6,6] ＞ 18 ＞ 成功", "contradictory"),
        ("3D6<=12 (3D6<=12) ＞ 18[6,6,6] ＞ 18 ＞ 成功(成功度：-6)", "contradictory"),
        ("3D6<=12 (3D6<=12) ＞ 9[2,3,4] ＞ 9 ＞ 成功(成功度：2)", "contradictory"),
        ("3D6 (3D6) ＞ 99", "contradictory"),
        ("2D6 (2D6) ＞ 9[3,4] ＞ 9", "contradictory"),
        ("こんにちは", "chat"),
        ("出目表(3)を見て", "chat"),
        ("NC 判定表(3)：...", "other_system"),
        ("HPが減った (残り5) ＞ 次", "chat"),
        ("[ 鈴音 ] HP : 11 → 8", "chat"),
        ("", "chat"),
    ],
)
def test_what_is_not_recorded(text, kind):
    assert line(text).kind == kind


def test_revealed_secret_dice_are_read_and_marked():
    found = line("s3d6<=10 (3D6<=10) ＞ 9[1,4,4] ＞ 9 ＞ 成功(成功度：1)")
    assert found.kind == "dice" and found.line.secret and found.line.total == 9


def test_an_export_that_shows_secret_dice_is_read_as_secret():
    found = read_message(
        "シークレットダイス", TABLES, gurps=True, result="(3D6<=10) ＞ 9[1,4,4] ＞ 9 ＞ 成功(成功度：1)"
    )
    assert found.kind == "dice" and found.line.secret and found.line.command is None
    assert read_message("シークレットダイス", TABLES, gurps=True).kind == "secret"


def test_bcdice_gurps_outcomes_at_their_boundaries():
    assert bcdice_gurps_outcome(5, 5, 15) == "critical_success" and bcdice_gurps_outcome(5, 5, 14) == "success"
    assert bcdice_gurps_outcome(6, 6, 16) == "critical_success" and bcdice_gurps_outcome(6, 6, 15) == "success"
    assert bcdice_gurps_outcome(17, 17, 15) == "critical_failure" and bcdice_gurps_outcome(17, 17, 16) == "failure"
    assert bcdice_gurps_outcome(15, 15, 5) == "critical_failure" and bcdice_gurps_outcome(14, 14, 5) == "failure"
    assert bcdice_gurps_outcome(10, 9, 9) == "success"  # a modifier: success on the total
