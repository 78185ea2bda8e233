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
    return (
        f'\n<p style="color:{COLORS.get(speaker, "#212121")};">\n{tab_span}'
        f"  <span>{escape(speaker)}</span> :\n  <span>\n    {body}\n  </span>\n</p>\n"
    )


def build(items) -> str:
    """A whole export: messages are (tab, speaker, text) tuples, raw fragments are str."""
    return HEAD + "".join(item if isinstance(item, str) else paragraph(*item) for item in items) + TAIL


# (faces, total, outcome) of every roll the GURPS session records, in log order.
GURPS_ROLLS = [
    ("鈴音", "3D6<=12", [1, 4, 6], 11, "success", 1),
    ("刀矢", "3D6<=13", [5, 6, 5], 16, "failure", -3),
    ("鈴音", "3D6<=11", [2, 1, 1], 4, "critical_success", 7),
    ("刀矢", "3D6<=10", [6, 6, 6], 18, "critical_failure", -8),
    (None, "3D6<=10", [1, 4, 4], 9, "success", 1),  # GM's secret dice, shown in the log
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
GURPS_EXPECTED = {
    "messages": 17,
    "recorded": 12,
    "rolls": 10,
    "tables": 2,
    "duplicates": 0,
    "secret": 1,
    "chat": 2,
    "other_system": 1,
    "unreadable": 0,
    "contradictory": 1,
    "incomplete": 0,
    "malformed": 1,
    "repaired": 1,
}

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
TWO_D6_EXPECTED = {
    "messages": 10,
    "recorded": 5,
    "rolls": 5,
    "tables": 0,
    "duplicates": 0,
    "secret": 1,
    "chat": 2,
    "other_system": 2,
    "unreadable": 0,
    "contradictory": 0,
    "incomplete": 0,
    "malformed": 0,
    "repaired": 1,
}


# --- the other export formats, from ココフォリア's published description of them ---


def paragraph_compact(tab: str | None, speaker: str, text: str) -> str:
    """The `<p>` export's other indentation: the whole message on one line."""
    body = "<br>".join(escape(line, quote=False) for line in text.split("\n"))
    tab_span = f"<span>[{escape(tab)}]</span>" if tab is not None else ""
    return (
        f'<p style="color:{COLORS.get(speaker, "#212121")};">{tab_span}<span>{escape(speaker)}</span> : '
        f"<span>{body}</span></p>\n"
    )


def build_compact(items) -> str:
    return HEAD + "".join(item if isinstance(item, str) else paragraph_compact(*item) for item in items) + TAIL


def article(
    tab: str,
    speaker: str,
    text: str,
    result: str | None = None,
    at: str = "2025-04-12T12:00:00.000Z",
    element: str = "div",
) -> str:
    """One v1.37+ message: speaker, time, the typed text (`div` or `p`), BCDice's answer apart."""
    body = "<br>".join(escape(line, quote=False) for line in text.split("\n"))
    answer = f'\n    <span class="roll-result">{escape(result, quote=False)}</span>' if result else ""
    return (
        f'<article class="message" data-channel="{escape(tab)}" style="color:{COLORS.get(speaker, "#212121")}">\n'
        f'  <header><span class="speaker">{escape(speaker)}</span>\n'
        f'  <time class="timestamp" datetime="{at}">21:00</time></header>\n'
        f'  <{element} class="message-text">{body}</{element}>{answer}\n</article>\n'
    )


def build_articles(items) -> str:
    """items: (tab, speaker, text, result, at[, element]) tuples, or raw fragments."""
    return (
        HEAD.replace("<body>", '<body>\n<main class="log">')
        + "".join(item if isinstance(item, str) else article(*item) for item in items)
        + "</main>"
        + TAIL
    )


def json_log(items, images: dict | None = None) -> str:
    """The JSON log export: items are (channel, name, text, result, createdAt ms[, secret])."""
    import json

    messages = []
    for item in items:
        channel, name, text, result, created = item[:5]
        message = {
            "name": name,
            "text": text,
            "channel": channel,
            "channelName": channel,
            "createdAt": created,
            "color": COLORS.get(name, "#212121"),
            "type": "text",
        }
        if result is not None:
            message["extend"] = {"roll": {"result": result, **({"secret": True} if len(item) > 5 and item[5] else {})}}
        messages.append(message)
    return json.dumps(
        {"messages": messages, "images": images or {"bg": "https://example.invalid/bg.png"}},
        ensure_ascii=False,
        indent=1,
    )


def zip_parts(path, parts: list[str], name: str = "ルーム") -> None:
    """A split export: `name_1.html`, `name_2.html` ... (written out of order, read in order)."""
    import zipfile

    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for number in reversed(range(1, len(parts) + 1)):
            archive.writestr(f"{name}_{number}.html", parts[number - 1])


# Every shape the issue lists, in one `<p>` session (GURPS, --map すずね=鈴音 ソウ=刀矢).
SHAPES_SESSION = [
    ("main", "", "3d6<=12 (3D6<=12) ＞ 9[2,3,4] ＞ 9 ＞ 成功(成功度：3)"),  # an empty speaker
    ("main", "", ""),  # blank: chat
    (
        "main",
        "すずね",
        "x3 3d6<=12 回避\n#1\n(3D6<=12) ＞ 11[1,4,6] ＞ 11 ＞ 成功(成功度：1)\n\n#2\n"
        "(3D6<=12) ＞ 13[6,6,1] ＞ 13 ＞ 失敗(失敗度：-1)\n\n#3\n(3D6<=12) ＞ 4[1,1,2] ＞ 4 ＞ クリティカル(成功度：8)",
    ),
    ("main", "すずね", "repeat2 2d6 ダメージ #1 (2D6) ＞ 7[3,4] ＞ 7 #2 (2D6) ＞ 5[1,4] ＞ 5"),
    (
        "main",
        "GM",
        "sx2 3d6<=10 #1 (3D6<=10) ＞ 9[1,4,4] ＞ 9 ＞ 成功(成功度：1) #2 (3D6<=10) ＞ 12[4,4,4] ＞ 12 ＞ "
        "失敗(失敗度：-2)",
    ),  # secret repeat, revealed
    ("main", "ソウ", "3d6<=13 知覚\n(3D6<=13) ＞ 10[2,4,4] ＞ 10 ＞ 成功(成功度：3)"),  # the answer on the next line
    ("main", "ソウ", "13-3d6 隠密 (3D6<=13) ＞ 14[5,5,4] ＞ 14 ＞ 失敗(失敗度：-1)"),  # T-3D6
    ("main", "ソウ", "3d6-1<=13 (3D6-1<=13) ＞ 12 ＞ 成功(成功度：1)"),  # no bracketed dice
    ("main", "ソウ", "HIT 命中部位表(10)：胴体"),
    ("main", "すずね", "REACT+2 反応表(14)：良い"),
    ("main", "GM", "MFMB 呪文ファンブル表(8)：呪文が術者にかかる。"),
    ("main", "GM", "YSCRT 妖魔夜行スペシャルクリティカル表(6) ＞ ダメージ3倍。"),
    ("main", "GM", "CRT クリティカル表(13) ＞ 相手の防御点を無視。"),
    (
        "main",
        "すずね",
        "3d6<=12 回避 ＞ 頼む (3D6<=12) ＞ 8[1,3,4] ＞ 8 ＞ 成功(成功度：4)",
    ),  # a spaced ＞ in the comment
    ("main", "す ず ね", "3d6<=12 (3D6<=12) ＞ 10[3,3,4] ＞ 10 ＞ 成功(成功度：2)"),  # whitespace: the same speaker
    ("main", "すずね　", "3d6<=12 (3D6<=12) ＞ 6[1,2,3] ＞ 6 ＞ 成功(成功度：6)"),  # a trailing full-width space
    ("main", "ソウ", "3D6<=12 (3D6<=12) ＞ 18[6,6,6] ＞ 18 ＞ 成功"),  # contradictory
    ("main", "ソウ", "3D6 (3D6) ＞ 99"),  # contradictory
    ("main", "GM", "Secret dice 🎲"),  # secret, not shown
    ("main", "ソウ", "CCB<=50 (1D100<=50) ＞ 6 ＞ スペシャル"),  # another system
    ("main", "ソウ", "3D6<=12 恐怖判定 (3D6<=12) ＞ 15[5,5,5] ＞ 15 ＞ 失敗(失敗度：-3)"),
    ("main", "ソウ", "FEAR+3 恐怖表(14)：1D点疲労。さらに1Dターン朦朧状態。"),
]
# (speaker as mapped, expression, dice, total, outcome, margin, secret) of every roll, in order
SHAPES_ROLLS = [
    (None, "3D6<=12", [2, 3, 4], 9, "success", 3, False),
    ("鈴音", "3D6<=12", [1, 4, 6], 11, "success", 1, False),
    ("鈴音", "3D6<=12", [6, 6, 1], 13, "failure", -1, False),
    ("鈴音", "3D6<=12", [1, 1, 2], 4, "critical_success", 8, False),
    ("鈴音", "2D6", [3, 4], 7, None, None, False),
    ("鈴音", "2D6", [1, 4], 5, None, None, False),
    (None, "3D6<=10", [1, 4, 4], 9, "success", 1, True),
    (None, "3D6<=10", [4, 4, 4], 12, "failure", -2, True),
    ("刀矢", "3D6<=13", [2, 4, 4], 10, "success", 3, False),
    ("刀矢", "3D6<=13", [5, 5, 4], 14, "failure", -1, False),
    ("刀矢", "3D6-1<=13", None, 12, "success", 1, False),
    ("鈴音", "3D6<=12", [1, 3, 4], 8, "success", 4, False),
    ("鈴音", "3D6<=12", [3, 3, 4], 10, "success", 2, False),
    ("鈴音", "3D6<=12", [1, 2, 3], 6, "success", 6, False),
    ("刀矢", "3D6<=12", [5, 5, 5], 15, "failure", -3, False),
]
SHAPES_TABLES = [
    ("刀矢", "HIT", 10),
    ("鈴音", "REACT+2", 14),
    (None, "MFMB", 8),
    (None, "YSCRT", 6),
    (None, "CRT", 13),
    ("刀矢", "FEAR+3", 14),
]
SHAPES_EXPECTED = {
    "messages": 22,
    "recorded": 21,
    "rolls": 15,
    "tables": 6,
    "duplicates": 0,
    "secret": 1,
    "chat": 1,
    "other_system": 1,
    "unreadable": 0,
    "contradictory": 2,
    "incomplete": 0,
    "malformed": 0,
    "repaired": 0,
}
