"""ココフォリア log exports, written the way ココフォリア writes them (ログ出力).

Each session is a list of (tab, speaker, text) messages plus raw fragments for the
broken markup found in the wild; `expected` says what an import must count.
"""

from __future__ import annotations

from html import escape

HEAD = """<!DOCTYPE html>
<html lang="ja">
  <head>
    <meta charset="UTF-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1.0" />
    <meta http-equiv="X-UA-Compatible" content="ie=edge" />
    <title>ccfolia - logs</title>
  </head>
  <body>
    
"""
TAIL = """
  </body>
</html>
"""
COLORS = {"GM": "#888888", "すずね": "#e91e63", "刀矢": "#2196f3", "ミオ": "#4caf50", "ソウ": "#9c27b0"}


def paragraph(tab: str | None, speaker: str, text: str) -> str:
    """One message as the export writes it: tab, speaker and text spans, `<br>` for lines."""
    body = "<br>".join(escape(line, quote=False) for line in text.split("\n"))
    tab_span = f"  <span> [{escape(tab)}]</span>\n" if tab is not None else ""
    return (f'\n<p style="color:{COLORS.get(speaker, "#212121")};">\n{tab_span}'
            f"  <span>{escape(speaker)}</span> :\n  <span>\n    {body}\n  </span>\n</p>\n")


def build(items) -> str:
    """A whole export: messages are (tab, speaker, text) tuples, raw fragments are str."""
    return HEAD + "".join(item if isinstance(item, str) else paragraph(*item) for item in items) + TAIL


# (faces, total, outcome) of every roll the GURPS session records, in log order.
GURPS_ROLLS = [
    ("鈴音", "3D6<=12", [1, 4, 6], 11, "success", 1),
    ("刀矢", "3D6<=13", [5, 6, 5], 16, "failure", -3),
    ("鈴音", "3D6<=11", [2, 1, 1], 4, "critical_success", 7),
    ("刀矢", "3D6<=10", [6, 6, 6], 18, "critical_failure", -8),
    ("刀矢", "1D6+2", [4], 6, None, None),
    ("鈴音", "3D6<=12", [3, 3, 4], 10, "success", 2),
    ("刀矢", "2D6", [3, 4], 7, None, None),
    ("刀矢", "2D6>=7", [2, 3], 5, "failure", -2),
    ("鈴音", "3D6<=12", [1, 4, 6], 11, "success", 1),
]
GURPS_TABLES = [("刀矢", "FEAR+3", 15), (None, "CRT", 13)]

GURPS_SESSION = [
    ("main", "GM", "霧が出てきた。\n遠くで鐘が鳴っている。"),
    ("main", "すずね", "3d6<=12 回避 (3D6<=12) ＞ 11[1,4,6] ＞ 11 ＞ 成功(成功度：1)"),
    ("main", "刀矢", "3D6<=13 恐怖判定 (3D6<=13) ＞ 16[5,6,5] ＞ 16 ＞ 失敗(失敗度：-3)"),
    ("main", "刀矢", "FEAR+3 恐怖表(15)：1D ターン朦朧。"),
    ("main", "GM", "CRT クリティカル表(13)：相手の防護点を無視する。"),
    ("main", "すずね", "3d6<=11 (3D6<=11) ＞ 4[2,1,1] ＞ 4 ＞ クリティカル(成功度：7)"),
    ("main", "刀矢", "3D6<=10 (3D6<=10) ＞ 18[6,6,6] ＞ 18 ＞ ファンブル(失敗度：-8)"),
    ("main", "GM", "Secret dice 🎲"),
    ("main", "GM", "s3d6<=10 (3D6<=10) ＞ 9[1,4,4] ＞ 9 ＞ 成功(成功度：1)"),
    ("main", "すずね", "CCB<=50 (1D100<=50) ＞ 6 ＞ スペシャル"),
    ("main", "刀矢", "1d6+2 ダメージ (1D6+2) ＞ 4[4]+2 ＞ 6"),
    ("main", "すずね", "３Ｄ６＜＝１２ 知覚 (3D6<=12) ＞ １０[３,３,４] ＞ １０ ＞ 成功(成功度：２)"),
    (None, "刀矢", "2d6 (2D6) ＞ 7[3,4] ＞ 7"),  # an export without tab spans
    '<p style="color:#888888;"><span> [main]</span><span>GM</span></p>\n',  # no text: malformed
    # an unclosed <p>: the next one starts before </p>; still read (repaired)
    '<p style="color:#2196f3;"><span> [main]</span><span>刀矢</span> : '
    "<span>2D6&gt;=7 (2D6&gt;=7) ＞ 5[2,3] ＞ 5 ＞ 失敗</span>\n",
    ("main", "すずね", "3d6<=12 回避 (3D6<=12) ＞ 11[1,4,6] ＞ 11 ＞ 成功(成功度：1)"),  # the same again
    ("main", "すずね", "3d6<=12 (3D6<=12) ＞ 11[1,4,5] ＞ 11 ＞ 成功(成功度：1)"),  # faces do not add up
    ("雑談", "ソウ", "おつかれさまでした！ 次回は ＞ 来週"),
]
GURPS_EXPECTED = {"messages": 17, "recorded": 11, "rolls": 9, "tables": 2, "duplicates": 0, "secret": 2,
                  "chat": 2, "other_system": 1, "unreadable": 1, "malformed": 1, "repaired": 1}

# The 2d6 homebrew on ココフォリア's generic dice bot; players ミオ (心技体感) and ソウ.
TWO_D6_ROLLS = [
    ("ミオ", "2D6+3>=10", [3, 4], 10, "success", 0),
    ("ミオ", "2D6+2>=9", [1, 2], 5, "failure", -4),
    ("ミオ", "2D6+1>10", [6, 6], 13, "success", 3),
    ("ソウ", "1D6", [4], 4, None, None),
    ("ソウ", "2D6+1D4", [5, 3, 4], 12, None, None),
]
TWO_D6_SESSION = [
    ("main", "GM", "それでは【心】で判定をどうぞ。目標値は10です。"),
    ("main", "ミオ", "2D6+3>=10 【心】判定 (2D6+3>=10) ＞ 7[3,4]+3 ＞ 10 ＞ 成功"),
    ("main", "ミオ", "2d6+2>=9 (2D6+2>=9) ＞ 3[1,2]+2 ＞ 5 ＞ 失敗"),
    ("main", "ミオ", "2D6+1>10 危険感知 (2D6+1>10) ＞ 12[6,6]+1 ＞ 13 ＞ 成功"),
    ("main", "ソウ", "1D6 (1D6) ＞ 4"),
    ("main", "ソウ", "2D6+1D4 (2D6+1D4) ＞ 8[5,3]+4[4] ＞ 12"),
    ("main", "ソウ", "K20 KeyNo.20c[10] ＞ 2D:[5,3]=8 ＞ 6"),  # Sword World's rating table
    ("main", "ソウ", "choice[右,左] (choice[右,左]) ＞ 左"),
    ("main", "GM", "シークレットダイス"),
    "<p><span> [main]</span><span>GM</span> : <span>truncated &lt;= (2D6",  # the file ends mid-message
]
TWO_D6_EXPECTED = {"messages": 10, "recorded": 5, "rolls": 5, "tables": 0, "duplicates": 0, "secret": 1,
                   "chat": 2, "other_system": 2, "unreadable": 0, "malformed": 0, "repaired": 1}
